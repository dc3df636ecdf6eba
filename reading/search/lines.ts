// A file's hits as grep counts them, one per line with its number and its text: in bytes held whole, and in a file too
// large to hold, read a buffer at a time.

import fs from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { binaryReason } from '../binary.ts';
import { decode, encodingOf } from '../encoding.ts';
import { READ_FLAGS } from '../open.ts';
import { KEY_WHOLE_FILE, restHoldsKey } from '../private-keys.ts';
import type { Hit, Search } from './job.ts';
import { indexOfNeedle, type Needle } from './needle.ts';

type LineHit = { line: number; text: string };

// The hits of `needle` in `bytes`, one per line, at most `max`.
export function searchBytes(bytes: Buffer, needle: Needle, max: number, lineChars: number): LineHit[] {
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

// Searches a file too large for the buffer, one buffer at a time, cut at line ends so lines and their numbers stay
// whole: memory stays at the buffer's size whatever the file's. A single line longer than the buffer is searched in
// pieces, and a text that straddles two pieces of it is missed. `left`: hits still wanted per needle, counted down.
// Returns the file's hits, none when it holds a private key.
export function searchLarge(search: Search, index: number, abs: string | Buffer, left: number[]): Hit[] {
  const { needles, lineChars } = search;
  const buffer = search.keeper.chunk;
  let fd: number;
  try {
    fd = fs.openSync(abs, READ_FLAGS);
  } catch {
    return [];
  }
  const found: Hit[] = [];
  let key = false;
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return [];
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
      if (first && binaryReason(buffer.subarray(0, filled)) !== undefined) return [];
      const end = n < buffer.length - carry;
      const lastNewline = end ? filled - 1 : buffer.lastIndexOf(10, filled - 1);
      const cut = end || lastNewline === -1 ? filled : lastNewline + 1;
      const piece = buffer.subarray(0, cut);
      // The texts the scan says the piece may hold (scan.ts): the others are not looked for in it.
      const present = search.keeper.present(piece);
      let open = 0;
      for (let p = 0; p < needles.length; p++) {
        const needle = needles[p];
        const wanted = left[p] ?? 0;
        if (needle === undefined || wanted <= 0) continue;
        if (((present >>> (search.textOf[p] ?? 0)) & 1) === 0) {
          open++;
          continue;
        }
        const hits = searchBytes(piece, needle, wanted, lineChars);
        if (hits.length > 0 && !counting) {
          lineBase = newlinesBetween(fd, 0, pieceStart);
          counting = true;
        }
        for (const hit of hits) found.push([p, index, hit.line + lineBase, hit.text]);
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
  }
  // A file holding a private key gives no hits.
  return key ? [] : found;
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

// The line of a hit, with its indentation (a SEARCH copied from it matches as the file has it; the nesting shows), and
// clipped around the hit when it is long (minified code has megabyte lines).
// A line that is not UTF-8 is decoded in the encoding of the bytes around it (a Windows-1251 file's hits read as
// Cyrillic); only files with such hits pay for finding out.
function clip(bytes: Buffer, start: number, end: number, at: number, length: number, max: number): string {
  if (end - start <= max * 3) {
    const line = textOf(bytes, start, end).replace(/\r$/, '').trimEnd();
    if (line.length <= max) return line;
  }
  const from = Math.max(start, at - Math.floor(max / 2));
  const to = Math.min(end, from + max + length);
  const inner = textOf(bytes, from, to)
    .replace(/^\uFFFD+|\uFFFD+$/g, '')
    .trim();
  return `${from > start ? '… ' : ''}${inner}${to < end ? ' …' : ''}`;
}

function textOf(bytes: Buffer, from: number, to: number): string {
  const piece = bytes.subarray(from, to);
  if (isUtf8(piece)) return piece.toString('utf8');
  const encoding = encodingOf(bytes.subarray(0, Math.min(bytes.length, 1 << 20)));
  return encoding === 'utf8' ? piece.toString('utf8') : decode(piece, encoding);
}
