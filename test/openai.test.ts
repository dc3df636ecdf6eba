import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createOpenAiBridge, keyFrom, type OpenAiOptions } from '../bridge/openai.ts';
import { checkOpenAi } from '../bridge/check.ts';
import { DeepworkError } from '../common/errors.ts';
import { startFakeOpenAi, type Completion, type FakeOpenAiOptions } from './fake-openai.ts';
import { freePort, serveBody } from './helpers.ts';

const signal = new AbortController().signal;
const KEY = 'sk-test-0123456789abcdef';
const key = { value: KEY, variable: 'TEST_API_KEY' };

async function bridgeFor(fake: FakeOpenAiOptions, options: Partial<OpenAiOptions> = {}) {
  const server = await startFakeOpenAi(fake);
  const bridge = createOpenAiBridge({
    host: server.host,
    model: 'm',
    key,
    timeoutMs: 10_000,
    retryDelayMs: 1,
    ...options,
  });
  return { server, bridge };
}

async function chatWith(
  completion: Completion | ((index: number) => Completion),
  options: Partial<OpenAiOptions> = {},
) {
  const chat = typeof completion === 'function' ? (_: string, i: number) => completion(i) : () => completion;
  const { server, bridge } = await bridgeFor({ chat }, options);
  return { server, reply: bridge.chat('hello', { signal }) };
}

