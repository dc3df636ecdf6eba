import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DeepworkError } from '../common/errors.ts';
import { createExecutor, type Executor } from '../reading/executor.ts';
import { applyFiles } from '../writing/apply.ts';
import { parseReply, type Proposal } from '../protocol/parse.ts';
import { answerOf, runLoop, type LoopEvent } from '../protocol/loop.ts';
import type { Bridge } from '../protocol/contract.ts';
import { loadTexts } from '../protocol/transcript.ts';
import { createOllamaBridge } from '../bridge/ollama.ts';
import { createDemoBridge } from '../bridge/demo.ts';
import { startFakeBridge } from './fake-bridge.ts';
import { tempFolder } from './helpers.ts';

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

const root = tempFolder({
  'ask.mjs': 'export async function waitForAnswer(page) {\n  return page;\n}\n',
  'ui.html': '<p>pult</p>\n',
  'notes.md': `${'a'.repeat(30_000)}\n`,
  // Prose of about 8,000 tokens, by any tokenizer's count: what grows num_ctx past 16,384.
  'long.md': 'The bridge remembers nothing, so every call carries everything it was sent before. '.repeat(600),
});

function loop(bridge: Bridge, question: string, steps = 4, files: string[] = [], onEvent?: (e: LoopEvent) => void) {
  const executor = createExecutor(root);
  return runLoop({
    bridge,
    executor,
    texts: loadTexts(executor.limits),
    question,
    steps,
    files,
    ...(onEvent ? { onEvent } : {}),
  });
}

