// Starting the pult from the command line: the port, a pult already running for the same folder, and the system's
// default browser (never the bridge's debugging browser: the page would take the tab the bridge drives).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DeepworkError, errnoOf, messageOf } from '../protocol/errors.ts';
import { startPult, type Pult, type PultOptions } from './server.ts';

type Registration = { root: string; url: string; instance: string; pid: number };

function registrationFile(stateDir: string, port: number): string {
  return path.join(stateDir, `pult-${port}.json`);
}

export type Launched = { pult: Pult | undefined; url: string; reused: boolean };

// Starts the pult, or finds the one already serving this folder on that port.
export async function launchPult(options: PultOptions, stateDir: string): Promise<Launched> {
  try {
    const pult = await startPult(options);
    const registration: Registration = { root: options.executor.box.root, url: pult.url, instance: pult.instance, pid: process.pid };
    try {
      fs.mkdirSync(stateDir, { recursive: true });
      fs.writeFileSync(registrationFile(stateDir, pult.port), JSON.stringify(registration), { mode: 0o600 });
    } catch {
      // Without the note a second launch cannot find this pult and asks for another port; the pult itself works.
    }
    return { pult, url: pult.url, reused: false };
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'EACCES') throw new DeepworkError('PORT_TAKEN', `Port ${options.port} on 127.0.0.1 needs privileges this user lacks (EACCES). Use a port above 1024: deepwork ui --port 8787`, { cause: error });
    if (code !== 'EADDRINUSE') throw new DeepworkError('PORT_TAKEN', `The pult cannot listen on 127.0.0.1:${options.port} (${code ?? messageOf(error)}). Try another port: deepwork ui --port ${options.port + 1}`, { cause: error });
  }
  const running = await samePult(stateDir, options.port, options.executor.box.root);
  if (running !== undefined) return { pult: undefined, url: running, reused: true };
  throw new DeepworkError('PORT_TAKEN', `Port ${options.port} on 127.0.0.1 is taken by another program (or by a pult for another folder). Start the pult on another port: deepwork ui --port ${options.port + 1}`);
}

// The URL of a live pult for `root` on `port`, proven by asking it for its instance id.
async function samePult(stateDir: string, port: number, root: string): Promise<string | undefined> {
  let registration: unknown;
  try {
    registration = JSON.parse(fs.readFileSync(registrationFile(stateDir, port), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRegistration(registration) || registration.root !== root) return undefined;
  const url = new URL(registration.url);
  const answer = await getJson(`http://127.0.0.1:${port}/api/ping?token=${url.searchParams.get('token') ?? ''}`);
  return typeof answer === 'object' && answer !== null && 'instance' in answer && answer.instance === registration.instance ? registration.url : undefined;
}

function isRegistration(value: unknown): value is Registration {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.root === 'string' && typeof r.url === 'string' && typeof r.instance === 'string' && typeof r.pid === 'number';
}

function getJson(url: string): Promise<unknown> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

// Opens a URL in the system's default browser; false when the opener could not be started (no xdg-open, say).
export function openInBrowser(url: string): Promise<boolean> {
  const [command, args] =
    process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] :
    process.platform === 'darwin' ? ['open', [url]] :
    ['xdg-open', [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsVerbatimArguments: process.platform === 'win32' });
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
      child.once('error', () => resolve(false));
    } catch {
      resolve(false);
    }
  });
}
