// What a walk keeps for the next run's walk of the same folder (reading/walk.ts), as git's untracked cache does: each
// folder it entered with its stat, the entries it took from it, and the stat of every rule file, so that a folder
// unchanged since is not read again (a person asks again and again in the same folder, each time in a fresh process).
// The bytes are kept by whoever made the executor (saved/walk-cache.ts: in deepwork's state folder) and come back as
// bytes, checked whole here: a damaged, foreign or outdated file is not used, never a reason to fail.
//
// Layout: an 8-byte mark, the header's length (u32 LE), the header as JSON (what the walk was made under, when it
// began, the counts, the rule files' notes, a SHA-256 of the rest), then arrays, each at a multiple of 8 bytes: per
// folder its stat and its .gitignore's stat (STAMP numbers each, f64), its names left out for their control characters
// (u32), its first child and its number of children (u32 each), its flags (u8); per child its kind (u8) and its folder
// (i32: -1 when none); then the children's names, joined by NUL, which no name holds.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isRecord } from '../common/unknown.ts';
import type { RuleNote } from './gitignore.ts';

// The format; with it in the key, the code that walked: a walk made by another build of deepwork (other skip rules)
// is not used.
const FORMAT = 1;
const MARK = Buffer.from('DWWALK\0\x01', 'latin1');

// What a stat says of a folder or a rule file that a change to it would change: where it is (dev, ino), its size, its
// times in ms (fractions of a ms kept).
export type Stamp = { dev: number; ino: number; size: number; mtime: number; ctime: number };
const STAMP = 5;

export function stampOf(stats: fs.Stats): Stamp {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtime: stats.mtimeMs, ctime: stats.ctimeMs };
}

// A folder's or rule file's stat, for a stamp: undefined when it is not there.
export function lstamp(abs: string): Stamp | undefined {
  const stats = fs.lstatSync(abs, { throwIfNoEntry: false });
  return stats === undefined ? undefined : stampOf(stats);
}

export function stamp(abs: string): Stamp | undefined {
  const stats = statIfThere(abs);
  return stats === undefined ? undefined : stampOf(stats);
}

