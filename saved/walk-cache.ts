// The walk's kept listing per project folder (reading/walk-cache.ts says what it holds), in deepwork's own state
// folder, never in the project: read whole when a walk starts, written whole and atomically when one is done.

import fs from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../writing/atomic.ts';
import { folderKey } from './folder-key.ts';

// Larger than any walk kept (300,000 entries with long names): a file past it is not read.
const MAX_BYTES = 256 << 20;

// The store for the folder at `root` (its real path): a missing, unreadable or oversized file comes back as
// undefined, and what it holds is checked by the walk before it is used.
export function walkStore(
  stateDir: string,
  root: string,
): { load(): Uint8Array | undefined; save(bytes: Uint8Array): void } {
  const file = path.join(stateDir, 'walks', `${folderKey(root)}.bin`);
  return {
    load: () => {
      try {
        const size = fs.statSync(file, { throwIfNoEntry: false })?.size;
        return size === undefined || size > MAX_BYTES ? undefined : fs.readFileSync(file);
      } catch {
        return undefined;
      }
    },
    save: (bytes) => {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      writeAtomic(fs, file, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0o600);
    },
  };
}
