// @ts-check
// The literal search over one file's bytes, shared by the main thread and the search workers. Plain JavaScript (typed
// with JSDoc and checked by tsc) because worker threads load it without a TypeScript loader.

import fs from 'node:fs';

const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
// Git's rule of thumb: a NUL byte in the first 8,000 bytes makes a file binary.
const SNIFF = 8000;

/** @typedef {{ line: number, text: string }} LineHit */
/** @typedef {{ bytes: Buffer, rare: number }} Needle the text and the position of its rarest byte, or -1 */
/** @typedef {[pattern: number, file: number, line: number, text: string]} Hit */
/** @typedef {{ hits: Hit[], skipped: number[] }} Found */

/**
 * @param {Uint8Array} bytes
 * @returns {boolean}
 */
export function isBinary(bytes) {
  return bytes.subarray(0, SNIFF).indexOf(0) !== -1;
}

/**
 * Reads a file that the walk saw as a regular file, into `into.buffer`, which grows to fit (so one buffer serves every
 * file and nothing is left for the collector). The result is a view, valid until the next read. Opened non-blocking,
 * so a file swapped for a FIFO cannot hang it.
 * @param {string} abs
 * @param {{ buffer: Buffer }} into
 * @param {number} limit
 * @returns {Buffer | 'too-big' | undefined}
 */
