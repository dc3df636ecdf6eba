// The one reader of a file's text (reading/text.ts) and its users: NEED, the check of an EDIT, the preview and the
// apply, FIND's key test, and a continued conversation. They must agree on what is withheld (a private key, in any
// encoding), what is binary and what cannot be changed.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createExecutor } from '../reading/executor.ts';
import { holdsPrivateKey, privateKeyLine } from '../reading/private-keys.ts';
import { readText, TEXT_READ_BYTES } from '../reading/text.ts';
import { parseReply, type EditBlock, type FileBlock } from '../protocol/parse.ts';
import { renderResults, type Result } from '../protocol/results.ts';
import { runLoop } from '../protocol/loop.ts';
import type { Bridge } from '../protocol/contract.ts';
import { loadTexts } from '../protocol/transcript.ts';
import { applyFiles, previewFiles } from '../writing/apply.ts';
import { createSandbox } from '../reading/sandbox.ts';
import { runQuestion } from '../app/question.ts';
import type { Turn } from '../protocol/conversation.ts';
import { tempFolder } from './helpers.ts';

// Built from pieces, so that this file is not itself taken for a key.
const BEGIN = (label: string) => `-----${'BEGIN'} ${label}-----`;
const END = (label: string) => `-----${'END'} ${label}-----`;
const BODY_LINES = Array.from(
  { length: 50 },
  (_, i) => `MIIJQgIBADANBgkqhkiG9w0BAQEFAASCCSwwggkoAgEAAoICAQC${String(i).padStart(13, 'x')}`,
);
const PEM = [BEGIN('PRIVATE KEY'), ...BODY_LINES, END('PRIVATE KEY')].join('\n');

async function ask(root: string, reply: string): Promise<Result[]> {
  const executor = createExecutor(root);
  try {
    return await executor.answer(parseReply(reply).requests);
  } finally {
    await executor.close();
  }
}

function scripted(replies: string[]): Bridge & { seen: string[] } {
  const seen: string[] = [];
  return {
    label: 'scripted',
    seen,
    chat: (message) => {
      seen.push(message);
      return Promise.resolve({ text: replies[seen.length - 1] ?? 'done' });
    },
  };
}

const fileBlock = (p: string, content: string): FileBlock => ({
  kind: 'file',
  path: p,
  content,
  complete: true,
  line: 1,
});
const editBlock = (p: string, search: string, replace: string): EditBlock => ({
  kind: 'edit',
  path: p,
  pairs: [{ search, replace }],
  complete: true,
  line: 1,
  problem: undefined,
});

function utf16(text: string, order: 'le' | 'be'): Buffer {
  const le = Buffer.from(`\uFEFF${text}`, 'utf16le');
  return order === 'le' ? le : le.swap16();
}

describe('private keys, found by their content', () => {
  it('counts a key only with its body: a README quoting the BEGIN line is no key', () => {
    assert.equal(
      privateKeyLine(
        `To make one, run ssh-keygen; the file starts with\n${BEGIN('OPENSSH PRIVATE KEY')}\nand ends with its END line.\n`,
      ),
      undefined,
    );
    assert.equal(privateKeyLine(`Example:\n${BEGIN('RSA PRIVATE KEY')}\n...\n${END('RSA PRIVATE KEY')}\n`), undefined);
    assert.equal(
      privateKeyLine(`Example:\n${BEGIN('RSA PRIVATE KEY')}\n<your key here>\n${END('RSA PRIVATE KEY')}\n`),
      undefined,
    );
  });

  it('finds a key with its body, says its line, and finds one in a JSON string, with headers, or folded on one line', () => {
    assert.equal(privateKeyLine(`notes\n\n${PEM}\n`), 3);
    const json = JSON.stringify({ type: 'service_account', private_key: `${PEM}\n` }, null, 2);
    assert.equal(privateKeyLine(json), 3);
    assert.equal(
      privateKeyLine(
        `${BEGIN('RSA PRIVATE KEY')}\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n${BODY_LINES[0]}\n`,
      ),
      1,
    );
    assert.equal(privateKeyLine(`KEY="${BEGIN('PRIVATE KEY')} ${BODY_LINES.join('')} ${END('PRIVATE KEY')}"\n`), 1);
    assert.ok(holdsPrivateKey(Buffer.from(`x\n${PEM}\n`)));
  });

  it('finds a key in UTF-16, LE and BE, with or without its byte order mark', () => {
    for (const order of ['le', 'be'] as const) {
      assert.ok(holdsPrivateKey(utf16(`config\r\n${PEM}\r\n`, order)), order);
      assert.ok(holdsPrivateKey(utf16(`config\r\n${PEM}\r\n`, order).subarray(2)), `${order} without a BOM`);
    }
    assert.equal(holdsPrivateKey(utf16(`just text, ${BEGIN('PRIVATE KEY')} and no body`, 'le')), false);
  });
});

