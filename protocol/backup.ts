// Backup sets: one folder per applied set under the backup folder, holding the previous versions of the replaced
// files at their relative paths and a manifest that lets `deepwork undo` put everything back.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DeepworkError, messageOf } from './errors.ts';

export type ManifestFile = {
  path: string;
  // Whether the file existed before; undo removes a file that did not.
  existed: boolean;
  // The previous file mode, restored on undo.
  mode: number | undefined;
  written: boolean;
  // SHA-256 of the bytes deepwork wrote: undo leaves a file alone that changed since.
  sha256: string | undefined;
};

export type Manifest = {
  version: 1;
  root: string;
  created: string;
  undone: boolean;
  files: ManifestFile[];
  // Folders deepwork created for new files, outermost first; undo removes them when they are empty again.
  createdDirs: string[];
};

const MANIFEST = 'manifest.json';
const STAGING = '.incomplete';

export function sha256(bytes: Buffer): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

// A set's folder name: time and project name, unique within the backup folder.
export function setName(backupDir: string, root: string, now: Date): string {
  const stamp = now.toISOString().slice(0, 19).replace('T', '_').replaceAll(':', '-');
  const project = path.basename(root).replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 60) || 'project';
  let name = `${stamp}_${project}`;
  for (let n = 2; fs.existsSync(path.join(backupDir, name)) || fs.existsSync(path.join(backupDir, name + STAGING)); n++) {
    name = `${stamp}_${project}-${n}`;
  }
  return name;
}

export type SetInfo = { dir: string; name: string; manifest: Manifest };

// The sets of this project, newest first. Folders that are not sets, or half-made ones, are skipped.
export function setsOf(backupDir: string, root: string): SetInfo[] {
  let names: string[];
  try {
    names = fs.readdirSync(backupDir);
  } catch {
    return [];
  }
  const sets: SetInfo[] = [];
  for (const name of names) {
    if (name.endsWith(STAGING)) continue;
    const dir = path.join(backupDir, name);
    const manifest = readManifest(dir);
    if (manifest !== undefined && manifest.root === root) sets.push({ dir, name, manifest });
  }
  return sets.sort((a, b) => b.manifest.created.localeCompare(a.manifest.created) || b.name.localeCompare(a.name));
}

function readManifest(dir: string): Manifest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8'));
  } catch {
    return undefined;
  }
  return isManifest(value) ? value : undefined;
}

function isManifest(value: unknown): value is Manifest {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return m.version === 1 && typeof m.root === 'string' && typeof m.created === 'string' && typeof m.undone === 'boolean'
    && Array.isArray(m.createdDirs) && m.createdDirs.every((d) => typeof d === 'string')
    && Array.isArray(m.files) && m.files.every(isManifestFile);
}

function isManifestFile(value: unknown): value is ManifestFile {
  if (typeof value !== 'object' || value === null) return false;
  const f = value as Record<string, unknown>;
  return typeof f.path === 'string' && typeof f.existed === 'boolean' && typeof f.written === 'boolean'
    && (f.mode === undefined || typeof f.mode === 'number') && (f.sha256 === undefined || typeof f.sha256 === 'string');
}

export type FsOps = Pick<typeof fs, 'openSync' | 'writeSync' | 'fsyncSync' | 'closeSync' | 'renameSync' | 'mkdirSync' | 'chmodSync' | 'unlinkSync' | 'rmSync' | 'readFileSync'>;

// Makes a set: the old files are copied into a staging folder, which becomes the set only once complete, so a
// failure (a full disk) leaves no half-made set behind.
export function createSet(ops: FsOps, backupDir: string, name: string, manifest: Manifest, old: ReadonlyMap<string, Buffer>): string {
  const final = path.join(backupDir, name);
  const staging = final + STAGING;
  try {
    ops.mkdirSync(path.join(staging, 'files'), { recursive: true });
    for (const [rel, bytes] of old) {
      const copy = path.join(staging, 'files', ...rel.split('/'));
      ops.mkdirSync(path.dirname(copy), { recursive: true });
      writeAtomic(ops, copy, bytes, undefined);
    }
    writeAtomic(ops, path.join(staging, MANIFEST), Buffer.from(JSON.stringify(manifest, null, 2)), undefined);
    ops.renameSync(staging, final);
    return final;
  } catch (error) {
    try {
      ops.rmSync(staging, { recursive: true, force: true });
    } catch {
      // Best effort: the staging folder's name marks it as incomplete, and nothing reads it as a set.
    }
    throw new DeepworkError('APPLY_FAILED', `The backup set could not be made in ${backupDir} (${messageOf(error)}); nothing was written.`, { cause: error });
  }
}

export function saveManifest(ops: FsOps, dir: string, manifest: Manifest): void {
  writeAtomic(ops, path.join(dir, MANIFEST), Buffer.from(JSON.stringify(manifest, null, 2)), undefined);
}

export function backupCopy(dir: string, rel: string): string {
  return path.join(dir, 'files', ...rel.split('/'));
}

// Writes through a temp file in the same folder and a rename, so the target is either old or new, never half.
// On failure the temp file is removed and the target is untouched.
export function writeAtomic(ops: FsOps, target: string, bytes: Buffer, mode: number | undefined): void {
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.deepwork-${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = ops.openSync(temp, 'wx', mode ?? 0o666);
    for (let at = 0; at < bytes.length; ) at += ops.writeSync(fd, bytes, at, bytes.length - at);
    ops.fsyncSync(fd);
    ops.closeSync(fd);
    fd = undefined;
    if (mode !== undefined) ops.chmodSync(temp, mode);
    ops.renameSync(temp, target);
  } catch (error) {
    if (fd !== undefined) {
      try {
        ops.closeSync(fd);
      } catch {
        // Already failing; the unlink below is what matters.
      }
    }
    try {
      ops.unlinkSync(temp);
    } catch {
      // The temp file was never made.
    }
    throw error;
  }
}
