// Private keys found by their content, whatever the file is called: a PEM block (`-----BEGIN … PRIVATE KEY-----`,
// which covers RSA, EC, DSA, OpenSSH, PKCS#8 and PGP's `PRIVATE KEY BLOCK`) with its body, or a PuTTY key file. A file
// that holds one is never sent, searched, quoted or written, whichever way it is read.
//
// A key counts with its body: a README that quotes the BEGIN line to explain the format is not a key. The body is
// what follows the BEGIN line: a line of base64 as long as a key's (40 characters and up), or any line that is not a
// placeholder (`...`, `<your key>`) before the matching END line. A key inside a JSON string (`"-----BEGIN PRIVATE
// KEY-----\nMIIE…"`, as service-account files hold them) has its `\n` escapes read as line ends.
//
// Bytes are looked at as they are and, when they hold NUL bytes, without them: so a key in a UTF-16 file (what
// PowerShell 5.1's `>` writes), LE or BE, is seen too. (The markers are built from pieces so that this file does not
// hold one.)

import fs from 'node:fs';

const BEGIN = '-----' + 'BEGIN ';
const PRIVATE = 'PRIVATE ' + 'KEY';
const PUTTY = 'PuTTY-User-' + 'Key-File-';
const BEGIN_BYTES = Buffer.from(BEGIN);
const PUTTY_BYTES = Buffer.from(PUTTY);

// How far after a BEGIN line its body and END line are looked for: a 4096-bit RSA key is about 3,200 characters.
const LOOKAHEAD = 8 << 10;
// A base64 line long enough to be a key's (PEM lines are 64 characters; the first line of a cut key may be shorter).
const KEY_LINE = /^[A-Za-z0-9+/=]{40,}$/;
// `Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`, `Comment: …`: headers between BEGIN and the body.
const HEADER = /^[A-Za-z][\w-]*:\s/;
// What documentation puts where a body would be.
const PLACEHOLDER = /^(?:[.…\s]*|<[^>]*>|\[[^\]]*\]|\{[^}]*\}|x+|\*+|-+|(?:your|the|insert|paste)\b.*)$/i;

// The 1-based line of the first private key in a text, or undefined.
export function privateKeyLine(text: string): number | undefined {
  const at = firstKey(text);
  if (at === undefined) return undefined;
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

// Where the first private key of a text starts, or undefined.
function firstKey(text: string): number | undefined {
  const putty = text.indexOf(PUTTY);
  let first = putty === -1 ? undefined : putty;
  for (
    let at = text.indexOf(BEGIN);
    at !== -1 && (first === undefined || at < first);
    at = text.indexOf(BEGIN, at + 1)
  ) {
    if (isKeyAt(text, at)) first = at;
  }
  return first;
}

// Whether the BEGIN marker at `at` opens a private key with its body.
function isKeyAt(text: string, at: number): boolean {
  const markerEnd = text.indexOf('-----', at + BEGIN.length);
  if (markerEnd === -1 || markerEnd - at > 80) return false;
  const label = text.slice(at + BEGIN.length, markerEnd);
  if (!label.includes(PRIVATE) || label.includes('\n')) return false;
  const after = text.slice(markerEnd + 5, markerEnd + 5 + LOOKAHEAD).replace(/\\r\\n|\\n|\\r/g, '\n');
  const end = `-----END ${label}-----`;
  const [rest = '', ...lines] = after.split('\n');
  // The body on the BEGIN line itself (a key folded into one line of an env file).
  if (/[A-Za-z0-9+/=]{40,}/.test(rest)) return true;
  let body = false;
  for (const raw of lines) {
    // A line of a JSON string or a quoted block: quotes, commas and the rest of the escape taken off.
    const line = raw
      .trim()
      .replace(/^["'`]+|["'`,;]+$/g, '')
      .trim();
    if (line === '' || HEADER.test(line)) continue;
    if (line.includes(end)) return body;
    if (KEY_LINE.test(line)) return true;
    if (!PLACEHOLDER.test(line)) body = true;
  }
  return false;
}

// Whether bytes hold a private key: looked at as they are and, when they hold NUL bytes (UTF-16, UTF-32), without
// them. Only the places that hold a marker are decoded.
export function holdsPrivateKey(bytes: Uint8Array): boolean {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytesHoldKey(b)) return true;
  return b.indexOf(0) !== -1 && bytesHoldKey(withoutNuls(b));
}

function bytesHoldKey(b: Buffer): boolean {
  if (b.indexOf(PUTTY_BYTES) !== -1) return true;
  for (let at = b.indexOf(BEGIN_BYTES); at !== -1; at = b.indexOf(BEGIN_BYTES, at + 1)) {
    // Latin-1 maps each byte to one character: offsets stay, and the ASCII of a marker and a body reads as itself.
    const window = b.toString('latin1', at, Math.min(b.length, at + LOOKAHEAD + 200));
    if (isKeyAt(window, 0)) return true;
  }
  return false;
}

function withoutNuls(b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(b.length);
  let n = 0;
  for (let i = 0; i < b.length; i++) {
    const byte = b[i] ?? 0;
    if (byte !== 0) out[n++] = byte;
  }
  return out.subarray(0, n);
}

// Files up to this size are looked at whole for a private key; larger ones where they are read.
export const KEY_WHOLE_FILE = 64 << 20;

// Whether the bytes of an open file from `from` to `size` hold a private key, read a buffer at a time with an overlap
// of a marker's lookahead, so a key across two reads is seen whole. NEED and FIND look the same way.
export function restHoldsKey(fd: number, buffer: Buffer, from: number, size: number): boolean {
  const overlap = LOOKAHEAD + 1024;
  const step = Math.max(1, buffer.length - overlap, buffer.length >> 1);
  for (let pos = from; pos < size; pos += step) {
    const n = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - pos), pos);
    if (n === 0) return false;
    if (holdsPrivateKey(buffer.subarray(0, n))) return true;
    if (pos + n >= size) return false;
  }
  return false;
}
