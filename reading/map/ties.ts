// The map's ties: which file uses which name defined where, what the ranking (graph.ts) reads of the files' words. The
// same for every question about the same files, they are kept between runs beside the map's cache, per set of files
// (the latest few), so that a map of a set kept is ranked without reading the words each file uses; a map of other
// files, or of a file changed since, makes them and keeps those. Kept by whoever keeps the cache (saved/map-cache.ts),
// as bytes this module writes and checks.
//
// The bytes: a first line of JSON, `{"format", "key", "files", "names", "definers", "edges", "plain"}`, then the edges'
// four columns (from, to, name, count), each `edges` 32-bit integers, and when `plain` is true the parts no question
// changes (Plain): `edges` shares, then `files` outs and `files` ranks, 64-bit floats; all in the machine's byte order:
// the state folder is the machine's own. On the npm corpus's 1,000 files, reading the words took a fresh process 20-30 ms and parsing the
// files' parts for them 12-18 ms before the first message (issue 30); these bytes are read in about 1 ms.

import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { isRecord } from '../../common/unknown.ts';
import { cacheFormat } from './cache.ts';
import type { MapSource } from './graph.ts';

// A name defined in more files than this ties none of them: a hundred files each defining `subscribe` would tie every
// user of it to all of them.
export const TOO_COMMON = 20;
// Files looked at in one part of the ties' making (tying): their definitions, or the names they use.
const FILES_A_PART = 16;
// The bytes' format: written ties of another are made again.
const FORMAT = 'ties-2';

// Which file uses which name, and which files define it: what the ranking reads of the files' words, the same for
// every question about the same files, so the map keeps it between runs. `files`: how many sources;
// `definers[k]`: the files defining `names[k]` (indexes into the sources, in order); each edge runs from a file to one
// defining a name it uses, `count` times.
export type Ties = {
  files: number;
  names: readonly string[];
  definers: readonly (readonly number[])[];
  from: Int32Array;
  to: Int32Array;
  name: Int32Array;
  count: Int32Array;
  // Set by the first ranking of these ties (graph.ts), and kept with them.
  plain?: Plain;
};

// What a question changes only when it says a defined name (graph.ts): each edge's share of its file's rank (`share`)
// and what each file hands on in all (`out`) with every name weighed as for no question, and the files' rank for no
// question (`rank`). Kept with the ties, a question that says no defined name, most questions, is ranked without
// weighing the names and with one PageRank or none, not two (issue 30).
export type Plain = { share: Float64Array; out: Float64Array; rank: Float64Array };

// The ties of `sources`, a few files at a time: each next() does the definitions or the words of FILES_A_PART files.
// The loops are plain functions called from here, for V8 to optimize as they run (graph.ts says why).
export function* tying(sources: readonly MapSource[]): Generator<void, Ties> {
  const n = sources.length;
  // Names a file defines where other files may use them: at its top level, and a class's members.
  const definers = new Map<string, number[]>();
  for (let start = 0; start < n; start += FILES_A_PART) {
    addDefiners(sources, start, Math.min(n, start + FILES_A_PART), definers);
    yield;
  }
  const names = [...definers.keys()];
  const ids = new Map(names.map((name, id) => [name, id]));
  const definedBy = [...definers.values()];
  const edges: Edges = { from: [], to: [], name: [], count: [] };
  for (let start = 0; start < n; start += FILES_A_PART) {
    addEdges(sources, start, Math.min(n, start + FILES_A_PART), ids, definedBy, edges);
    yield;
  }
  return {
    files: n,
    names,
    definers: definedBy,
    from: Int32Array.from(edges.from),
    to: Int32Array.from(edges.to),
    name: Int32Array.from(edges.name),
    count: Int32Array.from(edges.count),
  };
}

// Edges as tying builds them, before they are typed arrays.
type Edges = { from: number[]; to: number[]; name: number[]; count: number[] };

// Files `start` to `end` into `definers`: each name they define at the top or in a class, with the files defining it.
function addDefiners(sources: readonly MapSource[], start: number, end: number, definers: Map<string, number[]>): void {
  for (let i = start; i < end; i++) {
    for (const d of sources[i]?.defs ?? []) {
      if (d.depth > 1 || d.name.length < 3) continue;
      const name = keyOf(d.name);
      const list = definers.get(name);
      if (list === undefined) definers.set(name, [i]);
      else if (list.at(-1) !== i) list.push(i);
    }
  }
}

// Files `start` to `end`'s edges into `edges`: from a file to each definer of each name it uses, unless too many files
// define it. A file's `refs` are `word count word count` (as the cache keeps them), cut at once by String's split:
// read a character at a time, before V8 had optimized the loop, the words cost a fresh process 25-40 ms on the npm
// corpus's 1,000 files, cut by split 20-30.
function addEdges(
  sources: readonly MapSource[],
  start: number,
  end: number,
  ids: ReadonlyMap<string, number>,
  definers: readonly (readonly number[])[],
  edges: Edges,
): void {
  for (let from = start; from < end; from++) {
    const words = (sources[from]?.refs ?? '').split(' ');
    for (let k = 0; k + 1 < words.length; k += 2) {
      const id = ids.get(words[k] ?? '');
      if (id === undefined) continue;
      const files = definers[id] ?? [];
      if (files.length <= TOO_COMMON) tie(from, id, files, countOf(words[k + 1] ?? ''), edges);
    }
  }
}

