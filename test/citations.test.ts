import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkCitations, describeMiscitation, findCitations, MAX_CITATIONS } from '../protocol/citations.ts';
import { miscitation } from '../common/strings/steps.js';
import { createExecutor } from '../reading/executor.ts';
import { runLoop, type LoopEvent } from '../protocol/loop.ts';
import type { Bridge } from '../protocol/contract.ts';
import { loadTexts } from '../protocol/transcript.ts';
import { tempFolder } from './helpers.ts';

const parser = [
  "import { lex } from './lex.js';",
  '',
  'export function parse(text) {',
  '  const tokens = lex(text);',
  '  return build(tokens);',
  '}',
  '',
  'function build(tokens) {',
  '  return { tokens };',
  '}',
  '',
].join('\n');

// A Python module shaped as the ones a model cited inside of (requests' sessions.py, mypy's main.py): a stub of `send`
// in a protocol class, the real `send` further down with a multi-line signature and a docstring.
const sessions = [
  'class Adapter(Protocol):',
  '    def send(self, request) -> Response: ...',
  '',
  'class Session:',
  '    def send(',
  '        self,',
  '        request,',
  '    ) -> Response:',
  '        """Prepares nothing; sends what it is given."""',
  '        adapter = self.get_adapter(request.url)',
  '        hooks = request.hooks',
  '        timeout = self.timeout',
  '        start = now()',
  '        response = adapter.transmit(request, timeout)',
  '        response.elapsed = now() - start',
  '        dispatch(hooks, response)',
  '        return response',
  '',
  '    def close(self):',
  '        pass',
  '        # nothing held',
  '        # nothing to free',
  '        # done',
].join('\n');

// A TypeScript class as ky writes one: a method with a return type, one whose signature runs on, and a call.
const ky = [
  'export class Ky {',
  '  static create(input: Input, options: Options): ResponsePromise {',
  '    const ky = new Ky(input, options);',
  '    const function_ = async (): Promise<Response> => {',
  '      return ky.fetch();',
  '    };',
  '    return function_();',
  '  }',
  '',
  '  protected async retry<T>(',
  '    function_: () => Promise<T>,',
  '  ): Promise<T> {',
  '    return function_();',
  '  }',
  '}',
  '',
  'create(input, options);',
  '',
].join('\n');

// ky's index.ts and constants.ts as a model cited them: methods made in a loop, a constant beside a comment.
const kyIndex = [
  "import {requestMethods} from './constants.js';",
  '',
  'const createInstance = (defaults) => {',
  '  const ky = (input, options) => Ky.create(input, options);',
  '  for (const method of requestMethods) {',
  '    ky[method] = (input, options) => Ky.create(input, {...options, method});',
  '  }',
  '',
  '  return ky;',
  '};',
  '',
].join('\n');
const constants = [
  "export const requestMethods = ['get', 'post', 'put'] as const;",
  '',
  'export const retryMethods = requestMethods;',
  '',
  'export const stop = Symbol("stop");',
  '',
  '// The maximum value of a 32bit int',
  'export const maxSafeTimeout = 2_147_483_647;',
  '',
  'export const backoffLimit = Number.POSITIVE_INFINITY;',
  '',
].join('\n');

// Three methods of one class a dozen lines apart, as requests' Session.get, options and head stand.
const verbs = ['get', 'options', 'head']
  .flatMap((verb, i) => [
    `    def ${verb}(self, url, **kwargs):`,
    `        kwargs.setdefault("allow_redirects", ${i < 2 ? 'True' : 'False'})`,
    `        return self.request("${verb.toUpperCase()}", url, **kwargs)`,
    ...Array.from({ length: 9 }, () => ''),
  ])
  .join('\n');

const root = tempFolder({
  'src/verbs.py': `class Session:\n${verbs}`,
  'src/index.ts': kyIndex,
  'src/constants.ts': constants,
  'src/ky.ts': ky,
  'src/sessions.py': sessions,
  'src/parse.js': parser,
  'src/lex.js': 'export function lex(text) {\n  return text.split(/\\s+/);\n}\n',
  '.env': 'TOKEN=secret\n',
});

const check = (answer: string) => {
  const executor = createExecutor(root);
  return checkCitations(answer, (path) => executor.text(path));
};

