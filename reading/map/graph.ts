// The map's ranking: files as the nodes of a graph whose edges run from a file that uses a name to each file that
// defines it, ranked by PageRank personalised by what is in play — the files the user attached, the files and names the
// question mentions — after aider's repository map (the idea, not its code). A file's definitions are ranked by the
// share of rank that reaches it through each of their names. Done at once (rankFiles) or a small part at a time
// (rankingOf), so that the map made in the background never holds the main thread for long (issue 30: 1,000 files of
// the npm corpus took 50-100 ms in one task, which a step answered meanwhile waited for).

import { TEST_PATH } from '../../common/kinds-of-files.ts';
import { keyOf, TOO_COMMON, tying, type Plain, type Ties } from './ties.ts';
import { stemWord } from './candidates.ts';

// A definition as the map keeps it: its name, lines, and depth (0 at the top of its file); `own`, the line its own
// header begins at when attributes or decorators come first (reading/outline/symbols.ts).
export type MapDef = { name: string; first: number; last: number; depth: number; own?: number };
// One file of the graph: what it defines, and the words it uses with how often, as `word count word count`.
export type MapSource = { rel: string; defs: readonly MapDef[]; refs: string };
// What the question puts in play: the identifiers and words it holds, the attached files, and the files where the texts
// it quotes were found (`found`), which the map may show.
export type Focus = { words: ReadonlySet<string>; attached: ReadonlySet<string>; found?: ReadonlySet<string> };
// A ranked file with its definitions, the most used first (those no other file uses, in the order they come).
export type RankedFile = { rel: string; rank: number; defs: MapDef[] };

// Lower than the web's 0.85: a walk that starts again more often stays nearer to what the question is about.
const DAMPING = 0.75;
const ITERATIONS = 40;
// A name defined in more files than this says little about any of them (`init`, `render`); in more than TOO_COMMON
// (ties.ts), nothing worth its edges.
const COMMON_DEFINERS = 5;
// What a test file's rank is taken at, when the question is not about tests (common/kinds-of-files.ts).
const TEST_FACTOR = 0.3;
// Declarations of code that lives elsewhere (Python's stubs, TypeScript's .d.ts, a vendored typeshed) name what
// everything uses, `str`, `Any`, `Promise`, and are rarely where an answer lies: their rank is taken at this, unless
// the question is about stubs or types' declarations.
const STUB_FACTOR = 0.1;
const STUB_PATH = /\.pyi$|\.d\.[cm]?ts$|(^|\/)typeshed\//i;
// Names looked at in one part of a ranking (rankingOf), as a round of PageRank is.
const NAMES_A_PART = 256;
// A folder named by the question that holds more than this share of the map's files is the project, not a part of it.
const MOST_FILES = 0.5;

// The words of a name, lower-cased: `tokenMatches` and `token_matches` are token, matches.
function partsOf(name: string): string[] {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z\d]+/)
    .filter((part) => part.length >= 3);
}

// How much each name says of the question: the summed rarity of the question's words among its words, in the singular
// or not (`redirect` is a word of `resolve_redirects`, `cookie` of `extract_cookies_to_jar`). A word's rarity is the
// inverse of how many of the folder's defined names hold it, so that for "Incompatible return value type" in mypy,
// `INCOMPATIBLE_RETURN_VALUE_TYPE` says far more than `type_map`, and `type`, which a tenth of its names hold, little.
function* questionScores(
  names: Iterable<string>,
  questionWords: ReadonlySet<string>,
): Generator<void, (name: string) => number> {
  // Each form of a question word (`cookies`, `cookie`) stands for the word.
  const owner = new Map<string, string>();
  for (const word of questionWords) for (const form of forms(word.toLowerCase())) owner.set(form, word.toLowerCase());
  const wordsOf = (name: string): Set<string> => {
    const words = new Set<string>();
    for (const part of partsOf(name)) {
      const word = forms(part).find((form) => owner.has(form));
      if (word !== undefined) words.add(owner.get(word) ?? word);
    }
    return words;
  };
  // A name holds a question word only where its lower-cased text holds one of the word's forms: most names hold none,
  // and are not cut into words (on the npm corpus, cutting each of its defined names was about a tenth of the ranking).
  const written = [...owner.keys()].filter((form) => form.length > 0);
  const anyForm =
    written.length === 0 ? undefined : new RegExp(written.map((f) => f.replace(/[$]/g, '\\$&')).join('|'));
  const none = new Set<string>();
  const wordsIn = (name: string): Set<string> => (anyForm?.test(name.toLowerCase()) === true ? wordsOf(name) : none);
  const holding = new Map<string, number>();
  let total = 0;
  for (const name of names) {
    if (++total % NAMES_A_PART === 0) yield;
    for (const word of wordsIn(name)) holding.set(word, (holding.get(word) ?? 0) + 1);
  }
  const scores = new Map<string, number>();
  return (name) => {
    if (anyForm === undefined) return 0;
    let score = scores.get(name);
    if (score === undefined) {
      const words = wordsIn(name);
      if (words.size === 0) return 0;
      score = 0;
      for (const word of words) score += Math.log((total + 1) / ((holding.get(word) ?? 0) + 1));
      scores.set(name, score);
    }
    return score;
  };
}

