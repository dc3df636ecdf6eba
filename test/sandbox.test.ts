import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createSandbox, normalizeRequest, resolvePath } from '../protocol/sandbox.ts';
import { tempFolder, writeFiles } from './helpers.ts';

describe('normalizeRequest', () => {
  const refused: Array<[string, RegExp]> = [
    ['../secret.txt', /leads out/],
    ['src/../../x', /leads out/],
    ['..\\..\\etc\\passwd', /leads out/],
    ['/etc/passwd', /absolute/],
    ['\\\\server\\share\\x', /absolute/],
    ['//server/share/x', /absolute/],
    ['C:\\Windows\\win.ini', /drive/],
    ['c:/x', /drive/],
    ['a\0b', /NUL/],
    ['', /empty/],
  ];
  for (const [raw, reason] of refused) {
    it(`refuses ${JSON.stringify(raw)}`, () => {
      const normal = normalizeRequest(raw);
      assert.ok('reason' in normal, `accepted as ${JSON.stringify(normal)}`);
      assert.match(normal.reason, reason);
    });
  }

  it('keeps URL-encoded dots literal and tidies separators', () => {
    assert.deepEqual(normalizeRequest('%2e%2e/x'), { rel: '%2e%2e/x' });
    assert.deepEqual(normalizeRequest('./src//a.js'), { rel: 'src/a.js' });
    assert.deepEqual(normalizeRequest('src\\a.js'), { rel: 'src/a.js' });
    assert.deepEqual(normalizeRequest('.'), { rel: '.' });
  });
});

describe('resolvePath', () => {
  const outside = tempFolder({ 'secret.txt': 'outside secret', 'dir/inner.txt': 'outside inner' }, 'deepwork-outside-');
  const parent = tempFolder({}, 'deepwork-parent-');
  const root = path.join(parent, 'proj');
  const evil = path.join(parent, 'proj_evil');
  writeFiles(root, { 'a.js': 'a', 'src/b.ts': 'b', '.env': 'TOKEN=1', 'keys/id_rsa': 'key', '.git/config': '[core]' });
  writeFiles(evil, { 'loot.txt': 'evil' });
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'out-file'));
  fs.symlinkSync(path.join(root, 'out-file'), path.join(root, 'chain'));
  fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'out-dir'));
  fs.symlinkSync(path.join(outside, 'nothing-here'), path.join(root, 'dangling'));
  fs.symlinkSync('../proj_evil', path.join(root, 'sibling'));
  fs.symlinkSync('loop-b', path.join(root, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(root, 'loop-b'));
  fs.symlinkSync('a.js', path.join(root, 'inside-link'));
  fs.symlinkSync('.env', path.join(root, 'notes.txt'));
  fs.symlinkSync('/dev/zero', path.join(root, 'zero'));
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  const box = createSandbox(root, { backupDir: path.join(root, 'backup') });
  fs.mkdirSync(path.join(root, 'backup'));
  fs.writeFileSync(path.join(root, 'backup', 'old.js'), 'old');

  const cases: Array<[string, string, RegExp?]> = [
    ['a.js', 'file'],
    ['src', 'folder'],
    ['inside-link', 'file'],
    ['missing.js', 'missing'],
    ['%2e%2e/secret.txt', 'missing'],
    ['out-file', 'refused', /outside/],
    ['chain', 'refused', /outside/],
    ['out-dir/inner.txt', 'refused', /outside/],
    ['out-dir/not-there.txt', 'refused', /outside/],
    ['dangling', 'refused', /symlink/],
    ['sibling/loot.txt', 'refused', /outside/],
    ['loop-a', 'refused', /loop/],
    ['zero', 'refused', /outside/],
    ['pipe', 'refused', /not a regular file/],
    ['.env', 'withheld', /secret/],
    ['keys/id_rsa', 'withheld', /secret/],
    ['notes.txt', 'withheld', /secret/],
    ['.git/config', 'withheld', /git/],
    ['backup/old.js', 'withheld', /backup/],
    ['../proj_evil/loot.txt', 'refused', /leads out/],
  ];
  for (const [rel, kind, reason] of cases) {
    it(`takes ${rel} as ${kind}`, () => {
      const place = resolvePath(box, rel);
      assert.equal(place.kind, kind, JSON.stringify(place));
      if (reason !== undefined && 'reason' in place) assert.match(place.reason, reason);
    });
  }

  it('adds a config list of secret names to the built-in one, which it cannot turn off', () => {
    const custom = createSandbox(root, { secretNames: ['*.js'] });
    assert.equal(resolvePath(custom, 'a.js').kind, 'withheld');
    assert.equal(resolvePath(custom, '.env').kind, 'withheld');
    assert.equal(resolvePath(custom, 'src/b.ts').kind, 'file');
  });
});
