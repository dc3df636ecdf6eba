// A fake OpenAI-compatible server over real HTTP on a loopback port: `POST /v1/chat/completions` streamed as
// server-sent events (as DeepSeek, llama.cpp and vLLM send them: keep-alive comments, reasoning deltas, a usage chunk,
// `[DONE]`) or as one JSON body, `GET /v1/models`, llama.cpp's `/props`, an API key, and the failures real servers
// have. The official `openai` client is driven against it in openai.test.ts, so what it sends is known to be what
// that client accepts.

import http from 'node:http';
import { serveOnLoopback } from './helpers.ts';

export type Completion =
  // `reasoning`: sent first as reasoning_content deltas; `finish`: the finish_reason ("stop" unless given).
  | {
      kind: 'reply';
      text: string;
      reasoning?: string;
      chunks?: number;
      finish?: string;
      stream?: boolean;
      promptTokens?: number;
      keepAlive?: boolean;
      crlf?: boolean;
    }
  | { kind: 'status'; status: number; body: string; headers?: Record<string, string> }
  | { kind: 'error-in-stream'; before: string; error: unknown }
  | { kind: 'cut-stream'; before: string }
  | { kind: 'raw'; contentType: string; body: string };

export type FakeOpenAi = {
  // The base URL with its /v1, as deepseekHost takes it.
  host: string;
  requests: Array<{ body: Record<string, unknown>; authorization: string | undefined }>;
  // Every request's method and path, in order.
  calls: string[];
  close: () => Promise<void>;
};

export type FakeOpenAiOptions = {
  chat?: (content: string, index: number) => Completion;
  // The models GET /v1/models lists: ids, or whole entries.
  models?: Array<string | Record<string, unknown>>;
  // When set, every request must carry `Authorization: Bearer <key>`; others get 401 as OpenAI sends it.
  key?: string;
  // What GET /props answers (llama.cpp); 404 when unset.
  props?: unknown;
  manualClose?: boolean;
};

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const requests: FakeOpenAi['requests'] = [];
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      calls.push(`${req.method} ${req.url}`);
      if (options.key !== undefined && req.headers.authorization !== `Bearer ${options.key}`) {
        const shown = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        return json(res, 401, {
          error: {
            message: `Incorrect API key provided: ${shown}. You can find your API key at https://platform.example/keys.`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        });
      }
      if (req.method === 'GET' && req.url === '/v1/models') {
        const data = (options.models ?? []).map((m) =>
          typeof m === 'string' ? { id: m, object: 'model', created: 1_700_000_000, owned_by: 'fake' } : m,
        );
        return json(res, 200, { object: 'list', data });
      }
      if (req.method === 'GET' && req.url === '/props' && options.props !== undefined)
        return json(res, 200, options.props);
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
        return json(res, 404, {
          error: {
            message: `Unknown request URL: ${req.method} ${req.url}`,
            type: 'invalid_request_error',
            code: 'unknown_url',
          },
        });
      const parsed: unknown = JSON.parse(body);
      const record = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
      requests.push({ body: record, authorization: req.headers.authorization });
      const model = typeof record.model === 'string' ? record.model : '';
      const messages = Array.isArray(record.messages) ? (record.messages as Array<{ content?: unknown }>) : [];
      const content = typeof messages[0]?.content === 'string' ? messages[0].content : '';
      if (options.models !== undefined && !options.models.some((m) => (typeof m === 'string' ? m : m.id) === model)) {
        return json(res, 404, {
          error: {
            message: `The model \`${model}\` does not exist or you do not have access to it.`,
            type: 'invalid_request_error',
            param: null,
            code: 'model_not_found',
          },
        });
      }
      const behaviour = options.chat?.(content, requests.length - 1) ?? { kind: 'reply', text: 'ok' };
      respond(res, behaviour, model, record.stream === true, content.length);
    });
  });
  const { port, close } = await serveOnLoopback(server, options.manualClose === true);
  return { host: `http://127.0.0.1:${port}/v1`, requests, calls, close };
}

function json(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

const CREATED = 1_700_000_000;

function chunk(model: string, delta: Record<string, unknown>, finish: string | null): string {
  return JSON.stringify({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
}

function respond(res: http.ServerResponse, b: Completion, model: string, stream: boolean, promptChars: number): void {
  switch (b.kind) {
    case 'reply': {
      const finish = b.finish ?? 'stop';
      const usage = {
        prompt_tokens: b.promptTokens ?? Math.ceil(promptChars / 4),
        completion_tokens: Math.ceil(b.text.length / 4),
        total_tokens: 0,
      };
      if (!stream || b.stream === false) {
        const message = {
          role: 'assistant',
          content: b.text,
          ...(b.reasoning === undefined ? {} : { reasoning_content: b.reasoning }),
        };
        json(res, 200, {
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: CREATED,
          model,
          choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
          usage,
        });
        return;
      }
      const end = b.crlf === true ? '\r\n\r\n' : '\n\n';
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      if (b.keepAlive === true) res.write(`: keep-alive${end}`);
      res.write(`data: ${chunk(model, { role: 'assistant', content: '' }, null)}${end}`);
      for (const part of pieces(b.reasoning ?? '', 3))
        res.write(`data: ${chunk(model, { reasoning_content: part, content: null }, null)}${end}`);
      for (const part of pieces(b.text, b.chunks ?? 3)) {
        if (b.keepAlive === true) res.write(`: keep-alive${end}`);
        res.write(`data: ${chunk(model, { content: part }, null)}${end}`);
      }
      res.write(`data: ${chunk(model, {}, finish)}${end}`);
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: CREATED, model, choices: [], usage })}${end}`,
      );
      res.end(`data: [DONE]${end}`);
      return;
    }
    case 'status':
      res.writeHead(b.status, {
        'content-type': b.body.startsWith('{') ? 'application/json' : 'text/html',
        ...b.headers,
      });
      res.end(b.body);
      return;
    case 'error-in-stream':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${chunk(model, { content: b.before }, null)}\n\n`);
      res.end(`data: ${JSON.stringify({ error: b.error })}\n\n`);
      return;
    case 'cut-stream':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${chunk(model, { content: b.before }, null)}\n\n`);
      return;
    case 'raw':
      res.writeHead(200, { 'content-type': b.contentType });
      res.end(b.body);
      return;
  }
}

function pieces(text: string, n: number): string[] {
  if (text === '') return [];
  const size = Math.ceil(text.length / Math.max(1, n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
