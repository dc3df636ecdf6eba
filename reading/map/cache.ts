// What the map keeps of each file between runs, so that a map of a folder read before is made without parsing: its
// definitions and the words it uses, valid while the file's size and modification time are the same. Kept by whoever
// makes the executor (saved/map-cache.ts keeps it in deepwork's state folder) as bytes this module writes and checks.
//
// The bytes: a first line of JSON, `{"format": …, "index": [[path, size, mtime, bytes], …]}`, then each file's
// `[[[name, first, last, depth], …], refs]` as JSON, one after the other, `bytes` long each. The index is all a run
// reads before its first message; a file's own part is read when the map ranks it. A full cache (10,000 files, about
// 29 MB, most of it the words files use) read as one JSON text took 120-140 ms to decode and 160 ms to parse at every
// start, with Linux's source (issue 30).

import { Buffer } from 'node:buffer';
import { isRecord } from '../../common/unknown.ts';
import { allQueries } from '../outline/languages.ts';
import type { MapDef } from './graph.ts';

// Where the map's cache lives: read whole when a run starts, written whole when a map is done; undefined when there is
// none or it cannot be read. Beside it, the ties of the latest maps' sets of files (ties.ts), each by its key, read when
// a map ranks and written when they were made.
export type MapStore = {
  load(): Uint8Array | undefined;
  save(bytes: Uint8Array): void;
  loadTies?(key: string): Uint8Array | undefined;
  saveTies?(key: string, bytes: Uint8Array): void;
};

// One file as the map knows it. `refs`: the words it uses and how often, as `word count word count`.
export type Entry = { size: number; mtime: number; defs: MapDef[]; refs: string };

// Files kept at most: a cache past this keeps those of the latest map.
export const KEPT_FILES = 10_000;

// The cache's format and the queries that made it: either changed, every file is read again (3: definitions begin at
// their attributes, with their own line). Made when a cache is
// first read or written, not when the module loads: hashing every query took 1.5 ms of every run, mapped or not.
let format: string | undefined;
export const cacheFormat = (): string => (format ??= `3:${hash(allQueries())}`);

// The cache as read. Each file's entry is checked and made when first asked for: a map reads the few hundred files it
// chose of the thousands kept, and whether a file is fresh is told from the index. An entry that fails its check is as
// good as none.
export type Entries = {
  get(rel: string): Entry | undefined;
  // Whether the file is kept as it is now, by its size and modification time, its entry not made: a map that goes on
  // to rank nothing before the first message (a big folder with files still to parse) makes none then. An entry that
  // later fails its check leaves its file out of this run's map, and the next run reads the file again.
  fresh(rel: string, size: number, mtime: number): boolean;
  set(rel: string, entry: Entry): void;
  has(rel: string): boolean;
  // How many files it holds (none: a first question in the folder, or a cache found damaged).
  size(): number;
  // The size and time of the file as kept, its entry not made; undefined for a file not kept.
  stamp(rel: string): { size: number; mtime: number } | undefined;
  // The bytes of the last `max` files `keep` keeps, in the order kept (the latest last). A file whose entry was not
  // made is written as it was read: a write does not make every entry.
  bytes(keep: (rel: string) => boolean, max: number): Uint8Array;
  // Whether an entry was found damaged, and dropped, since the bytes were read or last made: written again, the cache
  // no longer holds it, and the next run reads the file.
  dropped(): boolean;
};

// A kept file not yet made: its size and time from the index, and where its own part lies in the bytes.
type Unread = { size: number; mtime: number; from: number; to: number };

