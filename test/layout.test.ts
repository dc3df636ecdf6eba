// The layout the README states: each folder one job, imports pointing one way (type imports and the page's JSDoc
// imports included), and no source file grown past what one can read whole.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { INSTALL_DIR } from '../common/install.ts';

const FOLDERS = [
  'commands',
  'common',
  'app',
  'console',
  'protocol',
  'reading',
  'writing',
  'saved',
  'bridge',
  'ui',
  'extension',
];
// What each folder may import besides itself. deepwork.ts is the command line at the top.
const ALLOWED: Record<string, readonly string[]> = {
  deepwork: ['commands', 'common', 'console'],
  commands: ['app', 'bridge', 'common', 'console', 'protocol', 'reading', 'saved', 'ui', 'writing'],
  ui: ['app', 'bridge', 'common', 'protocol', 'reading', 'saved', 'writing'],
  app: ['bridge', 'common', 'protocol', 'reading', 'saved', 'writing'],
  console: ['bridge', 'common', 'protocol', 'writing'],
  saved: ['common', 'protocol', 'writing'],
  writing: ['common', 'protocol', 'reading'],
  reading: ['common', 'protocol'],
  bridge: ['common', 'protocol'],
  protocol: ['common'],
  common: [],
  // The browser extension is loaded by the browser as it is: it imports nothing at run time from the rest, and only
  // the types of what crosses its socket (ui/extension-contract.ts, JSDoc @import), checked by `tsc -p extension`.
  extension: ['ui'],
};
const MAX_LINES = 450;

// Every source file of the folders above, with its folder.
function sources(): Array<{ file: string; folder: string }> {
  const found: Array<{ file: string; folder: string }> = [
    { file: path.join(INSTALL_DIR, 'deepwork.ts'), folder: 'deepwork' },
  ];
  const walk = (dir: string, folder: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs, folder);
      else if (/\.(ts|js)$/.test(entry.name)) found.push({ file: abs, folder });
    }
  };
  for (const folder of FOLDERS) walk(path.join(INSTALL_DIR, folder), folder);
  return found;
}

// The folders a file imports from, by its relative specifiers: static, dynamic, type-only, re-exports, JSDoc @import.
function importedFolders(file: string): Array<{ folder: string; spec: string }> {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.[^'"]+)['"]/g)].map(
    (m) => m[1] ?? '',
  );
  return specs.map((spec) => {
    const rel = path.relative(INSTALL_DIR, path.resolve(path.dirname(file), spec)).split(path.sep);
    return { folder: rel.length === 1 ? (rel[0] ?? '').replace(/\.ts$/, '') : (rel[0] ?? ''), spec };
  });
}

describe('the layout', () => {
  it('has imports point one way between folders, as the README says', () => {
    const wrong: string[] = [];
    for (const { file, folder } of sources()) {
      for (const imported of importedFolders(file)) {
        if (imported.folder === folder) continue;
        if (!(ALLOWED[folder] ?? []).includes(imported.folder))
          wrong.push(`${path.relative(INSTALL_DIR, file)} imports ${imported.spec} (${folder} → ${imported.folder})`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('finds imports of every form it looks for, so the check above can fail', () => {
    const probe = path.join(INSTALL_DIR, 'protocol', 'loop.ts');
    assert.ok(importedFolders(probe).some((i) => i.folder === 'common'));
    assert.ok(importedFolders(path.join(INSTALL_DIR, 'ui', 'page', 'main.js')).length > 0);
  });

  it(`keeps every source file, the page's included, within ${MAX_LINES} lines`, () => {
    const long = sources().flatMap(({ file }) => {
      const lines = fs.readFileSync(file, 'utf8').split('\n').length;
      return lines > MAX_LINES ? [`${path.relative(INSTALL_DIR, file)}: ${lines} lines`] : [];
    });
    assert.deepEqual(long, []);
  });
});
