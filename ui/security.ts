// The pult's gate. It is a local server that can write files, so every request is checked:
// - Host must be localhost, 127.0.0.1 or [::1] with our port: a DNS-rebinding page has its own host name;
// - the per-launch token must come with every API call and the WebSocket upgrade, compared in constant time;
// - a browser's Origin, when sent, must be the pult's own: a cross-site page gets 403.
// See https://github.com/webpack/webpack-dev-server/issues/1604 for the rebinding attack this stops.

import crypto from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';

export function newToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export type Verdict = { ok: true } | { ok: false; status: 400 | 403; message: string };

// Host header: a local name with our port. Anything malformed is a 400, a foreign name a 403.
export function checkHost(host: string | undefined, port: number): Verdict {
  if (host === undefined || host === '') return { ok: false, status: 400, message: 'Bad request: no Host header.' };
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(host);
  if (match === null) return { ok: false, status: 400, message: 'Bad request: malformed Host header.' };
  const name = (match[1] ?? '').toLowerCase();
  const hostPort = match[2] === undefined ? 80 : Number(match[2]);
  if (!LOCAL_NAMES.has(name) || hostPort !== port) {
    return { ok: false, status: 403, message: `Blocked request: this host (${host}) is not the pult's. Open http://127.0.0.1:${port}/ with the token deepwork printed.` };
  }
  return { ok: true };
}

// The Origin a browser sends: absent (not a browser, or a same-origin GET) or one of the pult's own.
export function checkOrigin(origin: string | undefined, port: number, required: boolean): Verdict {
  if (origin === undefined) {
    return required ? { ok: false, status: 403, message: 'Blocked: no Origin header.' } : { ok: true };
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return { ok: false, status: 403, message: 'Blocked: malformed Origin header.' };
  }
  const ok = url.protocol === 'http:' && LOCAL_NAMES.has(url.hostname) && Number(url.port || 80) === port;
  return ok ? { ok: true } : { ok: false, status: 403, message: `Blocked: requests from ${origin} are not allowed.` };
}

export function tokenMatches(given: string | undefined | null, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

// The token of a request: the `x-deepwork-token` header or the `token` query parameter.
export function tokenOf(req: http.IncomingMessage, url: URL): string | undefined {
  const header = req.headers['x-deepwork-token'];
  if (typeof header === 'string') return header;
  return url.searchParams.get('token') ?? undefined;
}

// Every request, before routing: a local Host, an allowed Origin, and for anything but the page's static files, the
// token. A request that changes something must also be a JSON POST from the pult's own origin.
export function gate(req: http.IncomingMessage, url: URL, port: number, token: string, isStatic: boolean): Verdict {
  const host = checkHost(req.headers.host, port);
  if (!host.ok) return host;
  const crossSite = req.headers['sec-fetch-site'] === 'cross-site';
  const origin = checkOrigin(req.headers.origin, port, false);
  if (!origin.ok) return origin;
  if (crossSite) return { ok: false, status: 403, message: 'Blocked: cross-site request.' };
  if (isStatic) return { ok: true };
  if (!tokenMatches(tokenOf(req, url), token)) {
    return { ok: false, status: 403, message: 'Forbidden: missing or wrong token. Open the URL deepwork printed; it carries the token.' };
  }
  if (req.method === 'POST' && !String(req.headers['content-type'] ?? '').startsWith('application/json')) {
    return { ok: false, status: 403, message: 'Forbidden: changes need a JSON body.' };
  }
  return { ok: true };
}

// Refuses a WebSocket upgrade on its raw socket: a status line, a short text body that says why, then the socket is
// closed once that is sent. Never throws, whatever state the socket is in.
export function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  socket.on('error', () => {});
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = `${message}\n`;
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Refused'}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