async function rejectsWith(promise: Promise<unknown>, code: string, message: RegExp): Promise<DeepworkError> {
  let caught: DeepworkError | undefined;
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DeepworkError, `not a DeepworkError: ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    caught = error;
    return true;
  });
  assert.ok(caught !== undefined);
  return caught;
}

describe('the fake OpenAI-compatible server, as the official openai client sees it', () => {
  it('streams chunks the client joins, with the reasoning as an extra delta field and usage at the end', async () => {
    const server = await startFakeOpenAi({
      models: ['m'],
      key: KEY,
      chat: () => ({
        kind: 'reply',
        text: 'Hello, world',
        reasoning: 'let me think',
        chunks: 4,
        keepAlive: true,
        promptTokens: 77,
      }),
    });
    const client = new OpenAI({ baseURL: server.host, apiKey: KEY, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let reasoning = '';
    let finish: string | null | undefined;
    let promptTokens: number | undefined;
    for await (const part of stream) {
      const choice = part.choices[0];
      text += choice?.delta.content ?? '';
      const extra: unknown = choice?.delta === undefined ? undefined : Reflect.get(choice.delta, 'reasoning_content');
      reasoning += typeof extra === 'string' ? extra : '';
      finish = choice?.finish_reason ?? finish;
      promptTokens = part.usage?.prompt_tokens ?? promptTokens;
    }
    assert.equal(text, 'Hello, world');
    assert.equal(reasoning, 'let me think');
    assert.equal(finish, 'stop');
    assert.equal(promptTokens, 77);
  });

  it('answers a request without stream as one completion, and lists its models', async () => {
    const server = await startFakeOpenAi({
      models: ['m', { id: 'big', object: 'model', created: 1, owned_by: 'vllm', max_model_len: 32_768 }],
      chat: () => ({ kind: 'reply', text: 'whole', finish: 'length' }),
    });
    const client = new OpenAI({ baseURL: server.host, apiKey: 'none', maxRetries: 0 });
    const done = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(done.choices[0]?.message.content, 'whole');
    assert.equal(done.choices[0]?.finish_reason, 'length');
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.deepEqual(ids, ['m', 'big']);
  });

  it('fails as real servers do: 401 for a wrong key, 404 for an unknown model, an error event inside a stream', async () => {
    const server = await startFakeOpenAi({
      models: ['m'],
      key: KEY,
      chat: () => ({ kind: 'error-in-stream', before: 'par', error: { message: 'overloaded', type: 'server_error' } }),
    });
    const wrong = new OpenAI({ baseURL: server.host, apiKey: 'sk-wrong', maxRetries: 0 });
    await assert.rejects(
      wrong.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      OpenAI.AuthenticationError,
    );
    const client = new OpenAI({ baseURL: server.host, apiKey: KEY, maxRetries: 0 });
    await assert.rejects(
      client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }),
      OpenAI.NotFoundError,
    );
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    await assert.rejects(async () => {
      for await (const part of stream) assert.ok(part.choices.length <= 1);
    }, /overloaded/);
  });

  it('honours Retry-After as the client does: a 429 then an answer', async () => {
    const server = await startFakeOpenAi({
      chat: (_, i) =>
        i === 0
          ? {
              kind: 'status',
              status: 429,
              body: JSON.stringify({ error: { message: 'Rate limit reached' } }),
              headers: { 'retry-after': '0' },
            }
          : { kind: 'reply', text: 'after the wait' },
    });
    const client = new OpenAI({ baseURL: server.host, apiKey: 'none', maxRetries: 1 });
    const done = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(done.choices[0]?.message.content, 'after the wait');
    assert.equal(server.requests.length, 2);
  });
});

describe('createOpenAiBridge', () => {
  it('posts the model, one user message, stream with usage, and the key; joins the streamed answer', async () => {
    const { server, reply } = await chatWith({
      kind: 'reply',
      text: 'The answer is 42.',
      chunks: 5,
      promptTokens: 1234,
    });
    const answer = await reply;
    assert.equal(answer.text, 'The answer is 42.');
    assert.equal(answer.promptTokens, 1234);
    assert.equal(answer.cut, undefined);
    const sent = server.requests[0];
    assert.equal(sent?.authorization, `Bearer ${KEY}`);
    assert.deepEqual(sent?.body.messages, [{ role: 'user', content: 'hello' }]);
    assert.equal(sent?.body.model, 'm');
    assert.equal(sent?.body.stream, true);
    assert.deepEqual(sent?.body.stream_options, { include_usage: true });
    assert.equal(sent?.body.max_tokens, undefined, 'no max_tokens unless set or known');
  });

  it('sends no Authorization header when no key is configured (llama.cpp, LM Studio)', async () => {
    const { server, reply } = await chatWith({ kind: 'reply', text: 'ok' }, { key: undefined });
    assert.equal((await reply).text, 'ok');
    assert.equal(server.requests[0]?.authorization, undefined);
  });

  it('reads keep-alive comments and CRLF line ends, and a server that answers with one JSON body', async () => {
    assert.equal(
      (await (await chatWith({ kind: 'reply', text: 'kept alive', keepAlive: true, crlf: true })).reply).text,
      'kept alive',
    );
    assert.equal(
      (await (await chatWith({ kind: 'reply', text: 'one body', stream: false, promptTokens: 9 })).reply).text,
      'one body',
    );
    const pretty = JSON.stringify(
      { choices: [{ index: 0, message: { role: 'assistant', content: 'pretty' }, finish_reason: 'stop' }] },
      null,
      2,
    );
    assert.equal(
      (await (await chatWith({ kind: 'raw', contentType: 'application/json', body: pretty })).reply).text,
      'pretty',
    );
  });

  it('counts the reasoning in progress and keeps it out of the answer', async () => {
    const server = await startFakeOpenAi({
      chat: () => ({ kind: 'reply', text: 'final', reasoning: 'x'.repeat(1200), chunks: 2 }),
    });
    const bridge = createOpenAiBridge({
      host: server.host,
      model: 'deepseek-reasoner',
      key: undefined,
      timeoutMs: 10_000,
    });
    const seen: Array<[number, number]> = [];
    const answer = await bridge.chat('q', { signal, onProgress: (chars, thinking) => seen.push([chars, thinking]) });
    assert.equal(answer.text, 'final');
    assert.deepEqual(seen.at(-1), [5, 1200]);
    assert.ok(
      seen.some(([chars, thinking]) => chars === 0 && thinking > 0),
      'the reasoning is reported before the answer starts',
    );
  });

  it('tells of a reply cut at the output limit, and sends max_tokens for deepseek-chat or as configured', async () => {
    const server = await startFakeOpenAi({
      chat: () => ({ kind: 'reply', text: '=== FILE: a.js ===\nconst a', finish: 'length' }),
    });
    const chat = createOpenAiBridge({ host: server.host, model: 'deepseek-chat', key: undefined, timeoutMs: 10_000 });
    const answer = await chat.chat('q', { signal });
    assert.match(
      answer.cut ?? '',
      /the server cut the reply at its output limit after \d+ tokens \(finish_reason "length"\).*a FILE or EDIT block it cut is not written.*maxReplyTokens \(now 8,192\) can be raised/,
    );
    assert.equal(server.requests[0]?.body.max_tokens, 8192);
    const set = createOpenAiBridge({
      host: server.host,
      model: 'other',
      key: undefined,
      timeoutMs: 10_000,
      maxReplyTokens: 3000,
    });
    await set.chat('q', { signal });
    assert.equal(server.requests[1]?.body.max_tokens, 3000);
  });

  it('ends the call with the message of an error event inside the stream', async () => {
    const { reply } = await chatWith({
      kind: 'error-in-stream',
      before: 'half an ans',
      error: { message: 'upstream overloaded', type: 'server_error' },
    });
    await rejectsWith(reply, 'BRIDGE_ERROR', /answered with an error: "upstream overloaded"/);
    const vllm = await chatWith({
      kind: 'raw',
      contentType: 'text/event-stream',
      body: 'data: {"object":"error","message":"The model is overloaded","type":"BadRequestError","code":400}\n\n',
    });
    await rejectsWith(vllm.reply, 'BRIDGE_ERROR', /answered with an error: "The model is overloaded"/);
  });

  it('takes a stream that stops before its end for an error, not an answer', async () => {
    const { reply } = await chatWith({ kind: 'cut-stream', before: 'the beginning' });
    await rejectsWith(
      reply,
      'BRIDGE_PROTOCOL',
      /ended before its end \(13 characters arrived, no finish_reason, no \[DONE\]\)/,
    );
  });

  it('refuses a key the server rejects, naming the variable and never the key, even when the server echoes it', async () => {
    const { server, bridge } = await bridgeFor({
      key: 'sk-the-right-one',
      chat: () => ({ kind: 'reply', text: 'never' }),
    });
    const error = await rejectsWith(
      bridge.chat('q', { signal }),
      'BRIDGE_AUTH',
      /refused the API key in TEST_API_KEY \(HTTP 401: "Incorrect API key provided: \[the API key\]/,
    );
    assert.ok(!error.message.includes(KEY));
    assert.equal(server.requests.length, 0);
    const keyless = createOpenAiBridge({ host: server.host, model: 'm', key: undefined, timeoutMs: 10_000 });
    await rejectsWith(
      keyless.chat('q', { signal }),
      'BRIDGE_AUTH',
      /wants an API key \(HTTP 401.*"apiKeyEnv": "DEEPSEEK_API_KEY"/,
    );
  });

  it('says before sending anything that the named variable holds no key', () => {
    assert.throws(
      () => keyFrom('DEEPSEEK_API_KEY', {}),
      (error: unknown) => {
        assert.ok(error instanceof DeepworkError);
        assert.equal(error.code, 'BRIDGE_AUTH');
        assert.match(
          error.message,
          /the environment variable DEEPSEEK_API_KEY \(apiKeyEnv in config\.json\) is not set.*set DEEPSEEK_API_KEY=your-key.*\$env:DEEPSEEK_API_KEY/,
        );
        return true;
      },
    );
    assert.throws(() => keyFrom('K', { K: '   ' }), /K \(apiKeyEnv/);
    assert.deepEqual(keyFrom('K', { K: ' sk-1 ' }), { value: 'sk-1', variable: 'K' });
    assert.equal(keyFrom(undefined, { K: 'x' }), undefined);
  });

  it('names an unknown model and lists what GET /models offers', async () => {
    const { bridge } = await bridgeFor({ models: ['deepseek-chat', 'deepseek-reasoner'] }, { model: 'deepseek-coder' });
    await rejectsWith(
      bridge.chat('q', { signal }),
      'BRIDGE_MODEL',
      /does not know the model "deepseek-coder".*It has: deepseek-chat, deepseek-reasoner\. Set deepseekModel/,
    );
  });

  it('says the base URL lacks its /v1 when the route is not there', async () => {
    const server = await startFakeOpenAi({});
    const bridge = createOpenAiBridge({
      host: server.host.replace(/\/v1$/, ''),
      model: 'm',
      key: undefined,
      timeoutMs: 10_000,
    });
    await rejectsWith(
      bridge.chat('q', { signal }),
      'BRIDGE_HTTP',
      /There is no chat completions API at http:\/\/127\.0\.0\.1:\d+\/chat\/completions \(HTTP 404.*with its \/v1/,
    );
  });

  it('asks once more after a 429 or 5xx, honouring Retry-After, then answers', async () => {
    const limited: Completion = {
      kind: 'status',
      status: 429,
      body: JSON.stringify({ error: { message: 'Rate limit reached for requests' } }),
      headers: { 'retry-after': '0' },
    };
    const first = await chatWith((i) => (i === 0 ? limited : { kind: 'reply', text: 'second time lucky' }));
    assert.equal((await first.reply).text, 'second time lucky');
    assert.equal(first.server.requests.length, 2);
    const failing: Completion = {
      kind: 'status',
      status: 503,
      body: '<html><body><h1>503 Service Unavailable</h1></body></html>',
    };
    const second = await chatWith((i) => (i === 0 ? failing : { kind: 'reply', text: 'back' }));
    assert.equal((await second.reply).text, 'back');
  });

  it('gives the message after one retry, and does not wait when the server asks for an hour', async () => {
    const limited: Completion = {
      kind: 'status',
      status: 429,
      body: JSON.stringify({ error: { message: 'Rate limit reached' } }),
      headers: { 'retry-after': '0' },
    };
    const again = await chatWith(limited);
    await rejectsWith(
      again.reply,
      'BRIDGE_HTTP',
      /is limiting requests \(HTTP 429: "Rate limit reached"\), also when asked again\. Wait a little/,
    );
    assert.equal(again.server.requests.length, 2);
    const hour = await chatWith({ ...limited, headers: { 'retry-after': '3600' } });
    await rejectsWith(
      hour.reply,
      'BRIDGE_HTTP',
      /it asks to wait 60 min, so it was not asked again\. Ask again after that/,
    );
    assert.equal(hour.server.requests.length, 1);
    const html = await chatWith({
      kind: 'status',
      status: 502,
      body: '<html><head><title>502</title></head><body><center>Bad Gateway</center></body></html>',
    });
    await rejectsWith(html.reply, 'BRIDGE_HTTP', /failed \(HTTP 502: "502 Bad Gateway"\), also when asked again/);
  });

  it('stops waiting for a retry when aborted', async () => {
    const server = await startFakeOpenAi({
      chat: () => ({
        kind: 'status',
        status: 503,
        body: '{"error":{"message":"busy"}}',
        headers: { 'retry-after': '30' },
      }),
    });
    const bridge = createOpenAiBridge({ host: server.host, model: 'm', key: undefined, timeoutMs: 60_000 });
    const controller = new AbortController();
    const reply = bridge.chat('q', { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await rejectsWith(reply, 'ABORTED', /Stopped/);
    assert.equal(server.requests.length, 1);
  });

  it('says a message too long for the model is too long, with the setting to change', async () => {
    const { reply } = await chatWith({
      kind: 'status',
      status: 400,
      body: JSON.stringify({
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
        },
      }),
    });
    await rejectsWith(reply, 'BRIDGE_HTTP', /refused the message as too long for the model .*Set contextTokens/);
  });

  it('ends a reply past maxReplyChars with a clear error', async () => {
    const { reply } = await chatWith(
      { kind: 'reply', text: 'y'.repeat(30_000), chunks: 30 },
      { maxReplyChars: 10_000 },
    );
    await rejectsWith(reply, 'BRIDGE_PROTOCOL', /passed 10,000 characters \(maxReplyChars/);
  });

  it('says when the host is not an OpenAI-compatible API', async () => {
    const { reply } = await chatWith({
      kind: 'raw',
      contentType: 'application/x-ndjson',
      body: '{"message":{"content":"hi"},"done":true}\n',
    });
    await rejectsWith(reply, 'BRIDGE_PROTOCOL', /not as an OpenAI-compatible API.*"api": "ollama"/);
  });

  it("finds the window in the model list, in llama.cpp's /props, or in the presets", async () => {
    const vllm = await bridgeFor({ models: [{ id: 'm', object: 'model', owned_by: 'vllm', max_model_len: 32_768 }] });
    assert.equal(await vllm.bridge.window?.(signal), 32_768);
    const llama = await bridgeFor({
      models: [{ id: 'qwen.gguf', object: 'model', owned_by: 'llamacpp', meta: { n_ctx_train: 131_072 } }],
      props: { default_generation_settings: { n_ctx: 16_384 } },
    });
    assert.equal(await llama.bridge.window?.(signal), 16_384, "llama.cpp's -c, not the model's training length");
    const deepseek = await bridgeFor({ models: ['deepseek-chat'] }, { model: 'deepseek-chat' });
    assert.equal(await deepseek.bridge.window?.(signal), 128_000);
    const unknown = await bridgeFor({ models: ['m'] });
    assert.equal(await unknown.bridge.window?.(signal), undefined);
  });
});

describe('checkOpenAi', () => {
  it('is ready when the model is listed, and down with the list when it is not', async () => {
    const server = await startFakeOpenAi({ models: ['deepseek-chat', 'deepseek-reasoner'], key: KEY });
    const ready = await checkOpenAi(server.host, 'deepseek-chat', key);
    assert.equal(ready.state, 'ready');
    assert.match(ready.message, /answers and offers "deepseek-chat"/);
    const down = await checkOpenAi(server.host, 'gpt-4o', key);
    assert.equal(down.state, 'down');
    assert.match(down.message, /does not offer the model "gpt-4o"\. It offers: deepseek-chat, deepseek-reasoner\./);
  });

  it('is ready for llama.cpp whatever the name, since it serves one model', async () => {
    const server = await startFakeOpenAi({
      models: [{ id: '/models/qwen2.5-coder-7b.gguf', object: 'model', owned_by: 'llamacpp' }],
    });
    const report = await checkOpenAi(server.host, 'anything', undefined);
    assert.equal(report.state, 'ready');
    assert.match(report.message, /llama\.cpp and serves one model/);
  });

  it('is down with the reason: a wrong key (never shown), no key, no /v1, nothing listening', async () => {
    const server = await startFakeOpenAi({ models: ['m'], key: 'sk-right-key-123' });
    const wrong = await checkOpenAi(server.host, 'm', key);
    assert.equal(wrong.state, 'down');
    assert.match(wrong.message, /HTTP 401.*refused the key in TEST_API_KEY/);
    assert.ok(!wrong.message.includes(KEY));
    const none = await checkOpenAi(server.host, 'm', undefined);
    assert.match(none.message, /wants an API key.*apiKeyEnv/);
    const open = await startFakeOpenAi({ models: ['m'] });
    const root = await checkOpenAi(open.host.replace(/\/v1$/, ''), 'm', undefined);
    assert.match(root.message, /HTTP 404.*with its \/v1/);
    const port = await freePort();
    const nothing = await checkOpenAi(`http://127.0.0.1:${port}/v1`, 'm', undefined);
    assert.equal(nothing.state, 'down');
    assert.match(nothing.message, /nothing is listening/);
  });
});

