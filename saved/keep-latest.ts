// A folder of files of which only the latest are kept (the conversations, the map's ties): ordered by their times, the
// last written or used first; among the same time, by name, the greater first (conversations' names begin with when
// they started). None is read for it, so a damaged file ages out too.

import fs from 'node:fs';
import path from 'node:path';

// Removes all but the `count` latest files of `folder` whose names end in `suffix`.
export function keepLatest(folder: string, suffix: string, count: number): void {
  const files = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith(suffix))
    .flatMap((name) => {
      try {
        return [{ name, time: fs.statSync(path.join(folder, name)).mtimeMs }];
      } catch {
        return [];
      }
    });
  files.sort((a, b) => b.time - a.time || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  // unlink rather than rmSync: rmSync loads Node's recursive remover for one file, at every run once the folder is full.
  for (const old of files.slice(count)) {
    try {
      fs.unlinkSync(path.join(folder, old.name));
    } catch {
      // Gone already (another run removed it).
    }
  }
}