describe('runLoop', () => {
  it('sends instructions, tree, attached files, then the reminder right before the question', async () => {
    const bridge = scripted(['The answer.']);
    const texts = loadTexts(createExecutor(root).limits);
    await loop(bridge, 'Where is the answer decided?', 4, ['notes.md']);
    const first = bridge.seen[0] ?? '';
    const at = (s: string) => first.indexOf(s);
    assert.ok(first.startsWith(texts.instructions));
    assert.ok(at('=== PROJECT FOLDER ===') < at('ask.mjs'));
    assert.ok(at('=== FILES ATTACHED BY THE USER ===') < at('a'.repeat(30_000)));
    assert.ok(at('a'.repeat(30_000)) < at(texts.reminder), 'the reminder comes after the attached files');
    // Once: nothing comes between the question and the step line that closes the message.
    assert.ok(
      first.includes(
        `${texts.reminder}\n\n=== QUESTION ===\nWhere is the answer decided?\n\nThis is step 1 of 4 for this question.`,
      ),
    );
    assert.equal(first.split(texts.reminder).length, 2, 'the reminder once');
    assert.match(
      first,
      /\n\nThis is step 1 of 4 for this question\. The window holds about 64,000 tokens: your reply may take up to 8,192, and after this message about [\d,]+ \(some [\d,]+ characters of code\) are left for all later steps: your replies and the results of what you ask\.$/,
    );
    assert.ok(!first.includes(texts.lastStep));
  });

  it('grows the transcript: the first message, each answer in its own markers, its results, the reminder', async () => {
    const bridge = scripted(['Let me look.\n=== NEED: ask.mjs ===', 'It is waitForAnswer.']);
    const outcome = await loop(bridge, 'q');
    const [first, second] = bridge.seen;
    const texts = loadTexts(createExecutor(root).limits);
    const question = '=== QUESTION ===\nq\n\n';
    const head = (first ?? '').slice(0, (first ?? '').indexOf(question) + question.length);
    // The same head, but for the reminder above the question: the closing lines carry it from now on, once.
    assert.ok(second?.startsWith(head.replace(`${texts.reminder}\n\n`, '')));
    assert.equal(second?.split(texts.reminder).length, 2, 'the reminder once');
    const rest = second?.slice(head.length - texts.reminder.length - 2) ?? '';
    assert.match(
      rest,
      /^=== YOUR ANSWER AT STEP 1 ===\nLet me look\.\n=== NEED: ask\.mjs ===\n=== END OF YOUR ANSWER ===\n\n=== RESULTS OF YOUR REQUESTS AT STEP 1 ===\n=== RESULT NEED ask\.mjs: 3 lines ===\n1 \| export async function waitForAnswer/,
    );
    assert.match(rest, /\n\nReminder: [\s\S]*This is step 2 of 4 for this question\./);
    assert.deepEqual(outcome.sent, [first?.length, second?.length]);
    assert.equal(outcome.stop, 'answered');
    assert.equal(answerOf(outcome), 'It is waitForAnswer.');
  });

  it('says on the last step that it is the last', async () => {
    const bridge = scripted(['=== FIND: x ===', 'done']);
    const texts = loadTexts(createExecutor(root).limits);
    await loop(bridge, 'q', 2);
    assert.ok(!bridge.seen[0]?.includes(texts.lastStep));
    assert.ok(bridge.seen[1]?.trimEnd().endsWith(texts.lastStep));
  });

  it('stops when the steps run out, marking the answer and naming what was not answered', async () => {
    const outcome = await loop(
      scripted(['=== FIND: a ===', 'Still looking.\n=== NEED: ui.html ===\n=== FIND: pult ===']),
      'q',
      2,
    );
    assert.equal(outcome.stop, 'steps');
    assert.equal(outcome.steps, 2);
    assert.match(
      answerOf(outcome),
      /^Still looking\.[\s\S]*\[deepwork: this answer was cut short: the steps ran out after 2 steps\. Unanswered requests: NEED ui\.html; FIND pult\./,
    );
    assert.deepEqual(
      outcome.unanswered.map((r) => r.kind),
      ['need', 'find'],
    );
  });

  it('stops when a reply repeats the previous step exactly', async () => {
    const bridge = scripted([
      '=== FIND: a ===\n=== NEED: ui.html ===',
      '=== NEED: ui.html ===\n=== FIND: a ===',
      'never sent',
    ]);
    const outcome = await loop(bridge, 'q', 4);
    assert.equal(outcome.stop, 'repeat');
    assert.equal(bridge.seen.length, 2);
    assert.match(answerOf(outcome), /repeated its previous requests/);
  });

  it('tells the model about a line that meant a request, and goes on instead of taking it as the answer', async () => {
    const events: LoopEvent[] = [];
    const bridge = scripted([
      'Let me see the file.\n=== NEED: ask.mjs === and its callers\n=== LIST: *.html === then === FIND: pult ===',
      'It waits for the answer.',
    ]);
    const outcome = await loop(bridge, 'q', 4, [], (e) => events.push(e));
    assert.equal(outcome.stop, 'answered');
    assert.equal(answerOf(outcome), 'It waits for the answer.');
    const second = bridge.seen[1] ?? '';
    assert.ok(
      second.includes(
        '=== RESULT line 2: not understood ===\n=== NEED: ask.mjs === and its callers\n(text follows its closing ===; nothing was done for it.) Write it on a line of its own, as:\n=== NEED: ask.mjs ===\n=== END RESULT ===',
      ),
      second.slice(-900),
    );
    assert.ok(second.includes('Write each on a line of its own, as:\n=== LIST: *.html ===\n=== FIND: pult ===\n'));
    assert.ok(!second.includes('=== RESULT NEED ask.mjs'), 'nothing was done for it');
    const replied = events.find((e) => e.kind === 'replied');
    assert.deepEqual(replied?.kind === 'replied' ? replied.requests : [], [
      'not understood: line 2',
      'not understood: line 3',
    ]);
  });

  // Issue 25: `NEED: source/core/index.ts:470-500` without markers, and two FINDs on one line, cost a step each.
  it('answers a line that says exactly which requests it means, with a note on how it was read, once (issue 25)', async () => {
    const events: LoopEvent[] = [];
    const bridge = scripted([
      'Let me see the file.\nNEED: ask.mjs:1-2\n=== FIND: pult === === FIND: waitFor ===\n<LIST: *.html>',
      '=== NEED: ui.html ===',
      'It waits for the answer.',
    ]);
    const outcome = await loop(bridge, 'q', 4, [], (e) => events.push(e));
    assert.equal(outcome.stop, 'answered');
    const second = bridge.seen[1] ?? '';
    const notes = [
      '(Line 2 was read as === NEED: ask.mjs:1-2 ===, answered below: it has no === markers around it. Next time write it so, on a line of its own.)',
      '(Line 3 was read as === FIND: pult === and === FIND: waitFor ===, answered below: two blocks stand on one line. Next time write them so, each on a line of its own.)',
      '(Line 4 was read as === LIST: *.html ===, answered below: it is in <> instead of === markers. Next time write it so, on a line of its own.)',
    ];
    assert.ok(
      second.includes(`=== RESULTS OF YOUR REQUESTS AT STEP 1 ===\n${notes.join('\n\n')}\n\n=== RESULT NEED ask.mjs`),
      second.slice(-1500),
    );
    assert.match(
      second,
      /=== RESULT NEED ask\.mjs:1-2: lines 1-2 of \d+ ===\n1 \| export async function waitForAnswer/,
    );
    assert.match(second, /=== RESULT FIND pult: /);
    assert.match(second, /=== RESULT FIND waitFor: /);
    assert.match(second, /=== RESULT LIST \*\.html: 1 path ===\nui\.html\n/);
    assert.ok(!second.includes('not understood'));
    for (const note of notes) assert.equal((bridge.seen[2] ?? '').split(note).length, 2, 'told once, at its step');
    const replied = events.find((e) => e.kind === 'replied');
    assert.deepEqual(replied?.kind === 'replied' ? replied.requests : [], [
      'NEED ask.mjs:1-2',
      'FIND pult',
      'FIND waitFor',
      'LIST *.html',
    ]);
  });

  it('stops when a slip asks again what the step before asked (issue 25)', async () => {
    const bridge = scripted(['=== NEED: ui.html ===', 'NEED: ui.html', 'never sent']);
    const outcome = await loop(bridge, 'q', 4);
    assert.equal(outcome.stop, 'repeat');
    assert.equal(bridge.seen.length, 2);
    assert.match(answerOf(outcome), /Unanswered requests: NEED ui\.html\./);
  });

  // Issue 25: `### === LIST: source/core/utils/*.ts ===` beside valid requests got no result and no word.
  it('answers a request behind a markdown heading or a quote mark, beside others (issue 25)', async () => {
    const bridge = scripted([
      'Looking.\n\n### === LIST: *.html ===\n=== FIND: pult ===\n> === NEED: ask.mjs ===',
      'It waits for the answer.',
    ]);
    await loop(bridge, 'q');
    const second = bridge.seen[1] ?? '';
    assert.match(second, /=== RESULT LIST \*\.html: 1 path ===\nui\.html\n/);
    assert.match(second, /=== RESULT FIND pult: /);
    assert.match(second, /=== RESULT NEED ask\.mjs: 3 lines ===/);
  });

  it('takes an answer that quotes a request in a code sample as the answer', async () => {
    const sample = 'Ask for it like this:\n\n```\nthe model writes\n=== NEED: ask.mjs ===\n```\n';
    const bridge = scripted([sample, 'never sent']);
    const outcome = await loop(bridge, 'q');
    assert.equal(outcome.stop, 'answered');
    assert.equal(bridge.seen.length, 1);
  });

  it('points a NEED of a mask to LIST', async () => {
    const bridge = scripted(['=== NEED: *.mjs ===', 'done']);
    await loop(bridge, 'q');
    assert.ok(
      bridge.seen[1]?.includes(
        '=== RESULT NEED *.mjs: no such file; NEED takes paths, not masks: ask LIST *.mjs for the paths it matches ===',
      ),
    );
  });

  it('tells the model an EDIT that does not apply, with the closest lines, and keeps a corrected one', async () => {
    const bad =
      '=== EDIT: ask.mjs ===\n<<<<<<< SEARCH\nexport async function waitForAnswer(page) {\n  return page.answer;\n=======\nexport async function waitForAnswer(page) {\n  return page.text;\n>>>>>>> REPLACE\n=== END ===';
    const good =
      '=== EDIT: ask.mjs ===\n<<<<<<< SEARCH\n  return page;\n=======\n  return page.text;\n>>>>>>> REPLACE\n=== END ===\nFixed.';
    const events: LoopEvent[] = [];
    const bridge = scripted([`Here.\n${bad}`, good, 'never sent']);
    const outcome = await loop(bridge, 'q', 4, [], (e) => events.push(e));
    assert.equal(outcome.stop, 'answered');
    assert.equal(bridge.seen.length, 2, 'a failed EDIT keeps the loop going; a good one ends it');
    const second = bridge.seen[1] ?? '';
    assert.ok(
      second.includes('=== RESULT EDIT ask.mjs: not kept ===\npair 1 of 1: the SEARCH matches no lines of the file'),
      second.slice(-1200),
    );
    assert.ok(
      second.includes(
        'The closest lines of ask.mjs now:\n1 | export async function waitForAnswer(page) {\n2 |   return page;\n3 | }',
      ),
    );
    const replied = events.filter((e) => e.kind === 'replied');
    assert.deepEqual(
      replied.map((e) => e.kind === 'replied' && e.requests),
      [['EDIT ask.mjs not kept'], []],
    );
    // The EDIT the model was told was not kept is gone: what is written is the corrected one alone.
    assert.deepEqual(
      outcome.proposals.map((p) => (p.kind === 'edit' ? p.pairs[0]?.replace : '')),
      ['  return page.text;\n'],
    );
  });

  it('shows the model an EDIT example in its instructions that reads into one whole pair (the formatter had broken it)', async () => {
    const bridge = scripted(['done']);
    await loop(bridge, 'q');
    const [example, ...more] = parseReply(bridge.seen[0] ?? '').edits;
    assert.equal(more.length, 0);
    assert.deepEqual(
      [example?.complete, example?.problem, example?.pairs],
      [
        true,
        undefined,
        [
          {
            search: 'function total(items) {\n  return items.length;\n',
            replace: 'function total(items) {\n  return items.reduce((sum, item) => sum + item.price, 0);\n',
          },
        ],
      ],
    );
  });

  it('keeps an EDIT that was not kept in the proposals while nothing later for its path is, so the report says why', async () => {
    const bad = '=== EDIT: ask.mjs ===\n<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n=== END ===';
    const outcome = await loop(scripted([bad]), 'q', 1);
    assert.deepEqual(
      outcome.proposals.map((p) => p.kind),
      ['edit'],
    );
  });

  it('checks an EDIT against an earlier FILE for the same path, and says it is kept', async () => {
    const bridge = scripted([
      '=== FILE: new.js ===\nconst a = 1;\n=== END ===\n=== EDIT: new.js ===\n<<<<<<< SEARCH\nconst a = 1;\n=======\nconst a = 2;\n>>>>>>> REPLACE\n=== END ===\n=== FIND: zz ===',
      'done',
    ]);
    await loop(bridge, 'q');
    assert.ok(
      bridge.seen[1]?.includes(
        '=== RESULT EDIT new.js: its pair matches; kept, for the user to write after your final answer (do not send it again) ===',
      ),
    );
  });

  it('says the FILE blocks of a reply with requests are kept, in one result: new or in place of a file, and lines', async () => {
    const bridge = scripted([
      '=== FILE: new.js ===\nconst a = 1;\nconst b = 2;\n=== END ===\n=== FIND: zz ===',
      '=== FILE: a.js ===\nx\n=== END ===\n=== FILE: ask.mjs ===\nexport const y = 1;\n=== END ===\n=== FIND: yy ===',
      'done',
    ]);
    await loop(bridge, 'q');
    assert.ok(
      bridge.seen[1]?.includes(
        '=== RESULT FILE new.js: kept (a new file of 2 lines), for the user to write after your final answer (do not send it again) ===',
      ),
      bridge.seen[1],
    );
    assert.ok(
      bridge.seen[2]?.includes(
        '=== RESULT FILE a.js, ask.mjs: kept (2 files, 1 of them new), for the user to write after your final answer (do not send them again) ===',
      ),
      bridge.seen[2],
    );
  });

  it('tells the model a FILE cut off before its END, pointing to EDIT', async () => {
    const bridge = scripted(['=== FILE: big.js ===\nconst a = 1;\n', 'done']);
    await loop(bridge, 'q');
    assert.match(
      bridge.seen[1] ?? '',
      /=== RESULT FILE big\.js: not kept ===\nthe reply ended before its END line, so it is never written\.\nNothing of this block was kept\. For a big file, send EDIT blocks instead of the whole file\./,
    );
  });

  it('sends attached files the caller already read without reading them again', async () => {
    const executor = createExecutor(root);
    const read = await executor.answer([{ kind: 'need', paths: ['ui.html'], line: 0 }]);
    let answered = 0;
    const counting = {
      ...executor,
      answer: (...args: Parameters<typeof executor.answer>) => (answered++, executor.answer(...args)),
    };
    const bridge = scripted(['The answer.']);
    await runLoop({
      bridge,
      executor: counting,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 2,
      files: ['ui.html'],
      attached: read,
    });
    assert.equal(answered, 0);
    assert.match(
      bridge.seen[0] ?? '',
      /=== FILES ATTACHED BY THE USER ===\n=== RESULT NEED ui\.html: 1 line ===\n1 \| <p>pult<\/p>/,
    );
  });

  it('says the server cut a reply at its output limit: to the user as a warning, to the model in the block it cut', async () => {
    const seen: string[] = [];
    const replies = ['=== EDIT: ui.html ===\n<<<<<<< SEARCH\n<p>pult</p>\n=======\n<p>pu', 'done'];
    const cut = 'the server cut the reply at its output limit (finish_reason "length")';
    const bridge: Bridge = {
      label: 'cutting',
      chat: (message) => {
        seen.push(message);
        return Promise.resolve(seen.length === 1 ? { text: replies[0] ?? '', cut } : { text: 'done' });
      },
    };
    const events: LoopEvent[] = [];
    const outcome = await loop(bridge, 'q', 4, [], (e) => events.push(e));
    assert.deepEqual(
      events.filter((e) => e.kind === 'warning'),
      [{ kind: 'warning', step: 1, message: cut }],
    );
    assert.match(
      seen[1] ?? '',
      /=== RESULT EDIT ui\.html: not kept ===\nthe server cut the reply at its output limit before the block's END line, so it is never written\.\nNothing of this block was kept\. Send it again, whole, closed by its END line; send fewer pairs per reply, so the reply stays short\./,
    );
    assert.deepEqual(
      outcome.proposals.filter((p) => p.complete),
      [],
    );
  });

  it('collects FILE blocks over all steps, a later one replacing an earlier one', async () => {
    const bridge = scripted([
      '=== FILE: a.js ===\nfirst\n=== END ===\n=== FILE: b.js ===\nb\n=== END ===\n=== FIND: x ===',
      '=== FILE: a.js ===\nsecond\n=== END ===',
    ]);
    const outcome = await loop(bridge, 'q');
    assert.deepEqual(
      outcome.proposals.map((f) => [f.path, f.kind === 'file' ? f.content : '']),
      [
        ['b.js', 'b\n'],
        ['a.js', 'second\n'],
      ],
    );
  });

  it('reports each step as events', async () => {
    const events: LoopEvent[] = [];
    await loop(scripted(['=== NEED: ui.html ===', 'done']), 'q', 4, [], (e) => events.push(e));
    assert.deepEqual(
      events.map((e) => e.kind),
      ['sending', 'replied', 'answered-requests', 'sending', 'replied'],
    );
    const replied = events[1];
    assert.ok(replied?.kind === 'replied');
    assert.deepEqual(replied.requests, ['NEED ui.html']);
  });

  it('runs over HTTP against an Ollama-style bridge', async () => {
    const fake = await startFakeBridge({
      chat: (content, i) => ({
        kind: 'reply',
        text:
          i === 0
            ? '=== FIND: waitForAnswer ==='
            : content.includes('ask.mjs:1:')
              ? 'In ask.mjs, line 1.'
              : 'not found',
      }),
    });
    const outcome = await loop(createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 5000 }), 'where?');
    assert.equal(answerOf(outcome), 'In ask.mjs, line 1.');
    assert.equal(fake.chats.length, 2);
  });

  it('lets the demo bridge find, read and report on the real folder', async () => {
    const outcome = await loop(createDemoBridge(), 'Where is waitForAnswer defined?');
    assert.equal(outcome.stop, 'answered');
    assert.equal(outcome.steps, 3);
    assert.match(answerOf(outcome), /demo bridge \(not a model\)/);
    assert.match(answerOf(outcome), /`ask\.mjs` line 1: `export async function waitForAnswer\(page\) \{`/);
  });
});

