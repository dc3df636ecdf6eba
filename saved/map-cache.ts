// The map of the code's cache per project folder (reading/map/cache.ts says what it holds), in deepwork's own state
// folder, never in the project: read whole when a map starts, written whole and atomically when one is done.

import fs from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../writing/atomic.ts';
import { folderKey } from './folder-key.ts';

// The store for the folder at `root` (its real path): its bytes, which reading/map/cache.ts reads and checks, and a
// missing or unreadable file as undefined (the map is then made afresh, never refused).
export function mapStore(
  stateDir: string,
  root: string,
): { load(): Uint8Array | undefined; save(bytes: Uint8Array): void } {
  const file = path.join(stateDir, 'maps', `${folderKey(root)}.cache`);
  // Where the cache was kept as one JSON text before (issue 30): removed when the new one is written.
  const before = path.join(stateDir, 'maps', `${folderKey(root)}.json`);
  return {
    load: () => {
      try {
        return fs.readFileSync(file);
      } catch {
        return undefined;
      }
    },
    save: (bytes) => {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      writeAtomic(fs, file, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), 0o600);
      fs.rmSync(before, { force: true });
    },
  };
}
