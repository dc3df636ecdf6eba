// Reads files with bounded memory. Files are opened non-blocking, so a FIFO that slipped past a check cannot hang the
// read, and `fstat` on the open descriptor decides what it is.

import fs from 'node:fs';
import { isAscii } from 'node:buffer';
import { countLines } from '../common/text.ts';
import { READ_FLAGS } from './open.ts';

const CHUNK = 1 << 20;

export type Opened = { fd: number; size: number };

// Opens a regular file for reading, or returns undefined for anything else (or anything that fails to open).
export function openFile(abs: string): Opened | undefined {
  let fd: number;
  try {
    fd = fs.openSync(abs, READ_FLAGS);
  } catch {
    return undefined;
  }
  const stat = fs.fstatSync(fd);
  if (!stat.isFile()) {
    fs.closeSync(fd);
    return undefined;
  }
  return { fd, size: stat.size };
}

export type Lines = {
  text: string;
  // The first and last line sent (1-based); last is first - 1 when nothing was sent.
  first: number;
  last: number;
  // False when the text stops before the end of the asked range (or of the file).
  whole: boolean;
  // What was left out of the asked range, when not whole. Counted exactly up to REST_COUNTED bytes, else estimated.
  rest: { lines: number; chars: number; exact: boolean };
  // Where the text sent lies in the file, in bytes.
  start: number;
  end: number;
};

const REST_COUNTED = 32 << 20;

// Lines `from`..`to` (1-based, inclusive) of an open file, at most `maxChars` characters, cut at a line end.
// Reads chunk by chunk: a huge file costs what is sent, not its size.
export function readLines(file: Opened, from: number, to: number, maxChars: number): Lines {
  const byteCap = maxChars * 3 + 4;
  const parts: Buffer[] = [];
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(file.size, 1)));
  let kept = 0;
  let line = 1;
  let startByte = -1;
  let endedEarly = false;

  outer: for (let pos = 0; pos < file.size; ) {
    const n = fs.readSync(file.fd, chunk, 0, chunk.length, pos);
    if (n === 0) break;
    for (let at = 0; at < n; ) {
      const nl = chunk.indexOf(10, at);
      const lineEnd = nl === -1 || nl >= n ? n : nl + 1;
      if (line >= from) {
        if (startByte === -1) startByte = pos + at;
        parts.push(Buffer.from(chunk.subarray(at, lineEnd)));
        kept += lineEnd - at;
        // Bounded by bytes, not only at line ends: a file with no line ends is not read whole.
        if (kept > byteCap) {
          endedEarly = true;
          break outer;
        }
      }
      at = lineEnd;
      if (chunk[lineEnd - 1] === 10) {
        line++;
        if (line > to) break outer;
      }
    }
    pos += n;
  }

  let text = Buffer.concat(parts).toString('utf8');
  let whole = !endedEarly;
  if (!whole || text.length > maxChars) {
    // Cut at the last line end that fits; a single line longer than the limit is cut inside.
    const limit = Math.min(text.length, maxChars);
    const cut = text.lastIndexOf('\n', limit - 1);
    text = text.slice(0, cut === -1 ? limit : cut + 1);
    whole = false;
  }
  const last = from + countLines(text) - 1;
  const start = Math.max(startByte, 0);
  const end = start + Buffer.byteLength(text);
  if (whole) return { text, first: from, last, whole, rest: { lines: 0, chars: 0, exact: true }, start, end };
  return { text, first: from, last, whole, rest: countRest(file, end, to - last), start, end };
}

// Lines `from`..`to` of a text already decoded (a file in another encoding than UTF-8, read whole), at most `maxChars`
// characters, cut at a line end. `start` and `end` span the whole file: where the bytes sent lie is not known.
export function textLines(text: string, size: number, from: number, to: number, maxChars: number): Lines {
  let at = 0;
  for (let line = 1; line < from && at !== -1; line++)
    at = text.indexOf('\n', at) === -1 ? -1 : text.indexOf('\n', at) + 1;
  if (at === -1 || at >= text.length)
    return {
      text: '',
      first: from,
      last: from - 1,
      whole: true,
      rest: { lines: 0, chars: 0, exact: true },
      start: 0,
      end: size,
    };
  let end = at;
  let line = from;
  for (; line <= to && end < text.length; line++) {
    const nl = text.indexOf('\n', end);
    end = nl === -1 ? text.length : nl + 1;
  }
  let sent = text.slice(at, end);
  let whole = true;
  if (sent.length > maxChars) {
    const cut = sent.lastIndexOf('\n', maxChars - 1);
    sent = sent.slice(0, cut === -1 ? maxChars : cut + 1);
    whole = false;
  }
  const last = from + countLines(sent) - 1;
  if (whole)
    return { text: sent, first: from, last, whole, rest: { lines: 0, chars: 0, exact: true }, start: 0, end: size };
  const restText = text.slice(at + sent.length, end);
  return {
    text: sent,
    first: from,
    last,
    whole,
    rest: { lines: countLines(restText), chars: restText.length, exact: true },
    start: 0,
    end: size,
  };
}

// UTF-16 characters in UTF-8 bytes: one per byte for ASCII (checked natively), else continuation bytes add nothing
// and a 4-byte sequence is two units.
function charsIn(bytes: Buffer, from: number, to: number): number {
  const piece = bytes.subarray(from, to);
  if (isAscii(piece)) return piece.length;
  let chars = 0;
  for (let i = 0; i < piece.length; i++) {
    const b = piece[i] ?? 0;
    if ((b & 0xc0) !== 0x80) chars += b >= 0xf0 ? 2 : 1;
  }
  return chars;
}

// How many lines a file has (exact up to REST_COUNTED bytes, estimated past them).
export function countFileLines(file: Opened): { lines: number; exact: boolean } {
  const { lines, exact } = countRest(file, 0, Infinity);
  return { lines, exact };
}

// Lines and UTF-16 characters from byte `start` to the end of the file or of `maxLines` lines, without decoding.
// Past REST_COUNTED bytes it stops and estimates from the file size.
function countRest(file: Opened, start: number, maxLines: number): { lines: number; chars: number; exact: boolean } {
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(file.size - start, 1)));
  let lines = 0;
  let chars = 0;
  let lastByte = 10;
  for (let pos = start; pos < file.size; ) {
    if (pos - start > REST_COUNTED) return { lines, chars: chars + (file.size - pos), exact: false };
    const n = fs.readSync(file.fd, chunk, 0, chunk.length, pos);
    if (n === 0) break;
    // Line ends by memchr, not byte by byte: counting the rest of a 500 MB file was most of a NEED's time.
    for (let i = chunk.indexOf(10, 0); i !== -1 && i < n; i = chunk.indexOf(10, i + 1)) {
      if (++lines === maxLines) return { lines, chars: chars + charsIn(chunk, 0, i + 1), exact: true };
    }
    chars += charsIn(chunk, 0, n);
    lastByte = chunk[n - 1] ?? 10;
    pos += n;
  }
  if (lastByte !== 10) lines++;
  return { lines, chars, exact: true };
}