describe('loadTexts', () => {
  it('names the file and what to do when the instructions file is broken or missing, with a stable code', () => {
    const dir = tempFolder({ 'broken.md': '# instructions\nHello {needChars}.\n# reminder\nRemember.\n' });
    const limits = createExecutor(dir).limits;
    assert.throws(
      () => loadTexts(limits, path.join(dir, 'broken.md')),
      (error: unknown) =>
        error instanceof DeepworkError &&
        error.code === 'INSTRUCTIONS_INVALID' &&
        /broken\.md has no "# last step" section/.test(error.message),
    );
    assert.throws(
      () => loadTexts(limits, path.join(dir, 'gone.md')),
      (error: unknown) =>
        error instanceof DeepworkError &&
        error.code === 'INSTRUCTIONS_INVALID' &&
        /gone\.md cannot be read \(ENOENT\)\. Reinstall deepwork/.test(error.message),
    );
  });

  it('fills in the limits by name and leaves an unknown name as it is', () => {
    const dir = tempFolder({
      'texts.md': '# instructions\n{needChars} and {needPaths}, {nothing}\n# reminder\nr\n# last step\nl\n',
    });
    assert.equal(
      loadTexts(createExecutor(dir).limits, path.join(dir, 'texts.md')).instructions,
      '200,000 and 100, {nothing}',
    );
  });
});

