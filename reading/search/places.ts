// Where a run's files are read, and only while every folder on the way is still the real folder the walk saw (not a
// symlink made since): on the main thread from the walk's own paths, in a worker from a pool of paths as bytes in
// memory the threads share, so that a worker is given a run's files without a copy of 200,000 strings. Folders have
// ids in the pool, so that the folders on a file's way are checked once per search by number.

import fs from 'node:fs';
import path from 'node:path';
import type { SearchFile } from './plan.ts';

// Where file `index` of the run is read, when its way is still the walk's (undefined: it is not read). `newSearch`:
// the folders are looked at again from now on.
export type Places = { files: number; open(index: number): string | Buffer | undefined; newSearch(): void };

// The main thread's places: the root joined to each file's relative path, or its symlink's target, made when it is
// read; the folders on the way looked at by path.
export function placesOf(root: string, files: readonly SearchFile[]): Places {
  const sep = path.sep;
  const prefix = root + sep;
  let way = wayByPath(root);
  return {
    files: files.length,
    open(index) {
      const file = files[index];
      if (file === undefined) return undefined;
      const where = file.target ?? prefix + (sep === '/' ? file.rel : file.rel.replaceAll('/', sep));
      return way(where) ? where : undefined;
    },
    newSearch() {
      way = wayByPath(root);
    },
  };
}

// Paths encoded at a time into a pool (poolOf).
const POOL_BATCH = 4096;

// A worker's places: the pool's paths, the folders on the way looked at by their ids.
export function poolPlaces(pool: PathPool): Places {
  let way = wayById(pool);
  return {
    files: pool.files,
    open: (index) => way(index),
    newSearch() {
      way = wayById(pool);
    },
  };
}

// A file of the pool whose way is checked by its path (a symlinked file, read at its target), not by folder ids.
export const BY_PATH = -2;
// The root, as a folder id.
export const ROOT = -1;

// `files` files, then `folders` folders: their absolute paths in `bytes`, each ended by a NUL, path i from offsets[i]
// up to the NUL before offsets[i + 1].
// `folderOf[i]`: file i's folder (ROOT, or BY_PATH); `parentOf[f]`: folder f's parent folder. Every array lies in
// shared memory, as `shared` hands it to a worker.
export type PathPool = {
  root: string;
  files: number;
  folders: number;
  bytes: Uint8Array;
  offsets: Int32Array;
  folderOf: Int32Array;
  parentOf: Int32Array;
  shared: SharedPool;
};

// The shared buffers of a pool, as posted to a worker.
export type SharedPool = {
  root: string;
  files: number;
  folders: number;
  bytes: SharedArrayBuffer;
  index: SharedArrayBuffer;
};

// The pool of a run's files: `root` joined to each file's relative path, or its symlink's target, and every folder on
// their way.
export function poolOf(root: string, files: readonly SearchFile[]): PathPool {
  const folderIds = new Map<string, number>();
  const folderRels: string[] = [];
  const parents: number[] = [];
  const folderId = (rel: string): number => {
    if (rel === '') return ROOT;
    const known = folderIds.get(rel);
    if (known !== undefined) return known;
    const parent = folderId(rel.slice(0, Math.max(0, rel.lastIndexOf('/'))));
    const id = folderRels.length;
    folderIds.set(rel, id);
    folderRels.push(rel);
    parents.push(parent);
    return id;
  };
  const folderOf = new Int32Array(files.length);
  // Files come folder by folder: the last folder's id is most often the next one's.
  let lastDir = '';
  let lastId = ROOT;
  files.forEach((f, i) => {
    if (f.target !== undefined) {
      folderOf[i] = BY_PATH;
      return;
    }
    const dir = f.rel.slice(0, Math.max(0, f.rel.lastIndexOf('/')));
    if (dir !== lastDir) {
      lastDir = dir;
      lastId = folderId(dir);
    }
    folderOf[i] = lastId;
  });
  const sep = path.sep;
  const prefix = root + sep;
  const count = files.length + folderRels.length;
  // Path i of the pool: file i, then the folders.
  const pathOf = (i: number): string => {
    const file = files[i];
    if (file?.target !== undefined) return file.target;
    const rel = file === undefined ? (folderRels[i - files.length] ?? '') : file.rel;
    return prefix + (sep === '/' ? rel : rel.replaceAll('/', sep));
  };
  // Encoded a batch at a time (a walked name holds no NUL): joined, measured, then joined again and written straight
  // into the shared memory. All of them at once, as before, held every path three times over besides the pool (the
  // strings, their join and its bytes): 45 MB for a moment on 200,000 files, at the peak of a FIND run's memory.
  const batches = Math.ceil(count / POOL_BATCH);
  const batch = (b: number): string => {
    const parts: string[] = [];
    for (let i = b * POOL_BATCH; i < Math.min(count, (b + 1) * POOL_BATCH); i++) parts.push(pathOf(i));
    return `${parts.join('\0')}\0`;
  };
  let size = 0;
  for (let b = 0; b < batches; b++) size += Buffer.byteLength(batch(b));
  const bytes = new SharedArrayBuffer(Math.max(1, size));
  const view = Buffer.from(bytes);
  // One buffer for the three index arrays: offsets (count + 1), folderOf (files), parentOf (folders).
  const index = new SharedArrayBuffer(4 * (count + 1 + files.length + folderRels.length));
  const offsets = new Int32Array(index, 0, count + 1);
  let at = 0;
  for (let b = 0; b < batches; b++) {
    const text = batch(b);
    const written = view.write(text, at);
    // Split where the NULs fall: by the strings' lengths when the batch is all ASCII, as it mostly is, else by looking
    // for each NUL.
    const ascii = written === text.length;
    for (let i = b * POOL_BATCH; i < Math.min(count, (b + 1) * POOL_BATCH); i++) {
      offsets[i] = at;
      at = (ascii ? at + pathOf(i).length : view.indexOf(0, at)) + 1;
    }
  }
  offsets[count] = at;
  new Int32Array(index, 4 * (count + 1), files.length).set(folderOf);
  new Int32Array(index, 4 * (count + 1 + files.length), folderRels.length).set(parents);
  return poolFrom({ root, files: files.length, folders: folderRels.length, bytes, index });
}

