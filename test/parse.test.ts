import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileSpans, parseReply, type Request } from '../protocol/parse.ts';
import { requestLine } from '../protocol/requests.ts';
import { numberLines, withoutLineNumbers } from '../protocol/line-numbers.ts';
import { adversarialReplies } from './replies.ts';
import { shrinkLines } from '../protocol/markup-lines.ts';

function requests(reply: string): Request[] {
  return parseReply(reply).requests.map((r) => ({ ...r, line: 0 }));
}

const need = (...paths: string[]): Request => ({ kind: 'need', paths, line: 0 });
const list = (mask: string): Request => ({ kind: 'list', mask, line: 0 });
const find = (text: string, scope?: string): Request => ({ kind: 'find', text, scope, line: 0 });

describe('parseReply: requests', () => {
  const cases: Array<[string, string, Request[]]> = [
    ['a plain NEED', '=== NEED: a.js, src/b.ts ===', [need('a.js', 'src/b.ts')]],
    ['a LIST mask', '=== LIST: **/*.mjs ===', [list('**/*.mjs')]],
    ['a FIND text', '=== FIND: waitForAnswer ===', [find('waitForAnswer')]],
    ['a FIND text holding ===', '=== FIND: a === b ===', [find('a === b')]],
    ['lower-case keywords', '=== need: a.js ===', [need('a.js')]],
    ['more than three = signs', '====== LIST: *.ts =====', [list('*.ts')]],
    ['extra spaces', '   ===    NEED   :   a.js   ===   ', [need('a.js')]],
    ['no colon after the keyword', '=== NEED a.js ===', [need('a.js')]],
    ['bold around the marker', '**=== NEED: a.js ===**', [need('a.js')]],
    ['backticks around the marker', '`=== FIND: x ===`', [find('x')]],
    ['bold and backticks nested', '**`=== FIND: x ===`**', [find('x')]],
    ['a dash list marker', '- === NEED: a.js ===', [need('a.js')]],
    ['a numbered list marker', '1. === LIST: src/* ===\n2. === FIND: y ===', [list('src/*'), find('y')]],
    ['paths in backticks and quotes', '=== NEED: `a.js`, "b.js", \'c.js\' ===', [need('a.js', 'b.js', 'c.js')]],
    ['./ prefixes', '=== NEED: ./a.js, ././b.js ===', [need('a.js', 'b.js')]],
    ['the same path twice', '=== NEED: a.js, ./a.js, `a.js` ===', [need('a.js')]],
    ['CRLF line ends', 'text\r\n=== NEED: a.js ===\r\n=== FIND: b ===\r\n', [need('a.js'), find('b')]],
    ['a fence around request blocks', '```\n=== NEED: a.js ===\n=== LIST: *.md ===\n```', [need('a.js'), list('*.md')]],
    ['backticks around a FIND text', '=== FIND: `getUser(` ===', [find('getUser(')]],
    ['quotes kept in a FIND text', '=== FIND: "use strict" ===', [find('"use strict"')]],
    ['a marker in the middle of a sentence', 'I would write === NEED: a.js === to get it.', []],
    ['a marker quoted in backticks inside prose', 'Use `=== NEED: path ===` to ask for a file.', []],
    [
      'a marker behind a quote mark, like one in bold (issue 25: quote marks in front count)',
      '> === NEED: a.js ===',
      [need('a.js')],
    ],
    [
      'a marker behind a heading mark (issue 25)',
      '### === LIST: source/core/utils/*.ts ===',
      [list('source/core/utils/*.ts')],
    ],
    ['a marker between heading marks', '## === NEED: a.js === ##', [need('a.js')]],
    ['a marker behind a quote mark, a list marker and bold', '> - **=== FIND: x ===**', [find('x')]],
    ['an unknown keyword', '=== RUN: rm -rf / ===', []],
    ['keywords that name object properties', '=== constructor: x ===\n=== __proto__: y ===\n=== toString: z ===', []],
    ['an empty payload', '=== NEED: ===\n=== FIND:  ===', []],
    ['a line of = signs only', '==========', []],
  ];
  for (const [name, reply, expected] of cases) {
    it(`reads ${name}`, () => assert.deepEqual(requests(reply), expected));
  }

  it('records the line each request stands on', () => {
    const reply = parseReply('Let me look.\n\n=== NEED: a.js ===\n=== FIND: x ===');
    assert.deepEqual(
      reply.requests.map((r) => r.line),
      [3, 4],
    );
  });
});

