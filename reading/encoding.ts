// Text files that are not UTF-8 — Windows-1251 (Delphi, 1C, old PHP), KOI8-R, CP866, Windows-1252, UTF-16 with a BOM
// — are read as text and written back in their own encoding.
//
// Detection: a BOM decides; then valid UTF-8 is UTF-8 (most files; checked natively by buffer.isUtf8); only what is
// left is given to jschardet (a port of Mozilla's universal charset detector, kept up to date), limited to the
// encodings above: unlimited, it names Mac and ISO variants for short Cyrillic texts. On the short samples tested
// (one line of Russian, 13 bytes and up) it names Windows-1251, KOI8-R and CP866 right; what it cannot tell is read
// as Windows-1251, the commonest legacy encoding of this tool's users. Conversion is iconv-lite's (pure JS, the
// converter of Express's body parser), which encodes as well as decodes. Both load only when a file needs them.
// Binary files never get here: binary.ts judges them first.

import { createRequire } from 'node:module';
import { isUtf8 } from 'node:buffer';
import type * as Iconv from 'iconv-lite';
import type * as Jschardet from 'jschardet';
import { isRecord } from '../common/unknown.ts';

export type Encoding = 'utf8' | 'utf16le' | 'utf16be' | 'windows-1251' | 'koi8-r' | 'cp866' | 'windows-1252';

// jschardet's names for the encodings detection may choose from.
const DETECTED: ReadonlyMap<string, Encoding> = new Map([
  ['windows-1251', 'windows-1251'],
  ['koi8-r', 'koi8-r'],
  ['ibm866', 'cp866'],
  ['windows-1252', 'windows-1252'],
]);
const CANDIDATES = ['UTF-8', 'windows-1251', 'KOI8-R', 'IBM866', 'windows-1252'];
const FALLBACK: Encoding = 'windows-1251';

const load = createRequire(import.meta.url);
let iconv: typeof Iconv | undefined;
let chardet: typeof Jschardet | undefined;

function converter(): typeof Iconv {
  const mod: unknown = iconv ?? load('iconv-lite');
  if (!isRecord(mod) || typeof mod.decode !== 'function' || typeof mod.encode !== 'function')
    throw new Error('iconv-lite did not load');
  iconv = mod as typeof Iconv;
  return iconv;
}

function detector(): typeof Jschardet {
  const mod: unknown = chardet ?? load('jschardet');
  if (!isRecord(mod) || typeof mod.detect !== 'function') throw new Error('jschardet did not load');
  chardet = mod as typeof Jschardet;
  return chardet;
}

// The encoding of a text file, from its bytes (the whole file, or its beginning: a UTF-8 sequence cut at the end of
// a sample does not count against it).
export function encodingOf(bytes: Uint8Array): Encoding {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf16be';
  if (isUtf8(bytes) || isUtf8(bytes.subarray(0, completeUtf8(bytes)))) return 'utf8';
  const found = detector().detect(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
    detectEncodings: CANDIDATES,
  });
  return DETECTED.get((found.encoding ?? '').toLowerCase()) ?? FALLBACK;
}

// Where the last whole UTF-8 sequence of a sample ends: up to three bytes of a cut sequence are left out.
function completeUtf8(bytes: Uint8Array): number {
  let end = bytes.length;
  for (let back = 0; back < 3 && end > 0; back++) {
    const b = bytes[end - 1] ?? 0;
    if (b < 0x80) break;
    end--;
    if (b >= 0xc0) break;
  }
  return end;
}

// The text of the bytes; a BOM stays as U+FEFF at its start, so the file's conventions keep it.
export function decode(bytes: Uint8Array, encoding: Encoding): string {
  if (encoding === 'utf8') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return converter().decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding, {
    stripBOM: false,
  });
}

// The bytes of a text in an encoding, or the first character it cannot hold, with its line.
export function encode(text: string, encoding: Encoding): Buffer | { char: string; line: number } {
  if (encoding === 'utf8') return Buffer.from(text, 'utf8');
  const bytes = converter().encode(text, encoding, { addBOM: false });
  const back = decode(bytes, encoding);
  if (back === text) return bytes;
  let i = 0;
  while (i < text.length && text[i] === back[i]) i++;
  const code = text.codePointAt(i) ?? 0;
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < i; at = text.indexOf('\n', at + 1)) line++;
  return { char: String.fromCodePoint(code), line };
}

// How an encoding is named to people and to the model.
export function encodingName(encoding: Encoding): string {
  return encoding === 'utf8'
    ? 'UTF-8'
    : encoding === 'utf16le'
      ? 'UTF-16LE'
      : encoding === 'utf16be'
        ? 'UTF-16BE'
        : encoding === 'cp866'
          ? 'CP866'
          : encoding === 'koi8-r'
            ? 'KOI8-R'
            : encoding === 'windows-1251'
              ? 'Windows-1251'
              : 'Windows-1252';
}