// A pool over shared buffers: in the worker, as the main thread posted them.
export function poolFrom(shared: SharedPool): PathPool {
  const { files, folders } = shared;
  const count = files + folders;
  return {
    root: shared.root,
    files,
    folders,
    bytes: new Uint8Array(shared.bytes),
    offsets: new Int32Array(shared.index, 0, count + 1),
    folderOf: new Int32Array(shared.index, 4 * (count + 1), files),
    parentOf: new Int32Array(shared.index, 4 * (count + 1 + files), folders),
    shared,
  };
}

// Where file i is read, as bytes Node opens without encoding a string (a view of the pool: valid while it lives).
export function filePath(pool: PathPool, i: number): Buffer {
  return slice(pool, i);
}

// Folder f's path, the same way.
export function folderPath(pool: PathPool, f: number): Buffer {
  return slice(pool, pool.files + f);
}

function slice(pool: PathPool, i: number): Buffer {
  const from = pool.offsets[i] ?? 0;
  // Each path is followed by a NUL (the last by the end): the next one starts one byte after it.
  const to = (pool.offsets[i + 1] ?? from + 1) - 1;
  return Buffer.from(pool.bytes.buffer, pool.bytes.byteOffset + from, Math.max(0, to - from));
}

// Where a file of the pool is read, while the folders on its way are real folders: each folder looked at once per
// search (an lstat), up to the root, by its id. A symlinked file the walk accepted is read at its target, whose folders
// are looked at by path.
function wayById(pool: PathPool): (index: number) => Buffer | undefined {
  // Per folder: 0 not looked at yet, 1 a real folder all the way up, 2 not.
  const known = new Uint8Array(pool.folders);
  const folderOk = (f: number): boolean => {
    if (f === ROOT) return true;
    const seen = known[f] ?? 0;
    if (seen !== 0) return seen === 1;
    let ok = false;
    try {
      ok = fs.lstatSync(folderPath(pool, f)).isDirectory() && folderOk(pool.parentOf[f] ?? ROOT);
    } catch {
      ok = false;
    }
    known[f] = ok ? 1 : 2;
    return ok;
  };
  let byPath: ((abs: string) => boolean) | undefined;
  return (index) => {
    const folder = pool.folderOf[index] ?? ROOT;
    const where = filePath(pool, index);
    if (folder !== BY_PATH) return folderOk(folder) ? where : undefined;
    byPath ??= wayByPath(pool.root);
    return byPath(where.toString()) ? where : undefined;
  };
}

// Whether the folders on the way to a file are still the real folders the walk saw: each folder looked at once per
// search (an lstat), up to the root.
function wayByPath(root: string): (abs: string) => boolean {
  const known = new Map<string, boolean>([[root, true]]);
  // A path's folder: its paths are made with path.sep (placesOf's, or a target the walk resolved), and the way is not
  // followed above the root, so a cut at the last separator is path.dirname's answer without its loop over each
  // character (4 ms of a FIND asked at once on the npm corpus, issue 30).
  const sep = path.sep;
  const folderOf = (abs: string) => abs.slice(0, Math.max(0, abs.lastIndexOf(sep)));
  const folderOk = (dir: string): boolean => {
    const seen = known.get(dir);
    if (seen !== undefined) return seen;
    const up = folderOf(dir);
    let ok = false;
    if (up !== dir && dir.length > root.length) {
      try {
        const stat = fs.lstatSync(dir);
        ok = stat.isDirectory() && folderOk(up);
      } catch {
        ok = false;
      }
    }
    known.set(dir, ok);
    return ok;
  };
  return (abs) => folderOk(folderOf(abs));
}