describe('parseReply: lines that mean a request and are not one', () => {
  // Issue 25: a slip that says exactly which requests it means costs no step. They are read and answered as any
  // other; the slip records how the line was read, for the note the model gets.
  const slips: Array<[string, string, string, Request[]]> = [
    ['a marker without its closing run', '=== NEED: test/main.ts', 'no closing ===', [need('test/main.ts')]],
    ['a bare keyword', 'NEED: x.js', 'no === markers', [need('x.js')]],
    [
      'a bare keyword with a range of lines',
      'NEED: source/core/index.ts:470-500',
      'no === markers',
      [need('source/core/index.ts:470-500')],
    ],
    ['a bare keyword missing only its opening run', 'NEED: x.js ===', 'no === markers', [need('x.js')]],
    ['a bare keyword in a list, bold', '1. **NEED:** src/a.js, b.js', 'no === markers', [need('src/a.js', 'b.js')]],
    ['a bare keyword behind a heading mark', '### FIND: loadConfig', 'no === markers', [find('loadConfig')]],
    ['angle brackets', '<NEED: x.js>', 'in <>', [need('x.js')]],
    ['square brackets around a mask', '[LIST: **/*.ts]', 'in []', [list('**/*.ts')]],
    ['two = signs', '== LIST: src/* ==', 'three or more =', [list('src/*')]],
    ['two blocks on one line', '=== LIST: lib/*.js === === FIND: X ===', 'two blocks', [list('lib/*.js'), find('X')]],
    ['two FINDs on one line', '=== FIND: a === === FIND: b ===', 'two blocks', [find('a'), find('b')]],
    [
      'three blocks on one line, the FIND text holding ===',
      '=== FIND: a === b === === NEED: c.js === === LIST: * ===',
      '3 blocks',
      [find('a === b'), need('c.js'), list('*')],
    ],
    [
      'two blocks in backticks on one line',
      '`=== NEED: a.js ===`, `=== FIND: x ===`',
      'two blocks',
      [need('a.js'), find('x')],
    ],
    ['a request deepwork calls otherwise', '=== READ: a.js ===', 'no READ request; NEED does that', [need('a.js')]],
    ['grep', '=== GREP: foo( ===', 'FIND does that', [find('foo(')]],
  ];
  for (const [name, reply, problem, expected] of slips) {
    it(`reads ${name}, and says how (issue 25)`, () => {
      const parsed = parseReply(`Let me look.\n\n${reply}\n`);
      assert.deepEqual(requests(reply), expected);
      assert.deepEqual(parsed.unclear, []);
      const [only, ...more] = parsed.slips;
      assert.equal(more.length, 0);
      assert.equal(only?.line, 3);
      assert.equal(only?.text, reply);
      assert.ok(only?.problem.includes(problem), only?.problem);
      assert.deepEqual(only?.read, expected.map(requestLine));
    });
  }

  // What does not say exactly which request it means stays refused: it is answered with how to write it.
  const refused: Array<[string, string, string, string | undefined]> = [
    ['an empty FIND', '=== FIND:  ===', 'asks for nothing', undefined],
    ['a NEED of nothing but commas', '=== NEED: , ===', 'asks for nothing', undefined],
    ['a command', '=== RUN: npm test ===', 'runs nothing', undefined],
    ['a command beside a request', '=== NEED: a.js === === RUN: ls ===', 'two blocks', undefined],
    [
      'a word for a request without its colon, as a heading has it (issue 25)',
      '=== Open questions ===',
      'no OPEN request',
      '=== NEED: questions ===',
    ],
    [
      'a marker without its colon or its closing run (issue 25)',
      '=== need a.js',
      'no closing ===',
      '=== NEED: a.js ===',
    ],
    ['text after the closing run (issue 25)', '=== NEED: a.js === and its tests', 'text follows', '=== NEED: a.js ==='],
    [
      'words between two markers on one line (issue 25)',
      '=== LIST: lib/*.js === then === FIND: X ===',
      'two blocks',
      '=== LIST: lib/*.js ===\n=== FIND: X ===',
    ],
  ];
  for (const [name, reply, problem, fix] of refused) {
    it(`tells ${name}`, () => {
      const parsed = parseReply(`Let me look.\n\n${reply}\n`);
      const [only, ...more] = parsed.unclear;
      assert.equal(more.length, 0);
      assert.ok(only?.problem.includes(problem), only?.problem);
      assert.equal(only?.fix, fix);
      assert.deepEqual([parsed.requests, parsed.slips], [[], []]);
    });
  }

  it('records the line a request that is not one stands on', () => {
    const parsed = parseReply('a\nb\n\nNEED: c.js\n=== RUN: ls ===');
    assert.deepEqual(
      parsed.slips.map((s) => [s.line, s.text]),
      [[4, 'NEED: c.js']],
    );
    assert.deepEqual(
      parsed.requests.map((r) => r.line),
      [4],
    );
    assert.deepEqual(
      parsed.unclear.map((u) => [u.line, u.text]),
      [[5, '=== RUN: ls ===']],
    );
  });

  // Issue 25: `### === LIST: x ===` beside valid requests got neither a result nor a word. Every decoration a model
  // puts in front of or around a line, in any order: the line is read, or it is not understood, never passed over.
  it('never passes over a line that means a request, however it is decorated (issue 25)', () => {
    const cores = [
      '=== NEED: a.js ===',
      '==== list: *.md ====',
      '=== NEED: a.js',
      '== FIND: x ==',
      'NEED: a.js',
      '**NEED:** a.js',
      '<NEED: a.js>',
      '[LIST: *.ts]',
      '=== READ: a.js ===',
      '=== LIST: * === === FIND: x ===',
      '=== FIND: x === then === FIND: y ===',
      '=== NEED: a.js === and more',
      '=== RUN: ls ===',
      '=== FIND:  ===',
    ];
    const fronts = ['#', '##', '###', '>', '-', '*', '+', '1.', '12)'];
    const prefixes = [
      '',
      ...fronts.map((f) => `${f} `),
      ...fronts.flatMap((f) => fronts.map((g) => `${f} ${g} `)),
      '>',
    ];
    const wraps = ['', '**', '*', '__', '_', '`', '**`', '`**', '***'];
    let lines = 0;
    for (const core of cores) {
      for (const prefix of prefixes) {
        for (const wrap of wraps) {
          const close = [...wrap].reverse().join('');
          for (const tail of prefix.startsWith('#') ? ['', ' ###'] : ['']) {
            const line = `${prefix}${wrap}${core}${close}${tail}`;
            const parsed = parseReply(`=== NEED: b.js ===\n${line}\n=== FIND: y ===`);
            const said = [...parsed.requests.map((r) => r.line), ...parsed.unclear.map((u) => u.line)];
            assert.ok(said.includes(2), line);
            assert.equal(parsed.requests.filter((r) => r.line === 1 || r.line === 3).length, 2, line);
            lines++;
          }
        }
      }
    }
    assert.ok(lines > 10_000, `${lines} lines`);
  });

  it('leaves prose alone: keywords in a sentence, in lower case, or without a colon', () => {
    const prose = [
      'Find: the function is in lib/a.js.',
      'Need: more context',
      'NEED more time',
      'FINDINGS: none',
      'List: of things',
      'I would NEED: this',
      '[link](x.md)',
      '<div>NEED: x</div>',
      '# Notes',
      '=== RESULT NEED a.js: 3 lines ===',
      '=== END RESULT ===',
      '> Need: more context',
      '`=== NEED: path ===` reads a file.',
    ];
    for (const line of prose) {
      const parsed = parseReply(line);
      assert.deepEqual([parsed.requests, parsed.unclear, parsed.slips], [[], [], []], line);
    }
  });

  it('does not look inside FILE bodies', () => {
    assert.deepEqual(parseReply('=== FILE: doc.md ===\nNEED: x\n=== FIND:  ===\n=== END ===').unclear, []);
  });
});

