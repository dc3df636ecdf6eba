// The texts a question quotes: which are taken, and their hits sent with the question — in the first message when the
// search ends within its wait, with the first results when it does not, and with a follow-up in the same chat.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createExecutor } from '../reading/executor.ts';
import { lookForQuoted, quotedTexts } from '../protocol/quoted.ts';
import { runLoop } from '../protocol/loop.ts';
import { loadTexts } from '../protocol/transcript.ts';
import type { Reader } from '../protocol/contract.ts';
import { scriptedBridge, tempFolder } from './helpers.ts';

describe('quotedTexts', () => {
  it('takes what is quoted as people quote, in the order the question says it', () => {
    assert.deepEqual(
      quotedTexts('Why do I get «Нет такого файла» and then "Incompatible return value type" with `cfg.load(path)`?'),
      ['Нет такого файла', 'Incompatible return value type', 'cfg.load(path)'],
    );
    assert.deepEqual(quotedTexts('What does “max retries exceeded” mean?'), ['max retries exceeded']);
    assert.deepEqual(quotedTexts('Where is the --strict flag expanded?'), ['--strict']);
    // Flags every program has are asked about for what they print, not where they are made.
    assert.deepEqual(quotedTexts("Where is the default's text in --help made, and `--version`'s?"), []);
    assert.deepEqual(quotedTexts("The log says 'connection reset by peer'."), ['connection reset by peer']);
  });

  it('leaves out a word of small letters alone, which is everywhere; a name, a message or a flag it takes', () => {
    assert.deepEqual(
      quotedTexts("The 'flask routes' command: add a '--sort' choice 'path' that sorts as 'rule' does, like «путь»."),
      ['flask routes', '--sort'],
    );
    assert.deepEqual(quotedTexts('Why is \'routeMap\' empty, and "error_handler" or "v2api"?'), [
      'routeMap',
      'error_handler',
      'v2api',
    ]);
  });

  it('leaves out apostrophes, bare names in backticks, too short or too long texts, and repeats', () => {
    assert.deepEqual(quotedTexts("It doesn't work and the user's cache isn't cleared."), []);
    assert.deepEqual(quotedTexts('Where is `parseReply` called?'), [], 'the map has names');
    assert.deepEqual(quotedTexts('Is "ok" right?'), []);
    assert.deepEqual(quotedTexts(`Is "${'x'.repeat(161)}" right?`), []);
    assert.deepEqual(quotedTexts('"same text" and again "same text"'), ['same text']);
    assert.deepEqual(quotedTexts('a - b -- c, x--y'), [], 'dashes are not flags');
  });

  it('looks for three texts at most', () => {
    assert.deepEqual(quotedTexts('"one one" "two two" "three three" "four four"'), [
      'one one',
      'two two',
      'three three',
    ]);
  });
});

const FILES = {
  'src/messages.py': 'RETURN_VALUE = "Incompatible return value type"\nOTHER = "x"\n',
  'src/checker.py': 'from messages import RETURN_VALUE\n\ndef check():\n    fail(RETURN_VALUE)\n',
  'docs/errors.md': 'The checker says Incompatible return value type when the types differ.\n',
};
const QUESTION = 'Where is "Incompatible return value type" reported?';