// A word as written, in the singular either way English makes it (`templates`, `template`; `classes`, `class`), and
// without a verb's ending (`detected`, `detect`; `parsed`, `parse`; `loading`, `load`), where three letters or more
// are left: "where the loop is detected" named walkdir's `sym_loop_detect` no better than `sym_self_loop_no_error`.
function forms(word: string): string[] {
  const out = [word, word.replace(/s$/, ''), word.replace(/es$/, '')];
  for (const [ending, put] of [
    ['ed', ''],
    ['d', ''],
    ['ing', ''],
    ['ing', 'e'],
  ] as const)
    if (word.endsWith(ending) && word.length - ending.length >= 3) out.push(word.slice(0, -ending.length) + put);
  return out;
}

// A word written as code: camelCase, PascalCase with a capital inside, snake_case, with digits (`runLoop`, `MAX_SIZE`).
function codeLike(word: string): boolean {
  return /[A-Z]/.test(word.slice(1)) || /[_$\d]/.test(word);
}

// The `limit` files ranked first for `focus`, the attached ones left out (they are in the message whole).
export function rankFiles(sources: readonly MapSource[], focus: Focus, limit = Infinity, ties?: Ties): RankedFile[] {
  return finished(rankingOf(sources, focus, limit, ties));
}

// What a generator of parts comes to, every part done now.
export function finished<T>(parts: Generator<void, T>): T {
  for (;;) {
    const part = parts.next();
    if (part.done) return part.value;
  }
}

