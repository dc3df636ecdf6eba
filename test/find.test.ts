import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createFinder, type SearchFile } from '../reading/search/finder.ts';
import { placesOf } from '../reading/search/places.ts';
import { createKeeper, KEEP_FILE_MAX } from '../reading/search/keeper.ts';
import { indexOfNeedle, needleOf } from '../reading/search/needle.ts';
import { nameIn, placeHits, wholeDefinitions } from '../reading/answer/find.ts';
import { createSandbox } from '../reading/sandbox.ts';
import { createExecutor } from '../reading/executor.ts';
import { renderResult, type Result } from '../protocol/results.ts';
import { tempFolder } from './helpers.ts';

describe('placeHits', () => {
  it('names the innermost definition a hit lies in, and none outside every definition or in a file not known', () => {
    const defs = [
      { name: 'Session', first: 1, last: 100, depth: 0 },
      { name: 'Session.resolve_redirects', first: 20, last: 60, depth: 1 },
    ];
    const hit = (path: string, line: number) => ({ path, line, text: 'x' });
    const [placed] = placeHits(
      [
        {
          kind: 'find',
          request: 'FIND x',
          text: 'x',
          hits: [hit('a.py', 30), hit('a.py', 20), hit('a.py', 10), hit('a.py', 150), hit('b.py', 30)],
          cut: false,
          folded: false,
        },
      ],
      (rel) => (rel === 'a.py' ? defs : undefined),
    );
    assert.deepEqual(placed?.kind === 'find' ? placed.hits.map((h) => h.within?.name ?? '-') : [], [
      'Session.resolve_redirects',
      'Session.resolve_redirects',
      'Session',
      '-',
      '-',
    ]);
  });

  it('does not name a one-line definition for a hit on its own line, but the definition around it', () => {
    const defs = [
      { name: 'Session', first: 1, last: 100, depth: 0 },
      { name: 'Session.MAX', first: 5, last: 5, depth: 1 },
      { name: 'LIMIT', first: 120, last: 120, depth: 0 },
    ];
    const hit = (line: number) => ({ path: 'a.py', line, text: 'x' });
    const [placed] = placeHits(
      [{ kind: 'find', request: 'FIND x', text: 'x', hits: [hit(5), hit(120)], cut: false, folded: false }],
      () => defs,
    );
    assert.deepEqual(placed?.kind === 'find' ? placed.hits.map((h) => h.within?.name ?? '-') : [], ['Session', '-']);
  });
});

describe('placeHits on a part of a file', () => {
  it('says the outermost definitions it holds whole, two and how many more, only when it cuts through another', () => {
    const defs = [
      { name: 'A', first: 1, last: 10, depth: 0 },
      { name: 'A.inner', first: 2, last: 5, depth: 1 },
      { name: 'B', first: 11, last: 20, depth: 0 },
      { name: 'C', first: 21, last: 30, depth: 0 },
      { name: 'D', first: 31, last: 40, depth: 0 },
    ];
    const part = (first: number, last: number): Result => ({
      kind: 'file',
      request: `NEED a.py:${first}-${last}`,
      path: 'a.py',
      key: `a.py:${first}-${last}`,
      text: 'x',
      first,
      last,
      whole: false,
      rest: { lines: 0, chars: 0, exact: true },
      ranged: true,
      encoding: undefined,
    });
    const head = (r: Result | undefined) => (r === undefined ? '' : (renderResult(r).split('\n')[0] ?? ''));
    const [three, one, none] = placeHits([part(1, 35), part(11, 25), part(11, 30)], () => defs);
    assert.match(head(three), /\(holds A 1-10, B 11-20 and 1 more whole; only part of D 31-40\)/);
    assert.match(head(one), /\(holds B 11-20 whole; only part of C 21-30\)/);
    // Whole definitions and nothing cut: nothing to say.
    assert.doesNotMatch(head(none), /holds|only part/);
  });
});

