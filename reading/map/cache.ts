// What the map keeps of each file between runs, so that a map of a folder read before is made without parsing: its
// definitions and the words it uses, valid while the file's size and modification time are the same. Kept by whoever
// makes the executor (state/map-cache.ts keeps it in deepwork's state folder), read back as unknown and checked.

import { isRecord } from '../../common/unknown.ts';
import { allQueries } from '../outline/languages.ts';
import type { MapDef } from './graph.ts';

// Where the map's cache lives: read whole when a run starts, written whole when a map is done.
export type MapStore = { load(): unknown; save(data: unknown): void };

// One file as the map knows it. `refs`: the words it uses and how often, as `word count word count`.
export type Entry = { size: number; mtime: number; defs: MapDef[]; refs: string };

// Files kept at most: a cache past this keeps those of the latest map.
export const KEPT_FILES = 10_000;

// The cache's format and the queries that made it: either changed, every file is read again. Made when a cache is
// first read or written, not when the module loads: hashing every query took 1.5 ms of every run, mapped or not.
let format: string | undefined;
const formatOf = (): string => (format ??= `1:${hash(allQueries())}`);

// The cache as read. Each file's entry is checked and made when first asked for: a map reads the few hundred files it
// chose of the thousands kept, and checking every one as the cache was read took 11-19 ms of the first message on
// Linux's source (issue 30). An entry that fails its check is as good as none.
export type Entries = {
  get(rel: string): Entry | undefined;
  // Whether the file is kept as it is now, by its size and modification time, its entry not made: a map that goes on
  // to rank nothing before the first message (a big folder with files still to parse) makes none then. An entry that
  // later fails its check leaves its file out of this run's map, and the next run reads the file again.
  fresh(rel: string, size: number, mtime: number): boolean;
  set(rel: string, entry: Entry): void;
  has(rel: string): boolean;
  // Every good entry, in the order kept (the latest last).
  list(): Array<[string, Entry]>;
};

export function readCache(data: unknown): Entries {
  // An entry as written is an array; once made, an Entry. Map.set on a key keeps its place in the order.
  const entries = new Map<string, Entry | unknown[]>();
  if (isRecord(data) && data.format === formatOf() && isRecord(data.files))
    for (const [rel, value] of Object.entries(data.files)) if (Array.isArray(value)) entries.set(rel, value);
  const get = (rel: string): Entry | undefined => {
    const value = entries.get(rel);
    if (!Array.isArray(value)) return value;
    const entry = entryOf(value);
    if (entry === undefined) entries.delete(rel);
    else entries.set(rel, entry);
    return entry;
  };
  return {
    get,
    fresh: (rel, size, mtime) => {
      const value = entries.get(rel);
      if (value === undefined) return false;
      return Array.isArray(value)
        ? value[0] === size && value[1] === mtime
        : value.size === size && value.mtime === mtime;
    },
    set: (rel, entry) => {
      entries.set(rel, entry);
    },
    has: (rel) => entries.has(rel),
    list: () =>
      [...entries.keys()].flatMap((rel) => {
        const entry = get(rel);
        return entry === undefined ? [] : [[rel, entry] as [string, Entry]];
      }),
  };
}

// The cache as it is written: `[size, mtime, [[name, first, last, depth], …], refs]` per file.
export function writeCache(entries: ReadonlyMap<string, Entry>): unknown {
  const files: Record<string, unknown> = {};
  for (const [rel, e] of entries)
    files[rel] = [e.size, e.mtime, e.defs.map((d) => [d.name, d.first, d.last, d.depth]), e.refs];
  return { format: formatOf(), files };
}

function entryOf(value: unknown): Entry | undefined {
  if (!Array.isArray(value) || value.length !== 4) return undefined;
  const [size, mtime, defs, refs] = value as unknown[];
  if (typeof size !== 'number' || typeof mtime !== 'number' || typeof refs !== 'string' || !Array.isArray(defs))
    return undefined;
  const out: MapDef[] = [];
  for (const d of defs) {
    if (!Array.isArray(d) || d.length !== 4) return undefined;
    const [name, first, last, depth] = d as unknown[];
    if (typeof name !== 'string' || typeof first !== 'number' || typeof last !== 'number' || typeof depth !== 'number')
      return undefined;
    out.push({ name, first, last, depth });
  }
  return { size, mtime, defs: out, refs };
}

export function refsText(refs: ReadonlyArray<readonly [string, number]>): string {
  return refs.map(([word, count]) => `${word} ${count}`).join(' ');
}

// FNV-1a, as 8 hex digits: a fingerprint of the queries, not a security measure.
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