describe('findCitations', () => {
  it('reads the forms models cite lines in, with the name written beside each', () => {
    const found = findCitations(
      [
        '`parse` (src/parse.js:3) calls `lex` at `src/lex.js:1`, and `build` is src/parse.js#L8-L10.',
        'See src/parse.js lines 3-6 for the whole of it, and `src/lex.js` line 2.',
      ].join('\n'),
    );
    assert.deepEqual(found, [
      { cited: 'src/parse.js:3', path: 'src/parse.js', line: 3, name: 'parse' },
      { cited: 'src/lex.js:1', path: 'src/lex.js', line: 1, name: 'lex' },
      { cited: 'src/parse.js#L8-L10', path: 'src/parse.js', line: 8, end: 10, name: 'build' },
      { cited: 'src/parse.js lines 3-6', path: 'src/parse.js', line: 3, end: 6 },
      { cited: 'src/lex.js line 2', path: 'src/lex.js', line: 2 },
    ]);
  });

  it('gives a name to the citation of its own sentence or clause, not to a nearer one across a full stop', () => {
    const line =
      'This never fails (the note at node.go:32). `NodeInterface()` then reports "random" (node.go:21-25); `x` is node.go:9.';
    assert.deepEqual(
      findCitations(line).map((c) => [c.cited, c.name]),
      [
        ['node.go:32', undefined],
        ['node.go:21-25', 'NodeInterface'],
        ['node.go:9', 'x'],
      ],
    );
  });

  it('takes the last part of a qualified name, and a Russian "строка"', () => {
    assert.deepEqual(findCitations('`Parser.parse()` — src/parse.js, строка 3'), [
      { cited: 'src/parse.js, строка 3', path: 'src/parse.js', line: 3, name: 'parse', context: ['Parser'] },
    ]);
  });

  it('leaves out what is not prose: FILE and EDIT blocks, fenced code, host names and ports', () => {
    const answer = [
      'Served at example.com:8080 and http://localhost:3000/a.js:12.',
      '```',
      'at parse (src/parse.js:99:5)',
      '```',
      '=== FILE: src/new.js ===',
      '// see src/parse.js:400',
      '=== END ===',
      '=== EDIT: src/parse.js ===',
      '<<<<<<< SEARCH',
      'src/parse.js:500',
      '=======',
      'x',
      '>>>>>>> REPLACE',
      '=== END ===',
      'Only src/parse.js:3 is cited.',
    ].join('\n');
    assert.deepEqual(
      findCitations(answer).map((c) => c.cited),
      ['src/parse.js:3'],
    );
  });

  it('checks at most MAX_CITATIONS of a long list', () => {
    const answer = Array.from({ length: MAX_CITATIONS + 10 }, (_, i) => `- src/parse.js:${i + 1}`).join('\n');
    assert.equal(findCitations(answer).length, MAX_CITATIONS);
  });
});

