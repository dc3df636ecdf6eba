// A file's text, read whole: the one reader for NEED (files up to TEXT_READ_BYTES), the check of the model's EDITs,
// the preview of a proposal and its apply. Whatever reads a file's text for the model or for a change goes through
// here, so they agree on what is binary, what is withheld (a private key, in any encoding), what is too large to read,
// and which encoding the text is in. (FIND reads bytes for speed, and takes the same binary and key tests from the same
// modules; NEED of a range of a larger UTF-8 file reads only that range: reading/read.ts.)
//
// A path given here has been through the path rule already: this module judges content, not places.

import fs from 'node:fs';
import { binaryReason, controlShare, CONTROL_SHARE, isControl } from './binary.ts';
import { decode, encode, encodingName, encodingOf, type Encoding } from './encoding.ts';
import { privateKeyLine } from './private-keys.ts';
import { READ_FLAGS } from './open.ts';
import { errnoOf } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';

// Files read whole, at most: NEED reads larger UTF-8 files a range at a time; a change is not made to them.
export const TEXT_READ_BYTES = 16 << 20;

// Why a file's text is not given, as data; the words are made where it is shown (unfitReason).
export type Unfit =
  | { kind: 'binary'; what: string }
  // `line`: where the key begins.
  | { kind: 'key'; line: number | undefined }
  | { kind: 'too-large'; bytes: number; limit: number }
  | { kind: 'unreadable'; code: string }
  // The bytes are not all the encoding's: decoding and encoding again would change bytes no change touched.
  | { kind: 'inexact'; encoding: Encoding };

export type TextRead =
  | { kind: 'text'; text: string; encoding: Encoding; bytes: Buffer }
  | { kind: 'unfit'; why: Unfit; bytes: number };

// A text as the model is shown it: without the byte-order mark a file may begin with.
export function shownText(text: string): string {
  return text.replace(/^\uFEFF/, '');
}

// Reads the file at `abs` (a real path the path rule gave) whole, and judges it. Opened without following a final
// symlink and without blocking, so a file swapped for a link or a FIFO since it was judged is not read.
export function readText(abs: string, limit = TEXT_READ_BYTES): TextRead {
  let fd: number;
  try {
    fd = fs.openSync(abs, READ_FLAGS);
  } catch (error) {
    return { kind: 'unfit', why: { kind: 'unreadable', code: errnoOf(error) ?? 'error' }, bytes: 0 };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { kind: 'unfit', why: { kind: 'unreadable', code: 'not a regular file' }, bytes: 0 };
    if (stat.size > limit)
      return { kind: 'unfit', why: { kind: 'too-large', bytes: stat.size, limit }, bytes: stat.size };
    const bytes = Buffer.allocUnsafe(stat.size);
    let n = 0;
    while (n < bytes.length) {
      const got = fs.readSync(fd, bytes, n, bytes.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return judgeText(bytes.subarray(0, n));
  } catch (error) {
    return { kind: 'unfit', why: { kind: 'unreadable', code: errnoOf(error) ?? 'error' }, bytes: 0 };
  } finally {
    fs.closeSync(fd);
  }
}

// The same judgement of bytes already read: binary by their first bytes, then decoded in their encoding, then
// withheld when the text holds a private key (the decoded text is looked at, so a UTF-16 file's key is seen).
export function judgeText(bytes: Buffer): TextRead {
  const binary = binaryReason(bytes);
  if (binary !== undefined) return { kind: 'unfit', why: { kind: 'binary', what: binary }, bytes: bytes.length };
  const encoding = encodingOf(bytes);
  const text = decode(bytes, encoding);
  const key = privateKeyLine(text);
  if (key !== undefined) return { kind: 'unfit', why: { kind: 'key', line: key }, bytes: bytes.length };
  return { kind: 'text', text, encoding, bytes };
}

// What a change may be made to: text with no part of it binary, that reads back byte for byte in its encoding (so the
// bytes a change does not touch stay as they were). The EDIT check, the preview and the apply all ask this.
export function forChange(read: TextRead): TextRead {
  if (read.kind !== 'text') return read;
  const line = binaryLine(read.text);
  if (line !== undefined)
    return {
      kind: 'unfit',
      why: { kind: 'binary', what: `from line ${formatCount(line)} on it is mostly control characters` },
      bytes: read.bytes.length,
    };
  const again = encode(read.text, read.encoding);
  if (!Buffer.isBuffer(again) || !again.equals(read.bytes))
    return { kind: 'unfit', why: { kind: 'inexact', encoding: read.encoding }, bytes: read.bytes.length };
  return read;
}

// Where a text turns binary: the first line of a stretch of BLOCK characters that is mostly control characters, or
// undefined. NEED asks it of what it sends, a change of the whole file: a file NEED would not send whole as text is
// not replaced blind.
const BLOCK = 8_000;

export function binaryLine(text: string): number | undefined {
  for (let from = 0; from < text.length; from += BLOCK) {
    const block = text.slice(from, from + BLOCK);
    // A short last block is judged with the one before it: a few controls at the very end are not a binary part.
    const judged = block.length < BLOCK && from > 0 ? text.slice(Math.max(0, text.length - BLOCK)) : block;
    if (controlShare(judged) > CONTROL_SHARE) {
      // The line of the stretch's first control character: where the binary part begins.
      let at = from;
      while (at < text.length && !isControl(text.charCodeAt(at))) at++;
      let line = 1;
      for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
      return line;
    }
  }
  return undefined;
}

// Why a file's text is not given, in words for the model and for people.
export function unfitReason(why: Unfit): string {
  switch (why.kind) {
    case 'binary':
      return `it is binary (${why.what})`;
    case 'key':
      return `it holds a private key${why.line === undefined ? '' : ` (line ${formatCount(why.line)})`}`;
    case 'too-large':
      return `it is ${megabytes(why.bytes)}, over the ${megabytes(why.limit)} deepwork reads whole`;
    case 'unreadable':
      return `it cannot be read (${why.code})`;
    case 'inexact':
      return `it does not read back byte for byte as ${encodingName(why.encoding)} (it holds bytes that are not ${encodingName(why.encoding)}, or a character cut off at its end), so a change would alter bytes it does not touch`;
  }
}

function megabytes(bytes: number): string {
  const mb = bytes / (1 << 20);
  return `${mb >= 10 ? formatCount(Math.round(mb)) : mb.toFixed(1)} MB`;
}
