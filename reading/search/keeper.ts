// What a searcher keeps between steps (the text of small files, in one arena) and how it reads a file: where its
// places say (places.ts), only while the way there is still the walk's.

import fs from 'node:fs';
import { isBinary } from '../binary.ts';
import { READ_FLAGS } from '../open.ts';
import { scoreOf, type Needle } from './needle.ts';
import type { Places } from './places.ts';
import { createScanner, type Scanner } from './scan.ts';

export type Keeper = {
  counts: Uint32Array;
  // The buffer a large file is searched in, a piece at a time.
  readonly chunk: Buffer;
  // The texts of a search, as folded needles, for present() (scan.ts), its rare bytes judged by `counts`; undefined:
  // none, present() then tells nothing.
  lookFor(needles: readonly Needle[] | undefined): void;
  // Bit t set: text t of lookFor's may be in `bytes`, which this keeper gave (bytesOf, chunk); every bit set when that
  // cannot be told.
  present(bytes: Buffer): number;
  // A new run's files, read where `places` says: nothing kept. A read ahead of the last run's files is stopped first
  // (ahead.ts): it would keep their bytes under this run's numbers.
  reset(places: Places): void;
  // A new search: the folders on the way are looked at again.
  newSearch(): void;
  // File `index` of the run: its bytes, 'large' when it is searched piece by piece (searchLarge), undefined when it is
  // binary, gone, or no longer where the walk saw it.
  bytesOf(index: number): Buffer | 'large' | undefined;
  // Where file `index` is read, when its way is still the walk's; else undefined.
  openable(index: number): string | Buffer | undefined;
  // The same, read ahead of a FIND while the model thinks (ahead.ts): kept in memory made ready as it goes, AHEAD bytes
  // beyond what is kept, so that a FIND finds ready memory to keep what it reads in.
  readAhead(index: number): void;
  // Touches the first of the keeping memory, a step at a time whenever this thread is idle (while the model reads the
  // first message); a read ahead makes more ready as it keeps files. From then on a search keeps a file only where
  // memory was touched: a FIND that comes early keeps less, rather than wait for it. Resolves when the first is ready
  // (or dropped).
  prepare(): Promise<void>;
  // Bytes of the keeping memory still free for files (none before it is made). A read ahead stops when it runs low.
  room(): number;
  // Bytes of the keeping memory touched so far: what it adds to the process's memory.
  made(): number;
  // Lets go of the keeping memory.
  drop(): void;
};

// Files up to this size are kept between steps. Keeping a small file spares its open, read and close at the next
// FIND, which is most of what reading it costs; a large file costs mostly its bytes, which the page cache holds anyway,
// and would take the room of many small ones. Measured on the bench's corpus (issue 30): files up to 64 KB took 41.6
// MB to keep, up to 8 KB 26 MB, with 850 more files read at each FIND after the first (FIND again 44.5 → 48.8 ms, the
// median of three alternated runs); on the Linux source, where the budget is full either way, the same memory then
// holds more files and FIND again went 650 → 587 ms.
export const KEEP_FILE_MAX = 8 << 10;
// Memory touched for the first time costs a page fault per page (about 11 µs a 4 KB page on the machine of the
// benchmark, against 10–13 µs to open, read and close a small file): touched ahead of use, a step at a time.
const TOUCH_STEP = 1 << 20;
const PAGE = 4096;
// Memory made ready beyond what is kept: a search's room to keep files in. Touching the whole budget at once, as
// before, made a folder of 2,300 files (rxjs, 12 MB) cost 48 MB of the two searchers' memory while the model thought,
// its files keeping 10 MB of it (issue 30).
const AHEAD = 2 << 20;

// Where a kept file's bytes are: BINARY for a file found binary (or unreadable), UNKNOWN for one not kept.
const UNKNOWN = -1;
const BINARY = -2;

