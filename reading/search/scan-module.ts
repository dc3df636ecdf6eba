// The scan's WebAssembly module (scan.ts), written out instruction by instruction and assembled here: no assembler and
// no package. A run loads its bytes as kept in scan-bytes.ts, which a test holds equal to what this file assembles.
// What it is given lies in its memory: the table of texts (laid out below) and the bytes to look at.

// Node's WebAssembly, typed for what this file uses: TypeScript declares it with the DOM's types, which this project
// does not load.
export type Wasm = {
  Memory: new (limits: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: Record<string, unknown> };
};
export type WasmModule = { readonly kind?: 'module' };
export const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: Wasm };

// The table, at the start of the memory (its first TABLE bytes). Texts per search that the scan handles: one bit each of
// an i32, the sign bit left alone.
export const MAX_TEXTS = 31;
export const TABLE = 64 << 10;
// A text's record: its rarest pair's first byte with 0x20 set (+0), the pair's place (+16), its length (+20), where its
// bytes are (+24). Then the tables LOW, HIGH, LOW_NEXT and HIGH_NEXT (see scan), 16 bytes the scan writes to, and the
// texts' bytes (with 0x20 set).
export const RECORD = 32;
export const LOW = MAX_TEXTS * RECORD;
export const HIGH = LOW + 16;
export const LOW_NEXT = HIGH + 16;
export const HIGH_NEXT = LOW_NEXT + 16;
export const SCRATCH = HIGH_NEXT + 16;
export const BYTES_AT = SCRATCH + 16;

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
const verify = (): Code[] => [
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
const scan = (): Code[] => [
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
export function scanModule(): number[] {
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
        body([[4, I32]], verify()),
        body(
          [
            [8, I32],
            [7, V128],
          ],
          scan(),
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