function readFile(abs, into, limit) {
  let fd;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    let n = fs.readSync(fd, into.buffer, 0, into.buffer.length, 0);
    if (n < into.buffer.length) return into.buffer.subarray(0, n);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return undefined;
    if (stat.size > limit) return 'too-big';
    if (stat.size + 1 > into.buffer.length) {
      const grown = Buffer.allocUnsafe(stat.size + 1);
      into.buffer.copy(grown, 0, 0, n);
      into.buffer = grown;
    }
    for (let got = 1; got > 0 && n < into.buffer.length; n += got) got = fs.readSync(fd, into.buffer, n, into.buffer.length - n, n);
    return into.buffer.subarray(0, Math.min(n, limit));
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

// How common each byte is in source code, roughly (0 rare, 9 everywhere): a search jumps between occurrences of the
// needle's rarest byte (memchr, many GB/s) instead of trying every position. The idea is ripgrep's.
const COMMONNESS = (() => {
  const table = new Uint8Array(256).fill(1);
  const set = (/** @type {string} */ chars, /** @type {number} */ level) => {
    for (const c of chars) table[c.charCodeAt(0)] = level;
  };
  set('ETSACRINOLDPMFUBHGW0123456789\t\r<>[]!&|+?', 4);
  set('fgbywvk.,;="\'{}/:_-*()', 7);
  set('lcdupmh', 8);
  set(' \neta', 9);
  set('oinsr', 9);
  return table;
})();

/**
 * A needle for `text`. `counts` (bytes seen in the folder's files, when known) beats the fixed table: a folder of SVG
 * paths is full of z and x.
 * @param {string} text
 * @param {Uint32Array} [counts]
 * @returns {Needle}
 */
export function needleOf(text, counts) {
  const bytes = Buffer.from(text, 'utf8');
  const total = counts === undefined ? 0 : counts.reduce((a, b) => a + b, 0);
  const score = (/** @type {number} */ byte) => (total > 0 && counts !== undefined ? ((counts[byte] ?? 0) / total) * 100 : (COMMONNESS[byte] ?? 9) / 4);
  let rare = 0;
  for (let i = 1; i < bytes.length; i++) if (score(bytes[i] ?? 0) < score(bytes[rare] ?? 0)) rare = i;
  // When even the rarest byte is everywhere (over 2 in 100 bytes), jumping between its occurrences loses.
  return { bytes, rare: bytes.length > 1 && score(bytes[rare] ?? 0) < 2 ? rare : -1 };
}

/**
 * Where `needle` next occurs in `bytes` at or after `from`, or -1.
 * @param {Buffer} bytes
 * @param {Needle} needle
 * @param {number} from
 */
export function indexOfNeedle(bytes, needle, from) {
  const { bytes: n, rare } = needle;
  if (rare === -1) return bytes.indexOf(n, from);
  const byte = n[rare] ?? 0;
  const first = n[0] ?? 0;
  const last = bytes.length - n.length;
  for (let i = bytes.indexOf(byte, from + rare); i !== -1; i = bytes.indexOf(byte, i + 1)) {
    const start = i - rare;
    if (start > last) return -1;
    if (bytes[start] === first && bytes.compare(n, 0, n.length, start, start + n.length) === 0) return start;
  }
  return -1;
}

/**
 * The hits of `needle` in `bytes`, one per line, at most `max`.
 * @param {Buffer} bytes
 * @param {Needle} needle
 * @param {number} max
 * @param {number} lineChars
 * @returns {LineHit[]}
 */
function searchBytes(bytes, needle, max, lineChars) {
  /** @type {LineHit[]} */
  const hits = [];
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

/**
 * @param {Buffer} bytes
 * @param {number} from
 * @param {number} to
 */
function countNewlines(bytes, from, to) {
  let n = 0;
  for (let i = bytes.indexOf(10, from); i !== -1 && i < to; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

/**
 * The line of a hit, trimmed, and clipped around the hit when it is long (minified code has megabyte lines).
 * @param {Buffer} bytes
 * @param {number} start
 * @param {number} end
 * @param {number} at
 * @param {number} length
 * @param {number} max
 */
function clip(bytes, start, end, at, length, max) {
  if (end - start <= max * 3) {
    const line = bytes.toString('utf8', start, end).replace(/\r$/, '').trim();
    if (line.length <= max) return line;
  }
  const from = Math.max(start, at - Math.floor(max / 2));
  const to = Math.min(end, from + max + length);
  const inner = bytes.toString('utf8', from, to).replace(/^\uFFFD+|\uFFFD+$/g, '').trim();
  return `${from > start ? '… ' : ''}${inner}${to < end ? ' …' : ''}`;
}

/**
 * Searches files in order for several texts at once: each file is read once and searched for every text still short
 * of its cap; the walk stops when every text has one hit past its cap (which marks the cut).
 * @param {ReadonlyArray<{ index: number, abs: string }>} files
 * @param {string[]} texts
 * @param {number} maxHits
 * @param {number} lineChars
 * @param {(file: { index: number, abs: string }) => Buffer | 'too-big' | undefined} bytesOf binary files give undefined
 * @param {Uint32Array} [byteCounts] byte counts of the folder's files, when known
 * @returns {Found}
 */
export function searchFiles(files, texts, maxHits, lineChars, bytesOf, byteCounts) {
  const needles = texts.map((text) => needleOf(text, byteCounts));
  /** @type {Hit[]} */
  const hits = [];
  const counts = texts.map(() => 0);
  const skipped = texts.map(() => 0);
  const cap = maxHits + 1;
  let open = texts.length;
  for (const file of files) {
    if (open === 0) break;
    const bytes = bytesOf(file);
    if (bytes === undefined) continue;
    for (let p = 0; p < needles.length; p++) {
      const needle = needles[p];
      const count = counts[p] ?? 0;
      if (needle === undefined || count >= cap) continue;
      if (bytes === 'too-big') {
        skipped[p] = (skipped[p] ?? 0) + 1;
        continue;
      }
      const found = searchBytes(bytes, needle, cap - count, lineChars);
      for (const hit of found) hits.push([p, file.index, hit.line, hit.text]);
      counts[p] = count + found.length;
      if (count + found.length >= cap) open--;
    }
  }
  return { hits, skipped };
}

/**
 * What a searcher keeps between steps: the text of files up to 1 MB, in one arena of `budget` bytes reused run after
 * run (memory stays at the budget and leaves no garbage); binary and unreadable files are remembered as such. Larger
 * files are read again each time: few files, most of the bytes.
 * @param {number} budget
 * @param {number} maxFileBytes
 */
export function createKeeper(budget, maxFileBytes) {
  const KEEP_FILE_LIMIT = 1 << 20;
  const arena = Buffer.allocUnsafe(budget);
  let used = 0;
  const read = { buffer: Buffer.allocUnsafe(1 << 20) };
  /** @type {Map<number, Buffer | null>} */
  let kept = new Map();
  // Byte counts over a sample of what was kept: which bytes are rare in this folder.
  const counts = new Uint32Array(256);
  let sampled = 0;
  return {
    counts,
    reset() {
      kept = new Map();
      used = 0;
    },
    /**
     * @param {{ index: number, abs: string }} file
     * @returns {Buffer | 'too-big' | undefined}
     */
    bytesOf(file) {
      const known = kept.get(file.index);
      if (known === null) return undefined;
      if (known !== undefined) return known;
      const bytes = readFile(file.abs, read, maxFileBytes);
      if (bytes === undefined || bytes === 'too-big') return bytes;
      if (isBinary(bytes)) {
        kept.set(file.index, null);
        return undefined;
      }
      if (bytes.length > KEEP_FILE_LIMIT || used + bytes.length > budget) return bytes;
      const view = arena.subarray(used, used + bytes.length);
      bytes.copy(view);
      if (sampled < 8 << 20) {
        for (let i = 0; i < view.length; i += 7) counts[view[i] ?? 0] = (counts[view[i] ?? 0] ?? 0) + 1;
        sampled += view.length;
      }
      used += bytes.length;
      kept.set(file.index, view);
      return view;
    },
  };
}