// rankFiles a part at a time: each next() does a part of the ties (unless they are given), a few hundred names, or a
// round of PageRank, and the last gives the ranked files. `ties` must be those of `sources` (ties.ts); a file's `defs`
// are read only for the ties and for the files shown, so they may be worked out when asked. Every loop over names or
// edges is a plain function called from here: V8 swaps optimized code into a running loop (on-stack replacement) in
// plain functions only, and optimizes a generator's body only after many calls (issue 30: on the npm corpus's 1,000
// files, the loops run in the interpreter took a fresh process 45-90 ms of a first message that waited for its map).
export function* rankingOf(
  sources: readonly MapSource[],
  focus: Focus,
  limit = Infinity,
  ties?: Ties,
): Generator<void, RankedFile[]> {
  const n = sources.length;
  if (n === 0) return [];
  const tied = ties !== undefined && ties.files === n ? ties : yield* tying(sources);
  // What no question changes, worked out by the first ranking of these ties and kept with them (ties.ts).
  const plain = tied.plain ?? (yield* plainOf(tied));
  tied.plain = plain;
  const index = new Map(sources.map((s, i) => [s.rel, i]));
  const definers = new Map(tied.names.map((name, k) => [name, tied.definers[k] ?? []]));
  // Lower-cased, and plurals as their singular too: `secrets` finds `isSecret`.
  const lowered = new Set([...focus.words].flatMap((w) => forms(w.toLowerCase())));
  const code = new Set([...focus.words].filter(codeLike));

  // Each edge weighted by how telling its name is and how much it is used, and its share of its file's rank: as for no
  // question unless the question says a defined name.
  const named = [...focus.words].some((w) => definers.has(w));
  let graph: Graph = { n, from: tied.from, to: tied.to, share: plain.share, out: plain.out };
  if (named) {
    const out = new Float64Array(n);
    graph = { ...graph, share: sharesOf(tied, weightsOf(tied, focus.words, code), out), out };
  }
  const saysOf = yield* questionScores(definers.keys(), focus.words);
  const personal = yield* personalisation(sources, focus, { lowered, code, saysOf }, index, definers);
  yield;
  // What the question lifts: a file's rank for it against its rank for no question at all, so that the hubs every
  // file uses (mypy's nodes.py and types.py) do not lead every map. A file is taken at its rank times the square root
  // of its lift; with nothing in play the two are one and the rank stands.
  const baseRank = named ? yield* pageRank(graph, uniformOf(n)) : plain.rank;
  const personalRank = personal.every((p) => p === 1 / n) ? baseRank : yield* pageRank(graph, personal);
  const rank = personalRank.map((r, i) => r * Math.sqrt(r / ((baseRank[i] ?? 0) || r || 1)));

  // Tests use everything and are rarely where an answer lies, unless the question is about them.
  const tests = [...lowered].some((w) => /test|spec|fixture/.test(w)) ? 1 : TEST_FACTOR;
  const stubs = [...lowered].some((w) => /stub|typeshed|pyi|declaration/.test(w)) ? 1 : STUB_FACTOR;
  const factor = (rel: string) => (TEST_PATH.test(rel) ? tests : 1) * (STUB_PATH.test(rel) ? stubs : 1);
  const top = sources
    .map((s, i) => ({ s, i, rank: (rank[i] ?? 0) * factor(s.rel) }))
    .filter((f) => !focus.attached.has(f.s.rel))
    .sort((a, b) => b.rank - a.rank || (a.s.rel < b.s.rel ? -1 : 1))
    .slice(0, limit);
  yield;

  // Each shown file's definitions by the rank its users pass on through their names.
  const passed = passedOn(
    top.map((f) => f.i),
    graph,
    tied,
    rank,
  );
  return top.map(({ s, rank: r }, at) => {
    const scores = passed[at] ?? new Map<string, number>();
    // The names the question says first, then by how much of it they say (`redirect` of `resolve_redirects`).
    const defs = s.defs
      .map((d, order) => {
        const key = keyOf(d.name);
        const mentioned = focus.words.has(key) ? Infinity : saysOf(key);
        return { d, order, mentioned, score: scores.get(key) ?? 0 };
      })
      .sort((a, b) => b.mentioned - a.mentioned || b.score - a.score || a.d.depth - b.d.depth || a.order - b.order)
      .map((x) => x.d);
    return { rel: s.rel, rank: r, defs };
  });
}

// The parts of a ranking no question changes (ties.ts): the edges weighed as for no question, and the files' rank for
// no question.
function* plainOf(ties: Ties): Generator<void, Plain> {
  const out = new Float64Array(ties.files);
  const share = sharesOf(ties, weightsOf(ties, new Set(), new Set()), out);
  yield;
  const rank = yield* pageRank({ n: ties.files, from: ties.from, to: ties.to, share, out }, uniformOf(ties.files));
  return { share, out, rank };
}

// Where a random reader starts again when nothing is in play: anywhere.
function uniformOf(n: number): Float64Array {
  return new Float64Array(n).fill(1 / n);
}

// How much one use of each name ties a file to its definers (weightOf), by the name's number; 0 for one defined in
// too many files, which has no edges.
function weightsOf(ties: Ties, mentioned: ReadonlySet<string>, code: ReadonlySet<string>): Float64Array {
  const weights = new Float64Array(ties.names.length);
  ties.names.forEach((name, k) => {
    const files = ties.definers[k]?.length ?? 0;
    if (files <= TOO_COMMON) weights[k] = weightOf(name, files, mentioned, code);
  });
  return weights;
}

// Each edge's part of its source's rank: its weight (its name's, by how much it is used) over all its source hands
// on, which goes into `out`.
function sharesOf({ from, name, count }: Ties, weights: Float64Array, out: Float64Array): Float64Array {
  const weight = new Float64Array(from.length);
  for (let e = 0; e < from.length; e++) {
    const w = (weights[name[e] ?? 0] ?? 0) * Math.sqrt(count[e] ?? 0);
    weight[e] = w;
    const f = from[e] ?? 0;
    out[f] = (out[f] ?? 0) + w;
  }
  for (let e = 0; e < from.length; e++) weight[e] = (weight[e] ?? 0) / (out[from[e] ?? 0] || 1);
  return weight;
}