describe('parseReply: code fences', () => {
  it('takes requests in a fence that holds nothing else (a model wrapping its requests)', () => {
    assert.deepEqual(requests('Let me look:\n```\n=== NEED: a.js ===\n\n=== FIND: x ===\n```\n'), [
      need('a.js'),
      find('x'),
    ]);
    assert.deepEqual(requests('~~~text\n=== LIST: *.md ===\n~~~'), [list('*.md')]);
  });

  it('takes a final answer that shows a request in a code sample as the answer', () => {
    const answer =
      'To ask for a file, the model writes:\n\n```\nPlease send it:\n=== NEED: src/app.js ===\n```\n\nThat is all.';
    const parsed = parseReply(answer);
    assert.deepEqual(parsed.requests, []);
    assert.deepEqual(parsed.unclear, []);
  });

  it('takes a sample whose other lines are markup as a sample too', () => {
    const answer = '```md\n# How to ask\n=== NEED: a.js ===\n- NEED: b.js\n```';
    assert.deepEqual(parseReply(answer).requests, []);
    assert.deepEqual(parseReply(answer).unclear, []);
  });

  it('reads requests after a sample fence closes', () => {
    assert.deepEqual(requests('```js\nconst a = 1;\n=== NEED: quoted.js ===\n```\n=== NEED: asked.js ==='), [
      need('asked.js'),
    ]);
  });

  it('takes a fence that never closes as no fence', () => {
    assert.deepEqual(requests('```js\nconst a = 1;\n=== NEED: a.js ==='), [need('a.js')]);
  });

  it('keeps a FILE block proposed inside a fence, and its own fenced content', () => {
    const reply = '```\n=== FILE: a.md ===\n```js\nx\n```\n=== END ===\n```\n=== NEED: b.js ===';
    const parsed = parseReply(reply);
    assert.deepEqual(
      parsed.files.map((f) => [f.path, f.content]),
      [['a.md', 'x\n']],
    );
    assert.deepEqual(
      parsed.requests.map((r) => r.kind),
      ['need'],
    );
  });
});

