import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOllamaBridge } from '../bridge/ollama.ts';
import type { ChatReply } from '../protocol/contract.ts';
import { lines } from '../bridge/lines.ts';
import { checkBridge } from '../bridge/check.ts';
import { DeepworkError } from '../common/errors.ts';
import { startFakeBridge, type ChatBehaviour } from './fake-bridge.ts';
import { freePort, serveBody, serveOnLoopback } from './helpers.ts';
import { readAll, request } from '../bridge/http.ts';

const signal = new AbortController().signal;

function textOf(reply: ChatReply): string {
  return reply.text;
}

async function chatWith(behaviour: ChatBehaviour, timeoutMs = 10_000) {
  const fake = await startFakeBridge({ chat: () => behaviour });
  const bridge = createOllamaBridge({ host: fake.host, model: 'm', timeoutMs });
  return { fake, reply: bridge.chat('hello', { signal }).then(textOf) };
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
    await createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 5000 }).chat('x', {
      signal,
      onProgress: (n) => seen.push(n),
    });
    assert.deepEqual(seen, [2, 4, 6, 8, 10]);
  });

  it("counts a thinking model's message.thinking in progress, never in the answer", async () => {
    const line = (message: Record<string, string>, done: boolean) =>
      `${JSON.stringify({ model: 'm', message: { role: 'assistant', ...message }, done })}\n`;
    const body =
      line({ content: '', thinking: 'Let me see. ' }, false) +
      line({ content: '', thinking: 'The file says 2.' }, false) +
      line({ content: 'It is 2.' }, false) +
      line({ content: '' }, true);
    const fake = await startFakeBridge({ chat: () => ({ kind: 'raw', contentType: 'application/x-ndjson', body }) });
    const seen: Array<[number, number]> = [];
    const reply = await createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 10_000 }).chat('q', {
      signal,
      onProgress: (chars, thinking) => seen.push([chars, thinking]),
    });
    assert.equal(textOf(reply), 'It is 2.');
    assert.deepEqual(seen, [
      [0, 12],
      [0, 28],
      [8, 28],
    ]);
  });

  it('reads a single JSON body, also pretty-printed', async () => {
    assert.equal(await (await chatWith({ kind: 'reply', text: 'whole', stream: false })).reply, 'whole');
    const pretty = JSON.stringify({ message: { role: 'assistant', content: 'pretty' }, done: true }, null, 2);
    assert.equal(
      await (await chatWith({ kind: 'raw', contentType: 'application/json', body: pretty })).reply,
      'pretty',
    );
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
    await rejectsWith(
      (await chatWith({ kind: 'slow', ms: 5000, text: 'too late' }, 200)).reply,
      'BRIDGE_TIMEOUT',
      /no full answer within 200 ms.*timeoutMinutes/,
    );
  });

  it('stops when aborted', async () => {
    const fake = await startFakeBridge({ chat: () => ({ kind: 'slow', ms: 5000, text: 'x' }) });
    const controller = new AbortController();
    const reply = createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 10_000 }).chat('x', {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    await rejectsWith(reply, 'ABORTED', /Stopped/);
  });

  it('names an unknown model and lists the ones the bridge has', async () => {
    const fake = await startFakeBridge({ models: ['deepseek:think', 'deepseek:fast'] });
    const reply = createOllamaBridge({ host: fake.host, model: 'gpt', timeoutMs: 5000 }).chat('x', { signal });
    await rejectsWith(
      reply,
      'BRIDGE_MODEL',
      /does not know the model "gpt".*It has: deepseek:think, deepseek:fast\. Set deepseekModel/,
    );
  });

  it('names the host when nothing listens there', async () => {
    const port = await freePort();
    const reply = createOllamaBridge({ host: `http://127.0.0.1:${port}`, model: 'm', timeoutMs: 5000 }).chat('x', {
      signal,
    });
    await rejectsWith(
      reply,
      'BRIDGE_DOWN',
      new RegExp(`No bridge at http://127\\.0\\.0\\.1:${port}: nothing is listening.*Start the bridge`),
    );
  });

  it('says when the host is not an Ollama-style API', async () => {
    const { reply } = await chatWith({
      kind: 'raw',
      contentType: 'text/html',
      body: '<html><body>Welcome</body></html>',
    });
    await rejectsWith(reply, 'BRIDGE_PROTOCOL', /not as an Ollama-style API \(it sent: "Welcome/);
  });

  it('refuses a host that is not an http URL', () => {
    assert.throws(
      () => createOllamaBridge({ host: 'localhost:11500', model: 'm', timeoutMs: 1 }),
      /not an http:\/\/ or https:\/\/ URL/,
    );
    assert.throws(() => createOllamaBridge({ host: 'not a url', model: 'm', timeoutMs: 1 }), /is not a URL/);
  });
});

