import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempFolder } from './helpers.ts';
import { applyEachPair, applyEdit, type EditOutcome } from '../protocol/edit.ts';
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

describe('applyEachPair: the pairs that apply, when others do not', () => {
  it('passes over the pairs that do not apply, and the others alone make the same text', () => {
    const text = 'a\nb\nc\nb\n';
    const pairs = [
      { search: 'a\n', replace: 'A\n' },
      { search: 'b\n', replace: 'B\n' },
      { search: 'x\n', replace: 'X\n' },
      { search: 'c\n', replace: 'C\n' },
    ];
    const done = applyEachPair(text, pairs);
    assert.equal(done.text, 'A\nb\nC\nb\n');
    assert.deepEqual(
      done.missed.map((m) => [m.pair, m.problem.slice(0, 35)]),
      [
        [2, 'the SEARCH matches in 2 places (lin'],
        [3, 'the SEARCH matches no lines of the '],
      ],
    );
    const kept = pairs.filter((_, i) => i === 0 || i === 3);
    assert.deepEqual(applyEdit(text, kept), { ok: true, text: done.text, pairs: 2 });
    // All or nothing still stops at the first that does not apply.
    assert.deepEqual((({ ok, pair }) => [ok, pair])(applyEdit(text, pairs) as Extract<EditOutcome, { ok: false }>), [
      false,
      2,
    ]);
  });
});