export function readCache(bytes: Uint8Array | undefined): Entries {
  const buffer = bytes === undefined ? Buffer.alloc(0) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const entries = new Map<string, Entry | Unread>(indexOf(buffer));
  const isUnread = (value: Entry | Unread): value is Unread => 'from' in value;
  let dropped = false;
  const get = (rel: string): Entry | undefined => {
    const value = entries.get(rel);
    if (value === undefined || !isUnread(value)) return value;
    let part: unknown;
    try {
      part = JSON.parse(buffer.toString('utf8', value.from, value.to));
    } catch {
      part = undefined;
    }
    const entry = Array.isArray(part) && part.length === 2 ? entryOf([value.size, value.mtime, ...part]) : undefined;
    // Map.set on a key keeps its place in the order.
    if (entry === undefined) {
      entries.delete(rel);
      dropped = true;
    } else entries.set(rel, entry);
    return entry;
  };
  return {
    get,
    fresh: (rel, size, mtime) => {
      const value = entries.get(rel);
      return value !== undefined && value.size === size && value.mtime === mtime;
    },
    set: (rel, entry) => {
      entries.set(rel, entry);
    },
    has: (rel) => entries.has(rel),
    size: () => entries.size,
    stamp: (rel) => {
      const value = entries.get(rel);
      return value === undefined ? undefined : { size: value.size, mtime: value.mtime };
    },
    bytes: (keep, max) => {
      dropped = false;
      const index: Array<[string, number, number, number]> = [];
      const parts: Buffer[] = [];
      for (const [rel, value] of [...entries].filter(([rel]) => keep(rel)).slice(-max)) {
        const part = isUnread(value)
          ? buffer.subarray(value.from, value.to)
          : Buffer.from(JSON.stringify([value.defs.map(tupleOf), value.refs]));
        index.push([rel, value.size, value.mtime, part.length]);
        parts.push(part);
      }
      return Buffer.concat([Buffer.from(`${JSON.stringify({ format: cacheFormat(), index })}\n`), ...parts]);
    },
    dropped: () => dropped,
  };
}

// The index of a cache's bytes, each file with where its part lies; none when the bytes are not a cache of this
// format, or are cut short.
function indexOf(buffer: Buffer): Array<[string, Unread]> {
  const end = buffer.indexOf(10);
  if (end === -1) return [];
  let head: unknown;
  try {
    head = JSON.parse(buffer.toString('utf8', 0, end));
  } catch {
    return [];
  }
  if (!isRecord(head) || head.format !== cacheFormat() || !Array.isArray(head.index)) return [];
  const out: Array<[string, Unread]> = [];
  let from = end + 1;
  for (const item of head.index as unknown[]) {
    if (!Array.isArray(item) || item.length !== 4) return [];
    const [rel, size, mtime, length] = item as unknown[];
    if (typeof rel !== 'string' || typeof size !== 'number' || typeof mtime !== 'number') return [];
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 0 || from + length > buffer.length)
      return [];
    out.push([rel, { size, mtime, from, to: from + length }]);
    from += length;
  }
  return out;
}

function entryOf(value: unknown): Entry | undefined {
  if (!Array.isArray(value) || value.length !== 4) return undefined;
  const [size, mtime, defs, refs] = value as unknown[];
  if (typeof size !== 'number' || typeof mtime !== 'number' || typeof refs !== 'string' || !Array.isArray(defs))
    return undefined;
  const out: MapDef[] = [];
  for (const d of defs) {
    if (!Array.isArray(d) || (d.length !== 4 && d.length !== 5)) return undefined;
    const [name, first, last, depth, own] = d as unknown[];
    if (typeof name !== 'string' || typeof first !== 'number' || typeof last !== 'number' || typeof depth !== 'number')
      return undefined;
    if (own !== undefined && typeof own !== 'number') return undefined;
    out.push(own === undefined ? { name, first, last, depth } : { name, first, last, depth, own });
  }
  return { size, mtime, defs: out, refs };
}

// A definition as the cache keeps it: `[name, first, last, depth]`, and its own line after those when it has one.
function tupleOf(d: MapDef): Array<string | number> {
  return d.own === undefined ? [d.name, d.first, d.last, d.depth] : [d.name, d.first, d.last, d.depth, d.own];
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
