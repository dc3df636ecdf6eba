import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { DeepworkError } from '../common/errors.ts';
import { createExecutor } from '../reading/execute.ts';
import { runLoop, type Bridge, type LoopEvent } from '../protocol/loop.ts';
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
      return Promise.resolve(replies[seen.length - 1] ?? 'out of replies');
    },
  };
}

const root = tempFolder({
  'ask.mjs': 'export async function waitForAnswer(page) {\n  return page;\n}\n',
  'ui.html': '<p>pult</p>\n',
  'notes.md': 'a'.repeat(30_000) + '\n',
});

function loop(bridge: Bridge, question: string, steps = 4, files: string[] = [], onEvent?: (e: LoopEvent) => void) {
  const executor = createExecutor(root);
  return runLoop({ bridge, executor, texts: loadTexts(executor.limits), question, steps, files, ...(onEvent ? { onEvent } : {}) });
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
    assert.ok(first.includes(`${texts.reminder}\n\n=== QUESTION ===\nWhere is the answer decided?\n\n`));
    assert.match(first, /\nThis is step 1 of 4\. The window holds about 64,000 tokens; about [\d,]+ are left for what you ask next\.$/);
    assert.ok(!first.includes(texts.lastStep));
  });

  it('grows the transcript: the first message, each answer in its own markers, its results, the reminder', async () => {
    const bridge = scripted(['Let me look.\n=== NEED: ask.mjs ===', 'It is waitForAnswer.']);
    const outcome = await loop(bridge, 'q');
    const [first, second] = bridge.seen;
    const question = '=== QUESTION ===\nq\n\n';
    const head = (first ?? '').slice(0, (first ?? '').indexOf(question) + question.length);
    assert.ok(second?.startsWith(head));
    const rest = second?.slice(head.length) ?? '';
    assert.match(rest, /^=== YOUR ANSWER AT STEP 1 ===\nLet me look\.\n=== NEED: ask\.mjs ===\n=== END OF YOUR ANSWER ===\n\n=== RESULTS OF YOUR REQUESTS AT STEP 1 ===\n=== RESULT NEED ask\.mjs: 3 lines ===\n1 \| export async function waitForAnswer/);
    assert.match(rest, /\n\nReminder: [^]*This is step 2 of 4\./);
    assert.deepEqual(outcome.sent, [first?.length, second?.length]);
    assert.equal(outcome.stop, 'answered');
    assert.equal(outcome.answer, 'It is waitForAnswer.');
  });

  it('says on the last step that it is the last', async () => {
    const bridge = scripted(['=== FIND: x ===', 'done']);
    const texts = loadTexts(createExecutor(root).limits);
    await loop(bridge, 'q', 2);
    assert.ok(!bridge.seen[0]?.includes(texts.lastStep));
    assert.ok(bridge.seen[1]?.trimEnd().endsWith(texts.lastStep));
  });

  it('stops when the steps run out, marking the answer and naming what was not answered', async () => {
    const outcome = await loop(scripted(['=== FIND: a ===', 'Still looking.\n=== NEED: ui.html ===\n=== FIND: pult ===']), 'q', 2);
    assert.equal(outcome.stop, 'steps');
    assert.equal(outcome.steps, 2);
    assert.match(outcome.answer, /^Still looking\.[^]*\[deepwork: this answer was cut short: the steps ran out after 2 steps\. Unanswered requests: NEED ui\.html; FIND pult\./);
    assert.deepEqual(outcome.unanswered.map((r) => r.kind), ['need', 'find']);
  });

  it('stops when a reply repeats the previous step exactly', async () => {
    const bridge = scripted(['=== FIND: a ===\n=== NEED: ui.html ===', '=== NEED: ui.html ===\n=== FIND: a ===', 'never sent']);
    const outcome = await loop(bridge, 'q', 4);
    assert.equal(outcome.stop, 'repeat');
    assert.equal(bridge.seen.length, 2);
    assert.match(outcome.answer, /repeated its previous requests/);
  });

  it('tells the model about a line that meant a request, and goes on instead of taking it as the answer', async () => {
    const events: LoopEvent[] = [];
    const bridge = scripted(['Let me see the file.\nNEED: ask.mjs\n=== LIST: *.html === === FIND: pult ===', 'It waits for the answer.']);
    const outcome = await loop(bridge, 'q', 4, [], (e) => events.push(e));
    assert.equal(outcome.stop, 'answered');
    assert.equal(outcome.answer, 'It waits for the answer.');
    const second = bridge.seen[1] ?? '';
    assert.ok(second.includes('=== RESULT line 2: not understood ===\nNEED: ask.mjs\n(it has no === markers around it; nothing was done for it.) Write it on a line of its own, as:\n=== NEED: ask.mjs ===\n=== END RESULT ==='), second.slice(-900));
    assert.ok(second.includes('Write it on a line of its own, as:\n=== LIST: *.html ===\n=== FIND: pult ===\n'));
    const replied = events.find((e) => e.kind === 'replied');
    assert.deepEqual(replied?.kind === 'replied' ? replied.requests : [], ['not understood: line 2', 'not understood: line 3']);
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
    assert.ok(bridge.seen[1]?.includes('=== RESULT NEED *.mjs: no such file; NEED takes paths, not masks: ask LIST *.mjs for the paths it matches ==='));
  });

  it('tells the model an EDIT that does not apply, with the closest lines, and keeps a corrected one', async () => {
    const bad = '=== EDIT: ask.mjs ===\n<<<<<<< SEARCH\nexport async function waitForAnswer(page) {\n  return page.answer;\n=======\nexport async function waitForAnswer(page) {\n  return page.text;\n>>>>>>> REPLACE\n=== END ===';
    const good = '=== EDIT: ask.mjs ===\n<<<<<<< SEARCH\n  return page;\n=======\n  return page.text;\n>>>>>>> REPLACE\n=== END ===\nFixed.';
    const events: LoopEvent[] = [];
    const bridge = scripted([`Here.\n${bad}`, good, 'never sent']);
    const outcome = await loop(bridge, 'q', 4, [], (e) => events.push(e));
    assert.equal(outcome.stop, 'answered');
    assert.equal(bridge.seen.length, 2, 'a failed EDIT keeps the loop going; a good one ends it');
    const second = bridge.seen[1] ?? '';
    assert.ok(second.includes('=== RESULT EDIT ask.mjs: not kept ===\npair 1 of 1: the SEARCH matches no lines of the file'), second.slice(-1200));
    assert.ok(second.includes('The closest lines of ask.mjs now:\n1 | export async function waitForAnswer(page) {\n2 |   return page;\n3 | }'));
    const replied = events.filter((e) => e.kind === 'replied');
    assert.deepEqual(replied.map((e) => e.kind === 'replied' && e.requests), [['EDIT ask.mjs not kept'], []]);
    // The EDIT the model was told was not kept is gone: what is written is the corrected one alone.
    assert.deepEqual(outcome.proposals.map((p) => (p.kind === 'edit' ? p.pairs[0]?.replace : '')), ['  return page.text;\n']);
  });

  it('keeps an EDIT that was not kept in the proposals while nothing later for its path is, so the report says why', async () => {
    const bad = '=== EDIT: ask.mjs ===\n<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n=== END ===';
    const outcome = await loop(scripted([bad]), 'q', 1);
    assert.deepEqual(outcome.proposals.map((p) => p.kind), ['edit']);
  });

  it('checks an EDIT against an earlier FILE for the same path, and says it is kept', async () => {
    const bridge = scripted([
      '=== FILE: new.js ===\nconst a = 1;\n=== END ===\n=== EDIT: new.js ===\n<<<<<<< SEARCH\nconst a = 1;\n=======\nconst a = 2;\n>>>>>>> REPLACE\n=== END ===\n=== FIND: zz ===',
      'done',
    ]);
    await loop(bridge, 'q');
    assert.ok(bridge.seen[1]?.includes('=== RESULT EDIT new.js: all 1 pair match; kept, to be written with the other proposals ==='));
  });

  it('tells the model a FILE cut off before its END, pointing to EDIT', async () => {
    const bridge = scripted(['=== FILE: big.js ===\nconst a = 1;\n', 'done']);
    await loop(bridge, 'q');
    assert.match(bridge.seen[1] ?? '', /=== RESULT FILE big\.js: not kept ===\nthe reply ended before its END line, so it is never written\.\nNothing of this block was kept\. For a big file, send EDIT blocks instead of the whole file\./);
  });

  it('sends attached files the caller already read without reading them again', async () => {
    const executor = createExecutor(root);
    const read = await executor.answer([{ kind: 'need', paths: ['ui.html'], line: 0 }]);
    let answered = 0;
    const counting = { ...executor, answer: (...args: Parameters<typeof executor.answer>) => (answered++, executor.answer(...args)) };
    const bridge = scripted(['The answer.']);
    await runLoop({ bridge, executor: counting, texts: loadTexts(executor.limits), question: 'q', steps: 2, files: ['ui.html'], attached: read });
    assert.equal(answered, 0);
    assert.match(bridge.seen[0] ?? '', /=== FILES ATTACHED BY THE USER ===\n=== RESULT NEED ui\.html: 1 line ===\n1 \| <p>pult<\/p>/);
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
    assert.deepEqual(events.filter((e) => e.kind === 'warning'), [{ kind: 'warning', step: 1, message: cut }]);
    assert.match(seen[1] ?? '', /=== RESULT EDIT ui\.html: not kept ===\nthe server cut the reply at its output limit before the block's END line, so it is never written\.\nNothing of this block was kept\. Send it again, whole, closed by its END line; send fewer pairs per reply, so the reply stays short\./);
    assert.deepEqual(outcome.proposals.filter((p) => p.complete), []);
  });

  it('collects FILE blocks over all steps, a later one replacing an earlier one', async () => {
    const bridge = scripted([
      '=== FILE: a.js ===\nfirst\n=== END ===\n=== FILE: b.js ===\nb\n=== END ===\n=== FIND: x ===',
      '=== FILE: a.js ===\nsecond\n=== END ===',
    ]);
    const outcome = await loop(bridge, 'q');
    assert.deepEqual(outcome.proposals.map((f) => [f.path, f.kind === 'file' ? f.content : '']), [['b.js', 'b\n'], ['a.js', 'second\n']]);
  });

  it('reports each step as events', async () => {
    const events: LoopEvent[] = [];
    await loop(scripted(['=== NEED: ui.html ===', 'done']), 'q', 4, [], (e) => events.push(e));
    assert.deepEqual(events.map((e) => e.kind), ['sending', 'replied', 'answered-requests', 'sending', 'replied']);
    const replied = events[1];
    assert.ok(replied?.kind === 'replied');
    assert.deepEqual(replied.requests, ['NEED ui.html']);
  });

  it('runs over HTTP against an Ollama-style bridge', async () => {
    const fake = await startFakeBridge({
      chat: (content, i) => ({ kind: 'reply', text: i === 0 ? '=== FIND: waitForAnswer ===' : content.includes('ask.mjs:1:') ? 'In ask.mjs, line 1.' : 'not found' }),
    });
    const outcome = await loop(createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 5000 }), 'where?');
    assert.equal(outcome.answer, 'In ask.mjs, line 1.');
    assert.equal(fake.chats.length, 2);
  });

  it('lets the demo bridge find, read and report on the real folder', async () => {
    const outcome = await loop(createDemoBridge(), 'Where is waitForAnswer defined?');
    assert.equal(outcome.stop, 'answered');
    assert.equal(outcome.steps, 3);
    assert.match(outcome.answer, /demo bridge \(not a model\)/);
    assert.match(outcome.answer, /`ask\.mjs` line 1: `export async function waitForAnswer\(page\) \{`/);
  });
});

