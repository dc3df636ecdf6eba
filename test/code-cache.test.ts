import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { INSTALL_DIR } from '../common/install.ts';
import { tempFolder } from './helpers.ts';

// A copy of deepwork as an install would look, so that its caches are its own; node_modules is linked, not copied.
function install(): { bin: string; bundle: string } {
  const at = path.join(tempFolder({}, 'deepwork-code-cache-'), 'deepwork');
  for (const item of ['bin', 'dist', 'package.json']) {
    fs.cpSync(path.join(INSTALL_DIR, item), path.join(at, item), {
      recursive: true,
      filter: (source) => !source.endsWith('.v8'),
    });
  }
  fs.symlinkSync(path.join(INSTALL_DIR, 'node_modules'), path.join(at, 'node_modules'));
  return { bin: path.join(at, 'bin', 'deepwork.js'), bundle: path.join(at, 'dist', 'bundle') };
}

// `deepwork version`: the command word goes through the bundle (the --version flag alone is answered by the bin).
function version(bin: string, flag = 'version'): string {
  const run = spawnSync(process.execPath, [bin, flag], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

const cachesIn = (bundle: string) =>
  fs
    .readdirSync(bundle)
    .filter((name) => name.endsWith('.v8'))
    .sort();

describe('the code cache (bin/code-cache.js)', () => {
  it("keeps V8's code of each bundle file a run loads beside it, and the next run starts from it unchanged", () => {
    const { bin, bundle } = install();
    const first = version(bin);
    const caches = cachesIn(bundle);
    assert.ok(caches.includes('deepwork.cjs.v8'), caches.join(', '));
    assert.ok(
      caches.every((name) => fs.existsSync(path.join(bundle, name.slice(0, -'.v8'.length)))),
      caches.join(', '),
    );
    assert.deepEqual(
      fs.readdirSync(bundle).filter((name) => name.endsWith('.tmp')),
      [],
    );
    const bytes = caches.map((name) => fs.readFileSync(path.join(bundle, name)));
    assert.equal(version(bin), first);
    assert.deepEqual(
      caches.map((name) => fs.readFileSync(path.join(bundle, name))),
      bytes,
    );
  });

  it('is not touched by --version alone, which the bin answers before it loads the bundle', () => {
    const { bin, bundle } = install();
    assert.match(version(bin, '--version'), /^deepwork \d+\.\d+\.\d+\n$/);
    assert.match(version(bin, '-v'), /^deepwork \d+\.\d+\.\d+\n$/);
    assert.deepEqual(cachesIn(bundle), []);
  });

  it('writes the cache again when it is damaged, or was kept of another version of the file', () => {
    const { bin, bundle } = install();
    const first = version(bin);
    const cache = path.join(bundle, 'deepwork.cjs.v8');
    fs.writeFileSync(cache, 'not a cache');
    assert.equal(version(bin), first);
    const rewritten = fs.readFileSync(cache);
    assert.notEqual(rewritten.toString('latin1'), 'not a cache');
    // The file changed in place (its time here): the code kept of its old text is not run.
    const file = path.join(bundle, 'deepwork.cjs');
    const later = new Date(fs.statSync(file).mtimeMs + 5_000);
    fs.utimesSync(file, later, later);
    assert.equal(version(bin), first);
    assert.notDeepEqual(fs.readFileSync(cache).subarray(0, 16), rewritten.subarray(0, 16));
  });
});