describe('the context window', () => {
  const big = tempFolder({
    'one.txt': `${'one '.repeat(6_000)}\n`,
    'two.txt': `${'two '.repeat(6_000)}\n`,
    'three.txt': `${'three '.repeat(4_000)}\n`,
  });
  const run = (bridge: Bridge, contextTokens: number, onEvent?: (e: LoopEvent) => void, files: string[] = []) => {
    const executor = createExecutor(big);
    return runLoop({
      bridge,
      executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 5,
      files,
      contextTokens,
      ...(onEvent ? { onEvent } : {}),
    });
  };

  it('drops results the model already read, oldest first, to one-line notes, and never sends over the budget', async () => {
    const bridge = scripted(['=== NEED: one.txt ===', '=== NEED: two.txt ===', '=== NEED: three.txt ===', 'done']);
    const events: LoopEvent[] = [];
    const outcome = await run(bridge, 16_384, (e) => events.push(e));
    const sending = events.filter((e): e is Extract<LoopEvent, { kind: 'sending' }> => e.kind === 'sending');
    for (const e of sending) assert.ok(e.tokens <= e.budget, `step ${e.step}: ${e.tokens} tokens over ${e.budget}`);
    // Each file is ~7,000 tokens and the message may take 12,288: at step 3 the oldest gives way, at step 4 two do.
    assert.deepEqual(
      sending.map((e) => e.dropped),
      [0, 0, 1, 2],
    );
    const third = bridge.seen[2] ?? '';
    assert.match(
      third,
      /\[one\.txt lines 1-1 were sent at step 1 and dropped to fit the window; ask again if needed\.\]/,
    );
    assert.ok(third.includes('two two two'), 'the newer result stays');
    const last = bridge.seen.at(-1) ?? '';
    assert.match(last, /\[two\.txt lines 1-1 were sent at step 2 and dropped/);
    assert.ok(last.includes('three three'), 'the newest result stays');
    assert.ok(last.includes(loadTexts(createExecutor(big).limits).instructions), 'the instructions stay');
    assert.equal(answerOf(outcome), 'done');
  });

  it("continues an earlier question, whose results give way before this question's", async () => {
    const first = scripted(['=== NEED: one.txt ===', 'It is all "one".']);
    const executor = createExecutor(big);
    const texts = loadTexts(executor.limits);
    const earlier = await runLoop({
      bridge: first,
      executor,
      texts,
      question: 'What is in one.txt?',
      steps: 5,
      contextTokens: 16_384,
    });
    assert.deepEqual(
      earlier.turn.steps.map((s) => s.answer),
      ['=== NEED: one.txt ==='],
    );
    assert.equal(earlier.turn.answer, 'It is all "one".');
    const second = scripted(['=== NEED: two.txt ===', 'And "two".']);
    const events: LoopEvent[] = [];
    await runLoop({
      bridge: second,
      executor,
      texts,
      question: 'And two.txt?',
      steps: 5,
      contextTokens: 16_384,
      earlier: [earlier.turn],
      onEvent: (e) => events.push(e),
    });
    const [start, next] = second.seen;
    assert.ok(
      start?.includes('=== EARLIER QUESTION 1 ===\nWhat is in one.txt?') && start.includes('one one one'),
      'the earlier result is sent while it fits',
    );
    assert.match(next ?? '', /\[one\.txt lines 1-1 were sent at step 1 and dropped to fit the window/);
    assert.ok(next?.includes('=== YOUR FINAL ANSWER TO QUESTION 1 ===\nIt is all "one".'), 'the earlier answer stays');
    assert.ok(next?.includes('two two two'), "this question's result stays");
    const sending = events.filter((e) => e.kind === 'sending');
    assert.deepEqual(
      sending.map((e) => e.kind === 'sending' && e.dropped),
      [0, 1],
    );
  });

  it('does not send again a file still in the message, and sends again one that was dropped', async () => {
    const bridge = scripted(['=== NEED: two.txt ===', '=== NEED: two.txt ===\n=== FIND: zz ===', 'done']);
    await run(bridge, 64_000);
    assert.match(bridge.seen[2] ?? '', /=== RESULT NEED two\.txt: already sent at step 1, above ===/);
    const small = scripted(['=== NEED: one.txt ===', '=== NEED: two.txt ===', '=== NEED: one.txt ===', 'done']);
    await run(small, 16_384);
    assert.match(
      small.seen[3] ?? '',
      /=== RESULTS OF YOUR REQUESTS AT STEP 3 ===\n=== RESULT NEED one\.txt: 1 line ===\n1 \| one one/,
    );
  });

  it('refuses to send, with a clear error, when the question and attached files alone exceed the window', async () => {
    await assert.rejects(
      run(scripted(['x']), 4_096, undefined, ['one.txt', 'two.txt']),
      (error: unknown) =>
        error instanceof DeepworkError &&
        error.code === 'CONTEXT_FULL' &&
        /over the [\d,]+ the model's window leaves for it.*Attach fewer files.*contextTokens/.test(error.message),
    );
  });

  it('tells the model which step it is and how much room is left, on every message', async () => {
    const bridge = scripted(['=== FIND: one ===', 'done']);
    await run(bridge, 32_768);
    assert.match(
      bridge.seen[0] ?? '',
      /This is step 1 of 5 for this question\. The window holds about 32,768 tokens: your reply may take up to 8,192, and after this message about [\d,]+ \(some [\d,]+ characters of code\) are left for all later steps: your replies and the results of what you ask\.$/,
    );
    assert.match(bridge.seen[1] ?? '', /This is step 2 of 5 for this question\./);
  });
});

describe('the context window with Ollama', () => {
  it('asks /api/show for the window and sends a num_ctx that fits the prompt, growing only when needed', async () => {
    const replies = ['=== NEED: long.md ===', '=== FIND: waitForAnswer ===', 'done'];
    const fake = await startFakeBridge({
      chat: (_c, i) => ({ kind: 'reply', text: replies[i] ?? 'done' }),
      show: {
        parameters: 'stop "<|eot|>"',
        model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32_768 },
      },
    });
    const events: LoopEvent[] = [];
    await loop(createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 5000 }), 'q', 4, [], (e) => events.push(e));
    assert.deepEqual(
      fake.chats.map((c) => c.numCtx),
      [16_384, 32_768, 32_768],
    );
    const budgets = events.flatMap((e) => (e.kind === 'sending' ? [e.budget] : []));
    assert.deepEqual(budgets, [24_576, 24_576, 24_576]);
  });

  it('takes num_ctx from the model parameters when the Modelfile sets one', async () => {
    const fake = await startFakeBridge({
      show: {
        parameters: 'num_ctx 8192\nstop x',
        model_info: { 'general.architecture': 'llama', 'llama.context_length': 131_072 },
      },
    });
    assert.equal(
      await createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 5000 }).window?.(new AbortController().signal),
      8_192,
    );
  });

  it('says so when the server read a full window smaller than the prompt: its beginning was cut', async () => {
    const fake = await startFakeBridge({
      chat: () => ({ kind: 'reply', text: 'done' }),
      promptEvalCount: (_c, numCtx) => (typeof numCtx === 'number' ? numCtx : 0),
    });
    const events: LoopEvent[] = [];
    const executor = createExecutor(root);
    await runLoop({
      bridge: createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 5000 }),
      executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 2,
      files: ['notes.md'],
      contextTokens: 1_000_000,
      onEvent: (e) => events.push(e),
    });
    // The estimate is low on purpose here: the server says it read exactly num_ctx tokens of a larger prompt.
    const cut = events.find((e) => e.kind === 'warning');
    assert.equal(cut, undefined, 'a prompt that fits its num_ctx is not reported as cut');
    const tight = await startFakeBridge({
      chat: () => ({ kind: 'reply', text: 'done' }),
      promptEvalCount: () => 4_096,
    });
    const seen: LoopEvent[] = [];
    const bridge = createOllamaBridge({ host: tight.host, model: 'm', timeoutMs: 5000 });
    const reply = await bridge.chat('x'.repeat(40_000), {
      signal: new AbortController().signal,
      tokens: 12_000,
      window: 4_096,
    });
    assert.ok(typeof reply !== 'string');
    assert.match(
      reply.truncated ?? '',
      /the model read 4,096 tokens of a message of about 12,000: its window \(num_ctx 4,096\) cut the beginning.*contextTokens/,
    );
    assert.equal(seen.length, 0);
  });
});