describe('FIND in text files deepwork has no grammar for', () => {
  it("names the section a hit lies in: a Markdown heading, outside code fences, and an INI, TOML or data test's [name]", async () => {
    const folder = tempFolder({
      'test-data/cmdline.test':
        '[case testOne]\n# cmd: mypy a.py\n[out]\n== Return code: 1\n\n[case testTwo]\nx\n== Return code: 2\n',
      'docs/guide.md': [
        '# Guide',
        'intro',
        '## Exit codes',
        '```sh',
        '# not a heading: Return code',
        '```',
        'Return code 1 means errors.',
        '## Other',
        'Return code 2.',
      ].join('\n'),
      'data.json': '[\n["Return code"]\n]\n',
      'setup.toml': '# Return code comment\n[tool.x]\nkey = "Return code"\n',
    });
    const executor = createExecutor(folder);
    try {
      const [result] = await executor.answer([{ kind: 'find', text: 'Return code', scope: undefined, line: 0 }]);
      const placed =
        result?.kind === 'find' ? result.hits.map((h) => `${h.path}:${h.line} ${h.within?.name ?? '-'}`) : [];
      assert.deepEqual(placed.sort(), [
        'data.json:2 -',
        'docs/guide.md:5 ## Exit codes',
        'docs/guide.md:7 ## Exit codes',
        'docs/guide.md:9 ## Other',
        'setup.toml:1 -',
        'setup.toml:3 [tool.x]',
        'test-data/cmdline.test:4 [case testOne]',
        'test-data/cmdline.test:8 [case testTwo]',
      ]);
      // A part of the file says the sections it lies in, holds whole, and holds only part of.
      const [part] = await executor.answer([{ kind: 'need', paths: ['docs/guide.md:3-8'], line: 0 }]);
      assert.match(
        part === undefined ? '' : renderResult(part),
        /^=== RESULT NEED docs\/guide\.md:3-8: lines 3-8 of 9 \(in # Guide 1-9; holds ## Exit codes 3-7 whole; only part of ## Other 8-9\) ===/,
      );
    } finally {
      await executor.close();
    }
  });
});

describe('FIND of a text found nowhere', () => {
  it("shows the hits of the longest name in it, kept to the FIND's folder, and says so", async () => {
    const folder = tempFolder({
      'source/core/Ky.ts': 'export class Ky {\n  #calculateDelay(): number {\n    return 1;\n  }\n}\n',
      'test/retry.ts': '// calculateDelay is private\n',
      'notes.md': 'Nothing here.\n',
    });
    const executor = createExecutor(folder);
    const ask = async (text: string, scope?: string) => {
      const [r] = await executor.answer([{ kind: 'find', text, scope, line: 0 }]);
      return r === undefined ? '' : renderResult(r);
    };
    try {
      const guessed = await ask('#calculateDelay() {');
      assert.match(
        guessed,
        /^=== RESULT FIND #calculateDelay\(\) \{: no hits, also ignoring case; 2 hits of the name calculateDelay alone ===\n/,
      );
      assert.ok(guessed.includes('source/core/Ky.ts:2:   #calculateDelay(): number {'), guessed);
      // Kept to a folder, the name is looked for there alone.
      const kept = await ask('#calculateDelay() {', 'source/');
      assert.match(kept, /: no hits, also ignoring case; 1 hit of the name calculateDelay alone ===/);
      assert.ok(!kept.includes('test/retry.ts'), kept);
      // No name in the text, a name found nowhere, a text that is its name: "no hits" as before.
      for (const text of ['(((', 'missingName()', 'nothingAnywhere'])
        assert.match(await ask(text), /: no hits, also ignoring case ===$/, text);
    } finally {
      await executor.close();
    }
  });

  it('takes the longest name of four characters or more that is no keyword', () => {
    const cases: Array<[string, string | undefined]> = [
      ['#calculateDelay() {', 'calculateDelay'],
      ['self.check_loop(', 'check_loop'],
      ['def init_private_attributes(self):', 'init_private_attributes'],
      ['public static void main(', 'main'],
      ['return this;', undefined],
      ['a.b(c)', undefined],
      ['loadConfig', undefined],
    ];
    for (const [text, name] of cases) assert.equal(nameIn(text), name, text);
  });
});

describe('FIND in reStructuredText', () => {
  it('names the section a hit lies in: titles underlined, or overlined too, levels in the order their styles come', async () => {
    const folder = tempFolder({
      'README.rst': [
        '========',
        'Tenacity',
        '========',
        '',
        'Retrying, with waits.',
        '',
        'Waiting before retry',
        '--------------------',
        '',
        '.. code-block:: python',
        '',
        '    @retry(wait=wait_random_exponential(max=60))',
        '    def flaky(): pass',
        '',
        'Jitter',
        '~~~~~~',
        '',
        'wait_random_exponential adds jitter.',
        '',
        'Stopping',
        '--------',
        'Not a title',
        '---',
        '',
        '----',
        '',
        'wait_random_exponential again.',
      ].join('\n'),
    });
    const executor = createExecutor(folder);
    try {
      const [result] = await executor.answer([
        { kind: 'find', text: 'wait_random_exponential', scope: undefined, line: 0 },
      ]);
      const placed = result?.kind === 'find' ? result.hits.map((h) => `${h.line} ${h.within?.name ?? '-'}`) : [];
      // A line under text that is shorter than it is no title, and a transition (a line between blank lines) neither.
      assert.deepEqual(placed, ['12 Waiting before retry', '18 Jitter', '27 Stopping']);
      const [part] = await executor.answer([{ kind: 'need', paths: ['README.rst:7-17'], line: 0 }]);
      assert.match(
        part === undefined ? '' : renderResult(part),
        /^=== RESULT NEED README\.rst:7-17: lines 7-17 of 27 \(in Waiting before retry 7-19; only part of Jitter 15-19\) ===/,
      );
    } finally {
      await executor.close();
    }
  });
});

describe('wholeDefinitions', () => {
  it('shows a short definition a hit begins whole, in a FIND of three hits or fewer', () => {
    // short() is lines 3-10, long() 12-81; a hit on each, and one inside short().
    const lines = ['import os', '', 'def short():', ...Array.from({ length: 7 }, (_, i) => `    s${i} = ${i}`)];
    lines.push('', 'def long():', ...Array.from({ length: 69 }, (_, i) => `    l${i} = ${i}`));
    const root = tempFolder({ 'a.py': `${lines.join('\n')}\n` });
    const box = createSandbox(root);
    const around = (line: number) => ({ first: line - 2, lines: lines.slice(line - 3, line + 2) });
    const hit = (line: number, name: string, first: number, last: number) => ({
      path: 'a.py',
      line,
      text: lines[line - 1] ?? '',
      within: { name, first, last },
      around: around(line),
    });
    const find = (hits: ReturnType<typeof hit>[]): Result[] => [
      { kind: 'find', request: 'FIND def', text: 'def', hits, cut: false, folded: false },
    ];
    const shown = (results: Result[]) =>
      results.flatMap((r) =>
        r.kind === 'find' ? r.hits.map((h) => [h.line, h.around?.first, h.around?.lines.length]) : [],
      );

    const three = [hit(3, 'short', 3, 10), hit(12, 'long', 12, 81), hit(5, 'short', 3, 10)];
    // short() from the two lines before it to its last; long() (70 lines) and the hit inside short() as they were.
    assert.deepEqual(shown(wholeDefinitions(box, find(three), 200)), [
      [3, 1, 10],
      [12, 10, 5],
      [5, 3, 5],
    ]);
    // Four hits: each keeps its two lines either side.
    const four = [...three, hit(4, 'short', 3, 10)];
    assert.deepEqual(
      shown(wholeDefinitions(box, find(four), 200)).map((h) => h[2]),
      [5, 5, 5, 5],
    );
  });

  it('shows a definition whole from a hit on its own header, past the decorators it begins with', () => {
    // @cached (line 3) and def slow(): (line 4), lines 3-9.
    const lines = [
      'import os',
      '',
      '@cached',
      'def slow():',
      ...Array.from({ length: 5 }, (_, i) => `    s${i} = ${i}`),
    ];
    const root = tempFolder({ 'a.py': `${lines.join('\n')}\n` });
    const box = createSandbox(root);
    const shown = (line: number) => {
      const [r] = wholeDefinitions(
        box,
        [
          {
            kind: 'find',
            request: 'FIND x',
            text: 'x',
            hits: [
              {
                path: 'a.py',
                line,
                text: lines[line - 1] ?? '',
                within: { name: 'slow', first: 3, last: 9, own: 4 },
                around: { first: line - 2, lines: lines.slice(line - 3, line + 2) },
              },
            ],
            cut: false,
            folded: false,
          },
        ],
        200,
      );
      return r?.kind === 'find' ? r.hits.map((h) => [h.around?.first, h.around?.lines.length]) : [];
    };
    // On the header, and on the decorator: from two lines before the hit to the definition's end.
    assert.deepEqual(shown(4), [[2, 8]]);
    assert.deepEqual(shown(3), [[1, 9]]);
    // Inside the body: the two lines either side as before.
    assert.deepEqual(shown(6), [[4, 5]]);
  });
});

describe('indexOfNeedle', () => {
  it('finds what Buffer.indexOf finds, jumping by the rarest byte', () => {
    const text = Buffer.from('aaa zzq_x zzq_xz qqq zzq_xzzq_x\nend zzq_x');
    for (const word of ['zzq_x', 'q', 'aaa', 'end', 'nope', 'x\ne', 'zzq_xzzq_x']) {
      for (const counts of [undefined, new Uint32Array(256).fill(1)]) {
        const needle = needleOf(word, counts);
        for (let from = 0; from <= text.length; from += 3) {
          assert.equal(indexOfNeedle(text, needle, from), text.indexOf(word, from), `${word} from ${from}`);
        }
      }
    }
  });
});

describe('needleOf', () => {
  it("jumps by the rarest byte only when it is rare: one in 200 bytes or fewer, else Buffer's search", () => {
    // 1,000 bytes: `u` 10 times (1 in 100), `q` once, the rest spread over the other letters.
    const counts = new Uint32Array(256);
    for (let c = 97; c <= 122; c++) counts[c] = 40;
    counts[117] = 10;
    counts[113] = 1;
    assert.equal(needleOf('return', counts).rare, -1);
    assert.equal(needleOf('quit', counts).rare, 0);
    // Without counts, the fixed table: `q` is rare in code, the letters of `return` are not.
    assert.equal(needleOf('return').rare, -1);
    assert.equal(needleOf('unique').rare, 3);
  });
});

describe('indexOfNeedle ignoring case', () => {
  it('finds what a case-insensitive search of the lower-cased text finds, with any anchor byte', () => {
    const text = Buffer.from('Alpha BETA gamma_Delta\nalPHA-beta GAMMA_delta Привет ПРИВЕТ');
    const lowered = text.toString('latin1').toLowerCase();
    for (const word of ['alpha', 'BETA', 'a_d', 'GAMMA_DELTA', 'beta gamma', '-', 'привет', 'nope']) {
      for (const counts of [undefined, new Uint32Array(256).fill(1)]) {
        const needle = needleOf(word, counts, true);
        const target = Buffer.from(word).toString('latin1').toLowerCase();
        for (let from = 0; from <= text.length; from += 2) {
          assert.equal(indexOfNeedle(text, needle, from), lowered.indexOf(target, from), `${word} from ${from}`);
        }
      }
    }
  });
});

describe('createFinder', () => {
  // 2,600 files: enough for the worker to take a share.
  const root = tempFolder({}, 'deepwork-find-', true);
  const files: SearchFile[] = [];
  for (let d = 0; d < 26; d++) {
    fs.mkdirSync(path.join(root, `d${d}`));
    for (let f = 0; f < 100; f++) {
      const rel = `d${d}/f${f}.js`;
      const rare = d === 25 && f === 99 ? 'needle_rare();\n' : '';
      const common = f % 7 === 0 ? 'common();\ncommon();\n' : '';
      fs.writeFileSync(path.join(root, rel), `// ${rel}\n${common}${rare}`);
      files.push({ rel });
    }
  }
  const parallel = createFinder(root, { workers: 1 });
  const alone = createFinder(root, { workers: 0 });
  after(() => Promise.all([parallel.close(), alone.close()]));
  const options = { maxHits: 100, lineChars: 200 };

  it('gives the same hits, in walk order, with a worker as without', async () => {
    const texts = ['needle_rare', 'common()', 'd13/f42.js', 'nowhere'];
    const [a, b] = await Promise.all([parallel.find(files, texts, options), alone.find(files, texts, options)]);
    assert.deepEqual(a, b);
    const [rare, common, path13, nowhere] = a;
    assert.deepEqual(rare?.hits, [{ path: 'd25/f99.js', line: 2, text: 'needle_rare();' }]);
    assert.equal(common?.hits.length, 100);
    assert.equal(common?.cut, true);
    assert.deepEqual(
      common?.hits.slice(0, 3).map((h) => `${h.path}:${h.line}`),
      ['d0/f0.js:2', 'd0/f0.js:3', 'd0/f7.js:2'],
    );
    assert.deepEqual(
      path13?.hits.map((h) => h.path),
      ['d13/f42.js'],
    );
    assert.deepEqual([nowhere?.hits.length, nowhere?.cut], [0, false]);
  });

  it('ignores case with a worker as without, and searches only the files asked', async () => {
    const fold = { ...options, fold: [true, true] };
    const [a, b] = await Promise.all([
      parallel.find(files, ['NEEDLE_RARE', 'Common()'], fold),
      alone.find(files, ['NEEDLE_RARE', 'Common()'], fold),
    ]);
    assert.deepEqual(a, b);
    assert.deepEqual(
      a[0]?.hits.map((h) => h.path),
      ['d25/f99.js'],
    );
    assert.equal(a[1]?.hits.length, 100);
    const only = files.flatMap((f, i) => (f.rel.startsWith('d25/') ? [i] : []));
    const [kept] = await parallel.find(files, ['common()'], { ...options, only });
    assert.ok(kept !== undefined && kept.hits.length > 0 && kept.hits.every((h) => h.path.startsWith('d25/')));
  });

  it('gives the first hits at once while its worker is still starting, and the worker joins the next search', async () => {
    // Not warmed: the worker starts with this search, and the first files hold more than 5 hits, so the main thread
    // is done before the worker has claimed anything.
    const fresh = createFinder(root, { workers: 1 });
    try {
      const small = { maxHits: 5, lineChars: 200 };
      const [early] = await fresh.find(files, ['common()'], small);
      const [expected] = await alone.find(files, ['common()'], small);
      assert.deepEqual(early, expected);
      // A full scan afterwards: the worker, up by now, answers its late search and then this one.
      const [rare, common] = await fresh.find(files, ['needle_rare', 'common()'], options);
      assert.deepEqual([rare, common], await alone.find(files, ['needle_rare', 'common()'], options));
    } finally {
      await fresh.close();
    }
  });

  it('keeps the process alive while a search is out, when an earlier answer was not waited for', () => {
    // Fresh processes with nothing else to keep them alive. The worker's late answer to the first search used to
    // unref it while the second was still out, and the process could end there (exit 13, in a few runs of a hundred).
    const script = path.join(tempFolder({}, 'deepwork-ref-', true), 'run.mjs');
    fs.writeFileSync(
      script,
      [
        `import { createFinder } from ${JSON.stringify(new URL('../reading/search/finder.js', import.meta.url).href)};`,
        `const files = ${JSON.stringify(files)};`,
        'for (let i = 0; i < 40; i++) {',
        `  const finder = createFinder(${JSON.stringify(root)}, { workers: 1 });`,
        "  const [a] = await finder.find(files, ['common()'], { maxHits: 5, lineChars: 200 });",
        "  const [b] = await finder.find(files, ['needle_rare'], { maxHits: 100, lineChars: 200 });",
        '  process.stdout.write(`${a.hits.length},${b.hits.length}\\n`);',
        '  await finder.close();',
        '}',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    assert.equal(run.status, 0, `exit ${run.status}: ${run.stderr}`);
    assert.equal(run.stdout, '5,1\n'.repeat(40));
  });

  it('answers a later step from what it kept, and reads again after reset()', async () => {
    const first = await parallel.find(files, ['needle_rare'], options);
    assert.equal(first[0]?.hits.length, 1);
    fs.appendFileSync(path.join(root, 'd0/f1.js'), 'needle_rare(2);\n');
    parallel.reset();
    const fresh = await parallel.find(files, ['needle_rare'], options);
    assert.deepEqual(
      fresh[0]?.hits.map((h) => h.path),
      ['d0/f1.js', 'd25/f99.js'],
    );
  });

  it('searches files larger than its buffer piece by piece, with the same hits and line numbers as a whole read', async () => {
    const big = tempFolder({}, 'deepwork-big-file-', true);
    // Lines of varied length so the 1 MB pieces end mid-line; the needle sits at many places, some at piece edges.
    const lines: string[] = [];
    for (let i = 0, size = 0; size < 3_500_000; i++) {
      lines.push(`${'x'.repeat(i % 97)} line ${i}${i % 611 === 0 ? ' needle_big' : ''}`);
      size += (lines.at(-1)?.length ?? 0) + 1;
    }
    const text = `${lines.join('\n')}\n`;
    fs.writeFileSync(path.join(big, 'big.log'), text);
    fs.writeFileSync(path.join(big, 'long-line.min.js'), `${'a'.repeat(2_500_000)}needle_big${'b'.repeat(100)}`);
    fs.writeFileSync(path.join(big, 'big.bin'), Buffer.concat([Buffer.alloc(2_000_000, 0), Buffer.from('needle_big')]));
    // Its only hits past the first pieces: the line ends before them are counted only then, and counted right.
    const late = Array.from({ length: 60_000 }, (_, i) => `row ${i} ${'y'.repeat(i % 53)}`);
    late.push('the needle_big at last', 'and needle_big once more');
    fs.writeFileSync(path.join(big, 'late.txt'), `${late.join('\n')}\n`);
    const list = ['big.log', 'long-line.min.js', 'big.bin', 'late.txt'].map((rel) => ({ rel }));
    const finder = createFinder(big, { workers: 0 });
    try {
      const [found] = await finder.find(list, ['needle_big'], { maxHits: 10_000, lineChars: 60 });
      const expected = lines.flatMap((l, i) => (l.includes('needle_big') ? [`big.log:${i + 1}`] : []));
      assert.deepEqual(
        found?.hits.map((h) => `${h.path}:${h.line}`),
        [...expected, 'long-line.min.js:1', 'late.txt:60001', 'late.txt:60002'],
      );
      assert.equal(found?.hits[0]?.text, ' line 0 needle_big');
    } finally {
      await finder.close();
    }
  });
});

describe('what a searcher keeps between steps', () => {
  it('keeps small files and reads large ones again', async () => {
    const root = tempFolder({}, 'deepwork-keep-', true);
    fs.writeFileSync(path.join(root, 'small.js'), 'keep_me();\n');
    const filler = `${'// filler line\n'.repeat(Math.ceil(KEEP_FILE_MAX / 15))}`;
    fs.writeFileSync(path.join(root, 'large.js'), `${filler}keep_me();\n`);
    const list = [{ rel: 'small.js' }, { rel: 'large.js' }];
    const finder = createFinder(root, { workers: 0 });
    try {
      const [first] = await finder.find(list, ['keep_me'], { maxHits: 10, lineChars: 80 });
      assert.deepEqual(
        first?.hits.map((h) => h.path),
        ['small.js', 'large.js'],
      );
      // Changed on disk without a reset: the kept small file answers as it was, the large one as it is now.
      fs.writeFileSync(path.join(root, 'small.js'), 'gone();\n');
      fs.appendFileSync(path.join(root, 'large.js'), 'keep_me(2);\n');
      const [second] = await finder.find(list, ['keep_me'], { maxHits: 10, lineChars: 80 });
      assert.deepEqual(
        second?.hits.map((h) => h.text),
        ['keep_me();', 'keep_me();', 'keep_me(2);'],
      );
    } finally {
      await finder.close();
    }
  });

  it('once prepared, keeps a file only in memory already made ready', async () => {
    const root = tempFolder({}, 'deepwork-prepare-', true);
    const file = path.join(root, 'a.js');
    fs.writeFileSync(file, 'one\n');
    const keeper = createKeeper(3 << 20);
    keeper.reset(placesOf(fs.realpathSync(root), [{ rel: 'a.js' }]));
    const ready = keeper.prepare();
    const text = () => {
      const bytes = keeper.bytesOf(0);
      return Buffer.isBuffer(bytes) ? bytes.toString() : String(bytes);
    };
    // Nothing is ready yet: read, not kept.
    assert.equal(text(), 'one\n');
    fs.writeFileSync(file, 'two\n');
    assert.equal(text(), 'two\n');
    await ready;
    // Ready: kept from this read on.
    fs.writeFileSync(file, 'three\n');
    assert.equal(text(), 'three\n');
    fs.writeFileSync(file, 'four\n');
    assert.equal(text(), 'three\n');
    keeper.drop();
    assert.equal(text(), 'four\n');
  });

  it('stops looking for a text ignoring case once the text as it is has a hit', async () => {
    const root = tempFolder({ 'a.js': 'Foo\nFOO\n', 'b.js': 'FOO\n' }, 'deepwork-twin-', true);
    const finder = createFinder(fs.realpathSync(root), { workers: 0 });
    try {
      const list = [{ rel: 'a.js' }, { rel: 'b.js' }];
      const [exact, folded] = await finder.find(list, ['Foo', 'Foo'], {
        maxHits: 10,
        lineChars: 80,
        fold: [false, true],
      });
      assert.deepEqual(
        exact?.hits.map((h) => `${h.path}:${h.line}`),
        ['a.js:1'],
      );
      // Its twin's hits are not shown when the exact text has some: b.js is not searched for it.
      assert.ok(folded?.hits.every((h) => h.path === 'a.js'));
      // Found nowhere as it is, the text is found ignoring case everywhere.
      const [none, blind] = await finder.find(list, ['fOO', 'fOO'], {
        maxHits: 10,
        lineChars: 80,
        fold: [false, true],
      });
      assert.deepEqual(
        [none?.hits.length, blind?.hits.map((h) => `${h.path}:${h.line}`)],
        [0, ['a.js:1', 'a.js:2', 'b.js:1']],
      );
    } finally {
      await finder.close();
    }
  });
});