describe('the bridge client against a runaway or flaky bridge', () => {
  it('ends a reply past maxReplyChars with a clear error instead of filling the memory', async () => {
    const fake = await startFakeBridge({ chat: () => ({ kind: 'flood', text: 'x'.repeat(1000), lines: 1_000_000 }) });
    const reply = createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 30_000, maxReplyChars: 50_000 }).chat(
      'x',
      { signal },
    );
    await rejectsWith(
      reply,
      'BRIDGE_PROTOCOL',
      /passed 50,000 characters \(maxReplyChars in config\.json\); no model writes that much/,
    );
  });

  it('ends a single line past the cap without a line end', async () => {
    const body = `{"message":{"content":"${'y'.repeat(2_000_000)}"},"done":true}`;
    const { reply } = await chatWith({ kind: 'raw', contentType: 'application/json', body });
    assert.equal((await reply).length, 2_000_000);
    const fake = await startFakeBridge({ chat: () => ({ kind: 'raw', contentType: 'application/json', body }) });
    const capped = createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 30_000, maxReplyChars: 100_000 }).chat(
      'x',
      { signal },
    );
    await rejectsWith(capped, 'BRIDGE_PROTOCOL', /sent a line of more than 1,648,576 bytes without a line end/);
  });

  it('sends again once when the bridge closed the kept-alive connection meanwhile', async () => {
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        // The second request arrives on the connection the first one left open: the bridge drops it, as one that
        // timed out an idle connection does.
        if (requests === 2) return void req.socket.destroy();
        res.writeHead(200, { 'content-type': 'application/x-ndjson', connection: 'keep-alive' });
        res.end(`${JSON.stringify({ message: { content: `answer ${requests}` }, done: true })}\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const bridge = createOllamaBridge({
        host: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        model: 'm',
        timeoutMs: 5000,
      });
      assert.equal(textOf(await bridge.chat('one', { signal })), 'answer 1');
      assert.equal(textOf(await bridge.chat('two', { signal })), 'answer 3');
      assert.equal(requests, 3);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('the bridge client against a hostile bridge', () => {
  it('ends a thinking that never ends at maxReplyChars, having taken a bounded part of the flood', async () => {
    const line = `${JSON.stringify({ model: 'm', message: { role: 'assistant', content: '', thinking: 'y'.repeat(1000) }, done: false })}\n`;
    const server = await serveBody({ contentType: 'application/x-ndjson', piece: () => line, count: 100_000 });
    const reply = createOllamaBridge({ host: server.url, model: 'm', timeoutMs: 120_000, maxReplyChars: 10_000 }).chat(
      'q',
      { signal },
    );
    await rejectsWith(
      reply,
      'BRIDGE_PROTOCOL',
      /The thinking from .* passed 10,000 characters \(maxReplyChars in config\.json\)/,
    );
    // Besides what the client held, the socket buffers of both ends (up to 32 + 4 MiB on Linux); the flood is 100 MB.
    const sent = await server.sent;
    assert.ok(sent <= 48 << 20, `the bridge got to send ${sent} of ${100_000 * line.length} bytes`);
  });

  it('joins an answer sent as 20,000 one-character lines', async () => {
    const chars = [...Array.from({ length: 20_000 }, (_, i) => ['a', 'é', '☃', '😀'][i % 4]).join('')];
    const line = (i: number) =>
      `${JSON.stringify({ message: { role: 'assistant', content: chars[i] ?? '' }, done: i === chars.length })}\n`;
    const hundred = (i: number) => Array.from({ length: 100 }, (_, j) => line(i * 100 + j)).join('');
    const server = await serveBody({
      contentType: 'application/x-ndjson',
      piece: (i) => (i * 100 < chars.length ? hundred(i) : line(chars.length)),
      count: chars.length / 100 + 1,
    });
    const reply = await createOllamaBridge({
      host: server.url,
      model: 'm',
      timeoutMs: 120_000,
      maxReplyChars: 1_000_000,
    }).chat('q', { signal });
    assert.equal(textOf(reply), chars.join(''));
  });
});

describe('lines', () => {
  async function* chunks(...parts: string[]): AsyncGenerator<Buffer> {
    for (const part of parts) yield Buffer.from(part);
  }
  const all = async (body: AsyncIterable<Buffer>, max = 1000) => {
    const out: string[] = [];
    for await (const line of lines(body, max, 'test')) out.push(line);
    return out;
  };

  it('joins lines across chunks and keeps multi-byte characters whole', async () => {
    const snow = Buffer.from('☃');
    async function* split(): AsyncGenerator<Buffer> {
      yield Buffer.from('a\nb');
      yield Buffer.from('c\n');
      yield snow.subarray(0, 1);
      yield Buffer.concat([snow.subarray(1), Buffer.from('\n\nlast')]);
    }
    assert.deepEqual(await all(split()), ['a', 'bc', '☃', '', 'last']);
    assert.deepEqual(await all(chunks('only')), ['only']);
  });

  it('joins a line that arrives in a thousand one-byte chunks', async () => {
    const text = 'z'.repeat(999);
    assert.deepEqual(await all(chunks(...text, '\n', ...'after')), [text, 'after']);
  });

  it('refuses a line longer than its bound, whether it comes in one chunk or many', async () => {
    await assert.rejects(all(chunks('x'.repeat(2000), '\n'), 1000), /more than/);
    await assert.rejects(all(chunks(...Array.from({ length: 30 }, () => 'x'.repeat(50))), 1000), /more than/);
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
    assert.match(
      (await checkBridge(fake.host, 'deepseek:think')).message,
      /does not know the model "deepseek:think"\. It has: other/,
    );
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

describe('--check in its own words', () => {
  it('says a host that takes the connection and never answers is stuck, with its real wait, not "raise timeoutMinutes"', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent = http.createServer(() => {});
    silent.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const report = await checkBridge(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, 'm', 300);
      assert.equal(report.state, 'down');
      assert.match(
        report.message,
        /took the connection but did not answer GET \/api\/tags within 300 ms: it is busy, stuck, or not an Ollama-style API/,
      );
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});

describe('request (bridge/http.ts)', () => {
  it('sends a request once more on a new connection when the bridge reset the kept-alive one it went out on', async () => {
    // The first request is answered and its connection kept; the second, sent on that connection, meets a reset (the
    // bridge closed it while deepwork was busy). It is sent again on a new connection, and answered there.
    let connections = 0;
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      if (requests === 2) {
        req.socket.resetAndDestroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'keep-alive' });
      res.end(`answer ${requests}`);
    });
    server.on('connection', () => connections++);
    const { port } = await serveOnLoopback(server);
    const url = new URL(`http://127.0.0.1:${port}/`);
    // Node's global agent keeps connections alive (Node 19 and later), as it does for the bridge.
    const ask = async () => readAll((await request(url, { method: 'GET', signal, timeoutMs: 5_000 })).body);
    assert.equal(await ask(), 'answer 1');
    assert.equal(await ask(), 'answer 3');
    assert.deepEqual([requests, connections], [3, 2]);
  });
});
