// LIST's masks (reading/mask.ts): `*.ext` and `**/*.ext` matched without picomatch, and matched as picomatch matches
// them.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import picomatch from 'picomatch';
import { compileMask, isPlainPath } from '../reading/mask.ts';

// What picomatch answers for a mask, tried as mask.ts tries any other mask: the mask itself, then its expression.
function picomatchMatch(mask: string): (name: string) => boolean {
  const regex = picomatch.makeRe(mask, { dot: true, noextglob: true, windows: process.platform === 'win32' });
  return (name) => name === mask || regex.test(name);
}

function compiled(mask: string): (name: string) => boolean {
  const result = compileMask(mask);
  assert.equal(result.kind, 'mask', mask);
  return result.kind === 'mask' ? result.match : () => false;
}

// Masks by their ending, at the top and in any folder.
const MASKS = ['*.ts', '**/*.ts', '*.d.ts', '**/*.d.ts', '**/*.min.js', '*.S', '**/*.c', '**/*.tar-gz', '**/*.x_1'];

// Names as a walk gives them and odder ones: dots, case, nesting, names that are all ending, line breaks.
const FOLDERS = ['', 'src/', 'a/b/c/', '.git/', '.hidden/x/', '..a/', 'a./', '.../', 'a b/', 'é/', 'x\ny/', '\r/'];
const NAMES = [
  'a.ts',
  '.ts',
  'a.d.ts',
  '.d.ts',
  'x.TS',
  'x.Ts',
  'a.tsx',
  'a.ts.bak',
  'ats',
  'a.min.js',
  'min.js',
  '.min.js',
  'a.S',
  'a.s',
  'a.c',
  'b.tar-gz',
  'b.x_1',
  'a b.ts',
  'ü.ts',
  '\na.ts',
  'a\n.ts',
  '\u2028.c',
  '*.ts',
  'ts',
  '.',
  '..',
];
const ODD = [
  '',
  '/',
  'a.ts/',
  'a.ts//',
  '/a.ts',
  'a//b.ts',
  './a.ts',
  '../a.ts',
  'a/./b.ts',
  'a/../b.ts',
  'a/.',
  '**/*.ts',
];

// A few thousand strings of the characters that matter to these masks, the same at every run.
function randomNames(count: number): string[] {
  const alphabet = ['a', 't', 's', 'T', '.', '.', '/', '/', 'd', 'c', 'S', '\n', '\r', '\u2028', '-', '_', ' ', 'é'];
  let seed = 30;
  const next = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed >>> 8;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + (next() % 9) }, () => alphabet[next() % alphabet.length]).join(''),
  );
}

describe('compileMask', () => {
  it('matches *.ext and **/*.ext as picomatch does, on every name tried', () => {
    const names = [...FOLDERS.flatMap((folder) => NAMES.map((name) => folder + name)), ...ODD, ...randomNames(5_000)];
    for (const mask of MASKS) {
      const ours = compiled(mask);
      const theirs = picomatchMatch(mask);
      const differ = names.filter((name) => ours(name) !== theirs(name));
      assert.deepEqual(differ, [], mask);
      assert.ok(
        names.some((name) => ours(name)),
        mask,
      );
    }
  });

  it('lists from the top for those masks, and takes them for globs', () => {
    for (const mask of ['*.ts', '**/*.ts', './**/*.py', '**/**/*.d.ts']) {
      const result = compileMask(mask);
      assert.equal(result.kind === 'mask' ? result.base : result.reason, '.', mask);
      assert.equal(isPlainPath(result.kind === 'mask' ? result.mask : mask), false, mask);
    }
    assert.equal(compiled('./**/*.py')('lib/x.py'), true);
  });

  it('takes a mask of folders, `source/{core,utils}/`, for what they hold', () => {
    const match = compiled('source/{core,utils}/');
    assert.deepEqual(
      ['source/core/Ky.ts', 'source/utils/deep/body.ts', 'source/types/options.ts', 'lib/core/a.ts'].map(match),
      [true, true, false, false],
    );
    // A folder's own path is not a mask: it stays as it is, for the path rule.
    const folder = compileMask('source/core/');
    assert.equal(folder.kind === 'mask' ? folder.mask : folder.reason, 'source/core/');
  });

  it('matches *.ext and **/*.ext without loading picomatch', () => {
    // In a process of its own: this one has loaded picomatch to compare with it.
    const mask = new URL('../reading/mask.js', import.meta.url).href;
    const script = [
      `const { compileMask, isPlainPath } = await import(${JSON.stringify(mask)});`,
      "const list = compileMask('**/*.ts');",
      "const matched = list.kind === 'mask' && list.match('src/a.ts') && !isPlainPath(list.mask);",
      "const loaded = Object.keys((await import('node:module')).createRequire(import.meta.url).cache);",
      "process.stdout.write(JSON.stringify({ matched, picomatch: loaded.some((f) => f.includes('picomatch')) }));",
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { matched: true, picomatch: false });
  });
});