describe('parseReply: blockquotes', () => {
  // Issue 25: quote marks in front count like bold; a blockquote is read like a fence.
  it('takes requests in a blockquote that holds nothing else, and one that holds prose as a sample (issue 25)', () => {
    assert.deepEqual(requests('> === NEED: a.js ===\n> NEED: b.js\n>\n> > === FIND: x ===\n'), [
      need('a.js'),
      need('b.js'),
      find('x'),
    ]);
    const sample = parseReply('Ask like this:\n\n> To read a file, write\n> === NEED: a.js ===\n> NEED: b.js\n');
    assert.deepEqual([sample.requests, sample.unclear, sample.slips], [[], [], []]);
    assert.deepEqual(requests('> For example:\n> === NEED: a.js ===\n\n> === NEED: c.js ==='), [need('c.js')]);
  });
});

describe('parseReply: FILE blocks', () => {
  function file(reply: string) {
    const files = parseReply(reply).files;
    assert.equal(files.length, 1);
    const [only] = files;
    assert.ok(only);
    return only;
  }

  it('takes the content between the marker and END byte for byte', () => {
    const content = 'function f() {\n\treturn 1;\n\n    // indented\n}\n';
    const block = file(`Here:\n=== FILE: src/f.js ===\n${content}=== END ===\nDone.`);
    assert.equal(block.path, 'src/f.js');
    assert.equal(block.content, content);
    assert.equal(block.complete, true);
  });

  it('removes one fence wrapping the whole content, with or without a language tag', () => {
    for (const open of ['```', '```js', '``` typescript', '~~~', '````ts']) {
      const close = open.startsWith('~') ? '~~~' : open.startsWith('````') ? '````' : '```';
      const block = file(`=== FILE: a.ts ===\n${open}\nconst a = 1;\n\nexport { a };\n${close}\n=== END ===`);
      assert.equal(block.content, 'const a = 1;\n\nexport { a };\n', open);
    }
  });

  it('keeps fences inside the content', () => {
    const content = '# Title\n\n```js\nrun();\n```\n\nMore.\n';
    assert.equal(file(`=== FILE: README.md ===\n${content}=== END ===`).content, content);
    const fenced = file(`=== FILE: README.md ===\n\`\`\`\`markdown\n${content}\`\`\`\`\n=== END ===`);
    assert.equal(fenced.content, content);
  });

  it('keeps a missing final newline missing when the content is fenced', () => {
    assert.equal(file('=== FILE: a.txt ===\n```\nno newline\n```\n=== END ===').content, 'no newline\n');
    assert.equal(file('=== FILE: a.txt ===\n=== END ===').content, '');
  });

  it('keeps CRLF inside the content', () => {
    assert.equal(
      file('=== FILE: a.bat ===\r\n@echo off\r\necho hi\r\n=== END ===\r\n').content,
      '@echo off\r\necho hi\r\n',
    );
  });

  it('ignores requests inside a FILE block', () => {
    const reply = parseReply('=== FILE: doc.md ===\nAsk with:\n=== NEED: a.js ===\n=== FIND: x ===\n=== END ===');
    assert.deepEqual(reply.requests, []);
    assert.equal(reply.files[0]?.content, 'Ask with:\n=== NEED: a.js ===\n=== FIND: x ===\n');
  });

  it('lets a fenced file hold END lines of its own', () => {
    const doc = 'Blocks:\n=== FILE: x ===\n...\n=== END ===\n\nAnd requests:\n=== NEED: a ===\n';
    const reply = parseReply(
      `=== FILE: protocol.md ===\n\`\`\`markdown\n${doc}\`\`\`\n=== END ===\n=== NEED: real.js ===`,
    );
    assert.equal(reply.files.length, 1);
    assert.equal(reply.files[0]?.content, doc);
    assert.deepEqual(
      reply.requests.map((r) => r.kind === 'need' && r.paths),
      [['real.js']],
    );
  });

  it('falls back to the first END when a fenced content never closes its fence', () => {
    const reply = parseReply('=== FILE: a.js ===\n```js\nconst a = 1;\n=== END ===\n=== NEED: b.js ===');
    assert.equal(reply.files[0]?.content, 'const a = 1;\n');
    assert.equal(reply.requests.length, 1);
  });

  it('tolerates a fence around the whole FILE block and a decorated marker', () => {
    const block = file('```\n**=== FILE: `./src/a.js` ===**\nx();\n=== END ===\n```');
    assert.equal(block.path, 'src/a.js');
    assert.equal(block.content, 'x();\n');
  });

  it('reads a FILE marker behind a heading mark, and no FILE or END behind a quote mark (issue 25)', () => {
    assert.deepEqual(
      parseReply('## === FILE: a.js ===\nx\n=== END ===').files.map((f) => [f.path, f.content]),
      [['a.js', 'x\n']],
    );
    assert.deepEqual(parseReply('> === FILE: a.js ===\n> x\n> === END ===').files, []);
    assert.equal(file('=== FILE: a.md ===\n> === END ===\nb\n=== END ===').content, '> === END ===\nb\n');
  });

  it('reports a FILE block cut off before END as incomplete', () => {
    const reply = parseReply('=== NEED: a.js ===\n=== FILE: b.js ===\nconst b = 1;\n// the reply stops here');
    assert.equal(reply.files[0]?.complete, false);
    assert.equal(reply.files[0]?.content, 'const b = 1;\n// the reply stops here');
    assert.equal(reply.requests.length, 1);
  });

  it('reads several FILE blocks and requests between them in order', () => {
    const reply = parseReply('=== FILE: a ===\nA\n=== END ===\n=== FIND: q ===\n=== FILE: b ===\nB\n=== end ===');
    assert.deepEqual(
      reply.blocks.map((b) => b.kind),
      ['file', 'find', 'file'],
    );
    assert.deepEqual(
      reply.files.map((f) => [f.path, f.content]),
      [
        ['a', 'A\n'],
        ['b', 'B\n'],
      ],
    );
  });
});

