import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { cleanReply, sizeWarning, windowFor } from '../bridge/paste.ts';
import { parseReply } from '../protocol/parse.ts';
import { Session, type Outgoing, type RunView } from '../ui/session.ts';
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
  const start = (pasteMaxChars = 20_000) => {
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
      pasteMaxChars,
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
    assert.equal(first.bridge, 'copy and paste (any web chat)');
    const message = session.pasteMessage(run.id);
    assert.match(message, /=== QUESTION ===\nWhat is a\?/);
    assert.equal(first.waiting?.paste?.chars, message.length);
    assert.throws(() => session.paste(run.id, '\n\n'), /The reply is empty/);
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
