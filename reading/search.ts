// The literal search over one file's bytes, shared by the main thread and the search workers.

import fs from 'node:fs';
import path from 'node:path';
import { isUtf8 } from 'node:buffer';
import { binaryReason, isBinary } from './binary.ts';
import { holdsPrivateKey, KEY_WHOLE_FILE, restHoldsKey } from './private-keys.ts';
import { decode, encodingOf } from './encoding.ts';

// How every file is opened for reading, by FIND and NEED alike. Non-blocking, so a file swapped for a FIFO cannot
// hang the read; no-follow, so a file swapped for a symlink since it was judged is not read through it (a symlinked
// file the walk accepted is read at its target).
export const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);

// Whether the folders on the way to a file are still the real folders the walk saw, not symlinks made since: each
// folder is looked at once per search (an lstat), up to the root.
export function createWayCheck(root: string): (abs: string) => boolean {
  const known = new Map<string, boolean>([[root, true]]);
  const folderOk = (dir: string): boolean => {
    const seen = known.get(dir);
    if (seen !== undefined) return seen;
    const up = path.dirname(dir);
    let ok = false;
    if (up !== dir && dir.length > root.length) {
      try {
        const stat = fs.lstatSync(dir);
        ok = stat.isDirectory() && folderOk(up);
      } catch {
        ok = false;
      }
    }
    known.set(dir, ok);
    return ok;
  };
  return (abs) => folderOk(path.dirname(abs));
}

type LineHit = { line: number; text: string };
// The text and the position of its rarest byte, or -1. `fold`: ASCII letters match in either case (the bytes are
// then in lower case).
export type Needle = { bytes: Buffer; rare: number; fold: boolean };
export type Hit = [pattern: number, file: number, line: number, text: string];
// A file of a searcher's share: its index in the run's list and where it is read.
export type Assigned = { index: number; abs: string };