describe('the hits of what the question quotes', () => {
  it('come in the first message, before the question, and are not looked for again', async () => {
    const [first = '', second = ''] = await messagesOf(FILES, QUESTION, [
      '=== NEED: src/checker.py ===',
      'The answer.',
    ]);
    const part = first.indexOf('=== WHERE THE TEXT THE QUESTION QUOTES OCCURS ===');
    assert.ok(part !== -1 && part < first.indexOf('=== QUESTION ==='), first);
    assert.match(
      first,
      /=== RESULT FIND Incompatible return value type: 2 hits ===\nsrc\/messages\.py:1: RETURN_VALUE/,
    );
    assert.match(first, /\ndocs\/errors\.md:1: The checker says/);
    assert.equal(second.split('=== RESULT FIND Incompatible return value type').length, 2, 'sent once, kept');
  });

  it("show the first ten hits of a text found often, tests' last, and say how many there are", async () => {
    const many = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`src/m${i}.py`, 'raise Error("Incompatible return value type")\n']),
    );
    for (let i = 0; i < 5; i++) many[`tests/test_m${i}.py`] = 'expect("Incompatible return value type")\n';
    const [first = ''] = await messagesOf(many, QUESTION, ['The answer.']);
    assert.match(first, /=== RESULT FIND Incompatible return value type: 17 hits ===\n/);
    assert.equal(first.match(/^src\/m\d+\.py:1: raise/gm)?.length, 10);
    assert.match(first, /\n\[10 of 17 hits shown here: 10 of the 12 outside tests; FIND the text/);
  });

  it("show two of tests' hits beside fewer hits outside them", async () => {
    const many: Record<string, string> = { 'src/messages.py': 'RETURN = "Incompatible return value type"\n' };
    for (let i = 0; i < 12; i++) many[`tests/test_m${i}.py`] = 'expect("Incompatible return value type")\n';
    const [first = ''] = await messagesOf(many, QUESTION, ['The answer.']);
    const part = first.slice(first.indexOf('=== RESULT FIND'), first.indexOf('=== END RESULT ==='));
    assert.match(part, /: 13 hits ===\nsrc\/messages\.py:1: RETURN/);
    assert.equal(part.match(/^tests\/test_m\d+\.py:1: /gm)?.length, 2, part);
    assert.match(part, /\n\[3 of 13 hits shown here: the one hit outside tests, then 2 in tests; FIND the text/);
  });

  it('show the first ten of a text found only in tests', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 12; i++) many[`tests/test_m${i}.py`] = 'expect("Incompatible return value type")\n';
    const [first = ''] = await messagesOf(many, QUESTION, ['The answer.']);
    assert.equal(first.match(/^tests\/test_m\d+\.py:1: /gm)?.length, 10);
    assert.match(first, /\n\[the first 10 of 12 hits shown here; FIND the text/);
  });

  it("keep a flag's hits to the flag itself, not the longer flags it begins", async () => {
    const files = {
      'cli.py': 'add("--strict-optional")\nadd("--strict-bytes")\nadd("--strict", help="all")\n',
      'docs/flags.md': 'Use --strict-equality or --strict.\n',
    };
    const [first = ''] = await messagesOf(files, 'Where is the --strict flag expanded?', ['The answer.']);
    assert.match(
      first,
      /=== RESULT FIND --strict: 2 hits of --strict itself; the other 2 of the 4 are of longer flags such as --strict-optional ===\ncli\.py:3: add\("--strict", help="all"\)\n {2}1 \| add\("--strict-optional"\)\n {2}2 \| add\("--strict-bytes"\)\n {2}3 \| add\("--strict", help="all"\)\ndocs\/flags\.md:1: /,
    );
    // Cut where the search stopped: the flag's own hits among the first hundred, and a folder to keep to.
    const many: Record<string, string> = { 'mypy/main.py': 'add("--strict")\n' };
    for (let i = 0; i < 120; i++) many[`mypy/opt${i}.py`] = 'add("--strict-optional")\n';
    const [cut = ''] = await messagesOf(many, 'Where is the --strict flag expanded?', ['The answer.']);
    assert.match(
      cut,
      /=== RESULT FIND --strict: 1 hit of --strict itself; the other 99 of the first 100 are of longer flags such as --strict-optional ===\nmypy\/main\.py:1: /,
    );
    assert.match(
      cut,
      /\n\[the search stopped at 100 hits, longer flags' among them: FIND --strict kept to a folder \(IN mypy\/\) for more\]/,
    );
  });

  it('are not looked for by the longest name in them, as a FIND found nowhere is', async () => {
    const files = { 'src/messages.py': 'raise Error("Incompatible return value type")\n' };
    const [first = ''] = await messagesOf(files, 'Why "Incompatible retrun value type"?', ['The answer.']);
    assert.match(first, /=== RESULT FIND Incompatible retrun value type: no hits, also ignoring case ===/);
    assert.ok(!first.includes('src/messages.py:1:'), first);
  });

  it('come with the first results when the search ends after the first message went out', async () => {
    const second = await withLateSearch('=== LIST: src/*.py ===', (first) =>
      assert.ok(!first.includes('=== RESULT FIND'), 'not in the first message'),
    );
    const results = second.slice(second.indexOf('=== RESULTS OF YOUR REQUESTS AT STEP 1 ==='));
    assert.match(results, /=== RESULT FIND Incompatible return value type: 2 hits ===/);
    assert.match(results, /=== RESULT LIST src\/\*\.py/);
  });

  it('are not sent late beside the same FIND the model asked itself', async () => {
    const second = await withLateSearch('=== FIND: Incompatible return value type ===');
    assert.equal(second.split('=== RESULT FIND Incompatible return value type').length, 2, second);
  });

  it('name for the map the files outside tests where a text is found in few of them', async () => {
    const few = { ...FILES, 'tests/test_checker.py': 'expect("Incompatible return value type")\n' };
    const many = Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [`src/m${i}.py`, 'raise Error("Incompatible return value type")\n']),
    );
    // Said in so many tests' expectations that the search stops at its limit: the file that makes it still counts.
    const cut = {
      'src/messages.py': FILES['src/messages.py'],
      'test-data/check.test': 'x  # E: Incompatible return value type\n'.repeat(150),
    };
    for (const [files, expected] of [
      [few, ['docs/errors.md', 'src/messages.py']],
      [many, []],
      [cut, ['src/messages.py']],
    ] as const) {
      const executor = createExecutor(tempFolder(files));
      try {
        const lookup = lookForQuoted(executor, QUESTION);
        assert.deepEqual(lookup?.files(), [], 'none before the search ends');
        await lookup?.within(120_000);
        assert.deepEqual([...(lookup?.files() ?? [])].sort(), expected);
      } finally {
        await executor.close();
      }
    }
  });

  it('come with a follow-up asked in the same chat', async () => {
    const executor = createExecutor(tempFolder(FILES));
    const bridge = { ...scriptedBridge(['The answer.']), keepsChat: true };
    try {
      await runLoop({
        bridge,
        executor,
        texts: loadTexts(executor.limits),
        question: QUESTION,
        steps: 2,
        chatContinues: true,
        mapWait: 120_000,
      });
    } finally {
      await executor.close();
    }
    const first = bridge.seen[0] ?? '';
    assert.ok(!first.includes('=== PROJECT FOLDER ==='), 'only what is new');
    assert.match(first, /=== WHERE THE TEXT THE QUESTION QUOTES OCCURS ===\n=== RESULT FIND Incompatible return/);
    assert.ok(first.indexOf('=== RESULT FIND') < first.indexOf('=== QUESTION ==='));
  });
});

