import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createExecutor } from '../reading/executor.ts';
import { createSandbox } from '../reading/sandbox.ts';
import { encodingOf } from '../reading/encoding.ts';
import { applyFiles } from '../writing/apply.ts';
import { undoLast } from '../writing/undo.ts';
import { parseReply } from '../protocol/parse.ts';
import { renderResults, type Result } from '../protocol/results.ts';
import { tempFolder } from './helpers.ts';

// The tests write their fixtures with an encoder other than deepwork's own (Node's TextDecoder only decodes): bytes
// are spelled out for Windows-1251, and the other single-byte encodings are made by a table built from TextDecoder.
function singleByte(text: string, label: string): Buffer {
  const decoder = new TextDecoder(label);
  const table = new Map<string, number>();
  for (let b = 0; b < 256; b++) table.set(decoder.decode(Uint8Array.of(b)), b);
  return Buffer.from(
    [...text].map((c) => {
      const b = table.get(c);
      assert.ok(b !== undefined, `${c} has no byte in ${label}`);
      return b;
    }),
  );
}

function utf16le(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

const pascal = "procedure TForm1.Load;\r\nbegin\r\n  ShowMessage('Файл не найден');\r\nend;\r\n";
const onec = 'Процедура ЗагрузитьДанные() Экспорт\n  // Получаем список документов за период\nКонецПроцедуры\n';

async function need(root: string, reply: string): Promise<Result[]> {
  const executor = createExecutor(root);
  try {
    return await executor.answer(parseReply(reply).requests);
  } finally {
    await executor.close();
  }
}

describe('files in other encodings', () => {
  it('names the encoding of short Russian texts in Windows-1251, KOI8-R and CP866, and leaves UTF-8 as UTF-8', () => {
    for (const [label, name] of [
      ['windows-1251', 'windows-1251'],
      ['koi8-r', 'koi8-r'],
      ['ibm866', 'cp866'],
    ] as const) {
      for (const text of ['Привет, мир!\n', pascal, onec])
        assert.equal(encodingOf(singleByte(text, label)), name, `${label}: ${text.slice(0, 20)}`);
    }
    assert.equal(encodingOf(Buffer.from(onec)), 'utf8');
    assert.equal(encodingOf(Buffer.from('ascii only\n')), 'utf8');
    assert.equal(encodingOf(utf16le('x')), 'utf16le');
    // A UTF-8 sequence cut at the end of a sample is still UTF-8.
    assert.equal(encodingOf(Buffer.from('Привет').subarray(0, 5)), 'utf8');
  });

  it('sends Windows-1251, KOI8-R, CP866 and UTF-16 files to the model as the text they hold, saying so', async () => {
    const root = tempFolder({
      'Unit1.pas': singleByte(pascal, 'windows-1251'),
      'koi.txt': singleByte(onec, 'koi8-r'),
      'dos.bat': singleByte('rem Привет\r\n', 'ibm866'),
      'wide.txt': utf16le('Строка один\r\nСтрока два\r\n'),
    });
    const results = await need(root, '=== NEED: Unit1.pas, koi.txt, dos.bat, wide.txt:2 ===');
    const text = renderResults(results);
    assert.match(
      text,
      /=== RESULT NEED Unit1\.pas: 4 lines, read from Windows-1251 ===\n1 \| procedure TForm1\.Load;\r\n2 \| begin\r\n3 \| {3}ShowMessage\('Файл не найден'\);/,
    );
    assert.match(
      text,
      /=== RESULT NEED koi\.txt: 3 lines, read from KOI8-R ===\n1 \| Процедура ЗагрузитьДанные\(\) Экспорт/,
    );
    assert.match(text, /=== RESULT NEED dos\.bat: 1 line, read from CP866 ===\n1 \| rem Привет/);
    assert.match(text, /=== RESULT NEED wide\.txt:2: lines 2-2 of 2, read from UTF-16LE ===\n2 \| Строка два/);
  });

  it('shows FIND hits in a Windows-1251 file as the Cyrillic text they are', async () => {
    const root = tempFolder({ 'Unit1.pas': singleByte(pascal, 'windows-1251') });
    const [found] = await need(root, '=== FIND: ShowMessage ===');
    assert.deepEqual(found?.kind === 'find' ? found.hits.map((h) => h.text) : [], ["  ShowMessage('Файл не найден');"]);
  });

  it('keeps binary files binary: no encoding is guessed for them', async () => {
    const noise = Buffer.from(Array.from({ length: 6000 }, (_, i) => ((i * 7919) % 251) + 1));
    // Bytes with no NUL and no signature, not valid UTF-8: what a detector would happily name an encoding for.
    const root = tempFolder({
      'noise.bin': noise,
      'app.png': Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), noise]),
    });
    const results = await need(root, '=== NEED: noise.bin, app.png ===');
    assert.deepEqual(
      results.map((r) => r.kind),
      ['binary', 'binary'],
    );
  });

  it('writes an EDIT of a Windows-1251 file back in Windows-1251, every other byte as it was; undo restores it', async () => {
    const before = singleByte(pascal, 'windows-1251');
    const root = tempFolder({ 'Unit1.pas': before });
    const backupDir = path.join(tempFolder(), 'backup');
    const box = createSandbox(root, { backupDir });
    const reply =
      "=== EDIT: Unit1.pas ===\n<<<<<<< SEARCH\n  ShowMessage('Файл не найден');\n=======\n  ShowMessage('Файл не найден: ' + Name);\n>>>>>>> REPLACE\n=== END ===";
    const report = await applyFiles(box, parseReply(reply).proposals, { backupDir });
    assert.equal(report.files[0]?.status, 'changed', JSON.stringify(report.files));
    const after = fs.readFileSync(path.join(root, 'Unit1.pas'));
    assert.deepEqual(after, singleByte(pascal.replace("найден');", "найден: ' + Name);"), 'windows-1251'));
    undoLast(box, backupDir);
    assert.deepEqual(fs.readFileSync(path.join(root, 'Unit1.pas')), before);
  });

  it('writes a UTF-16 file back in UTF-16 with its byte order mark and CRLF', async () => {
    const root = tempFolder({ 'wide.txt': utf16le('Строка один\r\nСтрока два\r\n') });
    const backupDir = path.join(tempFolder(), 'backup');
    const reply = '=== EDIT: wide.txt ===\n<<<<<<< SEARCH\nСтрока два\n=======\nСтрока 2\n>>>>>>> REPLACE\n=== END ===';
    await applyFiles(createSandbox(root, { backupDir }), parseReply(reply).proposals, { backupDir });
    assert.deepEqual(fs.readFileSync(path.join(root, 'wide.txt')), utf16le('Строка один\r\nСтрока 2\r\n'));
  });

  it("refuses a change the file's encoding cannot hold, naming the character and its line", async () => {
    const root = tempFolder({ 'Unit1.pas': singleByte(pascal, 'windows-1251') });
    const backupDir = path.join(tempFolder(), 'backup');
    const reply =
      "=== FILE: Unit1.pas ===\nprocedure TForm1.Load;\nbegin\n  ShowMessage('Готово ✓');\nend;\n=== END ===";
    const report = await applyFiles(createSandbox(root, { backupDir }), parseReply(reply).proposals, { backupDir });
    assert.equal(report.files[0]?.status, 'refused');
    assert.match(report.files[0]?.reason ?? '', /the new text has "✓" \(line 3\), which Windows-1251 cannot hold/);
    assert.deepEqual(fs.readFileSync(path.join(root, 'Unit1.pas')), singleByte(pascal, 'windows-1251'));
  });
});
