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
    assert.ok(first.endsWith(`${texts.reminder}\n\n=== QUESTION ===\nWhere is the answer decided?`));
    assert.ok(!first.includes(texts.lastStep));
  });

  it('grows the transcript: previous message, previous answer, results, reminder', async () => {
    const bridge = scripted(['Let me look.\n=== NEED: ask.mjs ===', 'It is waitForAnswer.']);
    const outcome = await loop(bridge, 'q');
    const [first, second] = bridge.seen;
    assert.ok(second?.startsWith(first ?? 'x'));
    const rest = second?.slice(first?.length) ?? '';
    assert.match(rest, /^\n\n=== YOUR PREVIOUS ANSWER ===\nLet me look\.\n=== NEED: ask\.mjs ===\n=== END ===\n\n=== RESULTS OF YOUR REQUESTS ===\n=== RESULT NEED ask\.mjs: 3 lines ===\nexport async function waitForAnswer/);
    assert.ok(rest.trimEnd().endsWith(loadTexts(createExecutor(root).limits).reminder));
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

  it('collects FILE blocks over all steps, a later one replacing an earlier one', async () => {
    const bridge = scripted([
      '=== FILE: a.js ===\nfirst\n=== END ===\n=== FILE: b.js ===\nb\n=== END ===\n=== FIND: x ===',
      '=== FILE: a.js ===\nsecond\n=== END ===',
    ]);
    const outcome = await loop(bridge, 'q');
    assert.deepEqual(outcome.files.map((f) => [f.path, f.content]), [['b.js', 'b\n'], ['a.js', 'second\n']]);
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