// For each of the `shown` files, the rank its users pass on to it through each name it defines.
function passedOn(
  shown: readonly number[],
  { n, from, to, share }: Graph,
  { names, name }: Ties,
  rank: Float64Array,
): Map<string, number>[] {
  const slot = new Int32Array(n).fill(-1);
  shown.forEach((i, at) => {
    slot[i] = at;
  });
  const passed = shown.map(() => new Map<string, number>());
  for (let e = 0; e < from.length; e++) {
    const scores = passed[slot[to[e] ?? 0] ?? -1];
    if (scores === undefined) continue;
    const key = names[name[e] ?? 0] ?? '';
    scores.set(key, (scores.get(key) ?? 0) + (rank[from[e] ?? 0] ?? 0) * (share[e] ?? 0));
  }
  return passed;
}

// How much one use of `word` ties a file to its definers: names the question mentions most (written as code more
// than a plain word that happens to name something), private-looking and common names least, long distinctive names
// (`createExecutor`, `max_reply_chars`) more, short plain ones less.
function weightOf(word: string, definers: number, mentioned: ReadonlySet<string>, code: ReadonlySet<string>): number {
  let weight = 1;
  if (code.has(word)) weight *= 10;
  else if (mentioned.has(word)) weight *= 3;
  if (word.startsWith('_')) weight *= 0.1;
  if (definers > COMMON_DEFINERS) weight *= 0.1;
  if (word.length >= 8 && /[a-z][A-Z]|_[a-z]/.test(word)) weight *= 3;
  // A short plain word (`text`, `open`, `write`) names something in one file and means something else in the rest.
  else if (word.length <= 5 && /^[a-z]+$/.test(word)) weight *= 0.3;
  return weight;
}

// Where a random reader starts again: the attached files, those where the texts the question quotes were found, the
// files whose names the question says, and the files defining a name it says. With none, anywhere.
function* personalisation(
  sources: readonly MapSource[],
  focus: Focus,
  {
    lowered,
    code,
    saysOf,
  }: { lowered: ReadonlySet<string>; code: ReadonlySet<string>; saysOf: (name: string) => number },
  index: ReadonlyMap<string, number>,
  definers: ReadonlyMap<string, readonly number[]>,
): Generator<void, Float64Array> {
  const p = new Float64Array(sources.length);
  for (const rel of [...focus.attached, ...(focus.found ?? [])]) {
    const i = index.get(rel);
    if (i !== undefined) p[i] = (p[i] ?? 0) + 1;
  }
  // A folder the question names points at its files, unless it holds most of the project: "where does mypy report"
  // names the project, not a part of it, and mypy/ holds most of mypy's files (every file of it came first with it).
  const named = new Map<string, number[]>();
  const byName = new Map<string, number[]>();
  sources.forEach((s, i) => {
    const parts = s.rel.toLowerCase().split('/');
    // The name without its extension, or a part of it between dots (express's redirect tests, res.redirect.js, were not
    // in the map of a question about them).
    const word = stemWord(parts.at(-1)?.replace(/\.[^.]*$/, '') ?? '', lowered);
    if (word !== undefined) {
      const files = byName.get(word);
      if (files === undefined) byName.set(word, [i]);
      else files.push(i);
      return;
    }
    const folder = parts.slice(0, -1).find((part) => lowered.has(part));
    if (folder === undefined) return;
    const files = named.get(folder);
    if (files === undefined) named.set(folder, [i]);
    else files.push(i);
  });
  for (const files of named.values())
    if (files.length <= sources.length * MOST_FILES) for (const i of files) p[i] = (p[i] ?? 0) + 1;
  // A word that names files shares its point among them: in Linux's source, "where does fork() copy the file
  // descriptor table of the parent process" named kernel/fork.c, three rtlwifi table.h files and arch/*/process.c
  // files, a point each, and the map led with the table.h files, kernel/fork.c 24th (now 8th).
  for (const files of byName.values()) for (const i of files) p[i] = (p[i] ?? 0) + 1 / files.length;
  // A plain word as the name it is (`type`, `render`) points there as much as it is rare among the folder's names,
  // against the question's rarest word.
  let rarest = 0;
  for (const word of focus.words) rarest = Math.max(rarest, saysOf(word));
  for (const word of focus.words) {
    const weight = code.has(word) ? 1 : 0.3 * (rarest === 0 ? 1 : (saysOf(word) / rarest) ** 2);
    for (const i of definers.get(word) ?? []) p[i] = (p[i] ?? 0) + weight;
  }
  // A plain word of the question that is part of a name (`token` of `tokenMatches`, `new_token`) points there a little,
  // the more the rarer its words and the more of them it holds; the name saying most of the question, as much as a name
  // the question says.
  let said = 0;
  let saying = 0;
  let looked = 0;
  for (const name of definers.keys()) {
    if (++looked % NAMES_A_PART === 0) yield;
    const says = saysOf(name);
    if (says > 0) {
      said += says;
      saying++;
    }
  }
  const mean = saying === 0 ? 1 : said / saying;
  // A file by the name of its saying most, not by how many say a little: mypyc's list_ops.c defines forty CPyList_
  // names, each holding "list", and led the map of "Which flags does --strict turn on, and where is that list made?".
  const best = new Float64Array(sources.length);
  for (const [name, files] of definers) {
    if (++looked % NAMES_A_PART === 0) yield;
    const says = saysOf(name);
    if (says === 0 || lowered.has(name.toLowerCase())) continue;
    for (const i of files) best[i] = Math.max(best[i] ?? 0, 0.2 * (says / mean) ** 2);
  }
  for (let i = 0; i < p.length; i++) p[i] = (p[i] ?? 0) + (best[i] ?? 0);
  const sum = p.reduce((a, b) => a + b, 0);
  if (sum === 0) return p.fill(1 / sources.length);
  return p.map((v) => v / sum);
}