describe('the context window, for results the model never saw', () => {
  // The second message of a run in a 16,384-token window whose first reply asks `request` of `files`.
  const secondMessage = async (files: Record<string, string>, request: string): Promise<string> => {
    const bridge = scripted([request, 'done']);
    const executor = createExecutor(tempFolder(files));
    await runLoop({
      bridge,
      executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 3,
      contextTokens: 16_384,
    });
    return bridge.seen[1] ?? '';
  };

  it('says a result of the latest step was not sent, not that it was sent and dropped', async () => {
    const second = await secondMessage(
      { 'huge.txt': `${'word '.repeat(20_000)}\n`, 'small.txt': 'small\n' },
      '=== NEED: huge.txt, small.txt ===',
    );
    assert.match(
      second,
      /=== RESULT NEED huge\.txt: not sent: its ~[\d,]+ tokens do not fit the window with everything else; ask for less at once/,
    );
    assert.match(second, /=== RESULT NEED small\.txt: 1 line ===\n1 \| small/);
    assert.doesNotMatch(second, /were sent at step 1/);
  });

  it('offers a range of a big file that fits, and its OUTLINE when deepwork can outline it', async () => {
    const code = Array.from({ length: 1_500 }, (_, i) => `export const value${i} = ${i} + ${i};`).join('\n');
    const second = await secondMessage(
      { 'big.ts': `${code}\n`, 'big.txt': `${code}\n` },
      '=== NEED: big.ts, big.txt ===',
    );
    const offered = (file: string) => {
      const note = new RegExp(
        `=== RESULT NEED ${file.replace('.', '\\.')}: not sent: its ~([\\d,]+) tokens do not fit the window with everything else; ask for a part of its 1,500 lines at a time \\(\`${file.replace('.', '\\.')}:1-(\\d+)\`\\)(.*) ===`,
      ).exec(second);
      assert.ok(note, second);
      return { tokens: Number(note[1]?.replaceAll(',', '')), last: Number(note[2]), rest: note[3] };
    };
    const ts = offered('big.ts');
    // A quarter of what a message may take (12,288 tokens), in the file's own lines per token.
    assert.equal(ts.last, Math.floor((1_500 * 12_288) / 4 / ts.tokens));
    assert.equal(ts.rest, ', or OUTLINE big.ts for its definitions and their lines');
    assert.equal(offered('big.txt').rest, '');
  });

  it('keeps saying so at later steps, and does not count it as an earlier result dropped', async () => {
    const root = tempFolder({ 'huge.txt': `${'word '.repeat(20_000)}\n`, 'small.txt': 'small\n' });
    const bridge = scripted(['=== NEED: huge.txt, small.txt ===', '=== FIND: small ===', '=== FIND: word ===', 'done']);
    const executor = createExecutor(root);
    const sending: number[] = [];
    await runLoop({
      bridge,
      executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 5,
      contextTokens: 16_384,
      onEvent: (e) => {
        if (e.kind === 'sending') sending.push(e.dropped);
      },
    });
    for (const message of bridge.seen.slice(1)) {
      assert.match(message, /=== RESULT NEED huge\.txt: not sent: its ~[\d,]+ tokens do not fit the window/);
      assert.doesNotMatch(message, /huge\.txt lines 1-1 were sent/);
    }
    assert.deepEqual(sending, [0, 0, 0, 0]);
  });

  it('carries a result the model never saw into a continued conversation as what it was told of it', async () => {
    const root = tempFolder({ 'huge.txt': `${'word '.repeat(20_000)}\n` });
    const executor = createExecutor(root);
    const outcome = await runLoop({
      bridge: scripted(['=== NEED: huge.txt ===', 'done']),
      executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 3,
      contextTokens: 16_384,
    });
    const [result] = outcome.turn.steps[0]?.results ?? [];
    assert.match(result?.text ?? '', /not sent: its ~[\d,]+ tokens do not fit/);
    assert.doesNotMatch(result?.text ?? '', /word word/);
  });
});

describe('runLoop: the proposals kept over a run', () => {
  const file = (p: string, content: string) => `=== FILE: ${p} ===\n${content}\n=== END ===`;
  const edit = (p: string, search: string, replace: string) =>
    `=== EDIT: ${p} ===\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n=== END ===`;
  // A block as kind, path and what it says: a FILE's content, an EDIT's first REPLACE.
  const label = (p: Proposal) =>
    `${p.kind === 'file' ? 'FILE' : 'EDIT'} ${p.path} ${p.kind === 'file' ? p.content.trim() : (p.pairs[0]?.replace.trim() ?? '')}`.trimEnd() +
    (p.complete ? '' : ' (cut)');
  const keeps = '  return page;';
  // The replies of a run, one per step, and the proposals it ends with. ask.mjs is on disk; a.js and b.js are not.
  const cases: Array<[string, string[], string[]]> = [
    ['a later FILE drops an earlier one', [`${file('a.js', 'one')}\n${file('a.js', 'two')}`], ['FILE a.js two']],
    [
      'an EDIT builds on an earlier FILE',
      [`${file('a.js', 'one')}\n${edit('a.js', 'one', 'two')}`],
      ['FILE a.js one', 'EDIT a.js two'],
    ],
    [
      'a kept EDIT drops an EDIT before it that was not kept',
      [`${edit('ask.mjs', 'nowhere', 'x')}\n${edit('ask.mjs', keeps, '  return 1;')}`],
      ['EDIT ask.mjs return 1;'],
    ],
    [
      'an EDIT not kept after a kept one stays, so the report says why',
      [`${edit('ask.mjs', keeps, '  return 1;')}\n${edit('ask.mjs', 'nowhere', 'x')}`],
      ['EDIT ask.mjs return 1;', 'EDIT ask.mjs x'],
    ],
    [
      'a kept FILE drops the kept and the not kept before it',
      [`${edit('ask.mjs', keeps, '  return 1;')}\n${edit('ask.mjs', 'nowhere', 'x')}\n${file('ask.mjs', 'new')}`],
      ['FILE ask.mjs new'],
    ],
    [
      'a FILE, an EDIT not kept, then an EDIT kept',
      [`${file('a.js', 'one')}\n${edit('a.js', 'nowhere', 'x')}\n${edit('a.js', 'one', 'two')}`],
      ['FILE a.js one', 'EDIT a.js two'],
    ],
    [
      'two kept EDITs of a path stay, in order',
      [`${edit('ask.mjs', keeps, '  return 1;')}\n${edit('ask.mjs', '  return 1;', '  return 2;')}`],
      ['EDIT ask.mjs return 1;', 'EDIT ask.mjs return 2;'],
    ],
    [
      'a path moves to where its last kept block stands',
      [`${file('a.js', '1')}\n${file('b.js', '1')}\n${file('a.js', '2')}`],
      ['FILE b.js 1', 'FILE a.js 2'],
    ],
    [
      'a block not kept stays beside what is kept for other paths',
      [`${edit('ask.mjs', 'nowhere', 'x')}\n${file('b.js', '1')}`],
      ['EDIT ask.mjs x', 'FILE b.js 1'],
    ],
    [
      'a FILE cut before its END stays after a kept one',
      [`${file('a.js', 'one')}\n=== FILE: a.js ===\ntwo\n`],
      ['FILE a.js one', 'FILE a.js two (cut)'],
    ],
    [
      'an EDIT whose body cannot be read stays after a kept FILE',
      [`${file('a.js', 'one')}\n=== EDIT: a.js ===\n<<<<<<< SEARCH\none\n>>>>>>> REPLACE\n=== END ===`],
      ['FILE a.js one', 'EDIT a.js'],
    ],
    [
      'an EDIT at a later step builds on a FILE of an earlier one',
      [`${file('a.js', 'one')}\n=== FIND: zz ===`, edit('a.js', 'one', 'two')],
      ['FILE a.js one', 'EDIT a.js two'],
    ],
    [
      'a kept EDIT at a later step drops what an earlier step was told was not kept',
      [edit('ask.mjs', 'nowhere', 'x'), `${file('b.js', '1')}\n${edit('ask.mjs', keeps, '  return 2;')}`],
      ['FILE b.js 1', 'EDIT ask.mjs return 2;'],
    ],
  ];
  for (const [name, replies, kept] of cases) {
    it(`keeps them by path and order: ${name}`, async () => {
      const outcome = await loop(scripted([...replies, 'done']), 'q', 4);
      assert.deepEqual(outcome.proposals.map(label), kept);
    });
  }
});