// Reads a file that the walk saw as a regular file into `buffer` when it fits, as a view valid until the next read;
// 'large' when it does not (it is then searched chunk by chunk).
function readFile(abs: string, buffer: Buffer): Buffer | 'large' | undefined {
  let fd: number;
  try {
    fd = fs.openSync(abs, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return n < buffer.length ? buffer.subarray(0, n) : 'large';
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

// Searches a file too large for the buffer, one buffer at a time, cut at line ends so lines and their numbers stay
// whole: memory stays at the buffer's size whatever the file's. A single line longer than the buffer is searched in
// pieces, and a text that straddles two pieces of it is missed. `left`: hits still wanted per needle, counted down.
function searchLarge(abs: string, buffer: Buffer, needles: readonly Needle[], left: number[], lineChars: number, onHit: (needle: number, hit: LineHit) => void): void {
  let fd: number;
  try {
    fd = fs.openSync(abs, READ_FLAGS);
  } catch {
    return;
  }
  const found: Array<[number, LineHit]> = [];
  let key = false;
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return;
    const size = stat.size;
    let carry = 0;
    let position = 0;
    // Line ends before the current piece: counted only once a piece has hits (a rare text in a 500 MB file counts
    // none), then piece by piece. `pieceStart` is the file offset of the current piece.
    let lineBase = 0;
    let counting = false;
    let pieceStart = 0;
    for (let first = true; ; first = false) {
      const n = fs.readSync(fd, buffer, carry, buffer.length - carry, position);
      position += n;
      const filled = carry + n;
      if (first && binaryReason(buffer.subarray(0, filled)) !== undefined) return;
      const end = n < buffer.length - carry;
      const lastNewline = end ? filled - 1 : buffer.lastIndexOf(10, filled - 1);
      const cut = end || lastNewline === -1 ? filled : lastNewline + 1;
      const piece = buffer.subarray(0, cut);
      let open = 0;
      for (let p = 0; p < needles.length; p++) {
        const needle = needles[p];
        const wanted = left[p] ?? 0;
        if (needle === undefined || wanted <= 0) continue;
        const hits = searchBytes(piece, needle, wanted, lineChars);
        if (hits.length > 0 && !counting) {
          lineBase = newlinesBetween(fd, 0, pieceStart);
          counting = true;
        }
        for (const hit of hits) found.push([p, { line: hit.line + lineBase, text: hit.text }]);
        left[p] = wanted - hits.length;
        if (wanted - hits.length > 0) open++;
      }
      if (end || open === 0) break;
      // Once there were hits, line ends are counted as the pieces go: the file is being read anyway.
      if (counting) lineBase += countNewlines(piece, 0, piece.length);
      pieceStart += cut;
      carry = filled - cut;
      buffer.copy(buffer, 0, cut, filled);
    }
    // A file with hits is looked at for a private key, which takes its hits back: whole up to KEY_WHOLE_FILE, else
    // as far as it was read. Files without hits cost nothing more.
    if (found.length > 0) key = restHoldsKey(fd, buffer, 0, size <= KEY_WHOLE_FILE ? size : position);
  } catch {
    // Unreadable midway: what was found stands.
  } finally {
    fs.closeSync(fd);
    // A file holding a private key gives no hits, and takes back the ones it counted.
    if (key) for (const [p] of found) left[p] = (left[p] ?? 0) + 1;
    else for (const [p, hit] of found) onHit(p, hit);
  }
}

// How common each byte is in source code, roughly (0 rare, 9 everywhere): a search jumps between occurrences of the
// needle's rarest byte (memchr, many GB/s) instead of trying every position. The idea is ripgrep's.
const COMMONNESS = (() => {
  const table = new Uint8Array(256).fill(1);
  const set = (chars: string, level: number) => {
    for (const c of chars) table[c.charCodeAt(0)] = level;
  };
  set('ETSACRINOLDPMFUBHGW0123456789\t\r<>[]!&|+?', 4);
  set('fgbywvk.,;="\'{}/:_-*()', 7);
  set('lcdupmh', 8);
  set(' \neta', 9);
  set('oinsr', 9);
  return table;
})();

// A needle for `text`. `counts` (bytes seen in the folder's files, when known) beats the fixed table: a folder of SVG
// paths is full of z and x. `fold`: ASCII letters in either case.
export function needleOf(text: string, counts?: Uint32Array, fold = false): Needle {
  const bytes = Buffer.from(text, 'utf8');
  if (fold) for (let i = 0; i < bytes.length; i++) bytes[i] = lower(bytes[i] ?? 0);
  const total = counts === undefined ? 0 : counts.reduce((a, b) => a + b, 0);
  const score = (byte: number) => (total > 0 && counts !== undefined ? ((counts[byte] ?? 0) / total) * 100 : (COMMONNESS[byte] ?? 9) / 4);
  // Folded, a letter is looked for in both cases: it costs what both cost.
  const cost = (byte: number) => (fold && byte >= 97 && byte <= 122 ? score(byte) + score(byte - 32) : score(byte));
  let rare = 0;
  for (let i = 1; i < bytes.length; i++) if (cost(bytes[i] ?? 0) < cost(bytes[rare] ?? 0)) rare = i;
  if (fold) return { bytes, rare, fold };
  // When even the rarest byte is everywhere (over 2 in 100 bytes), jumping between its occurrences loses.
  return { bytes, rare: bytes.length > 1 && score(bytes[rare] ?? 0) < 2 ? rare : -1, fold };
}

function lower(byte: number): number {
  return byte >= 65 && byte <= 90 ? byte + 32 : byte;
}

// Where `needle` next occurs in `bytes` at or after `from`, or -1.
export function indexOfNeedle(bytes: Buffer, needle: Needle, from: number): number {
  if (needle.fold) return indexOfFolded(bytes, needle, from);
  const { bytes: n, rare } = needle;
  if (rare === -1) return bytes.indexOf(n, from);
  const byte = n[rare] ?? 0;
  // One more byte checked before the whole compare: the one farthest from the anchor (when the anchor is the first
  // byte, as it is without byte counts, checking the first byte again would always pass).
  const other = rare === 0 ? n.length - 1 : 0;
  const otherByte = n[other] ?? 0;
  const last = bytes.length - n.length;
  for (let i = bytes.indexOf(byte, from + rare); i !== -1; i = bytes.indexOf(byte, i + 1)) {
    const start = i - rare;
    if (start > last) return -1;
    if (bytes[start + other] === otherByte && bytes.compare(n, 0, n.length, start, start + n.length) === 0) return start;
  }
  return -1;
}

// The same ignoring the case of ASCII letters: jumps between the anchor byte's occurrences in both cases.
function indexOfFolded(bytes: Buffer, needle: Needle, from: number): number {
  const { bytes: n, rare } = needle;
  const small = n[rare] ?? 0;
  const big = small >= 97 && small <= 122 ? small - 32 : -1;
  const last = bytes.length - n.length;
  let a = bytes.indexOf(small, from + rare);
  let b = big === -1 ? -1 : bytes.indexOf(big, from + rare);
  while (a !== -1 || b !== -1) {
    let i: number;
    if (b === -1 || (a !== -1 && a < b)) {
      i = a;
      a = bytes.indexOf(small, a + 1);
    } else {
      i = b;
      b = bytes.indexOf(big, b + 1);
    }
    const start = i - rare;
    if (start > last) return -1;
    if (start < from) continue;
    let k = 0;
    while (k < n.length && lower(bytes[start + k] ?? 0) === n[k]) k++;
    if (k === n.length) return start;
  }
  return -1;
}

// The hits of `needle` in `bytes`, one per line, at most `max`.
function searchBytes(bytes: Buffer, needle: Needle, max: number, lineChars: number): LineHit[] {
  const hits: LineHit[] = [];
  let at = indexOfNeedle(bytes, needle, 0);
  if (at === -1) return hits;
  let line = 1;
  let counted = 0;
  while (at !== -1 && hits.length < max) {
    line += countNewlines(bytes, counted, at);
    counted = at;
    const start = bytes.lastIndexOf(10, at) + 1;
    const newline = bytes.indexOf(10, at);
    const end = newline === -1 ? bytes.length : newline;
    hits.push({ line, text: clip(bytes, start, end, at, needle.bytes.length, lineChars) });
    if (newline === -1) break;
    at = indexOfNeedle(bytes, needle, newline + 1);
  }
  return hits;
}

// Line ends in bytes `from` to `to` of an open file, read again a buffer at a time: paid only by a large file with
// hits after stretches without any.
function newlinesBetween(fd: number, from: number, to: number): number {
  const buffer = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(1, to - from)));
  let n = 0;
  for (let pos = from; pos < to; ) {
    const got = fs.readSync(fd, buffer, 0, Math.min(buffer.length, to - pos), pos);
    if (got === 0) break;
    n += countNewlines(buffer, 0, got);
    pos += got;
  }
  return n;
}

