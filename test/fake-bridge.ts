// A fake Ollama-style bridge over real HTTP on a loopback port: `/api/chat` streamed or as one body, `/api/tags`,
// `/api/ps`, and the failures real bridges have (errors before and inside a stream, a stream cut before done, slowness).

import http from 'node:http';
import { serveOnLoopback } from './helpers.ts';

export type ChatBehaviour =
  | { kind: 'reply'; text: string; stream?: boolean; chunks?: number }
  | { kind: 'status'; status: number; body: string }
  | { kind: 'error-in-stream'; before: string; error: string }
  | { kind: 'cut-stream'; before: string }
  | { kind: 'slow'; ms: number; text: string }
  | { kind: 'raw'; contentType: string; body: string }
  // `lines` NDJSON lines of `text` each, written as fast as the client takes them, never done; stops when the client goes.
  | { kind: 'flood'; text: string; lines: number };

export type FakeBridge = {
  host: string;
  // The request bodies /api/chat received, parsed; `numCtx` is the options.num_ctx sent, if any.
  chats: Array<{ model: string; content: string; stream: unknown; numCtx?: unknown }>;
  // Holds the answers to /api/tags from now on until the returned function is called: a check in flight, on demand.
  holdTags: () => () => void;
  close: () => Promise<void>;
};

export type FakeOptions = {
  chat?: (content: string, index: number) => ChatBehaviour;
  models?: string[];
  running?: string[] | 'no-ps';
  // What POST /api/show answers (404 when unset), and the prompt_eval_count the final chat line reports.
  show?: unknown;
  promptEvalCount?: (content: string, numCtx: unknown) => number;
  // Close it yourself: for a bridge started inside a before() hook, where after() would close it at once.
  manualClose?: boolean;
};

export async function startFakeBridge(options: FakeOptions = {}): Promise<FakeBridge> {
  const chats: FakeBridge['chats'] = [];
  let evaluated: number | undefined;
  let tagsGate: Promise<void> = Promise.resolve();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/api/tags') {
        void tagsGate.then(() =>
          json(res, 200, { models: (options.models ?? []).map((name) => ({ name, model: name })) }),
        );
        return;
      }
      if (req.method === 'GET' && req.url === '/api/ps') {
        if (options.running === 'no-ps') return json(res, 404, { error: 'not found' });
        return json(res, 200, { models: (options.running ?? []).map((name) => ({ name, model: name })) });
      }
      if (req.method === 'POST' && req.url === '/api/show' && options.show !== undefined)
        return json(res, 200, options.show);
      if (req.method !== 'POST' || req.url !== '/api/chat') return json(res, 404, { error: 'no such route' });
      const parsed = JSON.parse(body) as {
        model: string;
        messages: Array<{ content: string }>;
        stream: unknown;
        options?: { num_ctx?: unknown };
      };
      const content = parsed.messages[0]?.content ?? '';
      const numCtx = parsed.options?.num_ctx;
      chats.push({ model: parsed.model, content, stream: parsed.stream, ...(numCtx === undefined ? {} : { numCtx }) });
      evaluated = options.promptEvalCount?.(content, numCtx);
      if (options.models !== undefined && !options.models.includes(parsed.model)) {
        return json(res, 404, { error: `model '${parsed.model}' not found` });
      }
      const behaviour = options.chat?.(content, chats.length - 1) ?? { kind: 'reply', text: 'ok' };
      respond(res, behaviour, parsed.model, evaluated);
    });
  });
  const { port, close } = await serveOnLoopback(server, options.manualClose === true);
  const holdTags = () => {
    let release = () => {};
    tagsGate = new Promise<void>((resolve) => (release = resolve));
    return release;
  };
  return { host: `http://127.0.0.1:${port}`, chats, holdTags, close };
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function line(model: string, content: string, done: boolean, evaluated?: number): string {
  return `${JSON.stringify({ model, created_at: new Date().toISOString(), message: { role: 'assistant', content }, done, ...(done && evaluated !== undefined ? { prompt_eval_count: evaluated } : {}) })}\n`;
}

function respond(res: http.ServerResponse, b: ChatBehaviour, model: string, evaluated?: number): void {
  switch (b.kind) {
    case 'reply': {
      if (b.stream === false) {
        json(res, 200, { model, message: { role: 'assistant', content: b.text }, done: true });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const n = Math.max(1, b.chunks ?? 3);
      const size = Math.ceil(b.text.length / n);
      for (let i = 0; i < b.text.length; i += size) res.write(line(model, b.text.slice(i, i + size), false));
      res.end(line(model, '', true, evaluated));
      return;
    }
    case 'status':
      res.writeHead(b.status, { 'content-type': 'application/json' });
      res.end(b.body);
      return;
    case 'error-in-stream':
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(line(model, b.before, false));
      res.end(`${JSON.stringify({ error: b.error })}\n`);
      return;
    case 'cut-stream':
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(line(model, b.before, false));
      return;
    case 'slow':
      setTimeout(
        () => json(res, 200, { model, message: { role: 'assistant', content: b.text }, done: true }),
        b.ms,
      ).unref();
      return;
    case 'raw':
      res.writeHead(200, { 'content-type': b.contentType });
      res.end(b.body);
      return;
    case 'flood': {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      let sent = 0;
      const more = () => {
        while (sent < b.lines && !res.destroyed) {
          sent++;
          if (!res.write(line(model, b.text, false))) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => (sent = b.lines));
      more();
      return;
    }
  }
}