describe('NEED and FIND withhold a key in any encoding', () => {
  it('withholds a UTF-16 file holding a key, as PowerShell 5.1 writes it (LE and BE, with a BOM)', async () => {
    const root = tempFolder({
      'le.txt': utf16(`server config\r\n${PEM}\r\n`, 'le'),
      'be.txt': utf16(`server config\r\n${PEM}\r\n`, 'be'),
      'fine.txt': utf16('Привет\r\n', 'le'),
    });
    const results = await ask(root, '=== NEED: le.txt, be.txt, fine.txt ===');
    assert.deepEqual(
      results.map((r) => r.kind),
      ['withheld', 'withheld', 'file'],
    );
    assert.match(renderResults(results), /NEED le\.txt: withheld: it holds a private key \(line 2\)/);
    assert.doesNotMatch(renderResults(results), /MIIJ/);
  });

  it('sends a README that quotes a key header without a body, and withholds one with a body', async () => {
    const root = tempFolder({
      'README.md': `# Keys\n\nThe file begins with \`${BEGIN('OPENSSH PRIVATE KEY')}\`:\n\n    ${BEGIN('OPENSSH PRIVATE KEY')}\n    ...\n`,
      'deploy/key.txt': `deploy with\n${PEM}\n`,
    });
    const [readme, key] = await ask(root, '=== NEED: README.md, deploy/key.txt ===');
    assert.equal(readme?.kind, 'file');
    assert.equal(key?.kind, 'withheld');
    const find = await ask(root, '=== FIND: PRIVATE KEY ===');
    assert.deepEqual(find[0]?.kind === 'find' ? find[0].hits.map((h) => h.path) : [], ['README.md', 'README.md']);
  });

  it('gives no FIND hits from a file that NEED calls binary for its control characters', async () => {
    const controls = Buffer.from(Array.from({ length: 4_000 }, (_, i) => [0x41, 0x01, 0x42, 0x02][i % 4] ?? 0x41));
    const root = tempFolder({
      'controls.dat': Buffer.concat([Buffer.from('needle_c\n'), controls]),
      'a.txt': 'needle_c\n',
    });
    assert.equal((await ask(root, '=== NEED: controls.dat ==='))[0]?.kind, 'binary');
    const [find] = await ask(root, '=== FIND: needle_c ===');
    assert.deepEqual(find?.kind === 'find' ? find.hits.map((h) => h.path) : [], ['a.txt']);
  });
});

