import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempFolder } from './helpers.ts';
import { applyEdit, type EditOutcome } from '../protocol/edit.ts';
import { parseReply, type EditBlock } from '../protocol/parse.ts';

const file = [
  'function a() {',
  '  if (x) {',
  '    return 1;',
  '  }',
  '}',
  '',
  'function b() {',
  '  return 2;',
  '}',
  '',
].join('\n');

function text(outcome: EditOutcome): string {
  assert.ok(outcome.ok, outcome.ok ? '' : `${outcome.problem}\n${outcome.lines}`);
  return outcome.text;
}

function failure(outcome: EditOutcome): Extract<EditOutcome, { ok: false }> {
  assert.ok(!outcome.ok, 'the edit applied');
  return outcome;
}

describe('applyEdit: matching', () => {
  it('replaces lines that match exactly', () => {
    assert.equal(
      text(applyEdit(file, [{ search: '  return 2;\n', replace: '  return 3;\n' }])),
      file.replace('return 2;', 'return 3;'),
    );
  });

  it('applies pairs in order, a later one seeing what an earlier one wrote', () => {
    const out = text(
      applyEdit(file, [
        { search: 'function b() {\n', replace: 'function c() {\n' },
        { search: 'function c() {\n  return 2;\n', replace: 'function c() {\n  return 4;\n' },
      ]),
    );
    assert.ok(out.includes('function c() {\n  return 4;\n}'));
  });

  it('matches whole lines only: a SEARCH that is part of a line is not a match', () => {
    failure(applyEdit(file, [{ search: 'return 2', replace: 'return 3' }]));
    failure(applyEdit(file, [{ search: 'unction b() {\n', replace: 'x\n' }]));
  });

  it('deletes lines with an empty REPLACE', () => {
    assert.equal(
      text(applyEdit(file, [{ search: 'function b() {\n  return 2;\n}\n', replace: '' }])),
      'function a() {\n  if (x) {\n    return 1;\n  }\n}\n\n',
    );
  });

  it('adds at the end of the file for an empty SEARCH, and makes a new file from nothing', () => {
    assert.equal(text(applyEdit('a\n', [{ search: '', replace: 'b\n' }])), 'a\nb\n');
    assert.equal(text(applyEdit('a', [{ search: '\n', replace: 'b' }])), 'a\nb\n');
    assert.equal(text(applyEdit('', [{ search: '', replace: 'new\n' }])), 'new\n');
  });

  it('matches an LF SEARCH in a CRLF file (the result is LF; the file conventions restore CRLF)', () => {
    assert.equal(text(applyEdit('a\r\nb\r\nc\r\n', [{ search: 'b\n', replace: 'B\n' }])), 'a\nB\nc\n');
    assert.equal(text(applyEdit('a\nb\n', [{ search: 'b\r\n', replace: 'B\r\n' }])), 'a\nB\n');
  });

  it('keeps a missing final newline missing', () => {
    assert.equal(text(applyEdit('a\nb', [{ search: 'b\n', replace: 'c\n' }])), 'a\nc');
  });

  it('forgives trailing whitespace on either side', () => {
    assert.equal(text(applyEdit('a  \nb\n', [{ search: 'a\n', replace: 'A\n' }])), 'A\nb\n');
    assert.equal(text(applyEdit('a\nb\n', [{ search: 'a   \n', replace: 'A\n' }])), 'A\nb\n');
  });

  it('matches a SEARCH that lost the indentation of nested code, and indents the REPLACE the same', () => {
    const out = text(
      applyEdit(file, [{ search: 'if (x) {\n  return 1;\n}\n', replace: 'if (x) {\n  return 10;\n}\nelse {}\n' }]),
    );
    assert.ok(out.includes('  if (x) {\n    return 10;\n  }\n  else {}\n}'), out);
  });

  it('matches a SEARCH with more indentation than the file, and takes it off the REPLACE', () => {
    const out = text(
      applyEdit('x\ny {\n  z\n}\n', [{ search: '    y {\n      z\n    }\n', replace: '    y {\n      z2\n    }\n' }]),
    );
    assert.equal(out, 'x\ny {\n  z2\n}\n');
  });

  it('refuses an indentation that differs from line to line', () => {
    failure(applyEdit('a {\n  b\n}\n', [{ search: 'a {\nb\n  }\n', replace: 'x\n' }]));
  });

  it('takes off line numbers copied from NEED, in the SEARCH and in the REPLACE lines that carry them', () => {
    const out = text(
      applyEdit(file, [
        {
          search: '7 | function b() {\n8 |   return 2;\n',
          replace: '7 | function b() {\n  const y = 2;\n8 |   return y;\n',
        },
      ]),
    );
    assert.ok(out.includes('function b() {\n  const y = 2;\n  return y;\n}'), out);
  });

  it('refuses a SEARCH found more than once, naming where', () => {
    const twice = 'x\n}\ny\n}\n';
    const outcome = failure(applyEdit(twice, [{ search: '}\n', replace: '};\n' }]));
    assert.match(outcome.problem, /matches in 2 places \(lines 2 and 4\); add lines around it so it is unique/);
  });

  it('refuses a SEARCH found nowhere, showing the closest lines of the file with their numbers', () => {
    const outcome = failure(applyEdit(file, [{ search: 'function b() {\n  return 22;\n}\n', replace: 'x\n' }]));
    assert.match(outcome.problem, /matches no lines of the file/);
    assert.match(outcome.lines, /^5 \| }\n6 \|\n7 \| function b\(\) \{\n8 \| {3}return 2;\n9 \| }$/);
    assert.equal(failure(applyEdit(file, [{ search: 'nothing like it\n', replace: 'x\n' }])).lines, '');
  });

  it('shows the lines most like a SEARCH with a typo, when none of its lines occurs as it is', () => {
    const outcome = failure(applyEdit(file, [{ search: '  retrun 2;\n', replace: 'x\n' }]));
    assert.match(outcome.lines, /^6 \|\n7 \| function b\(\) \{\n8 \| {3}return 2;\n9 \| }$/);
  });

  it('fails the whole edit at the first pair that does not apply, naming it', () => {
    const outcome = failure(
      applyEdit(file, [
        { search: '  return 2;\n', replace: '  return 3;\n' },
        { search: 'missing\n', replace: '' },
      ]),
    );
    assert.equal(outcome.pair, 2);
  });

  it('numbers the closest lines of a later pair as the file stood before the block, as the model saw it', () => {
    const outcome = failure(
      applyEdit(file, [
        { search: 'function a() {\n', replace: '// a\n// b\nfunction a() {\n' },
        { search: 'function b() {\n  return 22;\n', replace: '' },
      ]),
    );
    assert.match(outcome.lines, /^5 \| }\n6 \|\n7 \| function b\(\) \{/);
  });

  it('applies a fuzzier way only when the exact one finds nothing, never a near miss', () => {
    failure(applyEdit(file, [{ search: 'function b() {\n  return 2\n}\n', replace: 'x\n' }]));
  });
});

