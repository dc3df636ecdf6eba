// Starting the pult from the command line: the port, a pult already running for the same folder, and the system's
// default browser (never the bridge's debugging browser: the page would take the tab the bridge drives).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DeepworkError, errnoOf, messageOf } from '../common/errors.ts';
import { programFolder, windowsProgram } from '../common/programs.ts';
import { startPult, type Pult, type PultOptions } from './server.ts';
import { newToken } from './security.ts';
import { isRecord } from '../common/unknown.ts';
import { writeAtomic } from '../writing/atomic.ts';
import { folderKey } from '../writing/runs.ts';

type Registration = { root: string; url: string; instance: string; pid: number };

function registrationFile(stateDir: string, port: number): string {
  return path.join(stateDir, `pult-${port}.json`);
}

// `movedFrom`: the port asked for, when another program had it and the pult took the next free one.
export type Launched = { pult: Pult | undefined; url: string; reused: boolean; movedFrom?: number };

// Starts the pult, or finds the one already serving this folder on that port. A port another program holds is passed
// over for the next ones, up to `nextPorts` of them (a user who dropped a folder on the launcher cannot pick a port).
// Registrations of pults that are gone are removed on the way.
export async function launchPult(options: PultOptions & { nextPorts?: number }): Promise<Launched> {
  const { stateDir } = options;
  removeStale(stateDir);
  const token = options.token ?? folderToken(stateDir, options.executor.box.root);
  const tries = options.port === 0 ? 0 : Math.max(0, Math.min(options.nextPorts ?? 0, 65535 - options.port));
  for (let port = options.port; port <= options.port + tries; port++) {
    try {
      const pult = await startPult({ ...options, port, ...(token === undefined ? {} : { token }) });
      const registration: Registration = { root: options.executor.box.root, url: pult.url, instance: pult.instance, pid: process.pid };
      try {
        fs.mkdirSync(stateDir, { recursive: true });
        writeAtomic(fs, registrationFile(stateDir, pult.port), Buffer.from(JSON.stringify(registration)), 0o600);
      } catch {
        // Without the note a second launch cannot find this pult and asks for another port; the pult itself works.
      }
      const close = pult.close;
      return {
        pult: { ...pult, close: () => close().finally(() => removeQuietly(registrationFile(stateDir, pult.port))) }, url: pult.url, reused: false,
        ...(port === options.port ? {} : { movedFrom: options.port }),
      };
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'EACCES') throw new DeepworkError('PORT_DENIED', `Port ${port} on 127.0.0.1 needs privileges this user lacks (EACCES). Use a port above 1024: deepwork ui --port 8787`, { cause: error });
      if (code !== 'EADDRINUSE') throw new DeepworkError('PORT_INVALID', `The pult cannot listen on 127.0.0.1:${port} (${code ?? messageOf(error)}). Try another port: deepwork ui --port ${Math.min(port + 1, 65535)}`, { cause: error });
    }
    const running = await samePult(stateDir, port, options.executor.box.root);
    if (running !== undefined) return { pult: undefined, url: running, reused: true };
  }
  const last = options.port + tries;
  const taken = tries === 0 ? `Port ${options.port} on 127.0.0.1 is taken by another program (or by a pult for another folder)` : `Ports ${options.port} to ${last} on 127.0.0.1 are taken by other programs (or by pults for other folders)`;
  throw new DeepworkError('PORT_TAKEN', `${taken}. Start the pult on another port: deepwork ui --port ${Math.min(last + 1, 65535)}`);
}

// The folder's token, kept in the state folder (readable by this user only), so a page left open reconnects when the
// pult for its folder is started again; a new one when there is none or it cannot be kept.
function folderToken(stateDir: string, root: string): string | undefined {
  const file = path.join(stateDir, 'pult-tokens', folderKey(root));
  try {
    const kept = fs.readFileSync(file, 'utf8').trim();
    if (/^[A-Za-z0-9_-]{32,}$/.test(kept)) return kept;
  } catch {
    // None yet.
  }
  const token = newToken();
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeAtomic(fs, file, Buffer.from(token), 0o600);
    return token;
  } catch {
    return undefined;
  }
}

// The URL of a live pult for `root` on `port`, proven by asking it for its instance id.
async function samePult(stateDir: string, port: number, root: string): Promise<string | undefined> {
  const registration = readRegistration(registrationFile(stateDir, port));
  if (registration === undefined || registration.root !== root) return undefined;
  const url = new URL(registration.url);
  const answer = await getJson(`http://127.0.0.1:${port}/api/ping?token=${url.searchParams.get('token') ?? ''}`);
  return isRecord(answer) && answer.instance === registration.instance ? registration.url : undefined;
}

function readRegistration(file: string): Registration | undefined {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.root !== 'string' || typeof value.url !== 'string' || typeof value.instance !== 'string' || typeof value.pid !== 'number') return undefined;
  return { root: value.root, url: value.url, instance: value.instance, pid: value.pid };
}

// Registrations whose process is gone (a pult killed, a machine restarted): they hold a dead token and nothing else.
function removeStale(stateDir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(stateDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^pult-\d+\.json$/.test(name)) continue;
    const file = path.join(stateDir, name);
    const registration = readRegistration(file);
    if (registration === undefined || !isAlive(registration.pid)) removeQuietly(file);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return errnoOf(error) === 'EPERM';
  }
}

function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // Already gone.
  }
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

// Opens a URL in the system's default browser; false when the opener could not be started (no xdg-open, say). The URL
// is on the opener's command line, which every user of the machine can read: give it a one-time link, never the token.
// cmd and open by their full paths, and none started in the project folder (see common/programs.ts).
export function openInBrowser(url: string): Promise<boolean> {
  const [command, args] =
    process.platform === 'win32' ? [windowsProgram('cmd.exe'), ['/c', 'start', '""', url]] :
    process.platform === 'darwin' ? ['/usr/bin/open', [url]] :
    ['xdg-open', [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true, cwd: programFolder(), windowsVerbatimArguments: process.platform === 'win32' });
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