describe('the check of an EDIT reads through the same reader', () => {
  const filler = Array.from({ length: 37 }, (_, i) => `filler ${i}`).join('\n');

  // The attack: a SEARCH that matches nothing makes the "not kept" result quote the file's closest lines.
  it('never quotes a file holding a private key in its closest lines, however the path is spelled', async () => {
    const root = tempFolder({ 'config/server.txt': `# server\n${PEM}\n` });
    const edits = ['config/server.txt', 'config//server.txt', './config/server.txt'].map(
      (p) =>
        `=== EDIT: ${p} ===\n<<<<<<< SEARCH\n${BEGIN('PRIVATE KEY')}\n${filler}\n=======\nx\n>>>>>>> REPLACE\n=== END ===`,
    );
    const bridge = scripted([...edits.slice(0, 2), edits[2] ?? '', 'done']);
    const executor = createExecutor(root);
    try {
      await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 5 });
    } finally {
      await executor.close();
    }
    const told = bridge.seen.slice(1).join('\n');
    assert.match(
      told,
      /EDIT config\/server\.txt: not kept ===\nconfig\/server\.txt cannot be edited: it holds a private key \(line 2\)\./,
    );
    assert.doesNotMatch(told, /MIIJ/);
    assert.doesNotMatch(told, /The closest lines/);
  });

  it('tells the model an EDIT of a file that does not read back byte for byte cannot be made (bytes that are not UTF-8 after a UTF-8 BOM)', async () => {
    const root = tempFolder({
      'a.txt': Buffer.concat([
        Buffer.from('\uFEFFalpha\n'),
        Buffer.from([0xff, 0xfe, 0x41, 0x0a]),
        Buffer.from('omega\n'),
      ]),
    });
    const bridge = scripted([
      '=== EDIT: a.txt ===\n<<<<<<< SEARCH\nalpha\n=======\nALPHA\n>>>>>>> REPLACE\n=== END ===',
      'done',
    ]);
    const executor = createExecutor(root);
    try {
      await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 3 });
    } finally {
      await executor.close();
    }
    assert.match(bridge.seen[1] ?? '', /a\.txt cannot be edited: it does not read back byte for byte as UTF-8/);
  });
});

describe('the preview and the apply read through the same reader', () => {
  function setup(files: Record<string, string | Buffer>) {
    const root = tempFolder(files, 'deepwork-project-');
    const backupDir = path.join(tempFolder({}, 'deepwork-backups-'), 'backup');
    return { root, backupDir, box: createSandbox(root, { backupDir }) };
  }

  it('refuses to replace a file holding a private key, and shows no diff of it', async () => {
    const { root, box, backupDir } = setup({ 'config/server.txt': `# server\n${PEM}\n` });
    const [preview] = previewFiles(box, [fileBlock('config/server.txt', 'nothing\n')], { diff: true });
    assert.equal(preview?.status, 'refused');
    assert.match(preview?.reason ?? '', /holds a private key \(line 2\); deepwork does not write such files/);
    assert.equal(preview?.diff, undefined);
    const report = await applyFiles(box, [fileBlock('config/server.txt', 'nothing\n')], { backupDir });
    assert.equal(report.files[0]?.written, false);
    assert.match(fs.readFileSync(path.join(root, 'config/server.txt'), 'utf8'), /MIIJ/);
  });

  it('refuses a FILE over a text file too large to read whole, saying its size, instead of failing', async () => {
    const root = tempFolder({}, 'deepwork-big-', true);
    const big = path.join(root, 'big.log');
    const line = 'a log line of some length, as logs have\n';
    fs.writeFileSync(big, line.repeat(Math.ceil((TEXT_READ_BYTES + 1_000_000) / line.length)));
    const box = createSandbox(root, {});
    const [preview] = previewFiles(box, [fileBlock('big.log', 'short\n')], { diff: true });
    assert.equal(preview?.status, 'refused');
    assert.match(preview?.reason ?? '', /^too large to replace: it is 17 MB, over the 16 MB deepwork reads whole$/);
    const report = await applyFiles(box, [editBlock('big.log', 'a log line', 'x')], {
      backupDir: path.join(tempFolder(), 'b'),
    });
    assert.equal(report.files[0]?.status, 'refused');
    assert.equal(fs.statSync(big).size % line.length, 0);
  });

  it('refuses to edit a file whose bytes after a UTF-8 BOM are not UTF-8, or whose last character is cut, leaving it as it was', async () => {
    const broken = Buffer.concat([
      Buffer.from('\uFEFFalpha\n'),
      Buffer.from([0xcf, 0xf0, 0xe8, 0x0a]),
      Buffer.from('omega\n'),
    ]);
    const cut = Buffer.concat([Buffer.from('\uFEFFalpha\nomega ', 'utf8'), Buffer.from([0xe2, 0x82])]);
    const { root, box, backupDir } = setup({ 'broken.txt': broken, 'cut.txt': cut });
    const report = await applyFiles(
      box,
      [editBlock('broken.txt', 'alpha', 'ALPHA'), editBlock('cut.txt', 'alpha', 'ALPHA')],
      { backupDir },
    );
    for (const f of report.files) {
      assert.equal(f.status, 'refused', f.path);
      assert.match(f.reason ?? '', /does not read back byte for byte as UTF-8/);
    }
    assert.deepEqual(fs.readFileSync(path.join(root, 'broken.txt')), broken);
    assert.deepEqual(fs.readFileSync(path.join(root, 'cut.txt')), cut);
  });

  it('does not replace blind a file that NEED calls binary further in: NEED and apply agree', async () => {
    const dump = Buffer.concat([
      Buffer.from('HEADER v1\n'.repeat(1_000)),
      Buffer.from(Array.from({ length: 50_000 }, (_, i) => ((i * 7919) % 255) + 1)),
    ]);
    const { box, backupDir, root } = setup({ 'dump.log': dump });
    assert.equal((await ask(root, '=== NEED: dump.log ==='))[0]?.kind, 'binary');
    const report = await applyFiles(box, [fileBlock('dump.log', 'HEADER v2\n')], { backupDir });
    assert.equal(report.files[0]?.status, 'refused');
    assert.match(
      report.files[0]?.reason ?? '',
      /^it is binary \(from line 1,001 on it is mostly control characters\); deepwork replaces text files only$/,
    );
  });
});

