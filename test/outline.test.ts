// OUTLINE (protocol/kinds/outline.ts, reading/answer/outline.ts, reading/outline/): a file's definitions parsed by
// tree-sitter in the parser's worker, through the path rule and the one reader, within the step's limits; and the
// loop sending them to the model.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createExecutor, type ExecutorOptions } from '../reading/executor.ts';
import { createParsers, type ParseOutcome, type Parsers } from '../reading/outline/parsers.ts';
import { languageOf } from '../reading/outline/languages.ts';
import { parseReply } from '../protocol/parse.ts';
import { renderResults } from '../protocol/results.ts';
import { outline } from '../protocol/kinds/outline.ts';
import { runLoop } from '../protocol/loop.ts';
import { loadTexts } from '../protocol/transcript.ts';
import type { Bridge } from '../protocol/contract.ts';
import { tempFolder, thirtyThousandFiles } from './helpers.ts';

const TS = `import fs from 'node:fs';

export const LIMIT = 10;

export interface Reader {
  answer(requests: string[]): Promise<string>;
}

export class Store implements Reader {
  constructor(readonly root: string) {}
  async answer(requests: string[]): Promise<string> {
    return requests.join();
  }
}

export async function runLoop(
  input: { steps: number },
  label: string,
): Promise<number> {
  const outcome = (stop: string): number => {
    return stop.length;
  };
  return outcome(label);
}
`;

const PY = `MAX_SIZE = 10
counter = 0

@dataclass
class Server(Base):
    def start(self, host: str,
              port: int) -> None:
        def inner():
            pass
        return inner()

def main(argv):
    Server().start("x", 1)
`;

const GO = `package main

const Version = "1.0"

type Server struct {
	Port int
}

func (s *Server) Start(host string) error {
	return nil
}

func main() {}
`;

const root = tempFolder({
  'src/store.ts': TS,
  'src/server.py': PY,
  'src/main.go': GO,
  'src/notes.md': '# Notes\n',
  'src/data.json': '{}\n',
  '.env.ts': 'export const KEY = 1;\n',
  'keys/deploy.ts': `export const k = 1;\n-----BEGIN RSA PRIVATE KEY-----\n${'A'.repeat(64)}\n-----END RSA PRIVATE KEY-----\n`,
  'dist/bundle.js': 'function built() {}\n',
  '.gitignore': 'dist/\n',
  'logo.js': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0, 1, 2]),
});

async function ask(reply: string, options: ExecutorOptions = {}, folder = root): Promise<string> {
  const executor = createExecutor(folder, options);
  try {
    return renderResults(await executor.answer(parseReply(reply).requests));
  } finally {
    await executor.close();
  }
}

describe("a file's language by its extension", () => {
  it('reads the extension blind to case, only in the name, and none longer than the longest it knows', () => {
    const cases: Array<[string, string | undefined]> = [
      ['src/app.ts', 'typescript'],
      ['SRC/APP.TS', 'typescript'],
      ['a.Tsx', 'tsx'],
      ['lib/x.gemspec', 'ruby'],
      ['lib/x.GemSpec', 'ruby'],
      ['lib/x.gemspecs', undefined],
      ['tasks/build.ra\u212Ae', 'ruby'],
      ['.ts', undefined],
      ['src/.py', undefined],
      ['a.ts/readme', undefined],
      ['a.ts/', undefined],
      ['Makefile', undefined],
      ['notes.md', undefined],
      ['x.', undefined],
      ['a/b.c', 'cpp'],
      ['b.c', 'cpp'],
      ['x.t\u00e9', undefined],
    ];
    for (const [path, language] of cases) assert.equal(languageOf(path), language, path);
  });
});

