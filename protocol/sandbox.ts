// The one path rule: every path a model names goes through `resolvePath`, which returns an inside-the-root real path or
// a refusal with its reason. Reading, listing, searching and writing all use it.

import fs from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { DeepworkError, errnoOf } from './errors.ts';

// Names never sent, whatever the request. A pattern without a slash matches a file's name in any folder.
export const defaultSecretNames: readonly string[] = [
  '.env*',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.htpasswd',
  'credentials',
  'credentials.json',
  '*.kdbx',
];

export type Sandbox = {
  // The root's real path: symlinks resolved, no trailing separator.
  root: string;
  // The backup folder's real path when it exists, else its absolute path.
  backupDir: string | undefined;
  // Whether a relative path names a secret; `name`, its last part, when the caller has it at hand.
  isSecret: (rel: string, name?: string) => boolean;
};

export type SandboxOptions = { backupDir?: string | undefined; secretNames?: readonly string[] | undefined };

export function createSandbox(root: string, options: SandboxOptions = {}): Sandbox {
  let real: string;
  try {
    real = fs.realpathSync.native(root);
  } catch (error) {
    throw new DeepworkError('ROOT_INVALID', `The project folder ${root} cannot be opened (${errnoOf(error) ?? 'error'}). Run deepwork inside an existing folder.`, { cause: error });
  }
  if (!fs.statSync(real).isDirectory()) {
    throw new DeepworkError('ROOT_INVALID', `The project folder ${root} is not a folder. Run deepwork inside a project folder.`);
  }
  const isSecret = secretMatcher(options.secretNames ?? defaultSecretNames);
  let backupDir: string | undefined;
  if (options.backupDir !== undefined) {
    const absolute = path.resolve(options.backupDir);
    backupDir = exists(absolute) ? fs.realpathSync.native(absolute) : absolute;
  }
  return { root: real, backupDir, isSecret };
}

// One regular expression for the name patterns and one for the path patterns: the walk asks this for every file, and
// trying twenty picomatch matchers one by one cost ten times the walk itself.
function secretMatcher(patterns: readonly string[]): (rel: string, name?: string) => boolean {
  const options = { dot: true, nocase: true };
  const combine = (list: readonly string[]) =>
    list.length === 0 ? undefined : new RegExp(list.map((p) => picomatch.makeRe(p, options).source).join('|'), 'i');
  const names = patterns.filter((p) => !p.includes('/'));
  const byName = combine(names);
  const byPath = combine(patterns.filter((p) => p.includes('/')));
  const worthTesting = nameFilter(names);
  return (rel, name = rel.slice(rel.lastIndexOf('/') + 1)) =>
    (worthTesting(name) && (byName?.test(name) ?? false)) || (byPath?.test(rel) ?? false);
}

// A cheap look that rules most names out before the regular expression: a name can only match a pattern that starts
// with its first letter (`.env*`, `id_rsa*`) or one that ends with its extension (`*.pem`).
function nameFilter(patterns: readonly string[]): (name: string) => boolean {
  const firsts = new Uint8Array(128);
  const extensions = new Set<string>();
  for (const pattern of patterns) {
    const first = pattern[0] ?? '';
    if (/^\*\.[\w-]+$/.test(pattern)) extensions.add(pattern.slice(1).toLowerCase());
    else if (first !== '' && first.charCodeAt(0) < 128 && !'*?[{!('.includes(first)) {
      firsts[first.toLowerCase().charCodeAt(0)] = 1;
      firsts[first.toUpperCase().charCodeAt(0)] = 1;
    } else return () => true;
  }
  return (name) => {
    const code = name.charCodeAt(0);
    if (code >= 128 || firsts[code] === 1) return true;
    const dot = name.lastIndexOf('.');
    return dot !== -1 && extensions.has(name.slice(dot).toLowerCase());
  };
}

export type Resolved =
  | { kind: 'file'; rel: string; real: string; size: number }
  | { kind: 'folder'; rel: string; real: string }
  | { kind: 'missing'; rel: string }
  | { kind: 'refused'; rel: string; reason: string }
  | { kind: 'withheld'; rel: string; reason: string };

// A path as the model wrote it, made relative with forward slashes, or the reason it can never name a place inside.
// Backslashes count as separators (a Windows habit); `%2e%2e` stays literal, as the file system would take it.
export function normalizeRequest(raw: string): { rel: string } | { reason: string } {
  if (raw.includes('\0')) return { reason: 'the path holds a NUL byte' };
  const p = raw.trim().replaceAll('\\', '/');
  if (p === '') return { reason: 'the path is empty' };
  if (p.startsWith('/')) return { reason: 'absolute paths are not allowed; name it relative to the project folder' };
  if (/^[A-Za-z]:/.test(p)) return { reason: 'drive paths are not allowed; name it relative to the project folder' };
  const parts: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return { reason: '".." leads out of the project folder' };
    parts.push(part);
  }
  return { rel: parts.length === 0 ? '.' : parts.join('/') };
}