describe('checkCitations', () => {
  it('passes citations that match: the line is there and the name on it or a few lines off', () => {
    assert.deepEqual(
      check('`parse` is at src/parse.js:3; `lex` is called on src/parse.js:4; `build` src/parse.js:7'),
      [],
    );
  });

  it('says where a name cited beside a wrong line is, its definition first', () => {
    const [wrong] = check('The tree is built by `build` (src/parse.js:1).');
    assert.equal(
      describeMiscitation(wrong ?? assert.fail()),
      'src/parse.js:1 for `build`: `build` is at src/parse.js:8',
    );
    assert.deepEqual(check('The tree is built by `build` (src/parse.js:1).'), [
      {
        cited: 'src/parse.js:1',
        path: 'src/parse.js',
        line: 1,
        name: 'build',
        problem: 'name-elsewhere',
        at: 8,
      },
    ]);
  });

  it('passes a citation beside several names when any of them is at its line, and says the nearest when none is', () => {
    // get at 2, options at 14, head at 26. A relay player's answer; the check took `head`, the name nearest the
    // parenthesis, for line 2, and the corrected answer cost a step.
    const listed =
      '`Session.get`/`options` set it to True by default and `head` sets it to False (`src/verbs.py:2`, `:14`, `:26`).';
    assert.deepEqual(check(listed), []);
    const [wrong, ...rest] = check('`get` and `head` both pass allow_redirects on (src/verbs.py:14).');
    assert.deepEqual(rest, []);
    assert.equal(
      describeMiscitation(wrong ?? assert.fail()),
      'src/verbs.py:14 for `head`: `head` is at src/verbs.py:26',
    );
  });

  it("says each of a name's definitions, not only the first (a Protocol's stub before the class's method)", () => {
    const [wrong] = check('`send` gives up at src/sessions.py:23.');
    assert.equal(
      wrong === undefined ? '' : describeMiscitation(wrong),
      'src/sessions.py:23 for `send`: `send` is at src/sessions.py:2, 5',
    );
    // And so the person is told, in the console and the pult.
    const told = wrong === undefined ? undefined : [miscitation.en(wrong), miscitation.ru(wrong)];
    assert.deepEqual(told, [
      'src/sessions.py:23 for send: it is at src/sessions.py:2, 5',
      'src/sessions.py:23 для send: это src/sessions.py:2, 5',
    ]);
  });

  it('leaves alone a name the file only uses: it may be cited at any use, or for what a line does with it', () => {
    assert.deepEqual(check('`get_adapter` is in src/sessions.py:22.'), []);
  });

  it('gives a citation beside an expression or a message in backticks to it, and leaves it unjudged', () => {
    // The relay round's false flag: `setTimeout`, after the citation, was judged against the constant's line.
    const line = '`maxSafeTimeout = 2_147_483_647` (`src/constants.ts:8`) is the largest delay `setTimeout` accepts.';
    assert.deepEqual(findCitations(line), [{ cited: 'src/constants.ts:8', path: 'src/constants.ts', line: 8 }]);
    assert.deepEqual(check(line), []);
    // And before it, nearer than the expression: the citation holds where any name of the expression is.
    const before =
      '`maxSafeTimeout = 2_147_483_647` ms, the largest int that `setTimeout` accepts, about 24.8 days (`src/constants.ts:7-8`).';
    assert.deepEqual(check(before), []);
    assert.deepEqual(
      check(before.replace('7-8', '1')).map((m) => m.problem === 'name-absent' && m.name),
      ['setTimeout'],
    );
    // What a line must hold for an expression or a message is not known: mypy's `empty-body` is `EMPTY_BODY` there.
    assert.deepEqual(check('the code becomes `empty-body` instead (`src/constants.ts:1`), not `retry`.'), []);
    // A name is judged as before.
    assert.deepEqual(
      check('`maxSafeTimeout` (src/constants.ts:1)').map((m) => [m.problem, m.problem === 'name-elsewhere' && m.at]),
      [['name-elsewhere', 8]],
    );
  });

  it('takes a name the file never writes as built on a line that holds what qualifies it', () => {
    // `ky.post` is made by `ky[method] = …` in a loop over the methods: no line of index.ts writes `post`.
    assert.deepEqual(check('`ky.post(url, {json: data})` is one of the shortcuts built in `src/index.ts:6`.'), []);
    // Not when the qualifier is nowhere near the line either.
    assert.deepEqual(
      check('`Session.post()` is at src/index.ts:1.').map((m) => m.problem),
      ['name-absent'],
    );
  });

  it("does not judge an example's placeholder name the file never writes, but judges one it defines", () => {
    // pydantic's model_copy, cited for the shallow copy, `bar` being the docs' example's.
    assert.deepEqual(check('so nested objects such as `bar` are the same in both models (src/constants.ts:8).'), []);
    assert.deepEqual(
      check('`Session.foo()` is at src/index.ts:1.').map((m) => [m.name, m.problem]),
      [],
      'foo: an example',
    );
    assert.deepEqual(
      check('`Sessionfoo()` is at src/index.ts:1.').map((m) => [m.name, m.problem]),
      [['Sessionfoo', 'name-absent']],
    );
    // A file that defines `foo` has it judged as any name.
    const text = ['def foo():', '    return 1', '', '', '', '', '', '', '', '', '', 'x = 2', ''].join('\n');
    const defined = checkCitations('`foo` is at a.py:12.', () => ({ kind: 'text', text }));
    assert.deepEqual(
      defined.map((m) => [m.name, m.problem, m.problem === 'name-elsewhere' && m.at]),
      [['foo', 'name-elsewhere', 1]],
    );
  });

  it('takes a name said as the words of one on the line, blind to case and underscores', () => {
    // ky's `backoffLimit: Number.POSITIVE_INFINITY`, which a relay player said "defaults to `Infinity`".
    assert.deepEqual(check('`backoffLimit` defaults to `Infinity` (`src/constants.ts:10`).'), []);
    assert.deepEqual(check('It waits at most `max_safe_timeout` ms (src/constants.ts:8).'), []);
    // A name the file writes in another case is a text it uses, cited at any line like a name it uses.
    assert.deepEqual(check('The next `Requestmethods` are read at src/constants.ts:5.'), []);
    // Not a part of a word, nor a word the line does not hold.
    assert.deepEqual(
      check('It is `Infin` at src/constants.ts:10, and `Zero` at src/constants.ts:10.').map((m) => [m.name, m.problem]),
      [
        ['Infin', 'name-absent'],
        ['Zero', 'name-absent'],
      ],
    );
  });

  it('takes a text a FIND of the run looked for at a line that holds it in a longer word, as FIND found it there', () => {
    const executor = createExecutor(root);
    const checked = (searched: string[]) =>
      checkCitations('It is `Infin` at src/constants.ts:10.', (path) => executor.text(path), new Set(searched)).map(
        (m) => m.problem,
      );
    assert.deepEqual(checked(['Infin']), []);
    assert.deepEqual(checked(['Infinity']), ['name-absent'], 'another text looked for');
    assert.deepEqual(checked([]), ['name-absent']);
    assert.deepEqual(
      checkCitations('It is `Infin` at src/constants.ts:2.', (path) => executor.text(path), new Set(['Infin'])).map(
        (m) => m.problem,
      ),
      ['name-absent'],
      'not at that line',
    );
  });

  it('gives a name after a citation to it only within its own part of the sentence', () => {
    assert.deepEqual(
      findCitations('`parse` starts it (src/parse.js:3), and `build` ends it (src/parse.js:8).').map((c) => [
        c.cited,
        c.name,
      ]),
      [
        ['src/parse.js:3', 'parse'],
        ['src/parse.js:8', 'build'],
      ],
    );
    assert.deepEqual(check('`parse` starts it (src/parse.js:3), and `build` ends it.'), []);
  });

  it('says a line past the end, a name not in the file, and a path that is not there', () => {
    const wrong = check(
      ['`parse` at src/parse.js:120', '`tokenize` at src/lex.js:1', 'and src/missing.js:4'].join('\n'),
    );
    assert.deepEqual(
      wrong.map((m) => [m.cited, m.problem]),
      [
        ['src/parse.js:120', 'past-end'],
        ['src/lex.js:1', 'name-absent'],
        ['src/missing.js:4', 'no-file'],
      ],
    );
    assert.deepEqual(wrong[0]?.problem === 'past-end' ? wrong[0].lines : undefined, 10);
  });

  it('does not judge a name the answer says the line lacks', () => {
    assert.deepEqual(check('The default methods are `get` and `put`, with no `post` (src/lex.js:1).'), []);
    assert.deepEqual(check('Без `post` (src/lex.js:1), и не `tokenize` (src/lex.js:1).'), []);
    assert.deepEqual(
      check('The list names `post` (src/lex.js:1).').map((m) => m.problem),
      ['name-absent'],
    );
  });

  it("takes lines inside a name's definition as citing it: its body, its signature, its return", () => {
    assert.deepEqual(
      check(
        [
          'The adapter is used in `send` (src/sessions.py:14), which returns at src/sessions.py:17 for `Session.send`.',
          '`send` takes the request (src/sessions.py:6-8); `build` returns its tokens at src/parse.js:9.',
        ].join('\n'),
      ),
      [],
    );
    // Past the body, and in another definition, the name is still elsewhere.
    assert.deepEqual(
      check('`send` closes the session at src/sessions.py:22.').map((m) => [m.cited, m.problem]),
      [['src/sessions.py:22', 'name-elsewhere']],
    );
  });

  it("takes a line a few below a call's name as citing it (its arguments), and no keyword as a name", () => {
    assert.deepEqual(
      check('The URL goes to `get_adapter` (src/sessions.py:14), and `None` is never sent (src/sessions.py:16).'),
      [],
    );
  });

  it('knows a TypeScript method by its signature, with a return type or run on, and not by a call', () => {
    assert.deepEqual(
      check('`function_` is made in `Ky.create` (src/ky.ts:4-6) and `retry` returns at src/ky.ts:13.'),
      [],
    );
    assert.deepEqual(
      check('`create` builds it at src/ky.ts:12.').map((m) => (m.problem === 'name-elsewhere' ? m.at : m.problem)),
      [2],
    );
    assert.deepEqual(
      check('It retries in `retry` (src/ky.ts:1).').map((m) => (m.problem === 'name-elsewhere' ? m.at : m.problem)),
      [10],
    );
  });

  it('reads lines listed after a comma, `src/parse.js:1,4`, and passes the name when it is near any of them', () => {
    assert.deepEqual(findCitations('`lex` is imported and used at src/parse.js:1,4-5.'), [
      { cited: 'src/parse.js:1,4-5', path: 'src/parse.js', line: 1, also: [4, 5], name: 'lex' },
    ]);
    assert.deepEqual(check('`build` is src/parse.js:1,8.'), []);
    assert.deepEqual(
      check('`build` is src/parse.js:1,30.').map((m) => m.problem),
      ['past-end'],
    );
  });

  it('does not judge what it may not read, nor a bare file name the folder does not hold at the top', () => {
    assert.deepEqual(check('The key is .env:1 and `parse` is in parse.js:3.'), []);
  });
});

