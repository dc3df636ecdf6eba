// The pult's server: the page, a small JSON API and a WebSocket for the run as it happens, on 127.0.0.1 only.

import fs from 'node:fs';
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Executor } from '../reading/executor.ts';
import type { Bridge } from '../protocol/contract.ts';
import type { ChatSite } from '../bridge/chat-sites.ts';
import { DeepworkError, messageOf } from '../common/errors.ts';
import { checkOrigin, gate, newToken, refuseUpgrade, tokenMatches, checkHost } from './security.ts';
import { Session } from './session.ts';
import { createRoutes, Refusal, type Handler } from './routes.ts';
import type { CheckReport } from '../bridge/check.ts';
import type { Outgoing, PageMessage, Route, ServerMessage } from './contract.ts';
import { PultError } from './said.ts';
import { isRecord } from '../common/unknown.ts';
import { createExtensionLink } from './extension-link.ts';

const PAGE_DIR = new URL('./page/', import.meta.url);
// The texts the page shares with the console (common/strings/), which its modules import from /common/strings/.
const STRINGS_DIR = new URL('../common/strings/', import.meta.url);
// The page's modules are served by name: a plain lower-case name ending in .js, of a file the page folder holds when
// the pult starts. The URL is only looked up in that list; nothing of it reaches the file system.
const MODULE_NAME = /^[a-z][a-z0-9-]*\.js$/;
// The page runs only its own script and style, and loads nothing from elsewhere: a model's reply cannot bring code.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const MAX_BODY = 1 << 20;

export type PultOptions = {
  executor: Executor;
  bridge: Bridge;
  // The offline demo bridge, for a question asked with "demo"; and the bridge's check, for the state line.
  demo: () => Bridge;
  check: () => Promise<CheckReport>;
  // Another host or model for the configured bridge, saved to the config file (deepwork.ts's); its bridge and check.
  // Absent: the pult cannot change them.
  reconfigure?: (host: string, model: string) => Promise<Reconfigured>;
  // Where runs are kept for `deepwork apply`, and the pult's registration.
  stateDir: string;
  // The model's window in tokens, when the config names it; else asked of the bridge.
  contextTokens?: number | undefined;
  host: string;
  model: string;
  steps: number;
  backupDir: string;
  port: number;
  // A fixed token for tests; a random one per launch otherwise.
  token?: string;
  // Told the new token when the pult changed it because a one-time code came a second time (see exchange below).
  onRekey?: (token: string) => void;
  // What the web chat of the copy-and-paste bridge takes (config pasteSite, pasteMaxChars, pasteChatChars).
  chatLimits?: ChatSite;
  // The browser extension: the folder of the user's chat sites (deepwork's home's `sites`; none: the built-in ones
  // only), and whether it presses Send itself to begin with (config extensionAutomatic).
  sitesDir?: string;
  extensionAutomatic?: boolean;
};

export type Reconfigured = { bridge: Bridge; check: () => Promise<CheckReport>; host: string; model: string };

// `url` carries the token: for the process that started the pult (tests), never for a command line or a screen.
// `url` and `token` follow a change of the token.
export type Pult = { url: string; port: number; token: string; instance: string; close: () => Promise<void> };

// Routes that need no token: the challenge (answered with a proof, never the token) and the code exchange.
const OPEN_ROUTES = new Set(['GET /api/prove', 'POST /api/exchange']);

