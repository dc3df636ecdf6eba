import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { cleanReply, sizeWarning, windowFor } from '../bridge/paste.ts';
import { parseReply } from '../protocol/parse.ts';
import { Session, type Outgoing, type RunView } from '../ui/session.ts';
import { PultError } from '../ui/said.ts';
import { createExecutor } from '../reading/executor.ts';
import { tempFolder } from './helpers.ts';

describe('a reply pasted from a web chat', () => {
  it('is taken as the model wrote it, without what the chat page adds around it', () => {
    const written = 'It is in a.js.\n\n```js\nconst a = 1;\n```\n\n=== NEED: b.js ===';
    const pasted = [
      `Thought for 12 seconds\n\n${written}\n\nCopy\nRegenerate`,
      `DeepSeek\n${written}`,
      `Думал 7 секунд\r\n${written.replace(/\n/g, '\r\n')}\r\nКопировать`,
      `\`\`\`\n${written.replace('```js\nconst a = 1;\n```', 'const a = 1;')}\n\`\`\``,
    ];
    assert.equal(cleanReply(pasted[0] ?? ''), written);
    assert.equal(cleanReply(pasted[1] ?? ''), written);
    assert.equal(cleanReply(pasted[2] ?? ''), written);
    assert.equal(cleanReply(pasted[3] ?? ''), 'It is in a.js.\n\nconst a = 1;\n\n=== NEED: b.js ===');
    for (const p of pasted)
      assert.deepEqual(
        parseReply(cleanReply(p)).requests.map((r) => r.kind),
        ['need'],
      );
  });

  it('drops a "Copy code" line a code block leaves when the page was selected, and keeps the code', () => {
    const pasted = 'Here:\n\njs\nCopy code\nconst a = 2;\n\n=== FILE: a.js ===\nconst a = 2;\n=== END ===';
    const reply = cleanReply(pasted);
    assert.ok(!reply.includes('Copy code'));
    assert.deepEqual(
      parseReply(reply).files.map((f) => [f.path, f.content]),
      [['a.js', 'const a = 2;\n']],
    );
  });

  it('keeps a fence that is not around the whole reply, and refuses an empty one with what to paste', () => {
    assert.equal(cleanReply('```js\na\n```\ntext after\n```\nb\n```'), '```js\na\n```\ntext after\n```\nb\n```');
    assert.throws(() => cleanReply(' \n Copy \n'), /The reply is empty: paste the model's whole reply/);
  });

  it('fits messages under what a web chat takes, and warns about one larger', () => {
    assert.equal(windowFor(60_000), 22_857);
    assert.equal(sizeWarning(59_000, 60_000), undefined);
    assert.match(
      sizeWarning(84_000, 60_000) ?? '',
      /84,000 characters; web chats often refuse, cut or attach messages over 60,000 \(pasteMaxChars in config\.json\)\. Tick fewer files, or lower contextTokens/,
    );
  });
});

describe('the pult session with the copy-and-paste bridge', () => {
  const start = (messageChars = 20_000, chatChars = 200_000) => {
    const root = tempFolder({ 'a.js': 'const a = 1;\n' });
    const stateDir = tempFolder();
    const sent: Outgoing[] = [];
    let onRun: (run: RunView) => void = () => {};
    const session = new Session({
      executor: createExecutor(root),
      backupDir: path.join(stateDir, 'backup'),
      stateDir,
      steps: 3,
      contextTokens: undefined,
      chatLimits: { name: 'a test chat', messageChars, chatChars },
      send: (m) => {
        sent.push(m);
        if (m.type === 'run') onRun(m.run);
      },
    });
    const next = (test: (run: RunView) => boolean) =>
      new Promise<RunView>((resolve) => {
        onRun = (run) => {
          if (test(run)) resolve(run);
        };
      });
    return { session, next, root };
  };

  it('hands out each message, takes each pasted reply, and answers as with a bridge', async () => {
    const { session, next } = start();
    const waiting = next((r) => r.waiting?.paste !== undefined);
    const run = session.ask('What is a?', [], 3, 'paste');
    const first = await waiting;
    assert.deepEqual(first.bridge, { kind: 'paste' });
    const message = session.pasteMessage(run.id);
    assert.match(message, /=== QUESTION ===\nWhat is a\?/);
    assert.equal(first.waiting?.paste?.chars, message.length);
    assert.throws(() => session.paste(run.id, '\n\n'), /The reply is empty/);
    // The pult words the refusal in its reader's language from its code (issue 29).
    assert.throws(
      () => session.paste(run.id, '\n\n'),
      (error) => error instanceof PultError && error.said.code === 'empty-reply',
    );
    const second = next((r) => r.waiting?.paste !== undefined && r.waiting.step === 2);
    session.paste(run.id, 'Thought for 2 seconds\n=== NEED: a.js ===\nCopy');
    await second;
    assert.match(session.pasteMessage(run.id), /=== RESULT NEED a\.js: 1 line ===\n1 \| const a = 1;/);
    const answered = next((r) => r.state === 'answered');
    session.paste(run.id, 'a is 1.');
    const done = await answered;
    assert.equal(done.parts?.[0]?.kind, 'prose');
    assert.throws(() => session.pasteMessage(run.id), /not waiting for a pasted reply/);
  });

  it('warns, with the way out, about a message larger than the web chat takes', async () => {
    const { session, next } = start(1_000);
    const waiting = next((r) => r.waiting?.paste !== undefined);
    session.ask('q', [], 3, 'paste');
    const run = await waiting;
    assert.match(
      run.waiting?.paste?.warning ?? '',
      /^This message is [\d,]+ characters; web chats often refuse, cut or attach messages over 1,000 .*Tick fewer files/,
    );
    session.stop();
  });

  it('sends only what is new after the first message of a chat, with the message that stands on its own beside it', async () => {
    const { session, next } = start();
    const waiting = next((r) => r.waiting?.paste !== undefined);
    const run = session.ask('What is a?', [], 3, 'paste');
    await waiting;
    const first = session.pasteMessage(run.id);
    const second = next((r) => r.waiting?.paste !== undefined && r.waiting.step === 2);
    const reply = 'Let me look.\n=== NEED: a.js ===';
    session.paste(run.id, reply);
    const step2 = await second;
    const delta = session.pasteMessage(run.id);
    const standalone = session.pasteMessage(run.id, true);
    assert.match(
      delta,
      /^=== RESULTS OF YOUR REQUESTS AT STEP 1 ===\n=== RESULT NEED a\.js: 1 line ===\n1 \| const a = 1;/,
    );
    assert.doesNotMatch(
      delta,
      /You are working on a project folder|=== PROJECT FOLDER ===|=== QUESTION ===|YOUR ANSWER AT STEP 1/,
    );
    // The chat was told the rules and the window with the question: the message ends with the short reminder and the
    // step with the room left.
    assert.match(
      delta,
      /\nSame rules as above: [^\n]*\n[^\n]*\nThis is step 2 of 3 for this question; about [\d,.]+ tokens \(some [\d,.]+ characters of code\) are left/,
    );
    assert.doesNotMatch(delta, /The window holds/);
    assert.match(
      standalone,
      /^You are working on a project folder[\s\S]*=== QUESTION ===\nWhat is a\?[\s\S]*=== YOUR ANSWER AT STEP 1 ===\nLet me look\./,
    );
    assert.deepEqual(step2.waiting?.carries, ['NEED a.js']);
    assert.equal(step2.waiting?.paste?.standalone?.chars, standalone.length);
    // The chat holds the first message and its reply, as deepwork counts it.
    assert.deepEqual(
      [step2.waiting?.paste?.chat.chars, step2.waiting?.paste?.chat.messages],
      [first.length + reply.length, 1],
    );
    assert.ok(delta.length * 3 < standalone.length, `${delta.length} against ${standalone.length}`);
    session.stop();
  });

  it('starts the chat afresh when the reply comes from a new chat, sent the message that stands on its own', async () => {
    const { session, next } = start();
    const waiting = next((r) => r.waiting?.paste !== undefined);
    const run = session.ask('What is a?', [], 4, 'paste');
    await waiting;
    const second = next((r) => r.waiting?.paste !== undefined && r.waiting.step === 2);
    session.paste(run.id, '=== NEED: a.js ===');
    await second;
    const standalone = session.pasteMessage(run.id, true);
    const third = next((r) => r.waiting?.paste !== undefined && r.waiting.step === 3);
    session.paste(run.id, '=== FIND: const ===', true);
    const step3 = await third;
    assert.deepEqual(
      [step3.waiting?.paste?.chat.chars, step3.waiting?.paste?.chat.messages],
      [standalone.length + '=== FIND: const ==='.length, 1],
    );
    session.stop();
  });

  it('proposes a new chat before the chat would pass what it holds', async () => {
    const { session, next } = start(40_000, 25_000);
    const waiting = next((r) => r.waiting?.paste !== undefined);
    const run = session.ask('What is a?', [], 4, 'paste');
    await waiting;
    const second = next((r) => r.waiting?.paste !== undefined && r.waiting.step === 2);
    session.paste(run.id, `${'x'.repeat(21_000)}\n=== NEED: a.js ===`);
    const step2 = await second;
    assert.equal(step2.waiting?.paste?.full, true);
    assert.match(
      step2.waiting?.paste?.fullWarning ?? '',
      /would pass the 25,000 a test chat holds \(pasteChatChars in config\.json\).*Start a new chat and paste the message that stands on its own/,
    );
    session.stop();
  });

  it('takes the chat\'s "too long" notice for what it is, says what to do, and keeps waiting', async () => {
    const { session, next } = start();
    const waiting = next((r) => r.waiting?.paste !== undefined);
    const run = session.ask('What is a?', [], 3, 'paste');
    await waiting;
    for (const notice of [
      'Превышен лимит длины сообщения. Попробуйте сократить текст.',
      'The message you submitted was too long, please reload the conversation and submit something shorter.',
      'Достигнут предел длины диалога. Начните новый чат.',
    ]) {
      assert.throws(
        () => session.paste(run.id, notice),
        /That is the chat's notice that it took too much .*Start a new chat, paste the message that stands on its own there/,
      );
      assert.throws(
        () => session.paste(run.id, notice),
        (error) =>
          error instanceof PultError && error.said.code === 'chat-notice' && notice.includes(error.said.notice),
      );
    }
    assert.match(session.pasteMessage(run.id), /=== QUESTION ===/, 'still waiting');
    session.stop();
  });

  it('asks a follow-up in the same chat with only the new question, the whole conversation beside it', async () => {
    const { session, next } = start();
    let waiting = next((r) => r.waiting?.paste !== undefined);
    const first = session.ask('What is a?', [], 3, 'paste');
    await waiting;
    const answered = next((r) => r.id === first.id && r.state === 'answered');
    session.paste(first.id, 'a is 1.');
    await answered;
    waiting = next((r) => r.id !== first.id && r.waiting?.paste !== undefined);
    const followUp = session.ask('And b?', [], 3, 'paste', true);
    await waiting;
    assert.match(
      session.pasteMessage(followUp.id),
      /^Reminder: [\s\S]*=== QUESTION ===\nAnd b\?\n\nThis is step 1 of 3 for this question\./,
    );
    assert.doesNotMatch(session.pasteMessage(followUp.id), /EARLIER QUESTION|PROJECT FOLDER/);
    assert.match(
      session.pasteMessage(followUp.id, true),
      /=== EARLIER QUESTION 1 ===\nWhat is a\?[\s\S]*=== QUESTION ===\nAnd b\?/,
    );
    session.stop();
  });

  it('stops while it waits for a reply', async () => {
    const { session, next } = start();
    const waiting = next((r) => r.waiting?.paste !== undefined);
    const run = session.ask('q', [], 3, 'paste');
    await waiting;
    const stopped = next((r) => r.state === 'stopped');
    assert.equal(session.stop(), true);
    assert.equal((await stopped).id, run.id);
    assert.throws(() => session.paste(run.id, 'late'), /not waiting/);
  });
});
