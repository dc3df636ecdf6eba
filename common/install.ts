// deepwork's install folder: the one holding its package.json, config.json, backup/ and state/. Found by walking up
// from this file, so it is the same from the sources and from the compiled dist/.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findInstallDir(): string {
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (isDeepworkPackage(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return path.dirname(start);
  }
}

function isDeepworkPackage(file: string): boolean {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return typeof value === 'object' && value !== null && 'name' in value && value.name === 'deepwork';
  } catch {
    return false;
  }
}

export const INSTALL_DIR = findInstallDir();