describe('runLoop: caps on what one reply proposes', () => {
  const lines = (n: number, line: (i: number) => string) =>
    Array.from({ length: n }, (_, i) => `${line(i)}\n`).join('');

  it('keeps the first 100 FILE and EDIT blocks of a reply, tells the model the rest were left out and the cap, and writes none of them', async () => {
    const dir = tempFolder({ 'keep.txt': 'keep\n' });
    const bridge = scripted([lines(105, (i) => `=== FILE: f${i}.txt ===\n${i}\n=== END ===`), 'done']);
    const events: LoopEvent[] = [];
    const executor = createExecutor(dir);
    const outcome = await runLoop({
      bridge,
      executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 4,
      onEvent: (e) => events.push(e),
    });
    assert.deepEqual(
      outcome.proposals.map((p) => p.path),
      Array.from({ length: 100 }, (_, i) => `f${i}.txt`),
    );
    const told =
      '=== RESULT FILE/EDIT blocks 101-105: not kept ===\nOne reply may propose at most 100 FILE or EDIT blocks; left out after the first 100: FILE f100.txt, FILE f101.txt, FILE f102.txt, FILE f103.txt, FILE f104.txt.\nNothing of them was kept. Send what is still needed in your next reply, at most 100 blocks at once.\n=== END RESULT ===';
    assert.ok(bridge.seen[1]?.includes(told), bridge.seen[1]?.slice(-600));
    const replied = events.find((e) => e.kind === 'replied');
    assert.deepEqual(replied?.kind === 'replied' ? [replied.requests, replied.files.length] : [], [
      ['FILE/EDIT blocks 101-105 not kept'],
      100,
    ]);
    const report = await applyFiles(executor.box, outcome.proposals, { backupDir: path.join(tempFolder(), 'backup') });
    assert.equal(report.files.filter((f) => f.written).length, 100);
    assert.ok(fs.existsSync(path.join(dir, 'f99.txt')) && !fs.existsSync(path.join(dir, 'f100.txt')));
  });

  it('names the first 20 blocks left out and counts the others', async () => {
    const bridge = scripted([lines(130, (i) => `=== FILE: f${i}.txt ===\n${i}\n=== END ===`), 'done']);
    await loop(bridge, 'q');
    assert.match(
      bridge.seen[1] ?? '',
      /=== RESULT FILE\/EDIT blocks 101-130: not kept ===\n[^\n]*: FILE f100\.txt, [^\n]*, FILE f119\.txt and 10 more\.\n/,
    );
  });

  it('does not keep an EDIT of more than 100 pairs, tells the model the cap, and does not write it', async () => {
    const before = lines(200, (i) => `item ${i}`);
    const dir = tempFolder({ 'list.txt': before });
    const pairs = lines(101, (i) => `<<<<<<< SEARCH\nitem ${i}\n=======\nITEM ${i}\n>>>>>>> REPLACE`);
    const bridge = scripted([`=== EDIT: list.txt ===\n${pairs}=== END ===`, 'done']);
    const executor = createExecutor(dir);
    const outcome = await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 4 });
    assert.match(
      bridge.seen[1] ?? '',
      /=== RESULT EDIT list\.txt: not kept ===\nit holds 101 SEARCH\/REPLACE pairs, and one EDIT takes at most 100\.\nNothing of this block was kept\. Send the change as EDIT blocks of at most 100 pairs each, or the whole file as a FILE block\./,
    );
    const report = await applyFiles(executor.box, outcome.proposals, { backupDir: path.join(tempFolder(), 'backup') });
    assert.deepEqual(
      report.files.map((f) => [f.path, f.status, f.written]),
      [['list.txt', 'failed', false]],
    );
    assert.match(report.files[0]?.reason ?? '', /it holds 101 SEARCH\/REPLACE pairs, and one EDIT takes at most 100/);
    assert.equal(fs.readFileSync(path.join(dir, 'list.txt'), 'utf8'), before);
  });

  it('leaves out the EDIT that would take the reply past 500,000,000 characters of files gone through, with the blocks after it', async () => {
    // 454,546 lines, 5,000,006 characters (5,000,005 after the first EDIT): an EDIT of one pair goes through it
    // twice, one of 100 pairs 101 times.
    const dir = tempFolder({ 'big.txt': lines(454_546, (i) => `${i}`.padStart(10, '0')) }, 'deepwork-test-', true);
    const pair = (i: number) => `<<<<<<< SEARCH\n${`${i}`.padStart(10, '0')}\n=======\nchanged ${i}\n>>>>>>> REPLACE\n`;
    const edit = (from: number, n: number) =>
      `=== EDIT: big.txt ===\n${Array.from({ length: n }, (_, k) => pair(from + k)).join('')}=== END ===\n`;
    const bridge = scripted([`${edit(0, 1)}${edit(1, 100)}=== FILE: b.txt ===\nb\n=== END ===\n`, 'done']);
    const executor = createExecutor(dir);
    const outcome = await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 4 });
    assert.deepEqual(
      outcome.proposals.map((p) => [p.kind, p.path, p.kind === 'edit' ? p.pairs.length : 0]),
      [['edit', 'big.txt', 1]],
    );
    assert.ok(
      bridge.seen[1]?.includes(
        '=== RESULT FILE/EDIT blocks 2-3: not kept ===\nThe EDIT blocks of one reply may go through at most 500,000,000 characters of files in all (an EDIT goes through its file once, and once more for each pair). EDIT big.txt, 100 pairs on 5,000,005 characters, would go past that, so it was left out with the blocks after it: EDIT big.txt, FILE b.txt.\nNothing of them was kept. Send what is still needed in your next reply, and for a big file fewer pairs at once.\n=== END RESULT ===',
      ),
      bridge.seen[1]?.slice(-900),
    );
  });

  it('answers an EDIT of 100,000 identical pairs on a 200,000-line file without applying any of them', async () => {
    const dir = tempFolder({ 'big.txt': lines(200_000, (i) => `line ${i}`) });
    const pair = '<<<<<<< SEARCH\nline 100000\n=======\nline 100000\n>>>>>>> REPLACE\n';
    const executor = createExecutor(dir);
    const outcome = await runLoop({
      bridge: scripted([`=== EDIT: big.txt ===\n${pair.repeat(100_000)}=== END ===`]),
      executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 1,
    });
    assert.equal(outcome.stop, 'steps');
    assert.match(outcome.note ?? '', /Unanswered requests: EDIT big\.txt not kept\./);
  });
});