describe('a continued conversation', () => {
  it('does not send again a result that holds a private key, kept by an older deepwork or an edited state file', async () => {
    const root = tempFolder({ 'a.txt': 'a\n' });
    const earlier: Turn[] = [
      {
        question: 'what is in the config?',
        steps: [
          {
            step: 1,
            answer: '=== EDIT: c.txt ===',
            results: [
              {
                text: `=== RESULT EDIT c.txt: not kept ===\nThe closest lines:\n${PEM}\n=== END RESULT ===`,
                note: '[The result of EDIT c.txt was dropped to fit the window.]',
              },
            ],
          },
        ],
        answer: 'It holds a key.',
      },
    ];
    const bridge = scripted(['The answer.']);
    const executor = createExecutor(root);
    try {
      await runQuestion({
        bridge,
        executor,
        question: 'and now?',
        backupDir: tempFolder(),
        files: [],
        piped: undefined,
        steps: 2,
        contextTokens: undefined,
        stateDir: tempFolder(),
        earlier,
        conversationId: 'c1',
        signal: new AbortController().signal,
        onEvent: () => {},
      });
    } finally {
      await executor.close();
    }
    assert.doesNotMatch(bridge.seen[0] ?? '', /MIIJ/);
    assert.match(bridge.seen[0] ?? '', /\[The result of EDIT c\.txt was dropped to fit the window\.\]/);
  });
});

describe('readText', () => {
  it('reads text in its encoding, and says why not for binary, too large, and unreadable files', () => {
    const root = tempFolder({
      'a.txt': 'hello\n',
      'b.bin': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]),
      'ru.txt': Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x0a]),
    });
    const a = readText(path.join(root, 'a.txt'));
    assert.equal(a.kind === 'text' ? a.text : a.kind, 'hello\n');
    const ru = readText(path.join(root, 'ru.txt'));
    assert.equal(ru.kind === 'text' ? `${ru.encoding} ${ru.text}` : ru.kind, 'windows-1251 Привет\n');
    const bin = readText(path.join(root, 'b.bin'));
    assert.deepEqual(bin.kind === 'unfit' ? bin.why : bin.kind, { kind: 'binary', what: 'a PNG image' });
    const small = readText(path.join(root, 'a.txt'), 3);
    assert.deepEqual(small.kind === 'unfit' ? small.why : small.kind, { kind: 'too-large', bytes: 6, limit: 3 });
    const gone = readText(path.join(root, 'none.txt'));
    assert.deepEqual(gone.kind === 'unfit' ? gone.why : gone.kind, { kind: 'unreadable', code: 'ENOENT' });
  });
});