describe('createOpenAiBridge against a hostile server', () => {
  // What a client may still have been sent when it hangs up: besides what it held, the socket buffers of both ends
  // (Linux lets them grow to tcp_rmem + tcp_wmem, 32 + 4 MiB on the test machine). The floods are far larger.
  const SLACK = 48 << 20;
  const openAi = (url: string, maxReplyChars: number) =>
    createOpenAiBridge({ host: `${url}/v1`, model: 'm', key: undefined, timeoutMs: 120_000, maxReplyChars });

  it('ends an event whose data lines never end at maxReplyChars, having taken a bounded part of the flood', async () => {
    const line = `data: ${'x'.repeat(1 << 20)}\n`;
    const server = await serveBody({ contentType: 'text/event-stream', piece: () => line, count: 256 });
    await rejectsWith(
      openAi(server.url, 1_000_000).chat('q', { signal }),
      'BRIDGE_PROTOCOL',
      /passed 1,000,000 characters \(maxReplyChars in config\.json\)/,
    );
    const sent = await server.sent;
    // One event may hold 6 × 1,000,000 + 1 MiB characters of JSON (escapes make a character up to six).
    assert.ok(sent <= 6_000_000 + (1 << 20) + SLACK, `the server got to send ${sent} of 256 MiB`);
  });

  it('ends a reasoning that never ends at maxReplyChars, having taken a bounded part of the flood', async () => {
    const event = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { reasoning_content: 'y'.repeat(1000) }, finish_reason: null }] })}\n\n`;
    const server = await serveBody({ contentType: 'text/event-stream', piece: () => event, count: 100_000 });
    await rejectsWith(
      openAi(server.url, 10_000).chat('q', { signal }),
      'BRIDGE_PROTOCOL',
      /The reasoning from .* passed 10,000 characters \(maxReplyChars in config\.json\)/,
    );
    const sent = await server.sent;
    assert.ok(sent <= SLACK, `the server got to send ${sent} of ${100_000 * event.length} bytes`);
  });

  it('joins an answer sent as 20,000 one-character deltas', async () => {
    const text = Array.from({ length: 20_000 }, (_, i) => ['a', 'é', '☃', '😀'][i % 4]).join('');
    const chars = [...text];
    const event = (i: number) =>
      i < chars.length
        ? `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: chars[i] }, finish_reason: null }] })}\n\n`
        : 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    const hundred = (i: number) => Array.from({ length: 100 }, (_, j) => event(i * 100 + j)).join('');
    const server = await serveBody({
      contentType: 'text/event-stream',
      piece: (i) => (i * 100 < chars.length ? hundred(i) : event(chars.length)),
      count: chars.length / 100 + 1,
    });
    const answer = await openAi(server.url, 1_000_000).chat('q', { signal });
    assert.equal(answer.text, text);
  });
});

describe('the API key in what the server sends back', () => {
  const SLASHED = 'sk-live/Q7x9b2LmP4';
  const slashed = { value: SLASHED, variable: 'TEST_API_KEY' };
  // Each way a JSON encoder may write the key: PHP's json_encode escapes "/", others write any character as \uXXXX.
  const unicode = (text: string, upper: boolean) =>
    [...text]
      .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .map((e) => (upper ? e.toUpperCase().replace('\\U', '\\u') : e))
      .join('');
  const SPELLINGS = [
    'sk-live\\/Q7x9b2LmP4',
    '\\u0073k-live\\u002fQ7x9b2LmP4',
    unicode(SLASHED, false),
    unicode(SLASHED, true),
    `sk-live\\/${unicode('Q7x9', true)}b2LmP4`,
  ];
  // No spelling of the key, nor the start of one, is in the text.
  const assertScrubbed = (text: string) => {
    assert.ok(!/sk-live|\\u0073|Q7x9b2LmP4/i.test(text), `the key is in: ${text}`);
    assert.match(text, /\[the API key\]/);
  };
  const chatAt = (url: string) =>
    createOpenAiBridge({ host: `${url}/v1`, model: 'm', key: slashed, timeoutMs: 10_000, retryDelayMs: 1 }).chat('q', {
      signal,
    });
  const once = (status: number, contentType: string, body: string) =>
    serveBody({ status, contentType, piece: () => body, count: 1 });

  it('scrubs the key from an error body however the server escapes it', async () => {
    for (const spelling of SPELLINGS) {
      const server = await once(
        401,
        'application/json',
        `{"error":{"message":"Incorrect API key provided: ${spelling}. You can find your API key at https://platform.example/keys."}}`,
      );
      const error = await rejectsWith(
        chatAt(server.url),
        'BRIDGE_AUTH',
        /refused the API key in TEST_API_KEY \(HTTP 401: "Incorrect API key provided: \[the API key\]\./,
      );
      assertScrubbed(error.message);
    }
  });

  it('scrubs the key from an HTML error page, as it is shown', async () => {
    const server = await once(
      502,
      'text/html',
      `<html><body><h1>Bad Gateway</h1><p>upstream refused ${SPELLINGS[0]}</p></body></html>`,
    );
    assertScrubbed(
      (
        await rejectsWith(
          chatAt(server.url),
          'BRIDGE_HTTP',
          /failed \(HTTP 502: "Bad Gateway upstream refused \[the API key\]"\)/,
        )
      ).message,
    );
  });

  it('scrubs the key before a long message is cut, so no part of it shows', async () => {
    const server = await once(400, 'application/json', `{"error":{"message":"${'a'.repeat(490)} ${SPELLINGS[1]}"}}`);
    const error = await rejectsWith(chatAt(server.url), 'BRIDGE_HTTP', /answered HTTP 400/);
    assert.ok(!/sk-|\\u0073/.test(error.message), `a part of the key is in: ${error.message}`);
  });

  it('scrubs the key from an error event whose text arrives split across packets', async () => {
    const pieces = ['data: {"error":{"message":"quota of \\u00', '73k-live\\', '/Q7x9b2', 'LmP4 is used up"}}\n', '\n'];
    const server = await serveBody({
      contentType: 'text/event-stream',
      piece: (i) => pieces[i] ?? '',
      count: pieces.length,
    });
    assertScrubbed(
      (
        await rejectsWith(
          chatAt(server.url),
          'BRIDGE_ERROR',
          /answered with an error: "quota of \[the API key\] is used up"/,
        )
      ).message,
    );
  });

  it('scrubs the key from a body that is not an OpenAI-compatible answer', async () => {
    const server = await once(200, 'text/plain', `no such thing here, ${SPELLINGS[0]}`);
    assertScrubbed(
      (
        await rejectsWith(
          chatAt(server.url),
          'BRIDGE_PROTOCOL',
          /not as an OpenAI-compatible API \(it sent: "no such thing here, \[the API key\]"\)/,
        )
      ).message,
    );
  });

  it('scrubs the key from what --check shows of GET /models: an error, or the model names', async () => {
    const refused = await once(403, 'application/json', `{"error":{"message":"key ${SPELLINGS[2]} is disabled"}}`);
    const down = await checkOpenAi(`${refused.url}/v1`, 'm', slashed);
    assert.equal(down.state, 'down');
    assertScrubbed(down.message);
    const listing = await once(
      200,
      'application/json',
      `{"object":"list","data":[{"id":"${SPELLINGS[0]}","object":"model"},{"id":"m2","object":"model"}]}`,
    );
    const other = await checkOpenAi(`${listing.url}/v1`, 'm', slashed);
    assert.match(other.message, /It offers: \[the API key\], m2\./);
    assertScrubbed(other.message);
    const llama = await once(
      200,
      'application/json',
      `{"object":"list","data":[{"id":"${SPELLINGS[3]}","object":"model","owned_by":"llamacpp"}]}`,
    );
    const one = await checkOpenAi(`${llama.url}/v1`, 'm', slashed);
    assert.match(one.message, /serves one model, "\[the API key\]"/);
    assertScrubbed(one.message);
  });
});
