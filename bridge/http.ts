// Plain HTTP requests to the bridge with node:http. Not fetch: Node's fetch gives up after 300 s without response
// headers, and a web-chat answer can take many minutes before its first byte.

import http from 'node:http';
import { DeepworkError, errnoOf, messageOf, stopped } from '../common/errors.ts';
import { formatCount, formatDuration } from '../common/text.ts';

// `header(name)`: a response header by its lower-case name (the first, when it came more than once).
export type Response = {
  status: number;
  contentType: string;
  header: (name: string) => string | undefined;
  body: AsyncIterable<Buffer>;
};

// `headers`: sent on top of the content type and length (an API key's Authorization).
export type RequestOptions = {
  method: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  signal: AbortSignal;
  timeoutMs: number;
};

// Sends a request; resolves once the headers arrive. The timeout covers the whole exchange, body included, and is
// reported as BRIDGE_TIMEOUT; an abort through `signal` as ABORTED. A kept-alive connection that the bridge closed
// while deepwork was busy fails at once with a reset: then the request is sent once more on a new connection (the
// pattern Node's documentation gives for `reusedSocket`).
export function request(url: URL, options: RequestOptions): Promise<Response> {
  return send(url, options, true);
}

// node:https (and TLS with it) is loaded only for an https:// bridge: most bridges are local http.
async function send(url: URL, options: RequestOptions, retry: boolean): Promise<Response> {
  const client = url.protocol === 'https:' ? (await import('node:https')).default : http;
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) return reject(stopped());
    const req = client.request(url, {
      method: options.method,
      headers: {
        ...options.headers,
        ...(options.body === undefined
          ? {}
          : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(options.body) }),
      },
    });
    const timer = setTimeout(
      () =>
        req.destroy(
          new DeepworkError(
            'BRIDGE_TIMEOUT',
            `The bridge at ${url.origin} gave no full answer within ${formatDuration(options.timeoutMs)}. Raise timeoutMinutes in config.json, or check the bridge.`,
          ),
        ),
      options.timeoutMs,
    );
    const onAbort = () => req.destroy(stopped());
    options.signal.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    };
    let answered = false;
    req.on('error', (error) => {
      cleanup();
      if (retry && !answered && req.reusedSocket && errnoOf(error) === 'ECONNRESET') {
        send(url, options, false).then(resolve, reject);
        return;
      }
      reject(error instanceof DeepworkError ? error : connectionError(url, error));
    });
    req.on('response', (res) => {
      answered = true;
      res.on('close', cleanup);
      res.on('error', () => {});
      const header = (name: string) => {
        const value = res.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      resolve({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type'] ?? ''),
        header,
        body: bodyOf(res, req),
      });
    });
    req.end(options.body);
  });
}

// The body chunks; an error on the request (timeout, abort) surfaces here as the same DeepworkError.
async function* bodyOf(res: http.IncomingMessage, req: http.ClientRequest): AsyncGenerator<Buffer> {
  let failure: unknown;
  req.on('error', (error) => {
    failure = error;
  });
  try {
    for await (const chunk of res) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
  } catch (error) {
    throw failure instanceof DeepworkError
      ? failure
      : error instanceof DeepworkError
        ? error
        : new DeepworkError(
            'BRIDGE_PROTOCOL',
            `The answer from ${req.host} broke off: ${messageOf(failure ?? error)}.`,
            { cause: error },
          );
  }
  if (failure instanceof DeepworkError) throw failure;
}

// A whole body, up to `limit` bytes: past that the reading stops (the connection is closed) with an error. The default
// fits the largest list a server sends (OpenRouter's models, a few megabytes) many times over, and keeps what
// JSON.parse then builds from a hostile body in the hundreds of megabytes at worst.
export async function readAll(body: AsyncIterable<Buffer>, limit = 16 << 20): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit)
      throw new DeepworkError(
        'BRIDGE_PROTOCOL',
        `The bridge sent more than ${formatCount(limit)} bytes in one answer; no answer of a bridge is that long, so it is broken or is not a bridge. Check it, or deepseekHost in config.json (or --host).`,
      );
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

// The way to a web chat that needs no bridge at all, offered wherever none answers (issue 26): the console's flag and
// the pult's choice both, since the same message is shown in either.
export const PASTE_INSTEAD =
  'Or use any web chat with nothing installed, by copy and paste: deepwork "question" --paste (in the pult: Copy and paste in the Bridge list).';

function connectionError(url: URL, error: unknown): DeepworkError {
  const code = errnoOf(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new DeepworkError(
      'BRIDGE_DOWN',
      `The host name "${url.hostname}" does not resolve (${code}): no such machine is known${code === 'EAI_AGAIN' ? ' right now (the name server did not answer)' : ''}. Check the spelling of deepseekHost in config.json or --host, and the network. ${PASTE_INSTEAD}`,
      { cause: error },
    );
  }
  if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'EADDRNOTAVAIL') {
    return new DeepworkError(
      'BRIDGE_DOWN',
      `No bridge at ${url.origin}: nothing is listening (${code}). Start the bridge or server (deepseek-api: its start.cmd; Ollama: ollama serve; llama.cpp: llama-server), or point deepseekHost in config.json or --host at it. ${PASTE_INSTEAD}`,
      { cause: error },
    );
  }
  return new DeepworkError(
    'BRIDGE_DOWN',
    `The bridge at ${url.origin} could not be reached: ${messageOf(error)}. Check that it runs, or point --host at it. ${PASTE_INSTEAD}`,
    { cause: error },
  );
}

// The bridge's host as a URL ending in `/`, or a clear error for a malformed one.
export function baseUrl(host: string): URL {
  let url: URL;
  try {
    url = new URL(host);
  } catch {
    throw new DeepworkError(
      'CONFIG_INVALID',
      `The bridge host "${host}" is not a URL. Write it like http://localhost:11500.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DeepworkError(
      'CONFIG_INVALID',
      `The bridge host "${host}" is not an http:// or https:// URL. Write it like http://localhost:11500.`,
    );
  }
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

// A server's body as a short quote: an HTML error page is reduced to its text, whitespace to single spaces. `scrub`
// runs on the text as it will be shown and before it is cut, so a secret in it is replaced whole, never cut to a part.
export function quoteBody(text: string, max = 300, scrub: (text: string) => string = (t) => t): string {
  const plain = /^\s*</.test(text)
    ? text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ')
    : text;
  return scrub(plain.replace(/\s+/g, ' ').trim()).slice(0, max);
}
