// The files the map reads (mapper.ts): the walk's source files deepwork has a grammar for, at most MAX_FILES of them,
// the likeliest for the question first.

import fs from 'node:fs';
import { readPathOf } from '../walk.ts';
import type { Sandbox } from '../sandbox.ts';
import { languageOf, type Language } from '../outline/languages.ts';
import type { Folder } from '../answer/step.ts';
import { isBuiltFolder } from '../built.ts';

// Fewer source files than this: the tree names them all, and a map adds little.
export const MIN_FILES = 8;
// Files read for one map, at most, and the size of each: a larger file is more often generated than read.
export const MAX_FILES = 1_000;
export const MAX_FILE_BYTES = 1 << 20;

// Minified and bundled files define much and say little.
const BUNDLED = /\.min\.[cm]?js$|[.-]bundle\.[cm]?js$/i;
// What candidates() marks a folder with: built output.
const BUILT = 1;
// The question's words a path can be told to name, each a bit of a mask (the 31st and any after it share the last).
const WORD_BITS = 31;

// What a path's score for the question comes to at most: attached (4), beside an attached file (2), named by it (2).
const MAX_SCORE = 8;

// A file chosen, not yet looked at (`lookedAt` makes it a Candidate), and one looked at: its size and time.
export type Chosen = { rel: string; real: string; language: Language };
export type Candidate = Chosen & { size: number; mtime: number };

// The source files the map reads: those of the walk deepwork has a grammar for, not minified, not in a folder of built
// output (reading/built.ts) unless there are too few elsewhere (its built copies took 8 of the 13 lines
// of rxjs's map); when there are more than MAX_FILES, those the question or the attached files point at first, then the
// shallowest, then in walk order. Undefined when there are fewer than MIN_FILES. Not looked at yet: lookedAt() leaves
// out those empty or over MAX_FILE_BYTES.
//
// One pass over the walk's entries, each folder's depth and the words of the question its path names taken from its
// parent's (a folder comes before what it holds), so that no path is split, searched or lower-cased whole: on 200,000
// files, the files' list, a case-blind search of every path and a shelf per score and depth took 90 ms of the first
// message (issue 30).
//
// A word that names more files than half of what the map reads does not choose among them: in Linux's source,
// "kernel" of "where does the kernel decide the initial congestion window" named the 1,700 files of its kernel/
// folders, which filled the map's 1,000 with files of arch/*/kernel/ and none of net/ipv4/tcp_*.c.
export function candidates(
  box: Sandbox,
  folder: Folder,
  words: ReadonlySet<string>,
  attached: ReadonlySet<string>,
): Chosen[] | undefined {
  const entries = folder.entries();
  const says = wordsNamed(words);
  const folders = new Set([...attached].map((rel) => rel.slice(0, rel.lastIndexOf('/') + 1)));
  // Typed arrays, as small as will do: on this machine a first touch of fresh memory costs about 11 µs a 4 KB page, and
  // a growing array of 200,000 numbers took 20-40 ms of it, where typed arrays reuse what was freed.
  const depth = new Uint16Array(entries.length);
  // Per folder: BUILT when it is or lies in one of built output, and the words of the question its path names.
  const inside = new Uint8Array(entries.length);
  const named = new Uint32Array(entries.length);
  // The source files' indexes, scores and the words their paths name, in walk order from the start; those in built
  // output from the end, backwards. How many files each word names.
  const source = new Int32Array(entries.length);
  const scores = new Uint8Array(entries.length);
  const masks = new Uint32Array(entries.length);
  const naming = new Uint32Array(WORD_BITS);
  let count = 0;
  let built = entries.length;
  let deepest = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e === undefined) continue;
    const up = e.parent >= 0 && e.parent < i ? e.parent : -1;
    const d = Math.min(0xffff, up === -1 ? depthOf(e.rel) : (depth[up] ?? 0) + 1);
    depth[i] = d;
    const above = up === -1 ? 0 : (inside[up] ?? 0);
    const aboveNamed = up === -1 ? 0 : (named[up] ?? 0);
    if (e.kind === 'folder') {
      inside[i] = (above & BUILT) !== 0 || isBuiltFolder(box.root, e) ? BUILT : 0;
      named[i] = aboveNamed | says(e.name);
      continue;
    }
    // Only JavaScript is bundled: the expression is not run on the names of the rest (50,000 C files on Linux).
    const language = languageOf(e.name);
    if (language === undefined || (language === 'javascript' && BUNDLED.test(e.name))) continue;
    // A path names a word when one of its parts is that word (`auth/` or `login.ts` for "login").
    const at = (above & BUILT) === 0 ? count++ : --built;
    scores[at] =
      (attached.size > 0 && attached.has(e.rel) ? 4 : 0) +
      (folders.size > 0 && folders.has(e.rel.slice(0, e.rel.length - e.name.length)) ? 2 : 0);
    const mask = aboveNamed | says(e.name);
    masks[at] = mask;
    for (let m = mask; m !== 0; m &= m - 1) {
      const bit = 31 - Math.clz32(m & -m);
      naming[bit] = (naming[bit] ?? 0) + 1;
    }
    source[at] = i;
    if (d > deepest) deepest = d;
  }
  // Too few files outside built output: its files follow, in walk order.
  if (count < MIN_FILES) {
    for (let at = entries.length - 1; at >= built; at--, count++) {
      source[count] = source[at] ?? 0;
      scores[count] = scores[at] ?? 0;
      masks[count] = masks[at] ?? 0;
    }
  }
  if (count < MIN_FILES) return undefined;
  // The words naming more than half of what the map reads, when there is more than it reads.
  let common = 0;
  if (count > MAX_FILES)
    for (let bit = 0; bit < WORD_BITS; bit++) if ((naming[bit] ?? 0) > MAX_FILES / 2) common |= 1 << bit;
  for (let k = 0; k < count; k++) if (((masks[k] ?? 0) & ~common) !== 0) scores[k] = (scores[k] ?? 0) + 2;
  // The highest score first, then the shallowest, then walk order.
  const keyOf = (k: number) => (MAX_SCORE - (scores[k] ?? 0)) * (deepest + 1) + (depth[source[k] ?? 0] ?? 0);
  const chosen =
    count <= MAX_FILES
      ? Array.from(source.subarray(0, count))
      : likeliest(source.subarray(0, count), keyOf, (MAX_SCORE + 1) * (deepest + 1), MAX_FILES);
  return chosen.flatMap((i) => {
    const e = entries[i];
    const language = e === undefined ? undefined : languageOf(e.name);
    return e === undefined || language === undefined ? [] : [{ rel: e.rel, real: readPathOf(box, e), language }];
  });
}

