// A text to look for, as bytes, and where it next occurs in a buffer: jumps between occurrences of its rarest byte.

// The text and the position of its rarest byte, or -1. `fold`: ASCII letters match in either case (the bytes are
// then in lower case).
export type Needle = { bytes: Buffer; rare: number; fold: boolean };

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

// How common, per 100 bytes, a needle's rarest byte may be for a search to jump between its occurrences.
const RARE_ENOUGH = 0.5;

// A needle for `text`. `counts` (bytes seen in the folder's files, when known) beats the fixed table: a folder of SVG
// paths is full of z and x. `fold`: ASCII letters in either case.
export function needleOf(text: string, counts?: Uint32Array, fold = false): Needle {
  const bytes = Buffer.from(text, 'utf8');
  if (fold) for (let i = 0; i < bytes.length; i++) bytes[i] = lower(bytes[i] ?? 0);
  const score = scoreOf(counts);
  // Folded, a letter is looked for in both cases: it costs what both cost.
  const cost = (byte: number) => (fold && byte >= 97 && byte <= 122 ? score(byte) + score(byte - 32) : score(byte));
  let rare = 0;
  for (let i = 1; i < bytes.length; i++) if (cost(bytes[i] ?? 0) < cost(bytes[rare] ?? 0)) rare = i;
  if (fold) return { bytes, rare, fold };
  // Jumping between the rarest byte's occurrences is a loop in JavaScript, two calls into Node for each; Buffer's own
  // search runs in C++, looking for the first byte with memchr. On Linux's C, the jumps lost to it for every anchor
  // above about one in 200 bytes, and by 2-4x in a fresh process (`return`, `function`, `kfree(`; issue 30), so they
  // are taken only below that.
  return { bytes, rare: bytes.length > 1 && score(bytes[rare] ?? 0) < RARE_ENOUGH ? rare : -1, fold };
}

// How common a byte is, per 100 bytes of the folder's files when `counts` are known, else from the fixed table.
export function scoreOf(counts?: Uint32Array): (byte: number) => number {
  const total = counts === undefined ? 0 : counts.reduce((a, b) => a + b, 0);
  return (byte) =>
    total > 0 && counts !== undefined ? ((counts[byte] ?? 0) / total) * 100 : (COMMONNESS[byte] ?? 9) / 4;
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
    if (bytes[start + other] === otherByte && bytes.compare(n, 0, n.length, start, start + n.length) === 0)
      return start;
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