function scripted(replies: string[]): Bridge & { seen: string[] } {
  const seen: string[] = [];
  return {
    label: 'scripted',
    seen,
    chat: (message) => {
      seen.push(message);
      return Promise.resolve({ text: replies[seen.length - 1] ?? 'out of replies' });
    },
  };
}

function loop(replies: string[], steps = 4) {
  const bridge = scripted(replies);
  const events: LoopEvent[] = [];
  const executor = createExecutor(root);
  const run = runLoop({
    bridge,
    executor,
    texts: loadTexts(executor.limits),
    question: 'Where is the tree built?',
    steps,
    onEvent: (e) => events.push(e),
  });
  return { bridge, events, run };
}

describe('the loop with an answer that cites lines', () => {
  it('puts wrong citations to the model once, and takes its corrected answer', async () => {
    const { bridge, events, run } = loop([
      'The tree is built by `build` (src/parse.js:1).',
      'The tree is built by `build` (src/parse.js:8).',
    ]);
    const outcome = await run;
    assert.equal(outcome.reply, 'The tree is built by `build` (src/parse.js:8).');
    assert.deepEqual(outcome.miscited, []);
    assert.equal(bridge.seen.length, 2);
    assert.match(
      bridge.seen[1] ?? '',
      /=== RESULT citations: do not match the files ===\nOne place your answer cites does not match the files as they are:\n- src\/parse\.js:1 for `build`: `build` is at src\/parse\.js:8\nGive your final answer again/,
    );
    assert.deepEqual(
      events.filter((e) => e.kind === 'miscited').map((e) => e.retry),
      [true],
    );
  });

  it('takes a text the run FINDed as cited where FIND found it, inside a longer word', async () => {
    const answer = 'The limit is where `Infin` occurs (src/constants.ts:10).';
    const found = await loop(['=== FIND: Infin ===', answer]).run;
    assert.equal(found.reply, answer);
    assert.deepEqual(found.miscited, []);
    // Not looked for in the run: a part of a word, put to the model.
    const unsearched = loop([answer, answer]);
    const outcome = await unsearched.run;
    assert.equal(unsearched.bridge.seen.length, 2);
    assert.deepEqual(
      outcome.miscited.map((m) => m.problem),
      ['name-absent'],
    );
  });

  it('asks only once: a second wrong answer is the answer, with what is wrong in it', async () => {
    const { bridge, run } = loop(['`parse` at src/parse.js:120', '`parse` at src/parse.js:121']);
    const outcome = await run;
    assert.equal(bridge.seen.length, 2);
    assert.equal(outcome.stop, 'answered');
    assert.deepEqual(
      outcome.miscited.map((m) => m.cited),
      ['src/parse.js:121'],
    );
  });

  it('does not ask again on the last step, nor when the answer proposes changes', async () => {
    const last = loop(['=== NEED: src/lex.js ===', '`parse` at src/parse.js:120'], 2);
    assert.deepEqual(
      (await last.run).miscited.map((m) => m.cited),
      ['src/parse.js:120'],
    );
    assert.equal(last.bridge.seen.length, 2);
    const proposing = loop([
      'Renamed; `parse` at src/parse.js:120.\n=== FILE: src/new.js ===\nexport const x = 1;\n=== END ===',
    ]);
    const outcome = await proposing.run;
    assert.equal(proposing.bridge.seen.length, 1);
    assert.equal(outcome.proposals.length, 1);
    assert.deepEqual(
      outcome.miscited.map((m) => m.problem),
      ['past-end'],
    );
  });
});
