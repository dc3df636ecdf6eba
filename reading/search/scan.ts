// Which of a search's texts a file may hold, in one pass over its bytes for all of them: a small WebAssembly module
// (written out instruction by instruction in scan-module.ts) that compares 16 bytes at a time with each text's rarest
// pair of neighbouring bytes, and checks the whole text where one matches. Searched one text at a time, five texts
// cost 3× one on the Linux source (memchr per text and again per case-blind twin); this pass costs about what one
// memchr does, and the exact search (needle.ts, lines.ts) then runs only for the texts a file may hold (issue 30).
//
// The pass ignores the case of ASCII letters and more: every byte is compared with 0x20 set (so `[` matches `{` too).
// It may say a text is there when it is not, never the reverse; the search proper decides. The bytes must lie in the
// module's memory (a file is read straight into it: `read`, `chunk` and `arena` are views of it), so nothing is copied.

import { scoreOf, type Needle } from './needle.ts';
import {
  BYTES_AT,
  HIGH,
  HIGH_NEXT,
  LOW,
  LOW_NEXT,
  MAX_TEXTS,
  RECORD,
  SCRATCH,
  TABLE,
  wasm,
  type WasmModule,
} from './scan-module.ts';
import { SCAN_WASM } from './scan-bytes.ts';

export { MAX_TEXTS } from './scan-module.ts';

// The module's memory: TABLE (the texts of the current search), then the read buffer and the piece buffer of a large
// file (1 MB each), then the arena of `budget` bytes that the keeper keeps files in.
export type Scanner = {
  read: Buffer;
  chunk: Buffer;
  arena: Buffer;
  // Sets the texts looked for, as bytes in lower case (folded needles); `score` says how common a byte is (needle.ts).
  // False when they do not fit the table (more than MAX_TEXTS, or too long), or are undefined: `present` then says
  // every text may be there.
  setTexts(needles: readonly Needle[] | undefined, score?: (byte: number) => number): boolean;
  // Bit t set: text t may be in `bytes`. Every bit set when `bytes` is not in the module's memory or no texts fit.
  present(bytes: Buffer): number;
};

// The module's memory grows in pages of 64 KB; the read and piece buffers are 1 MB each.
const PAGE = 64 << 10;
const BUFFER = 1 << 20;

export function createScanner(budget: number): Scanner {
  const pages = Math.ceil((TABLE + 2 * BUFFER + budget) / PAGE);
  const memory = new wasm.Memory({ initial: pages, maximum: pages });
  const instance = new wasm.Instance(module(), { env: { memory } });
  const scan = instance.exports.scan as (ptr: number, len: number, count: number) => number;
  const heap = Buffer.from(memory.buffer);
  let count = 0;
  // -1 until texts are set: every text may be anywhere.
  let all = -1;
  return {
    read: heap.subarray(TABLE, TABLE + BUFFER),
    chunk: heap.subarray(TABLE + BUFFER, TABLE + 2 * BUFFER),
    arena: heap.subarray(TABLE + 2 * BUFFER, TABLE + 2 * BUFFER + budget),
    setTexts(needles, score = scoreOf()) {
      count = 0;
      all = -1;
      if (needles === undefined || needles.length > MAX_TEXTS) return false;
      let at = BYTES_AT;
      heap.fill(0, LOW, SCRATCH);
      for (const [t, needle] of needles.entries()) {
        const { bytes } = needle;
        if (at + bytes.length > TABLE) return false;
        const rare = rarestPair(bytes, score);
        const record = t * RECORD;
        heap[record] = (bytes[rare] ?? 0) | 0x20;
        const bit = 1 << (t % 8);
        mark(heap, LOW, HIGH, bytes[rare] ?? 0, bit);
        if (rare + 1 < bytes.length) mark(heap, LOW_NEXT, HIGH_NEXT, bytes[rare + 1] ?? 0, bit);
        // A text of one byte: any byte after it will do.
        else for (let half = 0; half < 16; half++) mark(heap, LOW_NEXT, HIGH_NEXT, half * 17, bit);
        heap.writeInt32LE(rare, record + 16);
        heap.writeInt32LE(bytes.length, record + 20);
        heap.writeInt32LE(at, record + 24);
        for (const byte of bytes) heap[at++] = byte | 0x20;
      }
      count = needles.length;
      all = count === 0 ? 0 : 2 ** count - 1;
      return true;
    },
    present(bytes) {
      if (all === -1 || bytes.buffer !== memory.buffer) return -1;
      if (count === 0) return 0;
      return scan(bytes.byteOffset, bytes.length, count);
    },
  };
}

// Where the text's rarest pair of neighbouring bytes starts (both cases of a letter counted): the pair the scan looks
// for. A pair is far rarer than its rarer byte (in JavaScript, "missing.Symbol()"'s rarest byte y is in every Symbol;
// y followed by m is too, but . followed by S is not).
function rarestPair(bytes: Buffer, score: (byte: number) => number): number {
  const cost = (byte: number) => (byte >= 97 && byte <= 122 ? score(byte) + score(byte - 32) : score(byte));
  let best = 0;
  let bestCost = Number.POSITIVE_INFINITY;
  for (let i = 0; i + 1 < bytes.length; i++) {
    const pair = cost(bytes[i] ?? 0) * cost(bytes[i + 1] ?? 0);
    if (pair < bestCost) {
      best = i;
      bestCost = pair;
    }
  }
  return best;
}

// Sets `bit` in the entries of both halves of `byte` (and of its capital, for a lower-case letter).
function mark(heap: Buffer, low: number, high: number, byte: number, bit: number): void {
  const or = (at: number) => {
    heap[at] = (heap[at] ?? 0) | bit;
  };
  or(low + (byte & 15));
  or(high + (byte >> 4));
  if (byte >= 97 && byte <= 122) or(high + ((byte - 32) >> 4));
}

let compiled: WasmModule | undefined;

// The module, compiled once per thread from its kept bytes (scan-bytes.ts; a few hundred: well under a millisecond).
function module(): WasmModule {
  compiled ??= new wasm.Module(Buffer.from(SCAN_WASM, 'base64'));
  return compiled;
}