describe('OUTLINE', () => {
  it('reads its targets: paths, masks whose braces hold commas, ranges', () => {
    const cases: Array<[string, string[]]> = [
      ['src/app.ts', ['src/app.ts']],
      ['`src/a.ts`, ./src/b.ts', ['src/a.ts', 'src/b.ts']],
      ['src/{a,b}/*.ts, lib/', ['src/{a,b}/*.ts', 'lib/']],
      ['big.js:200-400', ['big.js:200-400']],
    ];
    for (const [payload, targets] of cases) assert.deepEqual(outline.read(payload, 1)?.targets, targets, payload);
    assert.equal(outline.read(' , ', 1), undefined);
  });

  it("lists a TypeScript file's definitions, nested, each with the lines NEED takes and its header", async () => {
    const text = await ask('=== OUTLINE: src/store.ts ===');
    assert.equal(
      text,
      [
        '=== RESULT OUTLINE src/store.ts: 24 lines, 8 definitions ===',
        'src/store.ts:3 export const LIMIT = 10;',
        'src/store.ts:5-7 export interface Reader',
        '  src/store.ts:6 answer(requests: string[]): Promise<string>',
        'src/store.ts:9-14 export class Store implements Reader',
        '  src/store.ts:10 constructor(readonly root: string)',
        '  src/store.ts:11-13 async answer(requests: string[]): Promise<string>',
        'src/store.ts:16-24 export async function runLoop(input: { steps: number }, label: string): Promise<number>',
        '  src/store.ts:20-22 const outcome = (stop: string): number =>',
        '=== END RESULT ===',
      ].join('\n'),
    );
  });

  it("lists a test file's describe and it blocks, nested, as mocha, jest and node:test write them", async () => {
    const folder = tempFolder({
      'test/login.test.ts': [
        "import { describe, it } from 'node:test';",
        '',
        "describe('login', () => {",
        "  it('accepts the right password', async () => {",
        '    check(1);',
        '  });',
        '',
        '  test(`locks after ${3} tries`, () => {});',
        '});',
        '',
        "helper('not a test', () => {});",
        '',
      ].join('\n'),
      'test/app.js': "describe('app', function () {\n  it('starts', function (done) {\n    done();\n  });\n});\n",
    });
    assert.equal(
      await ask('=== OUTLINE: test/login.test.ts, test/app.js ===', {}, folder),
      [
        '=== RESULT OUTLINE test/login.test.ts: 11 lines, 3 definitions ===',
        "test/login.test.ts:3-9 describe('login', () =>",
        "  test/login.test.ts:4-6 it('accepts the right password', async () =>",
        '  test/login.test.ts:8 test(`locks after ${3} tries`, () =>',
        '=== END RESULT ===',
        '',
        '=== RESULT OUTLINE test/app.js: 5 lines, 2 definitions ===',
        "test/app.js:1-5 describe('app', function ()",
        "  test/app.js:2-4 it('starts', function (done)",
        '=== END RESULT ===',
      ].join('\n'),
    );
  });

  // sinatra: every FIND hit in routing_test.rb lay "in RoutingTest 18-1702", the whole file, and a player guessed where
  // a test ended.
  it("lists a Ruby test file's blocks: minitest's and RSpec's describe, context and it, a Rails test", async () => {
    const folder = tempFolder({
      'test/routing_test.rb': [
        'class RoutingTest < Minitest::Test',
        '  it "transitions to the next matching route on pass" do',
        '    get("/foo") { pass }',
        '  end',
        '',
        '  test "renders the index" do',
        '    assert true',
        '  end',
        'end',
        '',
      ].join('\n'),
      'spec/app_spec.rb': [
        'RSpec.describe App do',
        "  context 'when passed' do",
        "    it('keeps params') { expect(1).to eq(1) }",
        '  end',
        'end',
        '',
        'helper "not a test" do',
        'end',
        '',
      ].join('\n'),
    });
    assert.equal(
      await ask('=== OUTLINE: test/routing_test.rb, spec/app_spec.rb ===', {}, folder),
      [
        '=== RESULT OUTLINE test/routing_test.rb: 9 lines, 3 definitions ===',
        'test/routing_test.rb:1-9 class RoutingTest < Minitest::Test',
        '  test/routing_test.rb:2-4 it "transitions to the next matching route on pass"',
        '  test/routing_test.rb:6-8 test "renders the index"',
        '=== END RESULT ===',
        '',
        '=== RESULT OUTLINE spec/app_spec.rb: 8 lines, 3 definitions ===',
        'spec/app_spec.rb:1-5 RSpec.describe App',
        "  spec/app_spec.rb:2-4 context 'when passed'",
        "    spec/app_spec.rb:3 it('keeps params')",
        '=== END RESULT ===',
      ].join('\n'),
    );
  });

  // A test read by the lines the map gave it lacked its `#[test]` (walkdir): a definition's lines begin at the
  // attributes and decorators written before it.
  it("begins a definition's lines at its attributes and decorators, the header at its own line", async () => {
    const folder = tempFolder({
      'src/lib.rs': [
        '#[derive(Debug, Clone)]',
        '#[non_exhaustive]',
        'pub struct Error {',
        '    depth: usize,',
        '}',
        '',
        '/// Not an attribute: a comment ends the run.',
        '#[inline]',
        'fn depth() -> usize {',
        '    0',
        '}',
        '',
        '#[cfg(test)]',
        'mod tests {',
        '    #[test]',
        '    fn sym_loop_detect() {',
        '        assert!(true);',
        '    }',
        '}',
        '',
      ].join('\n'),
      'src/svc.ts': [
        '@Injectable()',
        'export class Service {',
        '  @Get(":id")',
        '  @Auth()',
        '  find(id: string) {',
        '    return id;',
        '  }',
        '}',
        '',
      ].join('\n'),
    });
    assert.equal(
      await ask('=== OUTLINE: src/lib.rs, src/svc.ts ===', {}, folder),
      [
        '=== RESULT OUTLINE src/lib.rs: 19 lines, 4 definitions ===',
        'src/lib.rs:1-5 pub struct Error',
        'src/lib.rs:8-11 fn depth() -> usize',
        'src/lib.rs:13-19 mod tests',
        '  src/lib.rs:15-18 fn sym_loop_detect()',
        '=== END RESULT ===',
        '',
        '=== RESULT OUTLINE src/svc.ts: 8 lines, 2 definitions ===',
        'src/svc.ts:1-8 @Injectable() export class Service',
        '  src/svc.ts:3-7 find(id: string)',
        '=== END RESULT ===',
      ].join('\n'),
    );
  });

  it('reads Python (decorators, constants named so) and Go (receivers, type and const) as well', async () => {
    const text = await ask('=== OUTLINE: src/server.py, src/main.go ===');
    assert.ok(
      text.includes(
        [
          '=== RESULT OUTLINE src/server.py: 13 lines, 5 definitions ===',
          'src/server.py:1 MAX_SIZE = 10',
          'src/server.py:4-10 @dataclass class Server(Base):',
          '  src/server.py:6-10 def start(self, host: str, port: int) -> None:',
          '    src/server.py:8-9 def inner():',
          'src/server.py:12-13 def main(argv):',
        ].join('\n'),
      ),
      text,
    );
    assert.ok(
      text.includes(
        [
          'src/main.go:3 const Version = "1.0"',
          'src/main.go:5-7 type Server struct',
          'src/main.go:9-11 func (s *Server) Start(host string) error',
          'src/main.go:13 func main()',
        ].join('\n'),
      ),
      text,
    );
  });

  it('outlines the files a mask or a folder matches, and names those it has no grammar for', async () => {
    const text = await ask('=== OUTLINE: src/ ===');
    assert.match(text, /^=== RESULT OUTLINE src\/: 5 files matched, 3 outlined, 17 definitions ===\n/);
    assert.ok(text.includes('src/main.go (13 lines, 4 definitions)\n  src/main.go:3 const Version = "1.0"\n'), text);
    assert.ok(text.includes('[not outlined: src/data.json: no outline for .json files; use FIND or NEED]'), text);
    assert.ok(text.includes('[not outlined: src/notes.md: no outline for .md files; use FIND or NEED]'), text);
  });

  it('answers a file it has no grammar for, a missing path, a secret, a key and a binary file as NEED does', async () => {
    const text = await ask(
      '=== OUTLINE: src/data.json, src/stor.ts, .env.ts, keys/deploy.ts, logo.js, ../outside.ts ===',
    );
    for (const line of [
      '=== RESULT OUTLINE src/data.json: no outline for .json files; use FIND or NEED ===',
      '=== RESULT OUTLINE src/stor.ts: no such file; closest existing paths: src/store.ts',
      '=== RESULT OUTLINE .env.ts: withheld: looks like a secret ===',
      '=== RESULT OUTLINE keys/deploy.ts: withheld: it holds a private key (line 2) ===',
      '=== RESULT OUTLINE logo.js: it is binary (a PNG image) ===',
      '=== RESULT OUTLINE ../outside.ts: refused: ".." leads out of the project folder ===',
    ])
      assert.ok(text.includes(line), `${line}\n---\n${text}`);
  });

  it('outlines a Markdown or reStructuredText file named alone by its sections, and a range of it', async () => {
    const folder = tempFolder({
      'README.rst': '=====\nTitle\n=====\n\nIntro\n\nUsage\n-----\n\ntext\n\nWaiting\n~~~~~~~\n\nmore\n',
      'docs/a.md': '# Guide\n\n## Install\n\nx\n',
    });
    const text = await ask('=== OUTLINE: README.rst, docs/a.md, README.rst:12-13 ===', {}, folder);
    for (const part of [
      '=== RESULT OUTLINE README.rst: 15 lines, 3 definitions ===\nREADME.rst:1-15 Title\n  README.rst:7-15 Usage\n    README.rst:12-15 Waiting\n',
      '=== RESULT OUTLINE docs/a.md: 5 lines, 2 definitions ===\ndocs/a.md:1-5 # Guide\n  docs/a.md:3-5 ## Install\n',
      '=== RESULT OUTLINE README.rst:12-13: lines 12-13, 3 definitions ===',
    ])
      assert.ok(text.includes(part), `${part}\n---\n${text}`);
  });

  it('keeps a mask to the walk (no ignored or secret files), and to the one reader (no key)', async () => {
    const text = await ask('=== OUTLINE: **/*.{ts,js} ===');
    assert.ok(text.includes('src/store.ts ('), text);
    for (const hidden of ['dist/bundle.js', '.env.ts', 'export const k']) assert.ok(!text.includes(hidden), hidden);
    assert.ok(text.includes('[not outlined: keys/deploy.ts: it holds a private key (line 2)]'), text);
  });

  it('outlines a range of lines of a file, and refuses a range on a mask', async () => {
    const text = await ask('=== OUTLINE: src/store.ts:9-15 ===\n=== OUTLINE: src/*.ts:1-5 ===');
    assert.ok(
      text.startsWith(
        '=== RESULT OUTLINE src/store.ts:9-15: lines 9-15, 3 definitions ===\nsrc/store.ts:9-14 export class Store implements Reader\n',
      ),
      text,
    );
    assert.ok(text.includes('refused: a range of lines takes one file, not a mask or a folder'), text);
  });

  it('outlines, with a range begun inside a definition, the definitions it lies in', async () => {
    const inside = await ask('=== OUTLINE: src/store.ts:12-12 ===');
    assert.ok(inside.includes('src/store.ts:9-14 export class Store implements Reader\n'), inside);
    assert.ok(inside.includes('src/store.ts:11-13 async answer(requests: string[]): Promise<string>'), inside);
    const tail = await ask('=== OUTLINE: src/store.ts:23-24 ===');
    assert.ok(tail.includes('src/store.ts:16-24 export async function runLoop('), tail);
    assert.ok(!tail.includes('outcome'), tail);
  });

  it("cuts a file's outline at the step's characters and names the request that shows the rest", async () => {
    const text = await ask('=== OUTLINE: src/store.ts ===', { limits: { outlineChars: 200 } });
    assert.ok(text.includes('src/store.ts:9-14 export class Store implements Reader\n'), text);
    assert.ok(!text.includes('runLoop'), text);
    assert.match(
      text,
      /\[cut: 4 more definitions not shown, over this step's limit, from line 10 on; ask === OUTLINE: src\/store\.ts:10- === for them\]/,
    );
    const rest = await ask('=== OUTLINE: src/store.ts:10- ===');
    assert.ok(rest.includes('src/store.ts:16-24 export async function runLoop('), rest);
  });

  it("leaves a file for the next step when the step's characters are used up", async () => {
    const text = await ask('=== OUTLINE: src/store.ts, src/main.go ===', { limits: { outlineChars: 500 } });
    assert.ok(
      text.includes('  src/store.ts:20-22 const outcome = (stop: string): number =>\n=== END RESULT ==='),
      text,
    );
    assert.ok(
      text.endsWith(
        "=== RESULT OUTLINE src/main.go: not outlined: over this step's 500 characters; ask for it again in the next step ===",
      ),
      text,
    );
  });

  it('keeps to top-level definitions, then to the files that fit, when a mask outlines more than a step takes', async () => {
    const nested = await ask('=== OUTLINE: src/*.{ts,py,go} ===', { limits: { outlineChars: 900 } });
    assert.ok(nested.includes('[nested definitions (methods, inner functions) left out'), nested);
    assert.ok(!nested.includes('def inner'), nested);
    assert.ok(nested.includes('src/store.ts:9-14 export class Store'), nested);
    const files = await ask('=== OUTLINE: src/*.{ts,py,go} ===', { limits: { outlineChars: 250 } });
    assert.match(
      files,
      /\[cut: 2 more files not outlined, over this step's 250 characters: src\/server\.py, src\/store\.ts;/,
    );
    const counted = await ask('=== OUTLINE: src/*.{ts,py,go} ===', { limits: { outlineFiles: 1 } });
    assert.match(
      counted,
      /\[cut: 2 more files not outlined, over this step's 1 file outlined: src\/server\.py, src\/store\.ts;/,
    );
  });
});

describe('OUTLINE within bounds', () => {
  it('outlines at most a step of files of a mask matching 30,000, and says how many were left', async () => {
    const many = thirtyThousandFiles('deepwork-outline-many-');
    const text = await ask('=== OUTLINE: **/*.ts ===', {}, many);
    assert.match(
      text,
      /^=== RESULT OUTLINE \*\*\/\*\.ts: 30,000 files matched, 300 outlined, 0 definitions ===\n\[no definitions in: pkg0\/mod0\/file0\.ts, .* and 290 more\]\n/,
    );
    assert.match(
      text,
      /\[cut: 29,700 more files not outlined, over this step's 300 files outlined: pkg0\/mod3\/file0\.ts, .* and 29,690 more; OUTLINE a narrower mask or one file for them\]/,
    );
  });

  it('names a file over the size deepwork reads whole without reading it', async () => {
    const folder = tempFolder({ 'small.ts': 'export const a = 1;\n' });
    fs.truncateSync(path.join(folder, 'small.ts'), 17 << 20);
    const text = await ask('=== OUTLINE: small.ts ===', {}, folder);
    assert.equal(text, '=== RESULT OUTLINE small.ts: it is 17 MB, over the 16 MB deepwork reads whole ===');
  });
});

describe('OUTLINE on hostile input', () => {
  const nested = 2_000;
  const hostile = tempFolder({
    'garbage.js': Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(33 + ((i * 7919) % 90))).join(''),
    'min.js': Array.from(
      { length: 80_000 },
      (_, i) => `function f${i}(a){return a+${i}}var v${i}=function(b){return b};`,
    )
      .join('')
      .slice(0, 5 << 20),
    'deep.js': `${'function f() {\n'.repeat(nested)}${'}\n'.repeat(nested)}`,
    'ok.py': 'def fine():\n    pass\n',
  });

  it('outlines garbage, a 5 MB minified file and deeply nested code within bounds, and goes on', async () => {
    const executor = createExecutor(hostile);
    const outline = async (path: string) =>
      renderResults(await executor.answer([{ kind: 'outline', line: 0, targets: [path] }]));
    try {
      assert.match(
        await outline('garbage.js'),
        /^=== RESULT OUTLINE garbage\.js: 1 line, no definitions ===\n\[the parser met code it could not read/,
      );
      const min = await outline('min.js');
      assert.ok(min.length < 62_000, `${min.length} characters`);
      assert.match(min, /^=== RESULT OUTLINE min\.js: 1 line, 20,000\+ definitions ===\nmin\.js:1 function f0\(a\)\n/);
      assert.match(min, /they lie on line 1 with those above, so FIND a name to see where it is\]/);
      const deep = await outline('deep.js');
      assert.match(
        deep,
        /^=== RESULT OUTLINE deep\.js: 4,000 lines, 2,000 definitions ===\ndeep\.js:1-4000 function f\(\)\n/,
      );
      assert.match(deep, /\[1,994 definitions nested deeper than this outline shows left out; NEED their lines\]/);
      assert.equal(
        await outline('ok.py'),
        '=== RESULT OUTLINE ok.py: 2 lines, 1 definition ===\nok.py:1-2 def fine():\n=== END RESULT ===',
      );
    } finally {
      await executor.close();
    }
  });

  // A worker that dies on a file holding CRASH, and parses any other as the real one does.
  const modules = tempFolder({}, 'deepwork-parse-modules-');
  const real = new URL('../reading/outline/parse-worker.js', import.meta.url).href;
  const crashing = path.join(modules, 'crashing.mjs');
  fs.writeFileSync(
    crashing,
    [
      `import ${JSON.stringify(real)};`,
      "import { parentPort } from 'node:worker_threads';",
      "parentPort.on('message', (m) => { if (m.text.includes('CRASH')) process.exit(3); });",
    ].join('\n'),
  );

  it('reports a parser that dies on a file as that file failed, and parses the next with a fresh one', async () => {
    const folder = tempFolder({ 'a.js': 'CRASH();\n', 'b.js': 'function b() {}\n' });
    const text = await ask('=== OUTLINE: a.js, b.js ===', { parsers: { module: pathToFileURL(crashing) } }, folder);
    assert.ok(
      text.includes(
        '=== RESULT OUTLINE a.js: the parser failed on it (the parser stopped (exit 3)); use FIND or NEED ===',
      ),
      text,
    );
    assert.ok(text.includes('=== RESULT OUTLINE b.js: 1 line, 1 definition ===\nb.js:1 function b()\n'), text);
  });

  it('sends the parser several files ahead of its answers, and gives those after a file it died on to a fresh one', async () => {
    // A parser that answers nothing until it holds four files, then answers them in order and dies on CRASH: sent one
    // file at a time, the first would wait past `hardMs`.
    const holding = path.join(modules, 'holding.mjs');
    fs.writeFileSync(
      holding,
      [
        "import { parentPort } from 'node:worker_threads';",
        'const held = [];',
        "parentPort.on('message', (job) => {",
        '  held.push(job);',
        '  if (held.length < 4) return;',
        '  for (const j of held.splice(0)) {',
        "    if (j.text === 'CRASH') process.exit(3);",
        '    const def = { name: j.text, kind: "function", depth: 0, local: false, first: 1, last: 1, header: j.text };',
        "    parentPort.postMessage({ kind: 'parsed', id: j.id, lines: 1, defs: [def], errors: false, capped: false });",
        '  }',
        '});',
      ].join('\n'),
    );
    const parsers = createParsers({ module: pathToFileURL(holding), hardMs: 5_000 });
    after(() => parsers.close());
    const texts = ['a', 'b', 'c', 'CRASH', 'd', 'e', 'f', 'g'];
    const outcomes = await Promise.all(
      texts.map((text) => parsers.parse('javascript', text, { refs: true, background: true })),
    );
    assert.deepEqual(
      outcomes.map((o) =>
        o.kind === 'parsed' ? o.defs.map((d) => d.name).join() : o.kind === 'failed' ? o.reason : o.kind,
      ),
      ['a', 'b', 'c', 'the parser stopped (exit 3)', 'd', 'e', 'f', 'g'],
    );
  });

  it('ends a parser left with nothing to parse and no more files expected, and parses the next file with a fresh one', async () => {
    // A parser that names each definition after its thread: a fresh worker is a new thread id.
    const naming = path.join(modules, 'naming.mjs');
    fs.writeFileSync(
      naming,
      [
        "import { parentPort, threadId } from 'node:worker_threads';",
        "parentPort.on('message', (j) => {",
        '  const def = { name: String(threadId), kind: "function", depth: 0, local: false, first: 1, last: 1, header: "" };',
        "  parentPort.postMessage({ kind: 'parsed', id: j.id, lines: 1, defs: [def], errors: false, capped: false });",
        '});',
      ].join('\n'),
    );
    const threadOf = (outcome: ParseOutcome) => (outcome.kind === 'parsed' ? outcome.defs[0]?.name : outcome.kind);
    const parse = (parsers: Parsers, text: string) => parsers.parse('javascript', text, { refs: false });

    const eager = createParsers({ module: pathToFileURL(naming), idleMs: 0 });
    after(() => eager.close());
    // Files waiting behind each other keep their worker; the next file after it had nothing left goes to a new one.
    const batch = await Promise.all(['a', 'b', 'c'].map((text) => parse(eager, text)));
    const first = threadOf(batch[0] ?? { kind: 'ended' });
    assert.deepEqual(batch.map(threadOf), [first, first, first]);
    const later = threadOf(await parse(eager, 'd'));
    assert.notEqual(later, first);
    assert.match(later ?? '', /^\d+$/);

    // Within its idle time the same worker takes the next file.
    const patient = createParsers({ module: pathToFileURL(naming), idleMs: 60_000 });
    after(() => patient.close());
    const one = threadOf(await parse(patient, 'a'));
    assert.equal(threadOf(await parse(patient, 'b')), one);

    // While more files are expected (the map's, paused for a step), the worker is kept however long it waits; once
    // nothing more is, it is ended as before.
    const expecting = createParsers({ module: pathToFileURL(naming), idleMs: 0 });
    after(() => expecting.close());
    const done = expecting.expect();
    const kept = threadOf(await parse(expecting, 'a'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(threadOf(await parse(expecting, 'b')), kept);
    done();
    done();
    assert.notEqual(threadOf(await parse(expecting, 'c')), kept);
  });

  it('keeps the process alive until a parser ended while its answer was on the way has exited', () => {
    // A fresh process with nothing else to keep it alive. The answer to the parse that was out, taken in after
    // close() had begun to end the worker, used to unref it, and the process ended with close() unsettled (exit 13;
    // in the bench, a few whole runs of several). The worker here answers, then holds its thread in a native call so
    // that its exit comes after the answer has been taken in.
    const dir = tempFolder({}, 'deepwork-parse-end-');
    const worker = path.join(dir, 'answers-late.mjs');
    const go = path.join(dir, 'go');
    const posted = path.join(dir, 'posted');
    fs.writeFileSync(
      worker,
      [
        "import { parentPort } from 'node:worker_threads';",
        "import { execFileSync } from 'node:child_process';",
        "import fs from 'node:fs';",
        "parentPort.on('message', (job) => {",
        "  const answer = { kind: 'parsed', id: job.id, lines: 1, defs: [], errors: false, capped: false };",
        "  if (job.text !== 'hold') return parentPort.postMessage(answer);",
        `  while (!fs.existsSync(${JSON.stringify(go)})) {}`,
        '  parentPort.postMessage(answer);',
        `  fs.writeFileSync(${JSON.stringify(posted)}, '');`,
        `  execFileSync(${JSON.stringify(process.execPath)}, ['-e', 'setTimeout(() => {}, 300)']);`,
        '});',
      ].join('\n'),
    );
    const script = path.join(dir, 'run.mjs');
    fs.writeFileSync(
      script,
      [
        "import fs from 'node:fs';",
        `import { createParsers } from ${JSON.stringify(new URL('../reading/outline/parsers.js', import.meta.url).href)};`,
        `const parsers = createParsers({ module: new URL(${JSON.stringify(pathToFileURL(worker).href)}) });`,
        "process.stdout.write(`${(await parsers.parse('javascript', 'warm', { refs: false })).kind}\\n`);",
        "void parsers.parse('javascript', 'hold', { refs: false });",
        // The job goes out in the microtasks after parse(); then the worker answers while this thread looks away, so
        // that the answer waits, not yet taken in, as close() begins.
        'await new Promise((resolve) => setImmediate(resolve));',
        `fs.writeFileSync(${JSON.stringify(go)}, '');`,
        `while (!fs.existsSync(${JSON.stringify(posted)})) {}`,
        'await parsers.close();',
        "process.stdout.write('closed\\n');",
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    assert.equal(run.status, 0, `exit ${run.status}: ${run.stderr}`);
    assert.equal(run.stdout, 'parsed\nclosed\n');
  });

  it('gives up on a parser that does not answer, and on one that does not start', async () => {
    const silent = path.join(modules, 'silent.mjs');
    fs.writeFileSync(
      silent,
      "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => {});\n",
    );
    const parsers = createParsers({ module: pathToFileURL(silent), hardMs: 1 });
    after(() => parsers.close());
    assert.deepEqual(await parsers.parse('javascript', 'x', { refs: false }), {
      kind: 'failed',
      reason: 'it took over 0 s',
    });
    const broken = path.join(modules, 'broken.mjs');
    fs.writeFileSync(broken, "throw new Error('cannot load');\n");
    const none = createParsers({ module: pathToFileURL(broken) });
    after(() => none.close());
    const failed = await none.parse('javascript', 'x', { refs: false });
    assert.equal(failed.kind, 'failed');
    assert.match(
      failed.kind === 'failed' ? failed.reason : '',
      /^the parser (did not start|stopped): Error: cannot load/,
    );
  });
});

describe('OUTLINE in the loop', () => {
  it('is answered in the next message, and taught in the first', async () => {
    const seen: string[] = [];
    const replies = ['=== OUTLINE: src/main.go ===', 'Start is at src/main.go:9-11.'];
    const bridge: Bridge = {
      label: 'scripted',
      chat: (message) => {
        seen.push(message);
        return Promise.resolve({ text: replies[seen.length - 1] ?? 'out of replies' });
      },
    };
    const executor = createExecutor(root);
    try {
      const outcome = await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 3 });
      assert.equal(outcome.reply, 'Start is at src/main.go:9-11.');
    } finally {
      await executor.close();
    }
    assert.ok(seen[0]?.includes('=== OUTLINE: src/app.ts ===\n  lists a file'), 'the instructions teach it');
    assert.ok(
      seen[1]?.includes(
        '=== RESULT OUTLINE src/main.go: 13 lines, 4 definitions ===\nsrc/main.go:3 const Version = "1.0"\n',
      ),
      seen[1],
    );
  });
});
