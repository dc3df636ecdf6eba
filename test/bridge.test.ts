import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOllamaBridge } from '../bridge/ollama.ts';
import { checkBridge } from '../bridge/check.ts';
import { DeepworkError } from '../protocol/errors.ts';
import { startFakeBridge, type ChatBehaviour } from './fake-bridge.ts';
import { freePort } from './helpers.ts';

const signal = new AbortController().signal;

async function chatWith(behaviour: ChatBehaviour, timeoutMs = 10_000) {
  const fake = await startFakeBridge({ chat: () => behaviour });
  const bridge = createOllamaBridge({ host: fake.host, model: 'm', timeoutMs });
  return { fake, reply: bridge.chat('hello', { signal }) };
}

async function rejectsWith(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DeepworkError, `not a DeepworkError: ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

describe('createOllamaBridge', () => {
  it('posts the model and one user message, and joins a streamed answer', async () => {
    const { fake, reply } = await chatWith({ kind: 'reply', text: 'a streamed answer in pieces', chunks: 5 });
    assert.equal(await reply, 'a streamed answer in pieces');
    assert.deepEqual(fake.chats, [{ model: 'm', content: 'hello', stream: true }]);
  });

  it('reports progress while the stream arrives', async () => {
    const fake = await startFakeBridge({ chat: () => ({ kind: 'reply', text: 'abcdefghij', chunks: 5 }) });
    const seen: number[] = [];
    await createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 5000 }).chat('x', { signal, onProgress: (n) => seen.push(n) });
    assert.deepEqual(seen, [2, 4, 6, 8, 10]);
  });

  it('reads a single JSON body, also pretty-printed', async () => {
    assert.equal(await (await chatWith({ kind: 'reply', text: 'whole', stream: false })).reply, 'whole');
    const pretty = JSON.stringify({ message: { role: 'assistant', content: 'pretty' }, done: true }, null, 2);
    assert.equal(await (await chatWith({ kind: 'raw', contentType: 'application/json', body: pretty })).reply, 'pretty');
  });

  it('quotes an error body', async () => {
    const { reply } = await chatWith({ kind: 'status', status: 500, body: '{"error":"browser tab crashed"}' });
    await rejectsWith(reply, 'BRIDGE_HTTP', /HTTP 500: "browser tab crashed"/);
  });

  it('quotes an error line in the middle of a stream', async () => {
    const { reply } = await chatWith({ kind: 'error-in-stream', before: 'partial', error: 'rate limited' });
    await rejectsWith(reply, 'BRIDGE_ERROR', /answered with an error: "rate limited"/);
  });

  it('takes a stream that ends without done for an error, not an answer', async () => {
    const { reply } = await chatWith({ kind: 'cut-stream', before: 'half an ans' });
    await rejectsWith(reply, 'BRIDGE_PROTOCOL', /ended before "done" \(11 characters arrived\)/);
  });

  it('waits for a slow answer within the timeout and gives up past it', async () => {
    assert.equal(await (await chatWith({ kind: 'slow', ms: 300, text: 'late' }, 5000)).reply, 'late');
    await rejectsWith((await chatWith({ kind: 'slow', ms: 5000, text: 'too late' }, 200)).reply, 'BRIDGE_TIMEOUT', /no full answer within 200 ms.*timeoutMinutes/);
  });

  it('stops when aborted', async () => {
    const fake = await startFakeBridge({ chat: () => ({ kind: 'slow', ms: 5000, text: 'x' }) });
    const controller = new AbortController();
    const reply = createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 10_000 }).chat('x', { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await rejectsWith(reply, 'ABORTED', /Stopped/);
  });

  it('names an unknown model and lists the ones the bridge has', async () => {
    const fake = await startFakeBridge({ models: ['deepseek:think', 'deepseek:fast'] });
    const reply = createOllamaBridge({ host: fake.host, model: 'gpt', timeoutMs: 5000 }).chat('x', { signal });
    await rejectsWith(reply, 'BRIDGE_MODEL', /does not know the model "gpt".*It has: deepseek:think, deepseek:fast\. Set deepseekModel/);
  });

  it('names the host when nothing listens there', async () => {
    const port = await freePort();
    const reply = createOllamaBridge({ host: `http://127.0.0.1:${port}`, model: 'm', timeoutMs: 5000 }).chat('x', { signal });
    await rejectsWith(reply, 'BRIDGE_DOWN', new RegExp(`No bridge at http://127\\.0\\.0\\.1:${port}: nothing is listening.*Start the bridge`));
  });

  it('says when the host is not an Ollama-style API', async () => {
    const { reply } = await chatWith({ kind: 'raw', contentType: 'text/html', body: '<html><body>Welcome</body></html>' });
    await rejectsWith(reply, 'BRIDGE_PROTOCOL', /not as an Ollama-style API \(it sent: "<html><body>Welcome/);
  });

  it('refuses a host that is not an http URL', () => {
    assert.throws(() => createOllamaBridge({ host: 'localhost:11500', model: 'm', timeoutMs: 1 }), /not an http:\/\/ or https:\/\/ URL/);
    assert.throws(() => createOllamaBridge({ host: 'not a url', model: 'm', timeoutMs: 1 }), /is not a URL/);
  });
});

describe('checkBridge', () => {
  it('is ready when the model is up', async () => {
    const fake = await startFakeBridge({ models: ['deepseek:think'], running: ['deepseek:think'] });
    assert.equal((await checkBridge(fake.host, 'deepseek:think')).state, 'ready');
  });

  it('is idle when the bridge answers but the model is not up yet', async () => {
    const fake = await startFakeBridge({ models: ['deepseek:think'], running: [] });
    const report = await checkBridge(fake.host, 'deepseek:think');
    assert.equal(report.state, 'idle');
    assert.match(report.message, /not up yet; it starts on the first question/);
  });

  it('is idle when the bridge has no /api/ps', async () => {
    const fake = await startFakeBridge({ models: ['m'], running: 'no-ps' });
    assert.equal((await checkBridge(fake.host, 'm')).state, 'idle');
  });

  it('matches Ollama names with :latest', async () => {
    const fake = await startFakeBridge({ models: ['llama3:latest'], running: ['llama3:latest'] });
    assert.equal((await checkBridge(fake.host, 'llama3')).state, 'ready');
  });

  it('is down when nothing listens, naming the host', async () => {
    const port = await freePort();
    const report = await checkBridge(`http://127.0.0.1:${port}`, 'm');
    assert.equal(report.state, 'down');
    assert.match(report.message, /No bridge at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('is down and says so when the model is unknown or the host is no Ollama-style API', async () => {
    const fake = await startFakeBridge({ models: ['other'] });
    assert.match((await checkBridge(fake.host, 'deepseek:think')).message, /does not know the model "deepseek:think"\. It has: other/);
    const page = http.createServer((_req, res) => res.end('<html></html>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    try {
      const report = await checkBridge(`http://127.0.0.1:${(page.address() as AddressInfo).port}`, 'm');
      assert.equal(report.state, 'down');
      assert.match(report.message, /not as an Ollama-style API/);
    } finally {
      page.close();
    }
  });
});