// The file with its size and time; undefined when it is gone, empty or over MAX_FILE_BYTES.
export function lookedAt(file: Chosen): Candidate | undefined {
  try {
    const stat = fs.statSync(file.real, { throwIfNoEntry: false });
    if (stat === undefined || stat.size === 0 || stat.size > MAX_FILE_BYTES) return undefined;
    return { ...file, size: stat.size, mtime: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

// The `count` items with the lowest keys, by key and then in the order they came. The keys are small numbers (below
// `keys`, a score and a depth each), so they are counted, and only the items taken are filed.
function likeliest(items: Int32Array, keyOf: (k: number) => number, keys: number, count: number): number[] {
  const counts = new Uint32Array(keys);
  for (let k = 0; k < items.length; k++) {
    const key = keyOf(k);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  // The last key taken, and how many items of it.
  let last = 0;
  let ofLast = 0;
  for (let key = 0, before = 0; key < keys && before < count; key++) {
    const n = Math.min(counts[key] ?? 0, count - before);
    if (n === 0) continue;
    last = key;
    ofLast = n;
    before += n;
  }
  const shelves = new Map<number, number[]>();
  for (let k = 0; k < items.length; k++) {
    const key = keyOf(k);
    if (key > last || (key === last && ofLast-- <= 0)) continue;
    const shelf = shelves.get(key);
    if (shelf === undefined) shelves.set(key, [items[k] ?? 0]);
    else shelf.push(items[k] ?? 0);
  }
  return [...shelves.keys()].sort((a, b) => a - b).flatMap((key) => shelves.get(key) ?? []);
}

// The words of the question a file or folder name is, as a mask of their bits: blind to case, its last extension aside
// (`login.ts` and `auth/` for "login" and "auth"), or a part of it between dots (`res.redirect.js`, `login.test.ts`),
// or its first part before an underscore or a hyphen (`tcp_input.c`, `date-utils.js`). Most names cannot be a word by their length,
// so they are not lower-cased whole: lower-casing keeps a string's length but for U+0130 (İ, which becomes i and a
// combining dot). The ranking (graph.ts) takes only parts between dots: this choice only decides which files are read.
function wordsNamed(words: ReadonlySet<string>): (name: string) => number {
  const bits = new Map<string, number>();
  for (const word of words) {
    const lowered = word.toLowerCase();
    if (!bits.has(lowered)) bits.set(lowered, 1 << Math.min(bits.size, WORD_BITS - 1));
  }
  if (bits.size === 0) return () => 0;
  const lengths = new Set([...bits.keys()].map((w) => w.length));
  const longest = Math.max(...lengths);
  // The words' first characters, an ASCII letter's case set aside.
  const starts = new Set([...bits.keys()].map((w) => w.charCodeAt(0) | 32));
  return (name) => {
    // The last dot, found by hand: String's lastIndexOf is a call into the runtime, for every name of the folder.
    let length = name.length - 1;
    while (length >= 0 && name.charCodeAt(length) !== 46 /* . */) length--;
    if (length === -1) length = name.length;
    let mask = 0;
    if (lengths.has(length) || (length < longest && name.includes('\u0130')))
      mask = bits.get(name.slice(0, length).toLowerCase()) ?? 0;
    // A part between dots (`redirect` of res.redirect.js), or the first part before an underscore or a hyphen (`tcp` of
    // tcp_input.c, `date` of date-utils.js), looked for only when the name starts as a word does.
    const dot = name.indexOf('.');
    if (dot > 0 && dot < length)
      for (const part of name.slice(0, length).toLowerCase().split('.')) mask |= bits.get(part) ?? 0;
    if (!starts.has(name.charCodeAt(0) | 32)) return mask;
    let first = name.indexOf('_');
    const hyphen = name.indexOf('-');
    if (hyphen !== -1 && (first === -1 || hyphen < first)) first = hyphen;
    if (first > 0 && first < length && (dot === -1 || first < dot) && lengths.has(first))
      mask |= bits.get(name.slice(0, first).toLowerCase()) ?? 0;
    return mask;
  };
}

// The word of `words` a file's name without its last extension (`stem`, lower-cased) is, or a part of it between dots
// is: `res.redirect` and `login.test` are named by "redirect" and "login"; undefined for none. The ranking (graph.ts)
// takes a name so; the map's choice of files (wordsNamed) takes underscores and hyphens as parting it too.
export function stemWord(stem: string, words: ReadonlySet<string>): string | undefined {
  if (words.has(stem)) return stem;
  return stem.includes('.') ? stem.split('.').find((part) => words.has(part)) : undefined;
}

function depthOf(rel: string): number {
  let n = 0;
  for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) n++;
  return n;
}
