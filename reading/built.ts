// Whether a folder of the walk holds built output (common/kinds-of-files.ts): by its name, and for a `build/` by a
// `src/` beside it, looked at on disk (a lstat; the walk's entries give a folder's siblings only after its own).

import fs from 'node:fs';
import path from 'node:path';
import { BUILT_BESIDE_SOURCES, BUILT_FOLDER } from '../common/kinds-of-files.ts';
import type { WalkEntry } from './walk.ts';

export function isBuiltFolder(root: string, folder: WalkEntry): boolean {
  if (BUILT_FOLDER.test(folder.name)) return true;
  if (!BUILT_BESIDE_SOURCES.test(folder.name)) return false;
  const beside = path.join(root, folder.rel.slice(0, folder.rel.length - folder.name.length), 'src');
  try {
    return fs.lstatSync(beside, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
