// Which of a search's texts a file may hold, in one pass over its bytes for all of them: a small WebAssembly module
// (written out below, instruction by instruction) that compares 16 bytes at a time with each text's rarest pair of
// neighbouring bytes, and checks the whole text where one matches. Searched one text at a time, five texts cost 3× one on the Linux source
// (memchr per text and again per case-blind twin); this pass costs about what one memchr does, and the exact search
// (needle.ts, lines.ts) then runs only for the texts a file may hold (issue 30).
//
// The pass ignores the case of ASCII letters and more: every byte is compared with 0x20 set (so `[` matches `{` too).
// It may say a text is there when it is not, never the reverse; the search proper decides. The bytes must lie in the
// module's memory (a file is read straight into it: `read`, `chunk` and `arena` are views of it), so nothing is copied.

import { scoreOf, type Needle } from './needle.ts';

// Node's WebAssembly, typed for what this file uses: TypeScript declares it with the DOM's types, which this project
// does not load.
type Wasm = {
  Memory: new (limits: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: Record<string, unknown> };
};
type WasmModule = { readonly kind?: 'module' };
const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: Wasm };

// The module's memory: TABLE (the texts of the current search), then the read buffer and the piece buffer of a large
// file (1 MB each), then the arena of `budget` bytes that the keeper keeps files in.
export type Scanner = {
  read: Buffer;
  chunk: Buffer;
  arena: Buffer;
  // Sets the texts looked for, as bytes in lower case (folded needles); `score` says how common a byte is (needle.ts).
  // False when they do not fit the table (more than MAX_TEXTS, or too long): `present` then says every text may be
  // there.
  setTexts(needles: readonly Needle[], score?: (byte: number) => number): boolean;
  // Bit t set: text t may be in `bytes`. Every bit set when `bytes` is not in the module's memory or no texts fit.
  present(bytes: Buffer): number;
};

// Texts per search that the pass handles (one bit each of an i32, the sign bit left alone).
export const MAX_TEXTS = 31;
const PAGE = 64 << 10;
const TABLE = PAGE;
// A text's record in the table: its rarest pair's first byte with 0x20 set (+0), the pair's place (+16), its length (+20),
// where its bytes are (+24). Then the tables LOW and HIGH (see scan), 16 bytes the scan writes to, and the texts' bytes.
const RECORD = 32;
const LOW = MAX_TEXTS * RECORD;
const HIGH = LOW + 16;
const LOW_NEXT = HIGH + 16;
const HIGH_NEXT = LOW_NEXT + 16;
const SCRATCH = HIGH_NEXT + 16;
const BYTES_AT = SCRATCH + 16;
const BUFFER = 1 << 20;