function countNewlines(bytes: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = bytes.indexOf(10, from); i !== -1 && i < to; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

// The line of a hit, trimmed, and clipped around the hit when it is long (minified code has megabyte lines).
// A line that is not UTF-8 is decoded in the encoding of the bytes around it (a Windows-1251 file's hits read as
// Cyrillic); only files with such hits pay for finding out.
function clip(bytes: Buffer, start: number, end: number, at: number, length: number, max: number): string {
  if (end - start <= max * 3) {
    const line = textOf(bytes, start, end).replace(/\r$/, '').trim();
    if (line.length <= max) return line;
  }
  const from = Math.max(start, at - Math.floor(max / 2));
  const to = Math.min(end, from + max + length);
  const inner = textOf(bytes, from, to).replace(/^\uFFFD+|\uFFFD+$/g, '').trim();
  return `${from > start ? '… ' : ''}${inner}${to < end ? ' …' : ''}`;
}

function textOf(bytes: Buffer, from: number, to: number): string {
  const piece = bytes.subarray(from, to);
  if (isUtf8(piece)) return piece.toString('utf8');
  const encoding = encodingOf(bytes.subarray(0, Math.min(bytes.length, 1 << 20)));
  return encoding === 'utf8' ? piece.toString('utf8') : decode(piece, encoding);
}

// Searches the given files in order for several texts at once, on this thread (a FIND kept to a folder or mask): each
// file is read once and searched for every text still short of its cap (`fold[i]`: text i in either case of ASCII
// letters); the walk stops when every text has one hit past its cap (which marks the cut).
export function searchFiles(
  files: readonly Assigned[], texts: readonly string[], maxHits: number, lineChars: number, keeper: Keeper, fold: readonly boolean[] = [],
): Hit[] {
  const needles = texts.map((text, i) => needleOf(text, keeper.counts, fold[i] === true));
  const twins = twinsOf(texts, fold);
  const hits: Hit[] = [];
  const left = texts.map(() => maxHits + 1);
  for (const file of files) {
    if (left.every((n) => n <= 0)) break;
    searchOne(file.index, file.abs, needles, twins, left, lineChars, keeper, (hit) => {
      hits.push(hit);
      left[hit[0]] = (left[hit[0]] ?? 0) - 1;
    });
  }
  return hits;
}

// How the searchers of a run share its files: in chunks of CHUNK_FILES files in walk order. `owner[c]` is the searcher
// that reads chunk c (-1: nobody yet): the first to reach it claims it, so the work balances however late a searcher
// starts, and a later search leaves each chunk to the searcher that kept its bytes. `limits[t]`, per search, is the
// last chunk whose hits for text t can still be among its first ones: once a searcher has its own hits past the cap
// by chunk c, no hit after chunk c is needed, from anyone.
const CHUNK_FILES = 256;
export type Plan = { owner: Int8Array<ArrayBufferLike>; limits: Int32Array<ArrayBufferLike> };

export function newOwners(files: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(Math.max(1, Math.ceil(files / CHUNK_FILES)));
  new Int8Array(buffer).fill(-1);
  return buffer;
}

export function newLimits(texts: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(Math.max(1, texts) * 4);
  new Int32Array(buffer).fill(0x7fffffff);
  return buffer;
}

// Searches the chunks this searcher owns or claims, in order, for every text still open there. `count` files,
// `pathAt(i)` the path file i is read at (made when it is read: no list of 200,000 paths is kept).
export function searchShared(
  count: number, pathAt: (index: number) => string, plan: Plan, me: number, texts: readonly string[], maxHits: number, lineChars: number,
  keeper: Keeper, fold: readonly boolean[] = [],
): Hit[] {
  const needles = texts.map((text, i) => needleOf(text, keeper.counts, fold[i] === true));
  const twins = twinsOf(texts, fold);
  const hits: Hit[] = [];
  const left = texts.map(() => maxHits + 1);
  const wanted = texts.map(() => 0);
  const inRange = new Uint8Array(texts.length);
  const onHit = (hit: Hit) => {
    hits.push(hit);
    left[hit[0]] = (left[hit[0]] ?? 0) - 1;
  };
  const chunks = Math.ceil(count / CHUNK_FILES);
  for (let c = 0; c < chunks; c++) {
    let open = false;
    for (let t = 0; t < texts.length; t++) if (c <= Atomics.load(plan.limits, t) && (left[t] ?? 0) > 0) open = true;
    if (!open) break;
    const owner = Atomics.load(plan.owner, c);
    if (owner !== me && (owner !== -1 || Atomics.compareExchange(plan.owner, c, -1, me) !== -1)) continue;
    const end = Math.min(count, (c + 1) * CHUNK_FILES);
    // The texts this chunk is searched for: those whose limit is not before it (looked at once per chunk; a limit
    // lowered meanwhile only costs a few files searched for nothing). `wanted` is reused from file to file.
    for (let t = 0; t < texts.length; t++) inRange[t] = c <= Atomics.load(plan.limits, t) ? 1 : 0;
    for (let index = c * CHUNK_FILES; index < end; index++) {
      let any = false;
      for (let t = 0; t < texts.length; t++) {
        wanted[t] = inRange[t] === 1 ? (left[t] ?? 0) : 0;
        if ((wanted[t] ?? 0) > 0) any = true;
      }
      if (!any) break;
      searchOne(index, pathAt(index), needles, twins, wanted, lineChars, keeper, onHit);
    }
    for (let t = 0; t < texts.length; t++) {
      if ((left[t] ?? 0) > 0) continue;
      // Lowers limits[t] to c, unless another searcher lowered it further meanwhile.
      for (let now = Atomics.load(plan.limits, t); now > c; now = Atomics.load(plan.limits, t)) {
        if (Atomics.compareExchange(plan.limits, t, now, c) === now) break;
      }
    }
  }
  return hits;
}

// For each text, the index of the same text searched ignoring case, or -1. A file where the case-blind search finds
// nothing holds no exact hit either, so the exact search is skipped there: for a text found nowhere, one scan of the
// files instead of two.
function twinsOf(texts: readonly string[], fold: readonly boolean[]): number[] {
  return texts.map((text, p) => (fold[p] === true ? -1 : texts.findIndex((other, q) => fold[q] === true && other === text)));
}

// One file searched for every text with hits still wanted; a file holding a private key gives none. The folded twins
// go first, so that their outcome can spare the exact search (see twinsOf). `wanted[t]`: hits still wanted of text t; the file's hits are handed to `onHit` only after the whole file is
// searched, so `wanted` may be the caller's live counts.
function searchOne(index: number, abs: string, needles: readonly Needle[], twins: readonly number[], wanted: readonly number[], lineChars: number, keeper: Keeper, onHit: (hit: Hit) => void): void {
  const bytes = keeper.bytesOf(index, abs);
  if (bytes === undefined) return;
  if (bytes === 'large') {
    const left = [...wanted];
    searchLarge(abs, keeper.chunk, needles, left, lineChars, (p, hit) => onHit([p, index, hit.line, hit.text]));
    return;
  }
  let mine: Hit[] | undefined;
  let foundBlind: Uint8Array | undefined;
  const search = (p: number) => {
    const needle = needles[p];
    const n = wanted[p] ?? 0;
    if (needle === undefined || n <= 0) return;
    const found = searchBytes(bytes, needle, n, lineChars);
    if (found.length > 0 && needle.fold) (foundBlind ??= new Uint8Array(needles.length))[p] = 1;
    for (const hit of found) (mine ??= []).push([p, index, hit.line, hit.text]);
  };
  for (let p = 0; p < needles.length; p++) if (needles[p]?.fold === true) search(p);
  for (let p = 0; p < needles.length; p++) {
    if (needles[p]?.fold === true) continue;
    const twin = twins[p] ?? -1;
    // The twin was searched here (it still wanted hits) and found none: no exact hit here either.
    if (twin !== -1 && (wanted[twin] ?? 0) > 0 && foundBlind?.[twin] !== 1) continue;
    search(p);
  }
  // A file with hits is judged as NEED judges it: no hits from a file holding a private key, or from one whose first
  // bytes are mostly control characters (too costly to look at for every file; a file with hits is rare).
  if (mine === undefined || holdsPrivateKey(bytes) || binaryReason(bytes) !== undefined) return;
  for (const hit of mine) onHit(hit);
}

export type Keeper = {
  counts: Uint32Array;
  chunk: Buffer;
  // A new run's `files` files under `root`: nothing kept.
  reset(root: string, files: number): void;
  // A new search: the folders on the way are looked at again.
  newSearch(): void;
  bytesOf(index: number, abs: string): Buffer | 'large' | undefined;
  // Touches the keeping memory ahead of use, a step at a time whenever this thread is idle (while the model reads the
  // first message). From then on a file is kept only where memory was touched: a FIND that comes before all of it is
  // ready keeps less, rather than wait for it. Resolves when all of it is ready (or dropped).
  prepare(): Promise<void>;
  // Lets go of the keeping memory.
  drop(): void;
};

// Files up to this size are kept between steps. Keeping a small file spares its open, read and close at the next
// FIND, which is most of what reading it costs; a large file costs mostly its bytes, which the page cache holds anyway,
// and would take the room of hundreds of small ones.
export const KEEP_FILE_MAX = 64 << 10;
// Memory touched for the first time costs a page fault per page (about 11 µs a 4 KB page on the machine of the
// benchmark, against 10–13 µs to open, read and close a small file): touched ahead of use, a step at a time.
const TOUCH_STEP = 1 << 20;
const PAGE = 4096;

// Where a kept file's bytes are: BINARY for a file found binary (or unreadable), UNKNOWN for one not kept.
const UNKNOWN = -1;
const BINARY = -2;

// What a searcher keeps between steps: the text of small files, in one arena of `budget` bytes reused run after run
// (memory stays at the budget and leaves no garbage); binary files are remembered as such. Where each file's bytes lie
// is two numbers per file in typed arrays, not an object per file: at 200,000 files that is 1.6 MB, not 25. Larger
// files are read again each time, piece by piece when they pass the 1 MB read buffer: few files, bounded memory.
// The arena is allocated at the first read or at prepare(): a run that never searches a big folder never pays for it.
export function createKeeper(budget: number): Keeper {
  let arena: Buffer | undefined;
  let used = 0;
  // Bytes of the arena touched by prepare(), which then bounds what is kept; without it, the arena is touched as
  // files are kept (a small folder: few pages).
  let touched = 0;
  let prepared = false;
  const read = Buffer.allocUnsafe(1 << 20);
  const chunk = Buffer.allocUnsafe(1 << 20);
  let starts = new Int32Array(0);
  let lengths = new Int32Array(0);
  // Byte counts over a sample of what was kept: which bytes are rare in this folder.
  const counts = new Uint32Array(256);
  let sampled = 0;
  let root = '';
  let wayOk: (abs: string) => boolean = () => false;
  let ready: Promise<void> = Promise.resolve();
  let done = () => {};
  const touchStep = () => {
    if (arena === undefined || !prepared) return done();
    const end = Math.min(arena.length, touched + TOUCH_STEP);
    for (let i = touched; i < end; i += PAGE) arena[i] = 0;
    touched = end;
    if (touched < arena.length) setImmediate(touchStep);
    else done();
  };
  return {
    counts,
    chunk,
    reset(newRoot, files) {
      starts = new Int32Array(files).fill(UNKNOWN);
      lengths = new Int32Array(files);
      used = 0;
      root = newRoot;
      wayOk = createWayCheck(root);
    },
    newSearch() {
      wayOk = createWayCheck(root);
    },
    prepare() {
      if (prepared || budget <= 0) return ready;
      // Memory kept into before this call was touched then.
      if (arena === undefined) {
        arena = Buffer.allocUnsafe(budget);
        touched = 0;
      } else {
        touched = Math.max(touched, used);
      }
      prepared = true;
      ready = new Promise((resolve) => (done = resolve));
      // Each step is a task of its own: what comes in meanwhile (the model's reply, a search) goes first. drop() ends
      // the steps.
      setImmediate(touchStep);
      return ready;
    },
    drop() {
      done();
      arena = undefined;
      prepared = false;
      touched = 0;
      used = 0;
      starts.fill(UNKNOWN);
    },
    bytesOf(index, abs) {
      const start = starts[index] ?? UNKNOWN;
      if (start === BINARY) return undefined;
      if (start >= 0 && arena !== undefined) return arena.subarray(start, start + (lengths[index] ?? 0));
      if (!wayOk(abs)) return undefined;
      if (budget > 0) arena ??= Buffer.allocUnsafe(budget);
      // Room to keep in: touched memory once prepared, else the whole arena.
      const room = arena === undefined ? 0 : (prepared ? touched : arena.length) - used;
      // Straight into the arena while a whole read buffer fits in the room: no copy. Else into the read buffer, and
      // copied when kept.
      const direct = arena !== undefined && room >= read.length;
      const bytes = readFile(abs, direct && arena !== undefined ? arena.subarray(used, used + read.length) : read);
      if (bytes === undefined || bytes === 'large') return bytes;
      if (isBinary(bytes)) {
        if (index < starts.length) starts[index] = BINARY;
        return undefined;
      }
      if (arena === undefined || bytes.length > KEEP_FILE_MAX || bytes.length > room || index >= starts.length) return bytes;
      const view = arena.subarray(used, used + bytes.length);
      if (!direct) bytes.copy(view);
      if (sampled < 8 << 20) {
        for (let i = 0; i < view.length; i += 7) counts[view[i] ?? 0] = (counts[view[i] ?? 0] ?? 0) + 1;
        sampled += view.length;
      }
      starts[index] = used;
      lengths[index] = view.length;
      used += view.length;
      return view;
    },
  };
}