// What a searcher keeps between steps: the text of small files, in one arena of `budget` bytes reused run after run
// (its memory grows with what is kept, up to the budget, and leaves no garbage); binary files are remembered as such.
// Where each file's bytes lie is two numbers per file in typed arrays, not an object per file: at 200,000 files that is
// 1.6 MB, not 25. Larger files are read again each time, piece by piece when they pass the 1 MB read buffer: few files,
// bounded memory.
// The arena, and the buffers files are read into, lie in the memory of the scan's WebAssembly module (scan.ts), made at
// the first read or at prepare(): a run that never searches never pays for it, and files are read straight into it.
export function createKeeper(budget: number): Keeper {
  let scanner: Scanner | undefined;
  const memory = () => (scanner ??= createScanner(Math.max(0, budget)));
  let arena: Buffer | undefined;
  let used = 0;
  // Bytes of the arena touched ahead of use (by prepare(), then by a read ahead as it keeps files), which bound what a
  // search keeps; unprepared, the arena is touched as files are kept (a small folder: few pages).
  let touched = 0;
  let prepared = false;
  let starts = new Int32Array(0);
  let lengths = new Int32Array(0);
  // Byte counts over a sample of what was kept: which bytes are rare in this folder.
  const counts = new Uint32Array(256);
  let sampled = 0;
  let places: Places = { files: 0, open: () => undefined, newSearch: () => {} };
  let ready: Promise<void> = Promise.resolve();
  let done = () => {};
  // Touches the arena's pages up to `end` (at most its length).
  const touch = (end: number) => {
    if (arena === undefined) return;
    const to = Math.min(arena.length, end);
    for (let i = touched; i < to; i += PAGE) arena[i] = 0;
    touched = Math.max(touched, to);
  };
  // The first AHEAD bytes past what is kept, a step at a time.
  const touchStep = (end: number) => {
    if (arena === undefined || !prepared) return done();
    touch(Math.min(end, touched + TOUCH_STEP));
    if (touched < Math.min(end, arena.length)) setImmediate(touchStep, end);
    else done();
  };
  const keeper: Keeper = {
    counts,
    get chunk() {
      return memory().chunk;
    },
    lookFor(needles) {
      if (needles === undefined) scanner?.setTexts(undefined);
      else memory().setTexts(needles, scoreOf(counts));
    },
    present: (bytes) => scanner?.present(bytes) ?? -1,
    reset(next) {
      starts = new Int32Array(next.files).fill(UNKNOWN);
      lengths = new Int32Array(next.files);
      used = 0;
      places = next;
    },
    newSearch() {
      places.newSearch();
    },
    openable: (index) => places.open(index),
    prepare() {
      if (prepared || budget <= 0) return ready;
      // Memory kept into before this call was touched then.
      if (arena === undefined) {
        arena = memory().arena;
        touched = 0;
      } else {
        touched = Math.max(touched, used);
      }
      prepared = true;
      ready = new Promise((resolve) => (done = resolve));
      // Each step is a task of its own: what comes in meanwhile (the model's reply, a search) goes first. drop() ends
      // the steps.
      setImmediate(touchStep, used + AHEAD);
      return ready;
    },
    drop() {
      done();
      arena = undefined;
      scanner = undefined;
      prepared = false;
      touched = 0;
      used = 0;
      starts.fill(UNKNOWN);
    },
    room() {
      return arena === undefined ? 0 : arena.length - used;
    },
    made: () => touched,
    readAhead(index) {
      if (prepared) touch(used + AHEAD);
      bytesOf(index);
    },
    bytesOf,
  };
  return keeper;

  function bytesOf(index: number): Buffer | 'large' | undefined {
    const start = starts[index] ?? UNKNOWN;
    if (start === BINARY) return undefined;
    if (start >= 0 && arena !== undefined) return arena.subarray(start, start + (lengths[index] ?? 0));
    const where = places.open(index);
    if (where === undefined) return undefined;
    if (budget > 0) arena ??= memory().arena;
    const read = memory().read;
    // Room to keep in: touched memory once prepared, else the whole arena.
    const room = arena === undefined ? 0 : (prepared ? touched : arena.length) - used;
    // Straight into the arena while a whole read buffer fits in the room: no copy. Else into the read buffer, and
    // copied when kept. One view made per file: each costs about half a microsecond.
    const direct = arena !== undefined && room >= read.length;
    const into = direct && arena !== undefined ? arena : read;
    const at = direct ? used : 0;
    const n = readFile(where, into, at, read.length);
    if (n === undefined || n === 'large') return n;
    const bytes = into.subarray(at, at + n);
    if (isBinary(bytes)) {
      if (index < starts.length) starts[index] = BINARY;
      return undefined;
    }
    if (arena === undefined || n > KEEP_FILE_MAX || n > room || index >= starts.length) return bytes;
    const view = direct ? bytes : arena.subarray(used, used + n);
    if (!direct) bytes.copy(view);
    if (sampled < 8 << 20) sampled += countBytes(view, counts);
    starts[index] = used;
    lengths[index] = view.length;
    used += view.length;
    return view;
  }
}

// Counts every seventh byte of a kept file into `counts` (which bytes are rare in this folder); returns the bytes
// looked over. A function of its own, so that the engine compiles the loop once rather than with the whole read.
function countBytes(view: Buffer, counts: Uint32Array): number {
  for (let i = 0; i < view.length; i += 7) {
    const byte = view[i] ?? 0;
    counts[byte] = (counts[byte] ?? 0) + 1;
  }
  return view.length;
}

// Reads a file that the walk saw as a regular file into `buffer` at `at`, when it fits in `most` bytes: how many it
// read; 'large' when it does not (it is then searched chunk by chunk).
function readFile(abs: string | Buffer, buffer: Buffer, at: number, most: number): number | 'large' | undefined {
  let fd: number;
  try {
    fd = fs.openSync(abs, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const n = fs.readSync(fd, buffer, at, most, 0);
    return n < most ? n : 'large';
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
