// The map of the code's cache per project folder (reading/map/cache.ts says what it holds) and the ties of its latest
// maps' files (reading/map/ties.ts), in deepwork's own state folder, never in the project: each read whole when a map
// needs it, written whole and atomically.

import fs from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../writing/atomic.ts';
import { folderKey } from './folder-key.ts';
import { keepLatest } from './keep-latest.ts';

// Sets of files whose ties are kept per folder, the latest used: in a folder of more source files than a map reads, the
// question decides which it reads (the files it names first), and questions come and go.
export const TIES_KEPT = 8;

// The store for the folder at `root` (its real path): its bytes, which reading/map/cache.ts reads and checks, and a
// missing or unreadable file as undefined (the map is then made afresh, never refused). The ties of a set of files are
// a file of their own, named by their key, in a folder beside the cache.
export function mapStore(
  stateDir: string,
  root: string,
): {
  load(): Uint8Array | undefined;
  save(bytes: Uint8Array): void;
  loadTies(key: string): Uint8Array | undefined;
  saveTies(key: string, bytes: Uint8Array): void;
} {
  const file = path.join(stateDir, 'maps', `${folderKey(root)}.cache`);
  const ties = path.join(stateDir, 'maps', `${folderKey(root)}.ties`);
  // Where the cache was kept as one JSON text before (issue 30): removed when the new one is written.
  const before = path.join(stateDir, 'maps', `${folderKey(root)}.json`);
  return {
    load: () => readOrNone(file),
    save: (bytes) => {
      write(file, bytes);
      fs.rmSync(before, { force: true });
    },
    loadTies: (key) => {
      const kept = path.join(ties, tiesName(key));
      const bytes = readOrNone(kept);
      // Used now: the last to be let go.
      if (bytes !== undefined) touch(kept);
      return bytes;
    },
    saveTies: (key, bytes) => {
      // For a few commits of issue 30 the ties of one set were a file of the folder's name: it goes.
      if (fs.statSync(ties, { throwIfNoEntry: false })?.isFile() === true) fs.rmSync(ties, { force: true });
      write(path.join(ties, tiesName(key)), bytes);
      keepLatest(ties, '.bin', TIES_KEPT);
    },
  };
}

// A key is the hex digest reading/map/ties.ts makes: anything else never names a file.
function tiesName(key: string): string {
  if (!/^[0-9a-f]{16,128}$/.test(key)) throw new Error(`not a key of ties: ${JSON.stringify(key.slice(0, 80))}`);
  return `${key}.bin`;
}

function touch(file: string): void {
  try {
    const now = new Date();
    fs.utimesSync(file, now, now);
  } catch {
    // Then it is let go a little sooner.
  }
}

function readOrNone(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

function write(file: string, bytes: Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeAtomic(fs, file, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), 0o600);
}