export async function startPult(options: PultOptions): Promise<Pult> {
  let token = options.token ?? newToken();
  const instance = newToken().slice(0, 12);
  const sockets = new Set<WebSocket>();
  const send = (message: Outgoing) => {
    const text = JSON.stringify(message);
    for (const socket of sockets) socket.send(text);
  };
  let port = options.port;
  const extension = createExtensionLink({
    port: () => port,
    instance,
    stateDir: options.stateDir,
    sitesDir: options.sitesDir,
    folder: options.executor.box.root,
    automatic: options.extensionAutomatic === true,
    runs: () => session.runs,
    send,
    supply: (runId, reply, newChat) => session.paste(runId, reply, newChat),
  });
  const session = new Session({
    executor: options.executor,
    backupDir: options.backupDir,
    stateDir: options.stateDir,
    steps: options.steps,
    contextTokens: options.contextTokens,
    send,
    ...(options.chatLimits === undefined ? {} : { chatLimits: options.chatLimits }),
    relay: extension.relay,
  });
  // A code that comes a second time was seen by someone else, who may have traded it first and holds the token: the
  // pult takes a new token (kept for the folder by onRekey), and every page with the old one is told and let go.
  const rekey = () => {
    token = newToken();
    for (const socket of sockets) {
      say(socket, { type: 'rekeyed' });
      socket.close(1008, 'The pult changed its key.');
    }
    options.onRekey?.(token);
  };

  const routes = createRoutes({ options, session, extension, instance, token: () => token, rekey });
  const api: Readonly<Record<string, Handler<Route> | undefined>> = routes;
  const assets = pageAssets();

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (error instanceof DeepworkError && error.code === 'TOO_LARGE')
        return reply(res, 413, { error: error.message }, true);
      if (!res.headersSent) reply(res, 500, { error: messageOf(error) });
      else res.destroy();
    });
  });
  // A malformed request line or headers: answered 400 by this handler, not by an exception.
  server.on('clientError', (_error, socket) => refuseUpgrade(socket, 400, 'Bad request.'));

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      return reply(res, 400, { error: 'Bad request: malformed URL.' });
    }
    const asset = req.method === 'GET' ? assets.get(url.pathname) : undefined;
    // The page itself is open too: it holds no secret, and after trading its code it is reloaded without one.
    const open =
      asset !== undefined ||
      (req.method === 'GET' && (url.pathname === '/' || url.pathname === '/favicon.ico')) ||
      OPEN_ROUTES.has(`${req.method ?? ''} ${url.pathname}`);
    const verdict = gate(req, url, port, token, open);
    if (!verdict.ok) return reply(res, verdict.status, { error: verdict.message });

    if (asset !== undefined) return sendFile(res, asset.file, asset.type);
    if (req.method === 'GET' && url.pathname === '/favicon.ico') {
      res.writeHead(204);
      return void res.end();
    }
    if (req.method === 'GET' && url.pathname === '/')
      return sendFile(res, new URL('index.html', PAGE_DIR), 'text/html; charset=utf-8');
    const route = api[`${req.method ?? ''} ${url.pathname}`];
    if (route === undefined) return reply(res, 404, { error: `No such route: ${req.method ?? ''} ${url.pathname}` });
    let body: unknown;
    if (req.method === 'POST') {
      const text = await readBody(req);
      try {
        body = JSON.parse(text);
      } catch {
        return reply(res, 400, { error: 'Bad request: the body is not JSON.' });
      }
    }
    try {
      reply(res, 200, await route(body, url));
    } catch (error) {
      if (error instanceof Refusal) return reply(res, error.status, { error: error.message, reason: error.reason });
      if (error instanceof DeepworkError)
        return reply(res, error.code === 'BUSY' ? 409 : error.code === 'NOT_FOUND' ? 404 : 400, {
          error: error.message,
          ...(error instanceof PultError ? { said: error.said } : {}),
        });
      throw error;
    }
  }

  // Upgrades are checked before the handshake: Host, Origin (always sent by browsers) and the token. Any page in the
  // user's browser can open a socket here, so nothing it sends may end the server: every failure is a refusal.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      return refuseUpgrade(socket, 400, 'Bad request: malformed URL.');
    }
    // The browser extension's socket has gates of its own (an extension's origin, a pairing).
    if (url.pathname === '/extension') return extension.upgrade(req, socket, head, url);
    const host = checkHost(req.headers.host, port);
    if (!host.ok) return refuseUpgrade(socket, host.status, host.message);
    const origin = checkOrigin(req.headers.origin, port, true);
    if (!origin.ok) return refuseUpgrade(socket, origin.status, origin.message);
    if (url.pathname !== '/ws')
      return refuseUpgrade(socket, 404, `No WebSocket at ${url.pathname}; the pult's is /ws.`);
    if (!tokenMatches(url.searchParams.get('token'), token))
      return refuseUpgrade(socket, 403, 'Forbidden: missing or wrong token.');
    try {
      wss.handleUpgrade(req, socket, head, (ws) => welcome(ws));
    } catch (error) {
      refuseUpgrade(socket, 400, `Bad request: ${messageOf(error)}`);
    }
  });

  // A connected page. An oversized or malformed frame makes ws emit 'error' and close the socket; the server goes on.
  function welcome(ws: WebSocket): void {
    sockets.add(ws);
    ws.on('error', () => ws.terminate());
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data) => {
      let message: unknown;
      try {
        message = JSON.parse(String(data));
      } catch {
        message = undefined;
      }
      if (!isPageMessage(message)) {
        say(ws, {
          type: 'error',
          message: 'Unknown message; the pult takes {"type": "hello"} or {"type": "look"} only.',
        });
      } else if (message.type === 'hello') {
        // Judged against the disk first: a reload shows each card as the file is now, not as it was at the last look.
        session.look();
        for (const run of session.runs) say(ws, { type: 'run', run });
        say(ws, session.conversations());
        say(ws, extension.state());
      } else {
        for (const run of session.look()) say(ws, { type: 'run', run });
      }
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : port;
  return {
    get url() {
      return `http://127.0.0.1:${port}/?token=${token}`;
    },
    port,
    get token() {
      return token;
    },
    instance,
    close: () =>
      new Promise<void>((resolve) => {
        session.stop();
        extension.close();
        for (const socket of sockets) socket.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// A route's handler: the body as it came (a POST's JSON, validated here), the URL for its query.
function say(socket: WebSocket, message: ServerMessage): void {
  socket.send(JSON.stringify(message));
}

function isPageMessage(message: unknown): message is PageMessage {
  return isRecord(message) && (message.type === 'hello' || message.type === 'look');
}

// The page's style and every module of its script, and the shared texts' modules, by URL path. index.html is served
// at / only.
function pageAssets(): Map<string, { file: URL; type: string }> {
  const script = 'text/javascript; charset=utf-8';
  const assets = new Map([['/style.css', { file: new URL('style.css', PAGE_DIR), type: 'text/css; charset=utf-8' }]]);
  for (const name of fs.readdirSync(PAGE_DIR)) {
    if (MODULE_NAME.test(name)) assets.set(`/${name}`, { file: new URL(name, PAGE_DIR), type: script });
  }
  for (const name of fs.readdirSync(STRINGS_DIR)) {
    if (MODULE_NAME.test(name))
      assets.set(`/common/strings/${name}`, { file: new URL(name, STRINGS_DIR), type: script });
  }
  return assets;
}

// `close`: the request's body was not read to its end, so the connection cannot carry another request.
function reply(res: http.ServerResponse, status: number, value: unknown, close = false): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(body);
  if (close) res.once('finish', () => res.req.destroy());
}

function sendFile(res: http.ServerResponse, file: URL, type: string): void {
  const body = fs.readFileSync(file);
  res.writeHead(200, {
    'content-type': type,
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
  });
  res.end(body);
}

// The body as text, at most MAX_BODY bytes: a larger one (by its Content-Length or as it arrives) is refused with
// TOO_LARGE, answered 413, and the rest is not read.
function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const tooLarge = () =>
      new DeepworkError('TOO_LARGE', `Payload too large: a request body may hold at most ${MAX_BODY >> 20} MB.`);
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) return reject(tooLarge());
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        req.removeAllListeners('data');
        req.pause();
        reject(tooLarge());
        return;
      }
      parts.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}