export function isInside(root: string, real: string): boolean {
  if (real === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return real.startsWith(prefix);
}

// The relative path of a real path inside the root, with forward slashes; '.' for the root itself.
export function relativeTo(root: string, real: string): string {
  const rel = path.relative(root, real);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

// Why a path inside the root is never sent, or undefined when it may be.
export function protectedReason(box: Sandbox, rel: string, real: string): string | undefined {
  if (rel.split('/').includes('.git')) return 'git internals';
  if (box.backupDir !== undefined && isInside(box.backupDir, real)) return "deepwork's backup folder";
  if (rel !== '.' && box.isSecret(rel)) return 'looks like a secret';
  return undefined;
}

// Resolves a requested path inside the sandbox for reading. FIFOs, sockets and devices are refused without opening
// them; a symlink is judged by where it really leads, and so is every folder on the way.
export function resolvePath(box: Sandbox, requested: string): Resolved {
  const normal = normalizeRequest(requested);
  if ('reason' in normal) return { kind: 'refused', rel: requested, reason: normal.reason };
  const rel = normal.rel;
  const abs = rel === '.' ? box.root : path.join(box.root, ...rel.split('/'));

  let real: string;
  try {
    real = fs.realpathSync.native(abs);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ELOOP') return { kind: 'refused', rel, reason: 'a symlink loop' };
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return { kind: 'refused', rel, reason: `cannot be read (${code ?? 'error'})` };
    // Missing: but say so only when the way there stays inside, or a link could probe the disk outside.
    const way = deepestExisting(abs, box.root);
    if (way === undefined || !isInside(box.root, way)) return { kind: 'refused', rel, reason: 'leads outside the project folder' };
    if (isSymlink(abs)) return { kind: 'refused', rel, reason: 'a symlink that leads nowhere' };
    const hidden = protectedReason(box, rel, abs);
    if (hidden !== undefined) return { kind: 'withheld', rel, reason: hidden };
    return { kind: 'missing', rel };
  }
  if (!isInside(box.root, real)) return { kind: 'refused', rel, reason: 'leads outside the project folder' };

  const hidden = protectedReason(box, rel, real) ?? protectedReason(box, relativeTo(box.root, real), real);
  if (hidden !== undefined) return { kind: 'withheld', rel, reason: hidden };

  let stat: fs.Stats;
  try {
    stat = fs.statSync(real);
  } catch (error) {
    return { kind: 'refused', rel, reason: `cannot be read (${errnoOf(error) ?? 'error'})` };
  }
  if (stat.isDirectory()) return { kind: 'folder', rel, real };
  if (!stat.isFile()) return { kind: 'refused', rel, reason: 'not a regular file (a FIFO, socket or device)' };
  return { kind: 'file', rel, real, size: stat.size };
}

// The real path of the deepest folder on the way to `abs` that exists, or undefined when none does below the root.
function deepestExisting(abs: string, root: string): string | undefined {
  let dir = path.dirname(abs);
  for (;;) {
    try {
      return fs.realpathSync.native(dir);
    } catch {
      const up = path.dirname(dir);
      if (up === dir || dir.length < root.length) return undefined;
      dir = up;
    }
  }
}

function isSymlink(abs: string): boolean {
  try {
    return fs.lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
}

function exists(abs: string): boolean {
  try {
    fs.statSync(abs);
    return true;
  } catch {
    return false;
  }
}

export type Target =
  | { kind: 'existing'; rel: string; real: string }
  | { kind: 'new'; rel: string; abs: string }
  | { kind: 'refused'; rel: string; reason: string };

const UNWRITABLE_FOLDERS = new Set(['.git', 'node_modules']);

// Where a proposed file may be written: the read rule, judged on the real target (a symlink or a parent folder that
// leads outside is refused), plus what is never written — .git, node_modules, the backup folder, secrets, folders.
export function resolveTarget(box: Sandbox, requested: string): Target {
  const normal = normalizeRequest(requested);
  if ('reason' in normal) return { kind: 'refused', rel: requested, reason: normal.reason };
  const rel = normal.rel;
  if (rel === '.') return { kind: 'refused', rel, reason: 'that is the project folder itself' };
  const folder = rel.split('/').find((part) => UNWRITABLE_FOLDERS.has(part));
  if (folder !== undefined) return { kind: 'refused', rel, reason: `deepwork does not write into ${folder}` };
  const place = resolvePath(box, rel);
  switch (place.kind) {
    case 'file':
      return { kind: 'existing', rel, real: place.real };
    case 'missing':
      return { kind: 'new', rel, abs: path.join(box.root, ...rel.split('/')) };
    case 'folder':
      return { kind: 'refused', rel, reason: 'a folder has that path' };
    case 'withheld':
      return { kind: 'refused', rel, reason: place.reason === 'looks like a secret' ? 'it looks like a secret; deepwork does not write those' : `it is in ${place.reason}` };
    case 'refused':
      return { kind: 'refused', rel, reason: place.reason };
  }
}