// A run whose search for the quoted text ends only once the first message was sent (the reader's first answer waits
// for it), the model asking `firstReply` at step 1: the second message, after `first` looked at the first.
async function withLateSearch(firstReply: string, first: (message: string) => void = () => {}): Promise<string> {
  const real = createExecutor(tempFolder(FILES));
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  const executor: Reader = {
    ...real,
    limits: real.limits,
    tree: (max) => real.tree(max),
    text: (p) => real.text(p),
    reset: () => real.reset(),
    answer: async (requests, earlier) => {
      if (calls++ === 0) await held;
      return real.answer(requests, earlier);
    },
  };
  const bridge = scriptedBridge([firstReply, 'The answer.']);
  bridge.onFirst = release;
  try {
    await runLoop({ bridge, executor, texts: loadTexts(real.limits), question: QUESTION, steps: 3, mapWait: 0 });
  } finally {
    await real.close();
  }
  first(bridge.seen[0] ?? '');
  return bridge.seen[1] ?? '';
}

// The messages a run sends in a folder of `files` for `question`, the model answering `replies` in turn.
async function messagesOf(files: Record<string, string>, question: string, replies: string[]): Promise<string[]> {
  const executor = createExecutor(tempFolder(files));
  const bridge = scriptedBridge(replies);
  try {
    await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question, steps: 3, mapWait: 120_000 });
  } finally {
    await executor.close();
  }
  return bridge.seen;
}
