// The map of the code's cache per project folder (reading/map/cache.ts says what it holds) and the ties of its last
// map's files (reading/map/ties.ts), in deepwork's own state folder, never in the project: each read whole when a map
// needs it, written whole and atomically.

import fs from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../writing/atomic.ts';
import { folderKey } from './folder-key.ts';

// The store for the folder at `root` (its real path): its bytes, which reading/map/cache.ts reads and checks, and a
// missing or unreadable file as undefined (the map is then made afresh, never refused).
export function mapStore(
  stateDir: string,
  root: string,
): {
  load(): Uint8Array | undefined;
  save(bytes: Uint8Array): void;
  loadTies(): Uint8Array | undefined;
  saveTies(bytes: Uint8Array): void;
} {
  const file = path.join(stateDir, 'maps', `${folderKey(root)}.cache`);
  // The ties of the last map's files (reading/map/ties.ts), beside it.
  const tiesFile = path.join(stateDir, 'maps', `${folderKey(root)}.ties`);
  // Where the cache was kept as one JSON text before (issue 30): removed when the new one is written.
  const before = path.join(stateDir, 'maps', `${folderKey(root)}.json`);
  return {
    load: () => readOrNone(file),
    save: (bytes) => {
      write(file, bytes);
      fs.rmSync(before, { force: true });
    },
    loadTies: () => readOrNone(tiesFile),
    saveTies: (bytes) => write(tiesFile, bytes),
  };
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
