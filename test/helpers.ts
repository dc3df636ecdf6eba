// Shared test helpers: real temp folders built from a short description.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import type { Bridge } from '../protocol/contract.ts';

// A fresh temp folder removed after the test file; `files` maps relative paths to contents. `inMemory` puts it on
// tmpfs where the machine has one: creating 30,000 files there takes a second instead of half a minute on disk.
export function tempFolder(
  files: Record<string, string | Buffer> = {},
  prefix = 'deepwork-test-',
  inMemory = false,
): string {
  const base = inMemory && isWritable('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, prefix)));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  writeFiles(dir, files);
  return dir;
}

export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
}

function isWritable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

// A loopback port with nothing listening: bound once, then released.
export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// A temp folder of 30,000 empty files: pkg0..pkg29/mod0..mod9/file0..file99.ts, on tmpfs where there is one.
export function thirtyThousandFiles(prefix: string): string {
  const root = tempFolder({}, prefix, true);
  for (let d = 0; d < 30; d++) {
    for (let s = 0; s < 10; s++) {
      const dir = path.join(root, `pkg${d}`, `mod${s}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(dir, `file${f}.ts`), '');
    }
  }
  return root;
}

// A test server on a free loopback port, closed (its open connections cut) after the test file, or by the caller
// when `manualClose` says so (a server started in a before() hook, where after() would close it at once).
export async function serveOnLoopback(
  server: http.Server,
  manualClose = false,
): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  if (!manualClose) after(close);
  return { port, close };
}

// A server that answers every request with `status`, `contentType` and a body of `count` pieces, `piece(i)` each
// written on its own and the next only once the client has taken it (drain): a hostile server that floods, or one
// that splits its answer across packets. `sent` settles, once the connection is gone, with how many bytes it got to
// write before the client hung up or the body ended.
export async function serveBody(options: {
  status?: number;
  contentType: string;
  piece: (i: number) => string;
  count: number;
}): Promise<{ url: string; sent: Promise<number> }> {
  let sent = 0;
  let settle = (_bytes: number) => {};
  const done = new Promise<number>((resolve) => (settle = resolve));
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(options.status ?? 200, { 'content-type': options.contentType });
      let i = 0;
      const more = () => {
        while (i < options.count && !res.destroyed) {
          const text = options.piece(i++);
          sent += Buffer.byteLength(text);
          if (!res.write(text)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => {
        i = options.count;
        settle(sent);
      });
      more();
    });
  });
  const { port } = await serveOnLoopback(server);
  return { url: `http://127.0.0.1:${port}`, sent: done };
}

// The pult's token for a one-time link (`deepwork ui` prints and opens them), traded as the page trades it.
export async function trade(link: string): Promise<string> {
  const url = new URL(link);
  const res = await fetch(new URL('/api/exchange', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: url.searchParams.get('code') }),
  });
  const value = (await res.json()) as { token?: string; error?: string };
  if (value.token === undefined) throw new Error(`the link was refused: ${value.error ?? res.status}`);
  return value.token;
}

// A bridge that answers each message with the next of `replies` and keeps what it was sent; `onFirst` is called when
// the first message arrives.
export function scriptedBridge(replies: string[]): Bridge & { seen: string[]; onFirst?: () => void } {
  const seen: string[] = [];
  const bridge: Bridge & { seen: string[]; onFirst?: () => void } = {
    label: 'scripted',
    seen,
    chat: (message) => {
      seen.push(message);
      if (seen.length === 1) bridge.onFirst?.();
      return Promise.resolve({ text: replies[seen.length - 1] ?? 'out of replies' });
    },
  };
  return bridge;
}