describe('applyEachPair: a SEARCH found twice, once in the lines the model read', () => {
  const text =
    'class Mixin:\n    limit: int\n    trust: bool\n\n\nclass Session:\n    limit: int\n    trust: bool\n    more: str\n';
  const pair = {
    search: '    limit: int\n    trust: bool\n',
    replace: '    limit: int\n    timeout: float\n    trust: bool\n',
  };

  it('is made there, and kept with the lines around it that make it found once', () => {
    const done = applyEachPair(text, [pair], [[6, 9]]);
    assert.deepEqual(done.missed, []);
    assert.equal(done.text, text.replace('    trust: bool\n    more', '    timeout: float\n    trust: bool\n    more'));
    const [kept] = done.kept;
    assert.deepEqual(kept, {
      search: 'class Session:\n    limit: int\n    trust: bool\n',
      replace: 'class Session:\n    limit: int\n    timeout: float\n    trust: bool\n',
    });
    // Written as kept, on the file as it was: found once, the same text.
    assert.deepEqual(applyEdit(text, done.kept), { ok: true, text: done.text, pairs: 1 });
  });

  it('is refused as before when both places, or neither, were read', () => {
    for (const read of [[[1, 9]] as const, [[4, 5]] as const, []]) {
      const [miss] = applyEachPair(text, [pair], read).missed;
      assert.match(miss?.problem ?? '', /^the SEARCH matches in 2 places \(lines 2 and 7\)/);
    }
  });
});

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

  it('says when a line of the SEARCH is only part of a line of the file, and shows that line', () => {
    const doc = '# Retry\n\n- `limit`: how many times to retry a request before giving up (default 2)\n- `delay`: ms\n';
    const miss = failure(applyEdit(doc, [{ search: 'before giving up (default 2)\n- `delay`: ms\n', replace: 'x\n' }]));
    assert.match(
      miss.problem,
      /; line 1 of your SEARCH is only part of line 3 of the file: a SEARCH holds whole lines, so copy the whole line$/,
    );
    assert.match(miss.lines, /^3 \| - `limit`: how many times/m);
    // A piece found inside several lines names none of them.
    const two = failure(applyEdit(`${doc}${doc}`, [{ search: 'before giving up (default 2)\n', replace: 'x\n' }]));
    assert.doesNotMatch(two.problem, /only part of/);
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
    // No blank line between, unless the REPLACE starts with one (as the instructions say).
    assert.equal(text(applyEdit('a\n', [{ search: '', replace: '\nb\n' }])), 'a\n\nb\n');
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

// A file indented with tabs, as sindresorhus/got is (issue 25).
const tabbed = [
  'export default class Got {',
  '\t/**',
  '\t * Makes a request.',
  '\t */',
  '\trequest(options) {',
  '\t\tif (options.retry) {',
  '\t\t\treturn retry(options);',
  '\t\t}',
  "\t\treturn send(options, 'GET');",
  '\t}',
  '}',
  '',
].join('\n');

describe('applyEdit: tabs and spaces', () => {
  it('matches a SEARCH whose tabs became four spaces, and writes the REPLACE with tabs', () => {
    const out = text(
      applyEdit(tabbed, [
        {
          search: '        if (options.retry) {\n            return retry(options);\n        }\n',
          replace:
            '        if (options.retry) {\n            log(options);\n            return retry(options);\n        }\n',
        },
      ]),
    );
    assert.equal(
      out,
      tabbed.replace('\t\t\treturn retry(options);', '\t\t\tlog(options);\n\t\t\treturn retry(options);'),
    );
  });

  it("writes a REPLACE indented with spaces in the file's tabs when its SEARCH matched as written (issue 25: a Go import)", () => {
    const go = 'package uuid\n\nimport "io"\n\nfunc read(r io.Reader) error {\n\treturn nil\n}\n';
    const out = text(
      applyEdit(go, [
        { search: 'import "io"\n', replace: 'import (\n    "fmt"\n    "io"\n)\n' },
        { search: '', replace: 'func more() {\n    read(nil)\n}\n' },
      ]),
    );
    assert.ok(out.includes('import (\n\t"fmt"\n\t"io"\n)\n'), out);
    assert.ok(out.endsWith('func more() {\n\tread(nil)\n}\n'), out);
  });

  it('leaves spaces as written where the file, or the lines replaced, indent with spaces', () => {
    const spaced = 'function a() {\n  return 1;\n}\n';
    assert.equal(
      text(applyEdit(spaced, [{ search: '  return 1;\n', replace: '  const x = 1;\n  return x;\n' }])),
      'function a() {\n  const x = 1;\n  return x;\n}\n',
    );
    const mixed = 'func a() {\n\treturn 1\n}\n\nvar table = []int{\n    1,\n}\n';
    assert.ok(
      text(applyEdit(mixed, [{ search: '    1,\n', replace: '    1,\n    2,\n' }])).includes('{\n    1,\n    2,\n}'),
    );
  });

  it('matches a SEARCH whose tabs became two spaces each, and indents deeper lines of the REPLACE with more tabs', () => {
    const out = text(
      applyEdit(tabbed, [
        {
          search: "    return send(options, 'GET');\n",
          replace:
            "    if (options.post) {\n      return send(options, 'POST');\n    }\n    return send(options, 'GET');\n",
        },
      ]),
    );
    assert.ok(
      out.includes("\t\tif (options.post) {\n\t\t\treturn send(options, 'POST');\n\t\t}\n\t\treturn send"),
      out,
    );
  });

  it('matches a SEARCH with spaces for tabs that also lost the indentation around it, keeping what it keeps', () => {
    const out = text(
      applyEdit(tabbed, [
        {
          search: 'if (options.retry) {\n    return retry(options);\n}\n',
          replace: 'if (options.retry) {\n    return retry(options, 2);\n}\n',
        },
      ]),
    );
    assert.ok(out.includes('\t\tif (options.retry) {\n\t\t\treturn retry(options, 2);\n\t\t}\n'), out);
  });

  it("keeps the one space of a comment's lines after its tab", () => {
    const out = text(
      applyEdit(tabbed, [
        {
          search: '    /**\n     * Makes a request.\n     */\n',
          replace: '    /**\n     * Makes a request, and retries it.\n     */\n',
        },
      ]),
    );
    assert.ok(out.includes('\t/**\n\t * Makes a request, and retries it.\n\t */\n'), out);
  });

  it('matches a SEARCH with tabs in a file indented with spaces, and writes the REPLACE with spaces', () => {
    const python = 'def f(x):\n    if x:\n        return 1\n    return 2\n';
    const out = text(
      applyEdit(python, [
        { search: '\tif x:\n\t\treturn 1\n', replace: '\tif x:\n\t\treturn 10\n\telse:\n\t\tpass\n' },
      ]),
    );
    assert.equal(out, 'def f(x):\n    if x:\n        return 10\n    else:\n        pass\n    return 2\n');
  });

  it('refuses a SEARCH found twice with tabs and spaces counted alike, naming the lines', () => {
    const twice = '\tif (a) {\n\t\tgo();\n\t}\n\tif (a) {\n\t\tgo();\n\t}\n';
    assert.equal(
      failure(applyEdit(twice, [{ search: '    if (a) {\n        go();\n', replace: 'x\n' }])).problem,
      'the SEARCH matches in 2 places (lines 1 and 4, with tabs and spaces counted alike); add lines around it so it is unique',
    );
  });
});

describe('applyEdit: what differs, when a SEARCH matches nowhere', () => {
  const code = 'function f() {\n  const s = "it\'s";\n  return s - 1;\n}\n';
  const refusal = (search: string) => failure(applyEdit(code, [{ search, replace: 'x\n' }]));
  const lead =
    'the SEARCH matches no lines of the file (compared exactly, then ignoring trailing spaces, then ignoring a change of indentation, then counting a tab as 4, 2 or 8 spaces); it would match at line 2 but for this: ';

  const cases: Array<[string, string, string]> = [
    [
      'curly double quotes for straight ones',
      "  const s = “it's”;\n",
      'line 1 of your SEARCH has a curly quote “ (U+201C) where the file has a straight quote (")',
    ],
    [
      'a curly apostrophe for a straight one',
      '  const s = "it’s";\n',
      "line 1 of your SEARCH has a curly quote ’ (U+2019) where the file has a straight quote (')",
    ],
    [
      'a non-breaking space for a space',
      '  const\u00A0s = "it\'s";\n',
      'line 1 of your SEARCH has a non-breaking space (U+00A0) where the file has a plain space',
    ],
    [
      'an ideographic space for a space',
      '  const s =\u3000"it\'s";\n',
      'line 1 of your SEARCH has an ideographic space (U+3000) where the file has a plain space',
    ],
    [
      'a zero-width space the file does not have',
      '  const s = "it\'s";\u200B\n',
      'line 1 of your SEARCH has a zero-width space (U+200B), which the file does not have there',
    ],
    [
      'an en dash for a minus',
      '  const s = "it\'s";\n  return s – 1;\n',
      'line 2 of your SEARCH has an en dash – (U+2013) where the file has a hyphen (-)',
    ],
    [
      'a tab inside a line where the file has a space',
      '  const\ts = "it\'s";\n',
      "the spacing inside line 1 of your SEARCH differs from the file's",
    ],
    [
      "line numbers not in NEED's form",
      '2: const s = "it\'s";\n3: return s - 1;\n',
      "your SEARCH's lines start with line numbers written as `2:`: send the lines without them",
    ],
    [
      "NEED's line numbers on some lines only",
      '2 |   const s = "it\'s";\n  return s - 1;\n',
      "some of your SEARCH's lines start with NEED's line numbers and some do not: send the lines without them",
    ],
    [
      'an indentation off by another amount on one line',
      '    const s = "it\'s";\n  return s - 1;\n',
      'the lines are the same but for their indentation, which is off by another amount on some lines',
    ],
  ];
  for (const [name, search, said] of cases) {
    it(`names ${name}, and where the SEARCH would match`, () => {
      const outcome = refusal(search);
      assert.equal(outcome.problem, lead + said);
      assert.match(outcome.lines, /^1 \| function f\(\) \{\n2 \| {3}const s = "it's";\n3 \| {3}return s - 1;\n4 \| }/);
    });
  }

  it("names the file's look-alike where the SEARCH has the plain character", () => {
    const outcome = failure(applyEdit('a\u00A0=\u00A01;\n', [{ search: 'a = 1;\n', replace: 'x\n' }]));
    assert.match(
      outcome.problem,
      /it would match at line 1 but for this: line 1 of your SEARCH has a plain space where the file has a non-breaking space \(U\+00A0\)$/,
    );
  });

  it('names tabs against spaces when something else differs too, saying that alone is forgiven', () => {
    const outcome = failure(
      applyEdit(tabbed, [
        {
          search: '        if (options.retry) {\n            return retry(options);\n        }\u200B\n',
          replace: 'x\n',
        },
      ]),
    );
    assert.match(
      outcome.problem,
      /it would match at line 6 but for this: line 3 of your SEARCH has a zero-width space \(U\+200B\), which the file does not have there; the file's lines start with tabs and your SEARCH's with spaces \(that alone would be forgiven\)$/,
    );
  });

  it("names NEED's line numbers that skip a line", () => {
    const outcome = refusal('2 |   const s = "it\'s";\n4 | }\n');
    assert.match(
      outcome.problem,
      /; what may differ: your SEARCH's lines carry NEED's line numbers, and they go from 2 to 4: a line was left out$/,
    );
  });

  it('names what the SEARCH has and the file has nowhere, and what the closest lines have that it does not, when nothing matches even loosely', () => {
    assert.match(
      refusal('function f() {\n  const t = “it’s”;\n').problem,
      /; what may differ: line 2 of your SEARCH has a curly quote “ \(U\+201C\), which the file has nowhere; line 2 of your SEARCH has a curly quote ’ \(U\+2019\), which the file has nowhere$/,
    );
    const outcome = failure(
      applyEdit('one\ntwo\u00A0= 2;\nthree\n', [{ search: 'one\ntwo = 3;\nthree\n', replace: 'x\n' }]),
    );
    assert.match(
      outcome.problem,
      /; what may differ: line 2 of the file has a non-breaking space \(U\+00A0\), which your SEARCH does not have$/,
    );
    assert.match(
      failure(applyEdit(tabbed, [{ search: '        if (options.retried) {\n', replace: 'x\n' }])).problem,
      /; what may differ: the file's lines start with tabs and your SEARCH's with spaces \(that alone would be forgiven\)$/,
    );
  });

  it('says nothing more when it cannot tell what differs', () => {
    assert.equal(
      refusal('nothing like it\n').problem,
      'the SEARCH matches no lines of the file (compared exactly, then ignoring trailing spaces, then ignoring a change of indentation, then counting a tab as 4, 2 or 8 spaces)',
    );
  });
});

describe('applyEdit: lines named as the model read them', () => {
  // Lines 17 and 24 hold the same line; the model read them so.
  const numbered = Array.from({ length: 30 }, (_, i) => (i === 16 || i === 23 ? '  done();' : `line ${i + 1}`));
  const read = `${numbered.join('\n')}\n`;
  const five = 'a\nb\nc\nd\ne\n';

  it('names the places of a SEARCH found twice by the numbers the model read, after an earlier pair added lines', () => {
    const outcome = failure(
      applyEdit(read, [
        { search: 'line 3\n', replace: `line 3\n${five}` },
        { search: '  done();\n', replace: '  finish();\n' },
      ]),
    );
    assert.equal(outcome.pair, 2);
    assert.equal(
      outcome.problem,
      'the SEARCH matches in 2 places (lines 17 and 24); add lines around it so it is unique',
    );
  });

  it('says a place is in the lines an earlier pair put in', () => {
    const outcome = failure(
      applyEdit(read, [
        { search: 'line 3\n', replace: 'line 3\n  done();\n' },
        { search: '  done();\n', replace: '  finish();\n' },
      ]),
    );
    assert.equal(
      outcome.problem,
      'the SEARCH matches in 3 places (line 2 of the lines pair 1 put in, line 17, line 24); add lines around it so it is unique',
    );
  });

  it('names where a later pair would match loosely by the number the model read, and shows the lines there', () => {
    const outcome = failure(
      applyEdit(read, [
        { search: 'line 3\n', replace: `line 3\n${five}` },
        { search: 'line 20\nline 21\n', replace: '' },
        { search: 'line 26\nline\u00A027\n', replace: '' },
      ]),
    );
    assert.equal(outcome.pair, 3);
    assert.match(
      outcome.problem,
      /it would match at line 26 but for this: line 2 of your SEARCH has a non-breaking space/,
    );
    assert.match(
      outcome.lines,
      /^24 \| {3}done\(\);\n25 \| line 25\n26 \| line 26\n27 \| line 27\n28 \| line 28\n29 \| line 29$/,
    );
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
  it('matches a SEARCH with spaces for the tabs of 200,000 equal lines, and tells what differs in them, without comparing each line with each', () => {
    const script = path.join(tempFolder(), 'tabs.mjs');
    fs.writeFileSync(
      script,
      [
        `import { applyEdit } from ${JSON.stringify(new URL('../protocol/edit.js', import.meta.url).href)};`,
        'const tabs = \'\\tthe "same" line\\n\';',
        'const spaces = \'    the "same" line\\n\';',
        "const found = applyEdit(tabs.repeat(200_000) + '\\tthe end\\n', [{ search: spaces.repeat(100_000) + '    the end\\n', replace: '    x\\n' }]);",
        "const curly = applyEdit(tabs.repeat(200_000), [{ search: '    the “same” line\\n'.repeat(100_000), replace: 'x\\n' }]);",
        "const missing = applyEdit(tabs.repeat(200_000), [{ search: spaces.repeat(100_000) + '    another line\\n', replace: 'x\\n' }]);",
        "process.stdout.write(JSON.stringify([found.ok && found.text === tabs.repeat(100_000) + '\\tx\\n', curly.ok ? '' : curly.problem, missing.ok ? '' : missing.problem]));",
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.signal === null ? run.stderr : `still matching after 60 s (${run.signal})`);
    const [found, curly, missing] = JSON.parse(run.stdout) as [boolean, string, string];
    assert.equal(found, true);
    assert.match(curly, /it would match at line 1 but for this: line 1 of your SEARCH has a curly quote “/);
    assert.match(missing, /^the SEARCH matches no lines of the file/);
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
