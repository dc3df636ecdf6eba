// The pult's gate. It is a local server that can write files, so every request is checked:
// - Host must be localhost, 127.0.0.1 or [::1] with our port: a DNS-rebinding page has its own host name;
// - the folder's token must come with every API call and the WebSocket upgrade, compared in constant time; it never
//   goes on a command line: a one-time code, traded for it once, is what the browser is opened with;
// - a browser's Origin, when sent, must be the pult's own: a cross-site page gets 403.
// See https://github.com/webpack/webpack-dev-server/issues/1604 for the rebinding attack this stops.

import crypto from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';

export function newToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

// One-time codes: what deepwork opens in the browser and prints, instead of the token. A command line is readable by
// every user of the machine (/proc/*/cmdline, `ps`), and the opener's and a freshly started browser's carry the URL;
// the token lasts (it is kept per folder), a code lets one page in once, within CODE_LIFE_MS, into one run of the pult.
// The page trades it for the token (POST /api/exchange). A code is `<expiry, s>.<nonce>.<MAC>`, the MAC keyed by the
// token: whoever holds the token (the pult, a second `deepwork ui` reading the folder's token) can make one, nobody
// else. Each kind of MAC has its own first line, so a pult's proof (below) can never pass for a code.
export const CODE_LIFE_MS = 2 * 60_000;
const CODE = /^(\d{1,12})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})$/;

export function newCode(token: string, instance: string, now = Date.now()): string {
  const expires = Math.floor((now + CODE_LIFE_MS) / 1000);
  const nonce = crypto.randomBytes(12).toString('base64url');
  return `${expires}.${nonce}.${codeMac(token, instance, expires, nonce)}`;
}

// What a code is worth on its own; whether it was used already is the pult's to know.
export type CodeCheck = { kind: 'good'; nonce: string; expires: number } | { kind: 'expired' } | { kind: 'unknown' };

export function checkCode(token: string, instance: string, code: string, now = Date.now()): CodeCheck {
  const match = CODE.exec(code);
  if (match === null) return { kind: 'unknown' };
  const [, seconds = '', nonce = '', mac = ''] = match;
  const expires = Number(seconds);
  if (!tokenMatches(mac, codeMac(token, instance, expires, nonce))) return { kind: 'unknown' };
  return expires * 1000 <= now ? { kind: 'expired' } : { kind: 'good', nonce, expires: expires * 1000 };
}

function codeMac(token: string, instance: string, expires: number, nonce: string): string {
  return crypto
    .createHmac('sha256', token)
    .update(`deepwork one-time code\n${instance}\n${expires}\n${nonce}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

// The pult's answer to a challenge: proof that it holds the token, without sending it. Whoever finds something on the
// pult's port (a second launch reading a registration, the page reconnecting) sends the token only after this: a pid
// reused, another user's program on the port, gets nothing. ui/page/connection.js computes the same with WebCrypto.
export const CHALLENGE = /^[A-Za-z0-9_-]{16,128}$/;

export function proofOf(token: string, instance: string, challenge: string): string {
  return crypto
    .createHmac('sha256', token)
    .update(`deepwork pult proof\n${instance}\n${challenge}`)
    .digest('base64url');
}

export function proves(token: string, instance: string, challenge: string, proof: unknown): boolean {
  return typeof proof === 'string' && tokenMatches(proof, proofOf(token, instance, challenge));
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
    return {
      ok: false,
      status: 403,
      message: `Blocked request: this host (${host}) is not the pult's. Open the link deepwork ui prints (http://127.0.0.1:${port}/…).`,
    };
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

// Every request, before routing: a local Host, an allowed Origin, and for anything but what is `open` (the page's
// files, the challenge, the code exchange), the token. A request that changes something must also be a JSON POST
// from the pult's own origin.
export function gate(req: http.IncomingMessage, url: URL, port: number, token: string, open: boolean): Verdict {
  const host = checkHost(req.headers.host, port);
  if (!host.ok) return host;
  const crossSite = req.headers['sec-fetch-site'] === 'cross-site';
  const origin = checkOrigin(req.headers.origin, port, false);
  if (!origin.ok) return origin;
  if (crossSite) return { ok: false, status: 403, message: 'Blocked: cross-site request.' };
  if (!open && !tokenMatches(tokenOf(req, url), token)) {
    return {
      ok: false,
      status: 403,
      message: 'Forbidden: missing or wrong token. Open the link deepwork ui prints (run it again for a new one).',
    };
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
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Refused'}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
