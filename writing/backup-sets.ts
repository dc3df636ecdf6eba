// Backup sets: one folder per applied set under the backup folder, holding the previous versions of the replaced
// files at their relative paths and a manifest that lets `deepwork undo` put everything back.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DeepworkError, messageOf } from '../common/errors.ts';
import { isRecord } from '../common/unknown.ts';
import { writeAtomic, type FsOps } from './atomic.ts';

export type ManifestFile = {
  // The file's real path from the root: the file a symlink led to, never the link.
  path: string;
  // Whether the file existed before; undo removes a file that did not.
  existed: boolean;
  // The previous file mode, restored on undo.
  mode: number | undefined;
  // SHA-256 of the previous content (undefined for a new file) and of the content deepwork writes. Undo puts back a
  // file that holds `after`, leaves one that holds `before` (never written), and leaves one that holds anything else
  // (changed since).
  before: string | undefined;
  after: string;
  // The temp file's name in the file's folder while it is written: undo removes it when a stop left it behind.
  temp: string | undefined;
  // Whether the write was seen to finish. Information only: undo goes by the content.
  written: boolean;
};

export type Manifest = {
  version: 2;
  root: string;
  created: string;
  undone: boolean;
  // When it was undone (ISO): what a continued conversation tells the model of its proposals.
  undoneAt?: string;
  // False while the set is being written, and after a stop (Ctrl-C) or a crash cut it short.
  complete: boolean;
  files: ManifestFile[];
  // Folders deepwork made for new files, outermost first; undo removes them when they are empty again.
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
  const project =
    path
      .basename(root)
      .replace(/[^\p{L}\p{N}._-]+/gu, '_')
      .slice(0, 60) || 'project';
  let name = `${stamp}_${project}`;
  for (
    let n = 2;
    fs.existsSync(path.join(backupDir, name)) || fs.existsSync(path.join(backupDir, name + STAGING));
    n++
  ) {
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
  return asManifest(value);
}

// A manifest as read back: version 2, or a version 1 set (made before the write-ahead manifest), taken as complete.
function asManifest(value: unknown): Manifest | undefined {
  if (!isRecord(value)) return undefined;
  const m = value;
  const common =
    typeof m.root === 'string' &&
    typeof m.created === 'string' &&
    typeof m.undone === 'boolean' &&
    Array.isArray(m.createdDirs) &&
    m.createdDirs.every((d) => typeof d === 'string') &&
    Array.isArray(m.files);
  if (!common || !Array.isArray(m.files) || !Array.isArray(m.createdDirs)) return undefined;
  const files: ManifestFile[] = [];
  for (const f of m.files) {
    const file = m.version === 2 ? asFileV2(f) : m.version === 1 ? asFileV1(f) : undefined;
    if (file === undefined) return undefined;
    files.push(file);
  }
  return {
    version: 2,
    root: String(m.root),
    created: String(m.created),
    undone: m.undone === true,
    ...(typeof m.undoneAt === 'string' ? { undoneAt: m.undoneAt } : {}),
    complete: m.version === 1 || m.complete === true,
    files,
    createdDirs: m.createdDirs.map(String),
  };
}

const optional = (v: unknown, type: 'string' | 'number'): boolean => v === undefined || typeof v === type;

function asFileV2(f: unknown): ManifestFile | undefined {
  if (
    !isRecord(f) ||
    typeof f.path !== 'string' ||
    typeof f.existed !== 'boolean' ||
    typeof f.after !== 'string' ||
    typeof f.written !== 'boolean'
  )
    return undefined;
  if (!optional(f.mode, 'number') || !optional(f.before, 'string') || !optional(f.temp, 'string')) return undefined;
  return {
    path: f.path,
    existed: f.existed,
    mode: typeof f.mode === 'number' ? f.mode : undefined,
    before: typeof f.before === 'string' ? f.before : undefined,
    after: f.after,
    temp: typeof f.temp === 'string' ? f.temp : undefined,
    written: f.written,
  };
}

// Version 1 recorded only the files whose write finished, with the hash of what was written.
function asFileV1(f: unknown): ManifestFile | undefined {
  if (!isRecord(f) || typeof f.path !== 'string' || typeof f.existed !== 'boolean' || typeof f.written !== 'boolean')
    return undefined;
  if (!optional(f.mode, 'number') || !optional(f.sha256, 'string')) return undefined;
  return {
    path: f.path,
    existed: f.existed,
    mode: typeof f.mode === 'number' ? f.mode : undefined,
    before: undefined,
    after: typeof f.sha256 === 'string' && f.written ? f.sha256 : '',
    temp: undefined,
    written: f.written,
  };
}

// A set holds the old versions of project files, readable by this user only whatever the umask: its folders 0700, its
// files 0600 (as the state folder's runs and tokens). The backup folder is made 0700 too when deepwork makes it.
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

// Makes a set: the old files are copied into a staging folder, which becomes the set only once complete, so a
// failure (a full disk) leaves no half-made set behind.
export function createSet(
  ops: FsOps,
  backupDir: string,
  name: string,
  manifest: Manifest,
  old: ReadonlyMap<string, Buffer>,
): string {
  const final = path.join(backupDir, name);
  const staging = final + STAGING;
  try {
    ops.mkdirSync(path.join(staging, 'files'), { recursive: true, mode: PRIVATE_DIR });
    for (const [rel, bytes] of old) {
      const copy = path.join(staging, 'files', ...rel.split('/'));
      ops.mkdirSync(path.dirname(copy), { recursive: true, mode: PRIVATE_DIR });
      writeAtomic(ops, copy, bytes, PRIVATE_FILE);
    }
    writeAtomic(ops, path.join(staging, MANIFEST), Buffer.from(JSON.stringify(manifest, null, 2)), PRIVATE_FILE);
    ops.renameSync(staging, final);
    return final;
  } catch (error) {
    try {
      ops.rmSync(staging, { recursive: true, force: true });
    } catch {
      // Best effort: the staging folder's name marks it as incomplete, and nothing reads it as a set.
    }
    throw new DeepworkError(
      'APPLY_FAILED',
      `The backup set could not be made in ${backupDir} (${messageOf(error)}); nothing was written.`,
      { cause: error },
    );
  }
}

export function saveManifest(ops: FsOps, dir: string, manifest: Manifest): void {
  writeAtomic(ops, path.join(dir, MANIFEST), Buffer.from(JSON.stringify(manifest, null, 2)), PRIVATE_FILE);
}

export function backupCopy(dir: string, rel: string): string {
  return path.join(dir, 'files', ...rel.split('/'));
}