describe('parseReply: line numbers copied from NEED output', () => {
  const content = (reply: string) => parseReply(reply).files[0]?.content;

  it('takes the numbers off a FILE block whose every line carries them, counting up', () => {
    assert.equal(
      content('=== FILE: a.py ===\n12 | def f():\n13 |\n14 |     return 1\n=== END ==='),
      'def f():\n\n    return 1\n',
    );
    assert.equal(content('=== FILE: a.py ===\n```python\n 9 | a\n10 | b\n```\n=== END ==='), 'a\nb\n');
  });

  it('leaves content alone when the numbers skip, or a line has none', () => {
    const table = '=== FILE: t.md ===\n1 | one\n3 | three\n=== END ===';
    assert.equal(content(table), '1 | one\n3 | three\n');
    assert.equal(content('=== FILE: t.md ===\n1 | one\ntwo\n=== END ==='), '1 | one\ntwo\n');
    assert.equal(content('=== FILE: t.md ===\n1|one\n2|two\n=== END ==='), '1|one\n2|two\n');
  });

  it('numbers what NEED sends the same way', () => {
    assert.equal(numberLines('a\n\nc\n', 41), '41 | a\n42 |\n43 | c\n');
    assert.equal(withoutLineNumbers(numberLines('x\r\n  y\r\n', 1)), 'x\r\n  y\r\n');
  });
});