// The graph PageRank goes over: `n` files, the edges from and to them, each edge's part of its source's rank
// (`share`), and what each file hands on in all (`out`, 0 for a file that uses no defined name).
type Graph = { n: number; from: Int32Array; to: Int32Array; share: Float64Array; out: Float64Array };

// PageRank by power iteration over the edges; a file that uses no defined name hands its rank back to where readers
// start again.
function* pageRank(graph: Graph, personal: Float64Array): Generator<void, Float64Array> {
  let rank = Float64Array.from(personal);
  let next = new Float64Array(graph.n);
  for (let round = 0; round < ITERATIONS; round++) {
    yield;
    const change = pageRankRound(graph, personal, rank, next);
    [rank, next] = [next, rank];
    if (change < 1e-6) break;
  }
  return rank;
}

// One round of PageRank from `rank` into `next`; how much the ranks changed. Functions of their own, not a part of
// the generator: V8 replaces a running loop with optimized code (on-stack replacement) in plain functions only, so in
// a fresh process the rounds ran unoptimized inside the generator. And a function a loop: code optimized while the
// first loop ran knew nothing yet of the others', and was thrown away on reaching them (six times a ranking).
function pageRankRound(graph: Graph, personal: Float64Array, rank: Float64Array, next: Float64Array): number {
  next.fill(0);
  spread(graph, rank, next);
  return settle(personal, rank, next, 1 - DAMPING + DAMPING * dangling(graph.out, rank));
}

// Each file's rank handed on along its edges, into `next`.
function spread({ from, to, share }: Graph, rank: Float64Array, next: Float64Array): void {
  for (let e = 0; e < from.length; e++) {
    const t = to[e] ?? 0;
    next[t] = (next[t] ?? 0) + DAMPING * (rank[from[e] ?? 0] ?? 0) * (share[e] ?? 0);
  }
}

// The rank of the files that hand on nothing.
function dangling(out: Float64Array, rank: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < out.length; i++) if ((out[i] ?? 0) === 0) sum += rank[i] ?? 0;
  return sum;
}

// `next` with each file's share of the readers who start again (`restart` of them, by `personal`); how far it moved
// from `rank`.
function settle(personal: Float64Array, rank: Float64Array, next: Float64Array, restart: number): number {
  let change = 0;
  for (let i = 0; i < next.length; i++) {
    const value = (next[i] ?? 0) + restart * (personal[i] ?? 0);
    change += Math.abs(value - (rank[i] ?? 0));
    next[i] = value;
  }
  return change;
}