describe('applyEdit: the work of one EDIT', () => {
  it('refuses an EDIT of more than 100 pairs before applying any, naming the cap', () => {
    const pairs = Array.from({ length: 101 }, () => ({ search: '  return 2;\n', replace: '  return 2;\n' }));
    const outcome = failure(applyEdit(file, pairs));
    assert.deepEqual(
      [outcome.pair, outcome.problem, outcome.lines],
      [101, 'it holds 101 SEARCH/REPLACE pairs, and one EDIT takes at most 100', ''],
    );
    assert.equal(text(applyEdit(file, pairs.slice(0, 100))), file);
  });

  it('finds a SEARCH that starts inside a partial match of itself, each way, and counts overlapping matches', () => {
    assert.equal(text(applyEdit('a\na\na\nb\n', [{ search: 'a\na\nb\n', replace: 'c\n' }])), 'a\nc\n');
    assert.equal(text(applyEdit('a \na \na \nb\n', [{ search: 'a\na\nb\n', replace: 'c\n' }])), 'a \nc\n');
    assert.equal(text(applyEdit('  a\n  a\n  a\n  b\n', [{ search: 'a\na\nb\n', replace: 'c\n' }])), '  a\n  c\n');
    assert.match(
      failure(applyEdit('x\nx\nx\n', [{ search: 'x\nx\n', replace: 'y\n' }])).problem,
      /matches in 2 places \(lines 1 and 2\)/,
    );
    assert.match(
      failure(applyEdit('x\n'.repeat(9), [{ search: 'x\nx\n', replace: 'y\n' }])).problem,
      /matches in more than 3 places \(lines 1, 2, 3 and more\)/,
    );
  });

  it('matches a SEARCH of 100,000 equal lines in a file of 200,000 such lines without comparing each line with each', () => {
    // In a process of its own, killed if it hangs: trying the SEARCH at every line of the file took minutes here.
    const script = path.join(tempFolder(), 'match.mjs');
    fs.writeFileSync(
      script,
      [
        `import { applyEdit } from ${JSON.stringify(new URL('../protocol/edit.js', import.meta.url).href)};`,
        "const same = 'the same line\\n';",
        "const missing = applyEdit(same.repeat(200_000), [{ search: same.repeat(100_000) + 'another line\\n', replace: 'x\\n' }]);",
        "const found = applyEdit(same.repeat(200_000) + 'the end\\n', [{ search: same.repeat(100_000) + 'the end\\n', replace: 'x\\n' }]);",
        "process.stdout.write(JSON.stringify([missing.ok ? '' : missing.problem, found.ok && found.text === same.repeat(100_000) + 'x\\n']));",
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.signal === null ? run.stderr : `still matching after 60 s (${run.signal})`);
    const [missing, found] = JSON.parse(run.stdout) as [string, boolean];
    assert.match(missing, /^the SEARCH matches no lines of the file/);
    assert.equal(found, true);
  });
});

describe('parseReply: EDIT blocks', () => {
  function edit(reply: string): EditBlock {
    const [only, ...more] = parseReply(reply).edits;
    assert.equal(more.length, 0);
    assert.ok(only);
    return only;
  }

  it('reads the pairs of an EDIT block, in order', () => {
    const block = edit(
      'Change:\n=== EDIT: lib/a.js ===\n<<<<<<< SEARCH\na\n=======\nA\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nb\nc\n=======\n>>>>>>> REPLACE\n=== END ===\nDone.',
    );
    assert.deepEqual(block.pairs, [
      { search: 'a\n', replace: 'A\n' },
      { search: 'b\nc\n', replace: '' },
    ]);
    assert.equal(block.path, 'lib/a.js');
    assert.equal(block.complete, true);
    assert.equal(block.problem, undefined);
  });

  it('reads an EDIT whose body is in a fence, with the marker lengths models use', () => {
    const block = edit(
      '=== EDIT: a.py ===\n```python\n<<<<< SEARCH\n    x = 1\n=========\n    x = 2\n>>>>>>>>> REPLACE\n```\n=== END ===',
    );
    assert.deepEqual(block.pairs, [{ search: '    x = 1\n', replace: '    x = 2\n' }]);
  });

  it('takes requests and END-like lines inside an EDIT as content', () => {
    const reply =
      '=== EDIT: doc.md ===\n<<<<<<< SEARCH\n=== NEED: a.js ===\n=======\nNEED: b.js\n>>>>>>> REPLACE\n=== END ===';
    const parsed = parseReply(reply);
    assert.deepEqual([parsed.requests, parsed.unclear], [[], []]);
    assert.deepEqual(parsed.edits[0]?.pairs, [{ search: '=== NEED: a.js ===\n', replace: 'NEED: b.js\n' }]);
  });

  it('says what is wrong with a body that is not pairs', () => {
    assert.match(edit('=== EDIT: a ===\njust text\n=== END ===').problem ?? '', /holds no <<<<<<< SEARCH/);
    assert.match(
      edit('=== EDIT: a ===\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n=== END ===').problem ?? '',
      /pair 1 has no ======= line/,
    );
    assert.match(
      edit('=== EDIT: a ===\n<<<<<<< SEARCH\nx\n=======\ny\n=== END ===').problem ?? '',
      /pair 1 has no >>>>>>> REPLACE line/,
    );
  });

  it('marks an EDIT cut off before its END as incomplete', () => {
    assert.equal(edit('=== EDIT: a ===\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n').complete, false);
  });

  it('keeps FILE and EDIT blocks in the order they stand', () => {
    const parsed = parseReply(
      '=== EDIT: a ===\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n=== END ===\n=== FILE: b ===\nb\n=== END ===',
    );
    assert.deepEqual(
      parsed.proposals.map((p) => `${p.kind} ${p.path}`),
      ['edit a', 'file b'],
    );
  });
});
