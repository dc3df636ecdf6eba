// The map of the code's cache per project folder (reading/map/cache.ts says what it holds), in deepwork's own state
// folder, never in the project: read whole when a map starts, written whole and atomically when one is done.

import fs from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../writing/atomic.ts';
import { folderKey } from './folder-key.ts';

// The store for the folder at `root` (its real path): what it holds comes back as unknown, and a missing or damaged
// file as undefined (the map is then made afresh, never refused).
export function mapStore(stateDir: string, root: string): { load(): unknown; save(data: unknown): void } {
  const file = path.join(stateDir, 'maps', `${folderKey(root)}.json`);
  return {
    load: () => {
      try {
        return JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch {
        return undefined;
      }
    },
    save: (data) => {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      writeAtomic(fs, file, Buffer.from(JSON.stringify(data)), 0o600);
    },
  };
}