describe('runLoop: Stop while a reply is worked through', () => {
  const edits = (n: number) =>
    Array.from(
      { length: n },
      (_, i) => `=== EDIT: f${i}.txt ===\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n=== END ===`,
    ).join('\n');
  const folder = () => tempFolder(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}.txt`, 'a\n'])));
  // The executor, counting the EDITs checked against the disk (each reads its file once); `onText` runs at each.
  const counting = (executor: Executor, onText: (n: number) => void) => {
    let checked = 0;
    return {
      executor: { ...executor, text: (p: string) => (onText(++checked), executor.text(p)) },
      checked: () => checked,
    };
  };

  it('ends ABORTED after the block in hand when Stop comes while the blocks are checked, leaving the rest unchecked', async () => {
    const controller = new AbortController();
    const executor = createExecutor(folder());
    // The Stop arrives as an event (a message from the page, a signal), while the first EDIT is checked.
    const watched = counting(executor, (n) => n === 1 && setImmediate(() => controller.abort()));
    const run = runLoop({
      bridge: scripted([edits(50), 'done']),
      executor: watched.executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 4,
      signal: controller.signal,
    });
    await assert.rejects(run, (error: unknown) => error instanceof DeepworkError && error.code === 'ABORTED');
    assert.equal(watched.checked(), 1);
  });

  it('ends ABORTED before working through a reply that came after Stop', async () => {
    const controller = new AbortController();
    const executor = createExecutor(folder());
    const watched = counting(executor, () => {});
    const bridge: Bridge = { label: 'late', chat: () => (controller.abort(), Promise.resolve({ text: edits(50) })) };
    const run = runLoop({
      bridge,
      executor: watched.executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 4,
      signal: controller.signal,
    });
    await assert.rejects(run, (error: unknown) => error instanceof DeepworkError && error.code === 'ABORTED');
    assert.equal(watched.checked(), 0);
  });
});

describe('runLoop: a whole file with parts left out', () => {
  it('tells the model at once, while steps remain, to send EDIT blocks instead', async () => {
    const lines = Array.from({ length: 67 }, (_, i) => `def f${i}():\n    return ${i}`).join('\n');
    const root = tempFolder({ 'app.py': `${lines}\n` });
    const elided = '=== FILE: app.py ===\ndef f0():\n    return 100\n# ... rest of the file unchanged\n=== END ===';
    const bridge = scripted([elided, 'Sent as EDIT blocks instead.']);
    const executor = createExecutor(root);
    const outcome = await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 3 });
    const told = bridge.seen[1] ?? '';
    assert.match(
      told,
      /=== RESULT FILE app\.py: not kept ===\nit looks elided \("# \.\.\. rest of the file unchanged"\) and has 3 lines where the file has 134/,
    );
    assert.match(told, /Send EDIT blocks for the parts that change, or the whole file with nothing left out\./);
    assert.equal(outcome.steps, 2);
  });

  it('keeps a new file, or a whole file that leaves nothing out, without a word', async () => {
    const root = tempFolder({ 'a.py': 'x = 1\n' });
    const bridge = scripted([
      '=== FILE: new.py ===\n# ... to be written\nprint(1)\n=== END ===\n=== FILE: a.py ===\nx = 2\n=== END ===',
    ]);
    const executor = createExecutor(root);
    const outcome = await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 3 });
    assert.equal(outcome.steps, 1);
    assert.deepEqual(
      outcome.proposals.map((p) => p.path),
      ['new.py', 'a.py'],
    );
  });
});

describe('runLoop: the folder tree in a small window', () => {
  it('takes a twelfth of what a message may take, so that a small window is not spent on the tree', async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 60; d++) for (let f = 0; f < 5; f++) files[`pkg${d}/src/module_${f}.ts`] = '';
    const bridge = scripted(['done']);
    const executor = createExecutor(tempFolder(files));
    await runLoop({
      bridge,
      executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 2,
      contextTokens: 8_192,
    });
    const message = bridge.seen[0] ?? '';
    const tree = message.slice(message.indexOf('=== PROJECT FOLDER ===\n'), message.indexOf('\n\nReminder:'));
    assert.ok(tree.length <= 1_800, `${tree.length} characters of tree`);
    assert.ok(tree.length >= 1_000, `${tree.length} characters of tree`);
  });
});

describe('runLoop: an EDIT told against the file as the model read it', () => {
  const run = (files: Record<string, string>, replies: string[]) => {
    const bridge = scripted(replies);
    const executor = createExecutor(tempFolder(files));
    const outcome = runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 4 });
    return { bridge, executor, outcome };
  };
  const edit = (p: string, pairs: Array<[string, string]>) =>
    `=== EDIT: ${p} ===\n${pairs.map(([s, r]) => `<<<<<<< SEARCH\n${s}=======\n${r}>>>>>>> REPLACE\n`).join('')}=== END ===`;

  it('keeps an EDIT whose SEARCH has spaces for the tabs of a file indented with tabs, and the file keeps its tabs', async () => {
    const got =
      'export class Got {\n\trequest(options) {\n\t\tif (options.retry) {\n\t\t\treturn retry(options);\n\t\t}\n\t}\n}\n';
    const spaces = edit('source/got.ts', [
      [
        '        if (options.retry) {\n            return retry(options);\n        }\n',
        '        if (options.retry) {\n            log(options);\n            return retry(options);\n        }\n',
      ],
    ]);
    const { bridge, executor, outcome } = run({ 'source/got.ts': got }, [
      '=== NEED: source/got.ts ===',
      `${spaces}\n=== FIND: zz ===`,
      'done',
    ]);
    const done = await outcome;
    assert.ok(bridge.seen[1]?.includes('3 | \t\tif (options.retry) {'), 'NEED sent the tabs');
    assert.ok(
      bridge.seen[2]?.includes(
        '=== RESULT EDIT source/got.ts: its pair matches; kept, for the user to write after your final answer (do not send it again) ===',
      ),
      bridge.seen[2]?.slice(-1500),
    );
    await applyFiles(executor.box, done.proposals, { backupDir: path.join(tempFolder(), 'backup') });
    assert.equal(
      fs.readFileSync(path.join(executor.box.root, 'source/got.ts'), 'utf8'),
      got.replace('\t\t\treturn retry', '\t\t\tlog(options);\n\t\t\treturn retry'),
    );
  });

  it('refuses a SEARCH that differs from the file only by curly quotes, or by a non-breaking space, naming the difference and where it would match', async () => {
    const { bridge, outcome } = run({ 'a.js': 'const a = \'one\';\nconst b = "two";\n', 'b.py': 'x = 1\ny = 2\n' }, [
      `${edit('a.js', [['const b = “two”;\n', 'const b = "three";\n']])}\n${edit('b.py', [['y\u00A0= 2\n', 'y = 3\n']])}`,
      'done',
    ]);
    await outcome;
    const told = bridge.seen[1] ?? '';
    const tried =
      'the SEARCH matches no lines of the file (compared exactly, then ignoring trailing spaces, then ignoring a change of indentation, then counting a tab as 4, 2 or 8 spaces)';
    assert.ok(
      told.includes(
        `=== RESULT EDIT a.js: not kept ===\npair 1 of 1: ${tried}; it would match at line 2 but for this: line 1 of your SEARCH has a curly quote “ (U+201C) where the file has a straight quote (").\nThe closest lines of a.js now:\n1 | const a = 'one';\n2 | const b = "two";\n`,
      ),
      told.slice(-2000),
    );
    assert.ok(
      told.includes(
        `=== RESULT EDIT b.py: not kept ===\npair 1 of 1: ${tried}; it would match at line 2 but for this: line 1 of your SEARCH has a non-breaking space (U+00A0) where the file has a plain space.\n`,
      ),
    );
  });

  it('names the places of a SEARCH found twice by the numbers NEED gave the model, after an earlier pair added lines', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => (i === 16 || i === 23 ? '  done();' : `step(${i + 1});`));
    const { bridge, outcome } = run({ 'steps.js': `${lines.join('\n')}\n` }, [
      '=== NEED: steps.js ===',
      edit('steps.js', [
        ['step(3);\n', 'step(3);\na();\nb();\nc();\nd();\ne();\n'],
        ['  done();\n', '  finish();\n'],
      ]),
      'done',
    ]);
    await outcome;
    assert.ok(bridge.seen[1]?.includes('17 |   done();\n') && bridge.seen[1]?.includes('24 |   done();\n'));
    assert.ok(
      bridge.seen[2]?.includes(
        '=== RESULT EDIT steps.js: pair 1 of 2 kept, the rest not ===\npair 2 of 2: the SEARCH matches in 2 places (lines 17 and 24); add lines around it so it is unique.\nAround each place, in steps.js now:\n15 | step(15);\n16 | step(16);\n17 |   done();\n18 | step(18);\n19 | step(19);\n…\n22 | step(22);\n23 | step(23);\n24 |   done();\n25 | step(25);\n26 | step(26);\n',
      ),
      bridge.seen[2]?.slice(-800),
    );
  });

  it('keeps the pairs that apply when others do not, and the pair sent again applies on top of them', async () => {
    const file = 'one\ntwo\nthree\nfour\nfive\n';
    const events: LoopEvent[] = [];
    const bridge = scripted([
      edit('list.txt', [
        ['one\n', 'ONE\n'],
        ['tow\n', 'TWO\n'],
        ['five\n', 'FIVE\n'],
        ['fuor\n', 'FOUR\n'],
      ]),
      edit('list.txt', [
        ['two\n', 'TWO\n'],
        ['four\n', 'FOUR\n'],
      ]),
      'done',
    ]);
    const dir = tempFolder({ 'list.txt': file });
    const executor = createExecutor(dir);
    const outcome = await runLoop({
      bridge,
      executor,
      texts: loadTexts(executor.limits),
      question: 'q',
      steps: 4,
      onEvent: (e) => events.push(e),
    });
    const told = bridge.seen[1] ?? '';
    assert.match(
      told,
      /=== RESULT EDIT list\.txt: pairs 1 and 3 of 4 kept, the rest not ===\npair 2 of 4: the SEARCH matches no lines/,
    );
    assert.match(told, /\npair 4 of 4: the SEARCH matches no lines of the file/);
    assert.match(
      told,
      /\nPairs 1 and 3 are kept, for the user to write after your final answer: the file as proposed has them made, and an EDIT you send now applies to that, so do not send them again\. Send pairs 2 and 4 again, fixed, in an EDIT of list\.txt/,
    );
    const replied = events.find((e) => e.kind === 'replied');
    assert.deepEqual(replied?.kind === 'replied' ? replied.requests : [], ['EDIT list.txt (some pairs) not kept']);
    // The pairs sent again apply, and an EDIT that applies is not reported: that reply was the final answer.
    assert.equal(bridge.seen.length, 2);
    // What the user writes: both EDITs, the first with only its pairs that applied, and no note of pairs left out.
    assert.deepEqual(
      outcome.proposals.map((p) => (p.kind === 'edit' ? [p.pairs.length, p.left] : [])),
      [
        [2, undefined],
        [2, undefined],
      ],
    );
    const report = await applyFiles(executor.box, outcome.proposals, { backupDir: path.join(tempFolder(), 'backup') });
    assert.equal(report.files[0]?.reason, undefined);
    assert.equal(fs.readFileSync(path.join(dir, 'list.txt'), 'utf8'), 'ONE\nTWO\nthree\nFOUR\nFIVE\n');
  });

  it('makes a SEARCH found twice where the model read it, when it read only one of the two places', async () => {
    const mixin = [
      'class Mixin:',
      '    limit: int',
      '    trust: bool',
      ...Array.from({ length: 20 }, (_, i) => `    # ${i}`),
    ];
    const session = ['class Session:', '    limit: int', '    trust: bool', '    more: str'];
    const file = `${[...mixin, '', ...session].join('\n')}\n`;
    const bridge = scripted([
      '=== NEED: sessions.py:24-28 ===',
      edit('sessions.py', [
        ['    limit: int\n    trust: bool\n', '    limit: int\n    timeout: float\n    trust: bool\n'],
      ]),
      'done',
    ]);
    const dir = tempFolder({ 'sessions.py': file });
    const executor = createExecutor(dir);
    const outcome = await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 4 });
    // Applied, so not reported: the EDIT's reply was the final answer.
    assert.equal(bridge.seen.length, 2);
    const report = await applyFiles(executor.box, outcome.proposals, { backupDir: path.join(tempFolder(), 'backup') });
    assert.equal(report.files[0]?.status, 'changed');
    assert.equal(
      fs.readFileSync(path.join(dir, 'sessions.py'), 'utf8'),
      file.replace('    trust: bool\n    more', '    timeout: float\n    trust: bool\n    more'),
    );
  });

  it('holds the file back, saying which pairs were left out, when the model sent nothing more for it', async () => {
    const bridge = scripted([
      edit('list.txt', [
        ['one\n', 'ONE\n'],
        ['tow\n', 'TWO\n'],
      ]),
      'done',
    ]);
    const dir = tempFolder({ 'list.txt': 'one\ntwo\n' });
    const executor = createExecutor(dir);
    // Two steps: the second is the last, and the model gives its answer there.
    const outcome = await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 2 });
    assert.deepEqual(
      outcome.proposals.map((p) => (p.kind === 'edit' ? p.left : undefined)),
      [{ pairs: 2, numbers: [2] }],
    );
    const backupDir = path.join(tempFolder(), 'backup');
    const report = await applyFiles(executor.box, outcome.proposals, { backupDir });
    assert.deepEqual([report.files[0]?.status, report.files[0]?.written], ['held back', false]);
    assert.equal(
      report.files[0]?.reason,
      "pair 2 of an EDIT's 2 did not apply and is left out (the model was told, and sent nothing more for this file), so this is part of the change; check it, then write it with --force",
    );
    assert.deepEqual(report.files[0]?.why, { kind: 'edit-partial', pairs: 2, missed: [2] });
    assert.equal(fs.readFileSync(path.join(dir, 'list.txt'), 'utf8'), 'one\ntwo\n');
    const forced = await applyFiles(executor.box, outcome.proposals, { backupDir, force: true });
    assert.deepEqual([forced.files[0]?.status, forced.files[0]?.written], ['changed', true]);
    assert.equal(fs.readFileSync(path.join(dir, 'list.txt'), 'utf8'), 'ONE\ntwo\n');
  });
});