describe('parseReply: where FILE blocks stand', () => {
  it('spans each block from its marker to its END line, with a fence wrapped around the whole block', () => {
    const reply = 'Here:\n=== FILE: a.js ===\na\n=== END ===\nand\n```\n=== FILE: b.js ===\nb\n=== END ===\n```\nend';
    const spans = fileSpans(reply);
    const cut = spans.map((s) => reply.slice(s.from, s.to));
    assert.deepEqual(cut, ['=== FILE: a.js ===\na\n=== END ===\n', '```\n=== FILE: b.js ===\nb\n=== END ===\n```\n']);
    assert.deepEqual(
      spans.map((s) => s.block),
      parseReply(reply).files,
    );
  });

  it('spans a block cut off before END to the end of the reply', () => {
    const reply = 'x\n=== FILE: c.js ===\npartial';
    const [span] = fileSpans(reply);
    assert.equal(reply.slice(span?.from, span?.to), '=== FILE: c.js ===\npartial');
  });
});

describe('parseReply: one reply after another', () => {
  // Every parse reads its lines into the same store (protocol/markup-lines.ts), kept from one reply to the next up to
  // a size, and given back past it: nothing of a reply may show in the next.
  it('reads a short reply right after a longer one as it reads it alone', () => {
    const short = '```\n=== NEED: a.js ===\n```\n=== FILE: b.js ===\nconst b = 1;\n=== END ===';
    const alone = parseReply(short);
    for (const fences of [50, 100_000]) {
      const long = `${'=== FIND: x ===\n```js\n'.repeat(fences)}=== FILE: c.js ===\n`;
      assert.equal(parseReply(long).requests.length, fences);
      assert.deepEqual(parseReply(short), alone);
    }
    assert.deepEqual(alone.requests.map(requestLine), ['=== NEED: a.js ===']);
    assert.deepEqual(
      alone.files.map((f) => [f.path, f.content, f.complete]),
      [['b.js', 'const b = 1;\n', true]],
    );
  });
});

describe('parseReply: the memory a long reply grew', () => {
  it('is held for the next reply, and given back a second after the last', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const long = '```js\n'.repeat(70_000);
    parseReply(long);
    assert.equal(shrinkLines(), true, 'held right after the reply');
    parseReply(long);
    t.mock.timers.tick(999);
    parseReply('=== NEED: a.js ===');
    t.mock.timers.tick(999);
    assert.equal(shrinkLines(), true, 'a short reply after it does not end the wait');
    parseReply(long);
    t.mock.timers.tick(1_000);
    assert.equal(shrinkLines(), false, 'given back');
  });
});

describe('parseReply: linear time', () => {
  // Not a speed test: two sizes 32x apart take about 32x the time when the work is linear and about 1,024x when it is
  // quadratic. The bound, 512x (half of quadratic), leaves a factor of 16 over linear for a loaded machine: at 181x
  // (the geometric mean) it failed once while four other test runs shared the two cores. The benchmark holds the
  // tighter target (a growth factor fitted over four sizes).
  const SMALL = 100_000;
  const BIG = 32 * SMALL;
  for (const [name, make] of Object.entries(adversarialReplies)) {
    it(`grows linearly on ${name}`, () => {
      const ratio = bestTime(make(BIG), 3) / bestTime(make(SMALL), 9);
      assert.ok(ratio < 512, `32x the input took ${ratio.toFixed(0)}x the time`);
    });
  }
});

// The fastest of `tries` parses, after one to warm up.
function bestTime(reply: string, tries: number): number {
  parseReply(reply);
  let best = Infinity;
  for (let i = 0; i < tries; i++) {
    const started = process.hrtime.bigint();
    parseReply(reply);
    best = Math.min(best, Number(process.hrtime.bigint() - started));
  }
  return best;
}
