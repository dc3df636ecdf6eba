// The pult's own files in the state folder: each running pult's registration (which folder it serves on which port,
// and its process) and each folder's token, kept so that an open page reconnects when the pult is started again.
// Readable by this user only.

import fs from 'node:fs';
import path from 'node:path';
import { errnoOf } from '../common/errors.ts';
import { isRecord } from '../common/unknown.ts';
import { writeAtomic } from '../writing/atomic.ts';
import { folderKey } from './folder-key.ts';

// `url`: the pult's address. Registrations made before issue 23 carry the token in it; it is not read from there.
export type Registration = { root: string; url: string; instance: string; pid: number };

export function registrationFile(stateDir: string, port: number): string {
  return path.join(stateDir, `pult-${port}.json`);
}

// Writes the registration of a pult that started; false when it could not be kept.
export function register(stateDir: string, port: number, registration: Registration): boolean {
  try {
    fs.mkdirSync(stateDir, { recursive: true });
    writeAtomic(fs, registrationFile(stateDir, port), Buffer.from(JSON.stringify(registration)), 0o600);
    return true;
  } catch {
    return false;
  }
}

// The folder's token, kept in the state folder (readable by this user only), so a page left open reconnects when the
// pult for its folder is started again; a new one when there is none or it cannot be kept.
// `fresh` makes one when none is kept yet.
export function folderToken(stateDir: string, root: string, fresh: () => string): string {
  try {
    const kept = fs.readFileSync(tokenFile(stateDir, root), 'utf8').trim();
    if (/^[A-Za-z0-9_-]{32,}$/.test(kept)) return kept;
  } catch {
    // None yet.
  }
  const token = fresh();
  keepToken(stateDir, root, token);
  return token;
}

function tokenFile(stateDir: string, root: string): string {
  return path.join(stateDir, 'pult-tokens', folderKey(root));
}

// The folder holds every folder's token: 0700 when deepwork makes it, each file 0600 whatever the umask.
export function keepToken(stateDir: string, root: string, token: string): boolean {
  const file = tokenFile(stateDir, root);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeAtomic(fs, file, Buffer.from(token), 0o600);
    return true;
  } catch {
    return false;
  }
}

export function readRegistration(file: string): Registration | undefined {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (
    !isRecord(value) ||
    typeof value.root !== 'string' ||
    typeof value.url !== 'string' ||
    typeof value.instance !== 'string' ||
    typeof value.pid !== 'number'
  )
    return undefined;
  return { root: value.root, url: value.url, instance: value.instance, pid: value.pid };
}

// Registrations whose process is gone (a pult killed, a machine restarted): they point at a port nothing of ours holds.
export function removeStale(stateDir: string): void {
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

export function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // Already gone.
  }
}