// A file's stat (following a symlink), undefined when it is not there or cannot be reached (a folder on the way not
// searchable), which is as good as not there.
export function statIfThere(abs: string): fs.Stats | undefined {
  try {
    return fs.statSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

// A rule file (a .gitignore, .git/info/exclude) as a walk read it: its stamp when it was there, and what its rules
// made the walk note.
export type RuleFile = { stamp: Stamp | undefined; notes: RuleNote[] };

// What a child of a folder is: a file, a folder, or a symlink, which may lead to a file (then an entry) or not, and
// whose name, as a file's, is admitted (`link`) or left out for its control characters (`controlLink`). A symlink whose
// name would be left out otherwise is not kept: no target makes it an entry.
export const CHILD = { file: 0, folder: 1, link: 2, controlLink: 3 } as const;

// A folder's flags. `wide`: a rule matched its entries in a wider form (gitignore.ts), which the walk counts for a
// note, so it is read again each time; `gitDir`: it looks like a git directory and was not entered; `rules`: it holds
// a .gitignore.
export const FLAG = { wide: 1, gitDir: 2, rules: 4 } as const;

// One folder as a walk keeps it: `first` and `count`, its children in the walk's lists.
export type KeptFolder = {
  stamp: Stamp | undefined;
  gitignore: RuleFile | undefined;
  controlNames: number;
  flags: number;
  first: number;
  count: number;
};

// A walk to keep: its folders in the order it entered them (the root first), and every child of each in its folder's
// order, with its name, kind and folder (an index into `folders`, -1 when it was not entered).
export type KeptWalk = {
  key: string;
  began: number;
  exclude: RuleFile;
  folders: KeptFolder[];
  names: string[];
  kinds: Uint8Array;
  childFolders: Int32Array;
};

// Where the walks are kept between runs: read whole when a walk starts, written whole when one is done.
export type WalkStore = { load(): Uint8Array | undefined; save(bytes: Uint8Array): void };

// A kept walk as read back: the same, in arrays. `stamps` and `ruleStamps`: STAMP numbers per folder, NaN where there
// is none; `usable`: per folder, 1 when its stamps are old enough to be trusted (see `trustedBefore`).
export type Kept = {
  began: number;
  exclude: RuleFile;
  folders: number;
  stamps: Float64Array;
  ruleStamps: Float64Array;
  usable: Uint8Array;
  controlNames: Uint32Array;
  firsts: Uint32Array;
  counts: Uint32Array;
  flags: Uint8Array;
  notes: Map<number, RuleNote[]>;
  names: string[];
  kinds: Uint8Array;
  childFolders: Int32Array;
};

// The most entries a kept walk holds: past this the folder is not a project (the home folder, a disk), and a walk of
// it is not kept.
export const KEPT_ENTRIES = 300_000;

// A folder changed in the same tick as the walk read it could be changed again after the read with its stamp the same
// (git's "racy" entries): a folder or rule file is trusted only when it was last modified clearly before the walk
// began — before the second it began in, by more than FAT's 2-second granularity. A change to a folder's names always
// sets its modification time to the time of the change, so one made after the read cannot keep an older stamp; the
// change time is compared too, which catches a modification time set back (`touch -d`, an archive unpacked over it).
export function trustedBefore(began: number): number {
  return Math.floor(began / 1000) * 1000 - 2000;
}

// The key a kept walk is made under, with what the walk adds to the caller's: the format and the code that walked.
export function fullKey(key: string): string {
  return JSON.stringify([FORMAT, codeStamp(), key]);
}

let code: string | undefined;
function codeStamp(): string {
  if (code !== undefined) return code;
  const file = fileURLToPath(import.meta.url);
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  code = `${path.basename(file)}:${stats?.size ?? 0}:${stats?.mtimeMs ?? 0}`;
  return code;
}

// Whether a folder's kept stamp (or its .gitignore's, `rules`) is this stat's, and trusted.
export function holds(kept: Kept, folder: number, stats: fs.Stats | undefined, rules = false): boolean {
  if (stats === undefined || kept.usable[folder] !== 1) return false;
  const at = folder * STAMP;
  const s = rules ? kept.ruleStamps : kept.stamps;
  return (
    s[at] === stats.dev &&
    s[at + 1] === stats.ino &&
    s[at + 2] === stats.size &&
    s[at + 3] === stats.mtimeMs &&
    s[at + 4] === stats.ctimeMs
  );
}

// Whether a rule file as it is now (`now`) is the one the kept walk read: both absent, or the same trusted stamp.
export function sameRuleFile(kept: Kept, file: RuleFile, now: Stamp | undefined): boolean {
  const before = file.stamp;
  if (before === undefined || now === undefined) return before === now;
  return (
    before.dev === now.dev &&
    before.ino === now.ino &&
    before.size === now.size &&
    before.mtime === now.mtime &&
    before.ctime === now.ctime &&
    before.mtime < trustedBefore(kept.began)
  );
}

// A kept folder's .gitignore as the kept walk read it: its stamp and notes.
export function keptRuleFile(kept: Kept, folder: number): RuleFile {
  const at = folder * STAMP;
  const s = kept.ruleStamps;
  const dev = s[at] ?? Number.NaN;
  const ruleStamp = Number.isNaN(dev)
    ? undefined
    : { dev, ino: s[at + 1] ?? 0, size: s[at + 2] ?? 0, mtime: s[at + 3] ?? 0, ctime: s[at + 4] ?? 0 };
  return { stamp: ruleStamp, notes: kept.notes.get(folder) ?? [] };
}

// The child of a kept folder with this name, by a binary search (a folder's children are in name order), or -1.
export function childNamed(kept: Kept, folder: number, name: string): number {
  let low = kept.firsts[folder] ?? 0;
  let high = low + (kept.counts[folder] ?? 0) - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = kept.names[mid] ?? '';
    if (at === name) return mid;
    if (at < name) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

export function encodeKept(walk: KeptWalk): Uint8Array {
  const n = walk.folders.length;
  const m = walk.names.length;
  const stamps = new Float64Array(n * STAMP);
  const ruleStamps = new Float64Array(n * STAMP);
  const controlNames = new Uint32Array(n);
  const firsts = new Uint32Array(n);
  const counts = new Uint32Array(n);
  const flags = new Uint8Array(n);
  const notes: Array<[number, RuleNote[]]> = [];
  for (let i = 0; i < n; i++) {
    const f = walk.folders[i];
    if (f === undefined) continue;
    putStamp(stamps, i, f.stamp);
    putStamp(ruleStamps, i, f.gitignore?.stamp);
    controlNames[i] = f.controlNames;
    firsts[i] = f.first;
    counts[i] = f.count;
    flags[i] = f.flags;
    if (f.gitignore !== undefined && f.gitignore.notes.length > 0) notes.push([i, f.gitignore.notes]);
  }
  const names = Buffer.from(walk.names.join('\0'), 'utf8');
  const body = [
    bytesOf(stamps),
    bytesOf(ruleStamps),
    bytesOf(controlNames),
    bytesOf(firsts),
    bytesOf(counts),
    flags,
    walk.kinds,
    bytesOf(walk.childFolders),
    names,
  ];
  const size = body.reduce((total, part) => total + padded(part.length), 0);
  const rest = new Uint8Array(size);
  let at = 0;
  for (const part of body) {
    rest.set(part, at);
    at += padded(part.length);
  }
  const header = Buffer.from(
    JSON.stringify({
      key: walk.key,
      began: walk.began,
      folders: n,
      children: m,
      names: names.length,
      exclude: [stampList(walk.exclude.stamp), walk.exclude.notes],
      notes,
      sha256: crypto.createHash('sha256').update(rest).digest('hex'),
    }),
    'utf8',
  );
  const start = padded(MARK.length + 4 + header.length);
  const out = new Uint8Array(start + rest.length);
  out.set(MARK, 0);
  new DataView(out.buffer).setUint32(MARK.length, header.length, true);
  out.set(header, MARK.length + 4);
  out.set(rest, start);
  return out;
}

// The kept walk in `bytes` when it is whole, made under `key` (fullKey), and every index and name in it is sound;
// else undefined.
export function decodeKept(bytes: Uint8Array | undefined, key: string): Kept | undefined {
  try {
    return bytes === undefined ? undefined : decode(bytes, key);
  } catch {
    return undefined;
  }
}

function decode(raw: Uint8Array, key: string): Kept | undefined {
  if (raw.length < MARK.length + 4 || !MARK.equals(raw.subarray(0, MARK.length))) return undefined;
  // The arrays are read in place, which needs the bytes at a multiple of 8.
  const bytes = raw.byteOffset % 8 === 0 ? raw : raw.slice();
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(MARK.length, true);
  const start = padded(MARK.length + 4 + headerLength);
  if (start > bytes.length) return undefined;
  const header: unknown = JSON.parse(
    Buffer.from(bytes.buffer, bytes.byteOffset + MARK.length + 4, headerLength).toString(),
  );
  if (!isRecord(header) || header.key !== key) return undefined;
  const { began, folders: n, children: m, names: namesLength, exclude, notes, sha256 } = header;
  if (typeof began !== 'number' || !Number.isFinite(began) || typeof sha256 !== 'string') return undefined;
  if (!isCount(n) || n < 1 || !isCount(m) || m > KEPT_ENTRIES * 2 || n > m + 1 || !isCount(namesLength))
    return undefined;
  const sizes = [n * STAMP * 8, n * STAMP * 8, n * 4, n * 4, n * 4, n, m, m * 4, namesLength];
  if (start + sizes.reduce((total, size) => total + padded(size), 0) !== bytes.length) return undefined;
  const rest = bytes.subarray(start);
  if (crypto.createHash('sha256').update(rest).digest('hex') !== sha256) return undefined;
  let at = bytes.byteOffset + start;
  const next = (size: number): number => {
    const here = at;
    at += padded(size);
    return here;
  };
  const buffer = bytes.buffer;
  const stamps = new Float64Array(buffer, next(n * STAMP * 8), n * STAMP);
  const ruleStamps = new Float64Array(buffer, next(n * STAMP * 8), n * STAMP);
  const controlNames = new Uint32Array(buffer, next(n * 4), n);
  const firsts = new Uint32Array(buffer, next(n * 4), n);
  const counts = new Uint32Array(buffer, next(n * 4), n);
  const flags = new Uint8Array(buffer, next(n), n);
  const kinds = new Uint8Array(buffer, next(m), m);
  const childFolders = new Int32Array(buffer, next(m * 4), m);
  const text = Buffer.from(buffer, next(namesLength), namesLength).toString('utf8');
  if (m > 0 && !soundNames(text)) return undefined;
  const names = m === 0 ? [] : text.split('\0');
  const excludeFile = ruleFileOf(exclude);
  const noted = notesOf(notes, n);
  if (names.length !== m || excludeFile === undefined || noted === undefined) return undefined;
  if (!soundTree(n, firsts, counts, flags, kinds, childFolders, m)) return undefined;
  const usable = new Uint8Array(n);
  const before = trustedBefore(began);
  // Last modified before `before` (NaN, no stamp, is not).
  const old = (s: Float64Array, i: number) => (s[i * STAMP + 3] ?? Number.NaN) < before;
  for (let i = 0; i < n; i++) {
    const rulesOld = ((flags[i] ?? 0) & FLAG.rules) === 0 || old(ruleStamps, i);
    usable[i] = old(stamps, i) && rulesOld ? 1 : 0;
  }
  return {
    began,
    exclude: excludeFile,
    folders: n,
    stamps,
    ruleStamps,
    usable,
    controlNames,
    firsts,
    counts,
    flags,
    notes: noted,
    names,
    kinds,
    childFolders,
  };
}

// Each of the names joined by NUL is one name: not '', '.' or '..', nothing holding a slash (a walk taking such a name
// would name a path outside its folder). Looked at in the whole text at once, as a per-name look in a fresh process
// ran slowly for a large folder's 80,000 names.
function soundNames(text: string): boolean {
  if (text.includes('/') || (path.sep === '\\' && text.includes('\\'))) return false;
  // '' is a NUL at either end or two together; '.' and '..' are the whole text, or at its ends, or between NULs.
  if (text === '' || text === '.' || text === '..' || text.startsWith('\0') || text.endsWith('\0')) return false;
  if (text.startsWith('.\0') || text.startsWith('..\0') || text.endsWith('\0.') || text.endsWith('\0..')) return false;
  return !text.includes('\0\0') && !text.includes('\0.\0') && !text.includes('\0..\0');
}

// Every folder's children follow the last folder's; each child is of a known kind, a folder child names a later folder
// (none twice, so the walk down them ends), other children none. The names in a folder are in order as written (a
// folder child looked up among them and not found is read again: no harm).
function soundTree(
  n: number,
  firsts: Uint32Array,
  counts: Uint32Array,
  flags: Uint8Array,
  kinds: Uint8Array,
  childFolders: Int32Array,
  children: number,
): boolean {
  const named = new Uint8Array(n);
  let expected = 0;
  for (let folder = 0; folder < n; folder++) {
    if (firsts[folder] !== expected) return false;
    const count = counts[folder] ?? 0;
    const flag = flags[folder] ?? 0;
    if (flag > 7 || ((flag & FLAG.gitDir) !== 0 && count > 0) || expected + count > children) return false;
    for (let j = expected; j < expected + count; j++) {
      const kind = kinds[j] ?? 255;
      const child = childFolders[j] ?? -1;
      if (kind > CHILD.controlLink) return false;
      if (child !== -1) {
        if (kind !== CHILD.folder || child <= folder || child >= n || named[child] === 1) return false;
        named[child] = 1;
      }
    }
    expected += count;
  }
  return expected === children;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= KEPT_ENTRIES * 64;
}

function ruleFileOf(value: unknown): RuleFile | undefined {
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [kept, notes] = value as unknown[];
  const ruleNotes = noteList(notes);
  if (ruleNotes === undefined) return undefined;
  if (kept === null) return { stamp: undefined, notes: ruleNotes };
  if (!Array.isArray(kept) || kept.length !== STAMP || !kept.every((v) => typeof v === 'number')) return undefined;
  const [dev = 0, ino = 0, size = 0, mtime = 0, ctime = 0] = kept as number[];
  return { stamp: { dev, ino, size, mtime, ctime }, notes: ruleNotes };
}

function notesOf(value: unknown, n: number): Map<number, RuleNote[]> | undefined {
  if (!Array.isArray(value)) return undefined;
  const out = new Map<number, RuleNote[]>();
  for (const item of value as unknown[]) {
    if (!Array.isArray(item) || item.length !== 2) return undefined;
    const [folder, notes] = item as unknown[];
    const list = noteList(notes);
    if (!isCount(folder) || folder >= n || list === undefined) return undefined;
    out.set(folder, list);
  }
  return out;
}

// The notes a rule file gave: `widened` with its lines, `too-many`.
function noteList(value: unknown): RuleNote[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: RuleNote[] = [];
  for (const note of value as unknown[]) {
    if (!isRecord(note) || typeof note.file !== 'string') return undefined;
    if (note.kind === 'too-many') out.push({ kind: 'too-many', file: note.file });
    else if (note.kind === 'widened' && Array.isArray(note.lines) && note.lines.every((l) => isCount(l)))
      out.push({ kind: 'widened', file: note.file, lines: note.lines as number[] });
    else return undefined;
  }
  return out;
}

function putStamp(into: Float64Array, index: number, s: Stamp | undefined): void {
  const at = index * STAMP;
  if (s === undefined) {
    into.fill(Number.NaN, at, at + STAMP);
    return;
  }
  into[at] = s.dev;
  into[at + 1] = s.ino;
  into[at + 2] = s.size;
  into[at + 3] = s.mtime;
  into[at + 4] = s.ctime;
}

function stampList(s: Stamp | undefined): number[] | null {
  return s === undefined ? null : [s.dev, s.ino, s.size, s.mtime, s.ctime];
}

function bytesOf(array: Float64Array | Uint32Array | Int32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function padded(length: number): number {
  return Math.ceil(length / 8) * 8;
}