// The edges from file `from` to each other file of `files`, which define name `id`.
function tie(from: number, id: number, files: readonly number[], count: number, edges: Edges): void {
  for (const j of files) {
    if (j === from) continue;
    edges.from.push(from);
    edges.to.push(j);
    edges.name.push(id);
    edges.count.push(count);
  }
}

// The count a word's count text says: its leading digits, at most what the ties' 32-bit columns hold.
function countOf(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    n = Math.min(n * 10 + digit, 0x7fffffff);
  }
  return n;
}

// A definition's name as the words of other files name it: the last part of `Server::start` or `App.Web`.
export function keyOf(name: string): string {
  const parts = name.split(/::|\.|\\|->/);
  return parts.at(-1)?.trim() ?? name;
}

// A file the ties were made of, as the map's cache knows it.
export type TiedFile = { rel: string; size: number; mtime: number };

// Which files, in which order, at which sizes and times, under which queries: ties are used only for the same.
export function tiesKey(files: readonly TiedFile[]): string {
  const text = files.map((f) => `${f.rel}\0${f.size}\0${f.mtime}\n`).join('');
  return createHash('sha256').update(cacheFormat()).update(text).digest('hex');
}

// The bytes that keep `ties` for `key`.
export function tiesBytes(key: string, ties: Ties): Buffer {
  const head = JSON.stringify({
    format: FORMAT,
    key,
    files: ties.files,
    names: ties.names,
    definers: ties.definers,
    edges: ties.from.length,
    plain: ties.plain !== undefined,
  });
  const { plain } = ties;
  const floats = plain === undefined ? [] : [plain.share, plain.out, plain.rank];
  const columns = [ties.from, ties.to, ties.name, ties.count, ...floats].map((c) =>
    Buffer.from(c.buffer, c.byteOffset, c.byteLength),
  );
  return Buffer.concat([Buffer.from(`${head}\n`), ...columns]);
}

// The ties in `bytes` when they were kept for `key`; undefined when there are none, they are of other files, or they
// fail their checks (a damaged file is as good as none: the ties are made again).
export function readTies(bytes: Uint8Array | undefined, key: string): Ties | undefined {
  if (bytes === undefined) return undefined;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const end = buffer.indexOf(10);
  if (end === -1) return undefined;
  let head: unknown;
  try {
    head = JSON.parse(buffer.toString('utf8', 0, end));
  } catch {
    return undefined;
  }
  if (!isRecord(head) || head.format !== FORMAT || head.key !== key) return undefined;
  const { files, names, definers, edges, plain } = head;
  if (!isCount(files) || !isCount(edges) || typeof plain !== 'boolean') return undefined;
  if (buffer.length !== end + 1 + edges * 16 + (plain ? edges * 8 + files * 16 : 0)) return undefined;
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) return undefined;
  if (!Array.isArray(definers) || definers.length !== names.length) return undefined;
  if (!definers.every((list) => Array.isArray(list) && list.every((i) => isCount(i) && i < files))) return undefined;
  // Copied out, not viewed: a view of 64-bit floats must start at a multiple of 8.
  let at = end + 1;
  const take = <T extends Int32Array | Float64Array>(out: T): T => {
    Buffer.from(out.buffer).set(buffer.subarray(at, at + out.byteLength));
    at += out.byteLength;
    return out;
  };
  const ties: Ties = {
    files,
    names: names as string[],
    definers: definers as number[][],
    from: take(new Int32Array(edges)),
    to: take(new Int32Array(edges)),
    name: take(new Int32Array(edges)),
    count: take(new Int32Array(edges)),
  };
  if (plain) {
    ties.plain = {
      share: take(new Float64Array(edges)),
      out: take(new Float64Array(files)),
      rank: take(new Float64Array(files)),
    };
  }
  return edgesFit(ties) && (ties.plain === undefined || plainFits(ties.plain)) ? ties : undefined;
}

// Whether every share, out and rank is a finite number at or above 0, a share at most 1.
function plainFits({ share, out, rank }: Plain): boolean {
  const fits = (values: Float64Array, most: number) => values.every((v) => v >= 0 && v <= most);
  return fits(share, 1) && fits(out, Number.MAX_VALUE) && fits(rank, Number.MAX_VALUE);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

// Whether every edge runs between files of the ties, through one of their names, used a count of times.
function edgesFit({ files, names, from, to, name, count }: Ties): boolean {
  for (let e = 0; e < from.length; e++) {
    const f = from[e] ?? -1;
    const t = to[e] ?? -1;
    const n = name[e] ?? -1;
    if (f < 0 || f >= files || t < 0 || t >= files || n < 0 || n >= names.length || (count[e] ?? -1) < 0) return false;
  }
  return true;
}