export function createScanner(budget: number): Scanner {
  const pages = Math.ceil((TABLE + 2 * BUFFER + budget) / PAGE);
  const memory = new wasm.Memory({ initial: pages, maximum: pages });
  const instance = new wasm.Instance(module(), { env: { memory } });
  const scan = instance.exports.scan as (ptr: number, len: number, count: number) => number;
  const heap = Buffer.from(memory.buffer);
  let count = 0;
  let all = 0;
  return {
    read: heap.subarray(TABLE, TABLE + BUFFER),
    chunk: heap.subarray(TABLE + BUFFER, TABLE + 2 * BUFFER),
    arena: heap.subarray(TABLE + 2 * BUFFER, TABLE + 2 * BUFFER + budget),
    setTexts(needles, score = scoreOf()) {
      count = 0;
      all = -1;
      if (needles.length > MAX_TEXTS) return false;
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

// The module, compiled once per thread (a few hundred bytes: well under a millisecond).
function module(): WasmModule {
  compiled ??= new wasm.Module(new Uint8Array(moduleBytes()));
  return compiled;
}

// The module's code as a tree: blocks, loops and ifs hold their bodies and are named, so that a branch names where it
// goes and the depth is counted here.
type Code = number | Code[] | { op: 'block' | 'loop' | 'if'; label: string; body: Code[] } | Branch;
type Branch = { op: 'br' | 'br_if'; label: string };

const block = (label: string, ...body: Code[]): Code => ({ op: 'block', label, body });
const loop = (label: string, ...body: Code[]): Code => ({ op: 'loop', label, body });
const when = (label: string, ...body: Code[]): Code => ({ op: 'if', label, body });
const br = (label: string): Branch => ({ op: 'br', label });
const brIf = (label: string): Branch => ({ op: 'br_if', label });

// Instructions (opcodes from the WebAssembly core specification, SIMD's behind the 0xfd prefix).
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const i32 = (n: number) => [0x41, ...sleb(n)];
const ADD = 0x6a;
const SUB = 0x6b;
const AND = 0x71;
const OR = 0x72;
const SHL = 0x74;
const EQ = 0x46;
const NE = 0x47;
const EQZ = 0x45;
const LT_S = 0x48;
const GT_U = 0x4b;
const GE_U = 0x4f;
const LE_U = 0x4d;
const XOR = 0x73;
const CTZ = 0x68;
const CALL = 0x10;
const RETURN = 0x0f;
const load32 = (offset: number) => [0x28, 2, ...uleb(offset)];
const load8 = [0x2d, 0, 0];
const simd = (op: number, ...rest: number[]) => [0xfd, ...uleb(op), ...rest];
const v128Load = (offset: number) => simd(0x00, 0, ...uleb(offset));
const v128Store = (offset: number) => simd(0x0b, 0, ...uleb(offset));
const load8At = (offset: number) => [0x2d, 0, ...uleb(offset)];
const SWIZZLE = simd(0x0e);
const I8X16_SPLAT = simd(0x0f);
const I8X16_NE = simd(0x24);
const V128_AND = simd(0x4e);
const SHR_U = simd(0x6d);
const v128Splat = (byte: number) => simd(0x0c, ...new Array<number>(16).fill(byte));
const ANY_TRUE = simd(0x53);
const BITMASK = simd(0x64);

// verify(ptr, len, at, t): 1 when text t, its rarest pair at `at`, lies whole within the len bytes at ptr and each of
// its bytes equals the file's with 0x20 set; else 0.
const [PTR, LEN, AT, T] = [0, 1, 2, 3];
const [POS, N, NP, M] = [4, 5, 6, 7];
const verify: Code[] = [
  [...get(AT), ...get(T), ...i32(5), SHL, ...load32(16), SUB, ...set(POS)],
  [...get(T), ...i32(5), SHL, ...load32(20), ...set(N)],
  [...get(T), ...i32(5), SHL, ...load32(24), ...set(NP)],
  [...get(POS), ...i32(0), LT_S],
  when('before', ...i32(0), RETURN),
  [...get(POS), ...get(N), ADD, ...get(LEN), GT_U],
  when('after', ...i32(0), RETURN),
  [...i32(0), ...set(M)],
  loop(
    'bytes',
    [...get(M), ...get(N), GE_U],
    when('whole', ...i32(1), RETURN),
    [...get(PTR), ...get(POS), ADD, ...get(M), ADD, ...load8, ...i32(0x20), OR],
    [...get(NP), ...get(M), ADD, ...load8, NE],
    when('differs', ...i32(0), RETURN),
    [...get(M), ...i32(1), ADD, ...set(M)],
    br('bytes'),
  ),
  i32(0),
];

// scan(ptr, len, count): bit t set when text t (of `count` in the table) is found in the len bytes at ptr. Sixteen
// bytes at a time, each looked up by its two halves (4 bits each) in the tables LOW and HIGH, whose entries say which
// texts' rarest pairs start with a byte of that half (text t in bit t % 8), and the byte after it likewise in LOW_NEXT
// and HIGH_NEXT: where all four entries share a bit, a text may start (ripgrep's Teddy, in its simplest form). A dozen
// instructions for 16 bytes whatever the number of texts; only where a pair is found is a whole text compared. The
// last bytes (fewer than 17) are looked at one at a time. Stops once every text is found; a text found is taken out of
// the tables when it has its bit to itself (8 texts or fewer).
const [S_PTR, S_LEN, COUNT] = [0, 1, 2];
const [I, FOUND, ALL, K, BITS, J, BUCKET, B] = [3, 4, 5, 6, 7, 8, 9, 10];
const [V, LO, HI, R, W, LO2, HI2] = [11, 12, 13, 14, 15, 16, 17];
const notFound = [...get(FOUND), ...i32(1), ...get(K), SHL, AND, EQZ];
const markFound = [...get(FOUND), ...i32(1), ...get(K), SHL, OR, ...set(FOUND)];
const scan: Code[] = [
  [...i32(1), ...get(COUNT), SHL, ...i32(1), SUB, ...set(ALL)],
  [...i32(0), ...v128Load(LOW), ...set(LO), ...i32(0), ...v128Load(HIGH), ...set(HI)],
  [...i32(0), ...v128Load(LOW_NEXT), ...set(LO2), ...i32(0), ...v128Load(HIGH_NEXT), ...set(HI2)],
  block(
    'tail',
    loop(
      'blocks',
      [...get(I), ...i32(17), ADD, ...get(S_LEN), GT_U],
      brIf('tail'),
      [...get(S_PTR), ...get(I), ADD, ...v128Load(0), ...set(V)],
      [...get(S_PTR), ...get(I), ADD, ...v128Load(1), ...set(W)],
      // r: per byte, the texts whose rarest byte it is (both its halves point to them) and whose next byte follows.
      [...get(LO), ...get(V), ...v128Splat(0x0f), ...V128_AND, ...SWIZZLE],
      [...get(HI), ...get(V), ...i32(4), ...SHR_U, ...SWIZZLE, ...V128_AND],
      [...get(LO2), ...get(W), ...v128Splat(0x0f), ...V128_AND, ...SWIZZLE, ...V128_AND],
      [...get(HI2), ...get(W), ...i32(4), ...SHR_U, ...SWIZZLE, ...V128_AND, ...set(R)],
      [...get(R), ...ANY_TRUE],
      when(
        'candidates',
        [...get(R), ...v128Splat(0), ...I8X16_NE, ...BITMASK, ...set(BITS)],
        [...i32(0), ...get(R), ...v128Store(SCRATCH)],
        block(
          'places-done',
          loop(
            'places',
            [...get(BITS), EQZ],
            brIf('places-done'),
            [...get(BITS), CTZ, ...set(J), ...get(J), ...load8At(SCRATCH), ...set(BUCKET)],
            block(
              'buckets-done',
              loop(
                'buckets',
                [...get(BUCKET), EQZ],
                brIf('buckets-done'),
                [...get(BUCKET), CTZ, ...set(B), ...get(B), ...set(K)],
                block(
                  'texts-done',
                  loop(
                    'texts',
                    [...get(K), ...get(COUNT), GE_U],
                    brIf('texts-done'),
                    notFound,
                    when(
                      'open',
                      [...get(S_PTR), ...get(S_LEN), ...get(I), ...get(J), ADD, ...get(K), CALL, 0],
                      when(
                        'match',
                        markFound,
                        [...get(COUNT), ...i32(8), LE_U],
                        when(
                          'alone',
                          [...get(LO), ...i32(1), ...get(B), SHL, ...i32(-1), XOR, ...I8X16_SPLAT, ...V128_AND],
                          set(LO),
                        ),
                      ),
                    ),
                    [...get(K), ...i32(8), ADD, ...set(K)],
                    br('texts'),
                  ),
                ),
                [...get(BUCKET), ...get(BUCKET), ...i32(1), SUB, AND, ...set(BUCKET)],
                br('buckets'),
              ),
            ),
            [...get(BITS), ...get(BITS), ...i32(1), SUB, AND, ...set(BITS)],
            br('places'),
          ),
        ),
        [...get(FOUND), ...get(ALL), EQ],
        when('all', ...get(FOUND), RETURN),
      ),
      [...get(I), ...i32(16), ADD, ...set(I)],
      br('blocks'),
    ),
  ),
  block(
    'end',
    loop(
      'last',
      [...get(I), ...get(S_LEN), GE_U],
      brIf('end'),
      [...i32(0), ...set(K)],
      block(
        'last-done',
        loop(
          'last-texts',
          [...get(K), ...get(COUNT), GE_U],
          brIf('last-done'),
          notFound,
          when(
            'open',
            [...get(S_PTR), ...get(I), ADD, ...load8, ...i32(0x20), OR, ...get(K), ...i32(5), SHL, ...load8, EQ],
            when('anchor', [...get(S_PTR), ...get(S_LEN), ...get(I), ...get(K), CALL, 0], when('match', markFound)),
          ),
          [...get(K), ...i32(1), ADD, ...set(K)],
          br('last-texts'),
        ),
      ),
      [...get(I), ...i32(1), ADD, ...set(I)],
      br('last'),
    ),
  ),
  get(FOUND),
];

// The module: memory imported as env.memory; function 0 verify (not exported), function 1 scan.
function moduleBytes(): number[] {
  const I32 = 0x7f;
  const V128 = 0x7b;
  const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
  const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
  const name = (text: string) => vec([...Buffer.from(text)].map((b) => [b]));
  const body = (locals: Array<[number, number]>, code: Code[]) => {
    const bytes = [...vec(locals.map(([n, type]) => [...uleb(n), type])), ...emit(code, []), 0x0b];
    return [...uleb(bytes.length), ...bytes];
  };
  return [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(
      1,
      vec([
        [0x60, ...vec([[I32], [I32], [I32], [I32]]), ...vec([[I32]])],
        [0x60, ...vec([[I32], [I32], [I32]]), ...vec([[I32]])],
      ]),
    ),
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, ...uleb(1)]])),
    ...section(3, vec([[0], [1]])),
    ...section(7, vec([[...name('scan'), 0x00, 1]])),
    ...section(
      10,
      vec([
        body([[4, I32]], verify),
        body(
          [
            [8, I32],
            [7, V128],
          ],
          scan,
        ),
      ]),
    ),
  ];
}

function emit(code: Code[], labels: string[]): number[] {
  const out: number[] = [];
  for (const c of code) {
    if (typeof c === 'number') out.push(c);
    else if (Array.isArray(c)) out.push(...emit(c, labels));
    else if (c.op === 'br' || c.op === 'br_if') {
      const at = labels.lastIndexOf(c.label);
      if (at === -1) throw new Error(`scan.ts: no label ${c.label} around a branch to it`);
      out.push(c.op === 'br' ? 0x0c : 0x0d, ...uleb(labels.length - 1 - at));
    } else if (c.op === 'block' || c.op === 'loop' || c.op === 'if') {
      out.push({ block: 0x02, loop: 0x03, if: 0x04 }[c.op], 0x40, ...emit(c.body, [...labels, c.label]), 0x0b);
    }
  }
  return out;
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}
