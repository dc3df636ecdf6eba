// Tells binary files from text by their first bytes: the signature of a known format, a NUL byte, or a share of
// control characters no text has. Text is not judged by whether it is valid UTF-8: a Windows-1251 or Latin-1 file
// is text in another encoding (with few controls), not binary.

// How many bytes of a file are looked at (Git's rule of thumb: a NUL in the first 8,000 makes a file binary).
export const SNIFF = 8000;

// Signatures at the start of a file, as bytes, with what they say the file is. A PDF may hold its first NUL tens of
// kilobytes in, past what is sniffed: its signature says what it is at once.
const SIGNATURES: ReadonlyArray<[bytes: number[], offset: number, what: string]> = [
  [[0x25, 0x50, 0x44, 0x46, 0x2d], 0, 'a PDF document'],
  [[0x50, 0x4b, 0x03, 0x04], 0, 'a ZIP archive (or a file built on one: docx, xlsx, jar, apk)'],
  [[0x50, 0x4b, 0x05, 0x06], 0, 'an empty ZIP archive'],
  [[0x89, 0x50, 0x4e, 0x47], 0, 'a PNG image'],
  [[0xff, 0xd8, 0xff], 0, 'a JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 0, 'a GIF image'],
  [[0x57, 0x45, 0x42, 0x50], 8, 'a WebP image'],
  [[0x00, 0x00, 0x01, 0x00], 0, 'an icon'],
  [[0x1f, 0x8b], 0, 'a gzip archive'],
  [[0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59], 0, 'a bzip2 archive'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 0, 'an xz archive'],
  [[0x28, 0xb5, 0x2f, 0xfd], 0, 'a zstd archive'],
  [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], 0, 'a 7-Zip archive'],
  [[0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], 0, 'a RAR archive'],
  [[0x75, 0x73, 0x74, 0x61, 0x72], 257, 'a tar archive'],
  [[0x00, 0x61, 0x73, 0x6d], 0, 'a WebAssembly module'],
  [[0x77, 0x4f, 0x46, 0x46], 0, 'a WOFF font'],
  [[0x77, 0x4f, 0x46, 0x32], 0, 'a WOFF2 font'],
  [[0x00, 0x01, 0x00, 0x00, 0x00], 0, 'a TrueType font'],
  [[0x4f, 0x54, 0x54, 0x4f, 0x00], 0, 'an OpenType font'],
  [[0x7f, 0x45, 0x4c, 0x46], 0, 'an ELF executable'],
  [[0xca, 0xfe, 0xba, 0xbe], 0, 'a Java class file (or a Mach-O binary)'],
  [[0xcf, 0xfa, 0xed, 0xfe], 0, 'a Mach-O binary'],
  [
    [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x20, 0x33, 0x00],
    0,
    'an SQLite database',
  ],
  [[0x49, 0x44, 0x33, 0x03], 0, 'an MP3 file'],
  [[0x49, 0x44, 0x33, 0x04], 0, 'an MP3 file'],
  [[0x4f, 0x67, 0x67, 0x53], 0, 'an Ogg media file'],
  [[0x66, 0x4c, 0x61, 0x43], 0, 'a FLAC file'],
  [[0x66, 0x74, 0x79, 0x70], 4, 'an MP4 or QuickTime media file'],
  [[0x1a, 0x45, 0xdf, 0xa3], 0, 'a Matroska or WebM media file'],
];

// The format a file's first bytes name, or undefined.
// Indexed loops, not for-of with destructuring: FIND asks this of every file it reads, mostly in a fresh process,
// where the iterators cost 3–6 ms for 60 files before V8 optimized them.
export function signatureOf(bytes: Uint8Array): string | undefined {
  outer: for (let s = 0; s < SIGNATURES.length; s++) {
    const entry = SIGNATURES[s];
    if (entry === undefined) continue;
    const signature = entry[0];
    const offset = entry[1];
    if (bytes.length < offset + signature.length) continue;
    for (let i = 0; i < signature.length; i++) if (bytes[offset + i] !== signature[i]) continue outer;
    return entry[2];
  }
  return undefined;
}

// Whether the first bytes of a file say it is binary: a signature or a NUL. Cheap enough for every file FIND reads.
// UTF-16 text with its byte order mark is text, NULs and all.
export function isBinary(bytes: Uint8Array): boolean {
  if (hasUtf16Bom(bytes)) return false;
  return bytes.subarray(0, SNIFF).indexOf(0) !== -1 || signatureOf(bytes) !== undefined;
}

export function hasUtf16Bom(bytes: Uint8Array): boolean {
  return (
    bytes.length % 2 === 0 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
  );
}

// Above this share of control characters a text is taken as binary: text, in any encoding, has next to none (tab,
// line ends, form feed and ESC of coloured logs are not counted); random bytes have about one in nine.
export const CONTROL_SHARE = 1 / 40;

// What a file is when its first bytes say it is binary, in words for the model; undefined for text.
export function binaryReason(bytes: Uint8Array): string | undefined {
  const sample = bytes.subarray(0, SNIFF);
  if (hasUtf16Bom(sample)) return undefined;
  const named = signatureOf(sample);
  if (named !== undefined) return named;
  if (sample.indexOf(0) !== -1) return 'it holds NUL bytes';
  return controlShare(sample) > CONTROL_SHARE ? 'it is mostly control characters' : undefined;
}

// The share of a text's characters (or bytes) that are control characters no text has. Counted by the regular
// expression engine, which runs compiled code from the first call: FIND judges every file it reads by its first 8,000
// bytes, mostly in a fresh process, where a loop in JavaScript took 6–9 ms for 60 files before V8 optimized it.
export function controlShare(text: Uint8Array | string): number {
  if (text.length === 0) return 0;
  const chars =
    typeof text === 'string' ? text : Buffer.from(text.buffer, text.byteOffset, text.length).toString('latin1');
  return (chars.match(CONTROLS)?.length ?? 0) / text.length;
}

// A control character no text has: tab, line ends, form feed and ESC (coloured logs) are not counted.
export function isControl(c: number): boolean {
  return (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 11 && c !== 27) || c === 127;
}

// The characters isControl counts: below 32 but for 9–13 and 27, and 127.
const CONTROLS = /[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]/g;

export function isMostlyControls(text: string): boolean {
  return controlShare(text) > CONTROL_SHARE;
}