describe('loadTexts', () => {
  it('names the file and what to do when the instructions file is broken or missing, with a stable code', () => {
    const dir = tempFolder({ 'broken.md': '# instructions\nHello {needChars}.\n# reminder\nRemember.\n' });
    const limits = createExecutor(dir).limits;
    assert.throws(() => loadTexts(limits, path.join(dir, 'broken.md')), (error: unknown) =>
      error instanceof DeepworkError && error.code === 'INSTRUCTIONS_INVALID' && /broken\.md has no "# last step" section/.test(error.message));
    assert.throws(() => loadTexts(limits, path.join(dir, 'gone.md')), (error: unknown) =>
      error instanceof DeepworkError && error.code === 'INSTRUCTIONS_INVALID' && /gone\.md cannot be read \(ENOENT\)\. Reinstall deepwork/.test(error.message));
  });

  it('fills in the limits by name and leaves an unknown name as it is', () => {
    const dir = tempFolder({ 'texts.md': '# instructions\n{needChars} and {needPaths}, {nothing}\n# reminder\nr\n# last step\nl\n' });
    assert.equal(loadTexts(createExecutor(dir).limits, path.join(dir, 'texts.md')).instructions, '200,000 and 100, {nothing}');
  });
});

describe('the context window', () => {
  const big = tempFolder({
    'one.txt': 'one '.repeat(6_000) + '\n',
    'two.txt': 'two '.repeat(6_000) + '\n',
    'three.txt': 'three '.repeat(4_000) + '\n',
  });
  const run = (bridge: Bridge, contextTokens: number, onEvent?: (e: LoopEvent) => void, files: string[] = []) => {
    const executor = createExecutor(big);
    return runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 5, files, contextTokens, ...(onEvent ? { onEvent } : {}) });
  };

  it('drops results the model already read, oldest first, to one-line notes, and never sends over the budget', async () => {
    const bridge = scripted(['=== NEED: one.txt ===', '=== NEED: two.txt ===', '=== NEED: three.txt ===', 'done']);
    const events: LoopEvent[] = [];
    const outcome = await run(bridge, 16_384, (e) => events.push(e));
    const sending = events.filter((e): e is Extract<LoopEvent, { kind: 'sending' }> => e.kind === 'sending');
    for (const e of sending) assert.ok(e.tokens <= e.budget, `step ${e.step}: ${e.tokens} tokens over ${e.budget}`);
    // Each file is ~7,000 tokens and the message may take 12,288: at step 3 the oldest gives way, at step 4 two do.
    assert.deepEqual(sending.map((e) => e.dropped), [0, 0, 1, 2]);
    const third = bridge.seen[2] ?? '';
    assert.match(third, /\[one\.txt lines 1-1 were sent at step 1 and dropped to fit the window; ask again if needed\.\]/);
    assert.ok(third.includes('two two two'), 'the newer result stays');
    const last = bridge.seen.at(-1) ?? '';
    assert.match(last, /\[two\.txt lines 1-1 were sent at step 2 and dropped/);
    assert.ok(last.includes('three three'), 'the newest result stays');
    assert.ok(last.includes(loadTexts(createExecutor(big).limits).instructions), 'the instructions stay');
    assert.equal(outcome.answer, 'done');
  });

  it('continues an earlier question, whose results give way before this question\'s', async () => {
    const first = scripted(['=== NEED: one.txt ===', 'It is all "one".']);
    const executor = createExecutor(big);
    const texts = loadTexts(executor.limits);
    const earlier = await runLoop({ bridge: first, executor, texts, question: 'What is in one.txt?', steps: 5, contextTokens: 16_384 });
    assert.deepEqual(earlier.turn.steps.map((s) => s.answer), ['=== NEED: one.txt ===']);
    assert.equal(earlier.turn.answer, 'It is all "one".');
    const second = scripted(['=== NEED: two.txt ===', 'And "two".']);
    const events: LoopEvent[] = [];
    await runLoop({ bridge: second, executor, texts, question: 'And two.txt?', steps: 5, contextTokens: 16_384, earlier: [earlier.turn], onEvent: (e) => events.push(e) });
    const [start, next] = second.seen;
    assert.ok(start?.includes('=== EARLIER QUESTION 1 ===\nWhat is in one.txt?') && start.includes('one one one'), 'the earlier result is sent while it fits');
    assert.match(next ?? '', /\[one\.txt lines 1-1 were sent at step 1 and dropped to fit the window/);
    assert.ok(next?.includes('=== YOUR FINAL ANSWER TO QUESTION 1 ===\nIt is all "one".'), 'the earlier answer stays');
    assert.ok(next?.includes('two two two'), "this question's result stays");
    const sending = events.filter((e) => e.kind === 'sending');
    assert.deepEqual(sending.map((e) => e.kind === 'sending' && e.dropped), [0, 1]);
  });

  it('does not send again a file still in the message, and sends again one that was dropped', async () => {
    const bridge = scripted(['=== NEED: two.txt ===', '=== NEED: two.txt ===\n=== FIND: zz ===', 'done']);
    await run(bridge, 64_000);
    assert.match(bridge.seen[2] ?? '', /=== RESULT NEED two\.txt: already sent at step 1, above ===/);
    const small = scripted(['=== NEED: one.txt ===', '=== NEED: two.txt ===', '=== NEED: one.txt ===', 'done']);
    await run(small, 16_384);
    assert.match(small.seen[3] ?? '', /=== RESULTS OF YOUR REQUESTS AT STEP 3 ===\n=== RESULT NEED one\.txt: 1 line ===\n1 \| one one/);
  });

  it('refuses to send, with a clear error, when the question and attached files alone exceed the window', async () => {
    await assert.rejects(run(scripted(['x']), 4_096, undefined, ['one.txt', 'two.txt']), (error: unknown) =>
      error instanceof DeepworkError && error.code === 'CONTEXT_FULL' && /over the [\d,]+ the model's window leaves for it.*Attach fewer files.*contextTokens/.test(error.message));
  });

  it('tells the model which step it is and how much room is left, on every message', async () => {
    const bridge = scripted(['=== FIND: one ===', 'done']);
    await run(bridge, 32_768);
    assert.match(bridge.seen[0] ?? '', /This is step 1 of 5\. The window holds about 32,768 tokens; about [\d,]+ are left for what you ask next\.$/);
    assert.match(bridge.seen[1] ?? '', /This is step 2 of 5\./);
  });
});

describe('the context window with Ollama', () => {
  it('asks /api/show for the window and sends a num_ctx that fits the prompt, growing only when needed', async () => {
    const replies = ['=== NEED: notes.md ===', '=== FIND: waitForAnswer ===', 'done'];
    const fake = await startFakeBridge({
      chat: (_c, i) => ({ kind: 'reply', text: replies[i] ?? 'done' }),
      show: { parameters: 'stop "<|eot|>"', model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32_768 } },
    });
    const events: LoopEvent[] = [];
    await loop(createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 5000 }), 'q', 4, [], (e) => events.push(e));
    assert.deepEqual(fake.chats.map((c) => c.numCtx), [16_384, 32_768, 32_768]);
    const budgets = events.flatMap((e) => (e.kind === 'sending' ? [e.budget] : []));
    assert.deepEqual(budgets, [24_576, 24_576, 24_576]);
  });

  it('takes num_ctx from the model parameters when the Modelfile sets one', async () => {
    const fake = await startFakeBridge({ show: { parameters: 'num_ctx 8192\nstop x', model_info: { 'general.architecture': 'llama', 'llama.context_length': 131_072 } } });
    assert.equal(await createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 5000 }).window?.(new AbortController().signal), 8_192);
  });

  it('says so when the server read a full window smaller than the prompt: its beginning was cut', async () => {
    const fake = await startFakeBridge({ chat: () => ({ kind: 'reply', text: 'done' }), promptEvalCount: (_c, numCtx) => (typeof numCtx === 'number' ? numCtx : 0) });
    const events: LoopEvent[] = [];
    const executor = createExecutor(root);
    await runLoop({ bridge: createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 5000 }), executor, texts: loadTexts(executor.limits), question: 'q', steps: 2, files: ['notes.md'], contextTokens: 1_000_000, onEvent: (e) => events.push(e) });
    // The estimate is low on purpose here: the server says it read exactly num_ctx tokens of a larger prompt.
    const cut = events.find((e) => e.kind === 'warning');
    assert.equal(cut, undefined, 'a prompt that fits its num_ctx is not reported as cut');
    const tight = await startFakeBridge({ chat: () => ({ kind: 'reply', text: 'done' }), promptEvalCount: () => 4_096 });
    const seen: LoopEvent[] = [];
    const bridge = createOllamaBridge({ host: tight.host, model: 'm', timeoutMs: 5000 });
    const reply = await bridge.chat('x'.repeat(40_000), { signal: new AbortController().signal, tokens: 12_000, window: 4_096 });
    assert.ok(typeof reply !== 'string');
    assert.match(reply.truncated ?? '', /the model read 4,096 tokens of a message of about 12,000: its window \(num_ctx 4,096\) cut the beginning.*contextTokens/);
    assert.equal(seen.length, 0);
  });
});

describe('the context window, for results the model never saw', () => {
  it('says a result of the latest step was not sent, not that it was sent and dropped', async () => {
    const root = tempFolder({ 'huge.txt': 'word '.repeat(20_000) + '\n', 'small.txt': 'small\n' });
    const bridge = scripted(['=== NEED: huge.txt, small.txt ===', 'done']);
    const executor = createExecutor(root);
    await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'q', steps: 3, contextTokens: 16_384 });
    const second = bridge.seen[1] ?? '';
    assert.match(second, /=== RESULT NEED huge\.txt: not sent: its ~[\d,]+ tokens do not fit the window with everything else; ask for less at once/);
    assert.match(second, /=== RESULT NEED small\.txt: 1 line ===\n1 \| small/);
    assert.doesNotMatch(second, /were sent at step 1/);
  });
});
