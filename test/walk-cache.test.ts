import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createSandbox } from '../reading/sandbox.ts';
import { startWalk, walk, type Walk } from '../reading/walk.ts';
import { decodeKept, encodeKept, fullKey, CHILD, type KeptWalk } from '../reading/walk-cache.ts';
import { caseBlind } from '../reading/gitignore.ts';
import { createExecutor } from '../reading/executor.ts';
import { walkStore } from '../saved/walk-cache.ts';
import { tempFolder, writeFiles } from './helpers.ts';

const KEY = 'the sandbox as the test makes it';

// Every folder, file and symlink under `root`, and root, last modified an hour ago: old enough for a kept walk to trust
// (a folder modified within two seconds of a walk is read again by the next one, whatever its stamp).
function age(root: string): void {
  const then = new Date(Date.now() - 3_600_000);
  const visit = (abs: string) => {
    const stats = fs.lstatSync(abs);
    if (stats.isDirectory()) for (const name of fs.readdirSync(abs)) visit(path.join(abs, name));
    fs.lutimesSync(abs, then, then);
  };
  visit(root);
}

type Walked = { result: Walk; kept: Uint8Array | undefined; read: number; reused: number };

// A walk of `root` starting from `bytes` (what an earlier walk kept, or nothing).
function walkFrom(root: string, bytes: Uint8Array | undefined, key = KEY): Walked {
  const walker = startWalk(createSandbox(root), { kept: { bytes, key } });
  const result = walker.finish();
  const counts = walker.counts();
  return { result, kept: walker.keep(), read: counts.read, reused: counts.kept };
}

// Walks the aged folder and keeps the walk, makes `change`, and walks again from what was kept: the second walk must
// be a fresh walk's, entry for entry and note for note. Returns the second walk.
function keptAfter(root: string, change: () => void): Walked {
  age(root);
  const first = walkFrom(root, undefined);
  assert.ok(first.kept !== undefined, 'a first walk keeps what it saw');
  assert.deepEqual(first.result, walk(createSandbox(root)));
  change();
  const second = walkFrom(root, first.kept);
  assert.deepEqual(second.result, walk(createSandbox(root)));
  return second;
}

const rels = (w: Walk) => w.entries.map((e) => `${e.kind === 'folder' ? 'd' : 'f'} ${e.rel}${e.target ? ' →' : ''}`);

describe('a walk from what the last walk kept', () => {
  it('reads no folder again when nothing changed, and keeps nothing new', () => {
    const root = tempFolder({
      'a.txt': '',
      'src/b.ts': '',
      'src/lib/c.ts': '',
      'docs/d.md': '',
      '.gitignore': '*.log\n',
    });
    const again = keptAfter(root, () => {});
    assert.equal(again.read, 0);
    assert.equal(again.reused, 4);
    assert.equal(again.kept, undefined, 'what was kept still holds: nothing to write');
  });

  it('sees files and folders added, deleted and renamed, reading only the folders that changed', () => {
    const root = tempFolder({
      'a.txt': '',
      'src/b.ts': '',
      'src/lib/c.ts': '',
      'src/lib/deep/e.ts': '',
      'x/y.txt': '',
    });
    const again = keptAfter(root, () => {
      writeFiles(root, { 'src/new.ts': '', 'src/fresh/f.ts': '' });
      fs.rmSync(path.join(root, 'a.txt'));
      fs.renameSync(path.join(root, 'src', 'lib', 'c.ts'), path.join(root, 'src', 'lib', 'renamed.ts'));
      fs.renameSync(path.join(root, 'x'), path.join(root, 'z'));
    });
    assert.deepEqual(rels(again.result), [
      'd src',
      'f src/b.ts',
      'd src/fresh',
      'f src/fresh/f.ts',
      'd src/lib',
      'd src/lib/deep',
      'f src/lib/deep/e.ts',
      'f src/lib/renamed.ts',
      'f src/new.ts',
      'd z',
      'f z/y.txt',
    ]);
    // The root, src, src/fresh, src/lib and z are read; src/lib/deep is taken as kept.
    assert.equal(again.read, 5);
    assert.equal(again.reused, 1);
  });

  it('reads again every folder under a .gitignore changed in place', () => {
    const root = tempFolder({ '.gitignore': '*.log\n', 'a.log': '', 'b.txt': '', 'sub/c.log': '', 'sub/d.tmp': '' });
    const again = keptAfter(root, () => {
      // Written in place: the root's names and its stamp stay the same.
      fs.writeFileSync(path.join(root, '.gitignore'), '*.tmp\n');
    });
    assert.deepEqual(rels(again.result), ['f .gitignore', 'f a.log', 'f b.txt', 'd sub', 'f sub/c.log']);
    assert.equal(again.read, 2);
  });

  it('reads again the folders under a new nested .gitignore, not only its own', () => {
    const root = tempFolder({ 'a/x.txt': '', 'a/b/x.txt': '', 'a/b/c/x.txt': '', 'a/b/c/y.txt': '' });
    const again = keptAfter(root, () => writeFiles(root, { 'a/b/.gitignore': 'x.txt\n' }));
    assert.deepEqual(rels(again.result), ['d a', 'd a/b', 'f a/b/.gitignore', 'd a/b/c', 'f a/b/c/y.txt', 'f a/x.txt']);
  });

  it('reads the whole folder again when .git/info/exclude changes', () => {
    const root = tempFolder({ '.git/info/exclude': '', 'a/x.txt': '', 'a/y.log': '' });
    const again = keptAfter(root, () => fs.writeFileSync(path.join(root, '.git', 'info', 'exclude'), '*.log\n'));
    assert.deepEqual(rels(again.result), ['d a', 'f a/x.txt']);
    assert.equal(again.reused, 0);
  });

  it('follows symlinks again though their folder is unchanged: a target made, removed, replaced by a folder', () => {
    const root = tempFolder({ 'targets/t.txt': '', 'targets/u.txt': '', 'links/keep.txt': '' });
    fs.symlinkSync('../targets/t.txt', path.join(root, 'links', 'to-t'));
    fs.symlinkSync('../targets/u.txt', path.join(root, 'links', 'to-u'));
    fs.symlinkSync('../targets/v.txt', path.join(root, 'links', 'to-v'));
    fs.symlinkSync('/etc/hostname', path.join(root, 'links', 'outside'));
    const again = keptAfter(root, () => {
      fs.rmSync(path.join(root, 'targets', 't.txt'));
      fs.rmSync(path.join(root, 'targets', 'u.txt'));
      fs.mkdirSync(path.join(root, 'targets', 'u.txt'));
      writeFiles(root, { 'targets/v.txt': '' });
    });
    assert.deepEqual(rels(again.result), [
      'd links',
      'f links/keep.txt',
      'f links/to-v →',
      'd targets',
      'd targets/u.txt',
      'f targets/v.txt',
    ]);
    // links/ was not read again: its symlinks were followed from what was kept.
    assert.equal(again.read, 2);
  });

  it('sees a symlink retargeted', () => {
    const root = tempFolder({ 'a.txt': '', 'b.txt': '', 'sub/c.txt': '' });
    fs.symlinkSync('a.txt', path.join(root, 'link'));
    const again = keptAfter(root, () => {
      fs.rmSync(path.join(root, 'link'));
      fs.symlinkSync('sub/c.txt', path.join(root, 'link'));
    });
    assert.equal(again.result.entries.find((e) => e.rel === 'link')?.target, path.join(root, 'sub', 'c.txt'));
  });

  it('sees a folder replaced by a file of the same name, and a file by a folder', () => {
    const root = tempFolder({ 'thing/inside.txt': '', 'other.txt': '', 'keep/k.txt': '' });
    const again = keptAfter(root, () => {
      fs.rmSync(path.join(root, 'thing'), { recursive: true });
      fs.writeFileSync(path.join(root, 'thing'), '');
      fs.rmSync(path.join(root, 'other.txt'));
      writeFiles(root, { 'other.txt/now.txt': '' });
    });
    assert.deepEqual(rels(again.result), ['d keep', 'f keep/k.txt', 'd other.txt', 'f other.txt/now.txt', 'f thing']);
  });

  it('sees a change whose modification time was set back, by its change time', () => {
    const root = tempFolder({ 'a/x.txt': '' });
    const again = keptAfter(root, () => {
      const before = fs.statSync(path.join(root, 'a'));
      writeFiles(root, { 'a/y.txt': '' });
      fs.utimesSync(path.join(root, 'a'), before.atime, before.mtime);
    });
    assert.deepEqual(rels(again.result), ['d a', 'f a/x.txt', 'f a/y.txt']);
  });

  it('does not trust a folder modified within two seconds of the walk that kept it (racy stamps), nor its .gitignore', () => {
    const root = tempFolder({ 'old/x.txt': '', 'new/y.txt': '', 'rules/.gitignore': '*.log\n', 'rules/z.txt': '' });
    age(root);
    const now = new Date();
    fs.utimesSync(path.join(root, 'new'), now, now);
    fs.utimesSync(path.join(root, 'rules', '.gitignore'), now, now);
    const first = walkFrom(root, undefined);
    const second = walkFrom(root, first.kept);
    assert.deepEqual(second.result, walk(createSandbox(root)));
    // The root and old/ are trusted; new/ and rules/ are read again.
    assert.equal(second.read, 2);
    assert.equal(second.reused, 2);
  });

  it('keeps the notes of rules read wider and of folders with control characters in names', () => {
    // Past RULE_LIMITS.chars: read as its last name in any folder.
    const long = `${'x/'.repeat(600)}never-there\n`;
    const deep = Array.from(
      { length: 70 },
      (_, i) => `folder-with-a-long-name-number-${String(i).padStart(3, '0')}`,
    ).join('/');
    const root = tempFolder({
      '.gitignore': `${long}a/**/b/**/never-there\n`,
      [`${deep}/file.txt`]: '',
      'plain/ok.txt': '',
      'plain/bad\nname.txt': '',
    });
    fs.symlinkSync('ok.txt', path.join(root, 'plain', 'link\ttab'));
    const again = keptAfter(root, () => {});
    const kinds = again.result.notes.map((n) => n.kind);
    assert.deepEqual(kinds, ['control-names', 'widened', 'wide-paths']);
    assert.deepEqual(again.result.notes[0], { kind: 'control-names', count: 2 });
  });

  it('reads everything when what was kept is damaged, foreign or made under another key, and keeps it anew', () => {
    const root = tempFolder({ 'a/x.txt': '', 'b/y.txt': '' });
    age(root);
    const kept = walkFrom(root, undefined).kept;
    assert.ok(kept !== undefined);
    const flipped = Uint8Array.from(kept);
    flipped[flipped.length - 3] = (flipped[flipped.length - 3] ?? 0) ^ 1;
    const damaged = [
      flipped,
      kept.subarray(0, kept.length - 9),
      Uint8Array.from([1, 2, 3]),
      new Uint8Array(0),
      Buffer.from('{}'),
    ];
    for (const bytes of damaged) {
      const again = walkFrom(root, bytes);
      assert.deepEqual(again.result, walk(createSandbox(root)));
      assert.equal(again.reused, 0);
      assert.ok(again.kept !== undefined, 'a damaged file is replaced');
    }
    const foreign = walkFrom(root, kept, 'another sandbox');
    assert.equal(foreign.reused, 0);
    assert.equal(walkFrom(root, kept).reused, 3);
  });

  it('refuses a kept walk naming a path outside the folder, or a folder twice', () => {
    const root = tempFolder({});
    const key = fullKey(JSON.stringify([caseBlind(root), KEY]));
    const kept = (names: string[], childFolders: number[], folders = 1): KeptWalk => ({
      key,
      began: Date.now(),
      exclude: { stamp: undefined, notes: [] },
      folders: Array.from({ length: folders }, (_, i) => ({
        stamp: undefined,
        gitignore: undefined,
        controlNames: 0,
        flags: 0,
        first: i === 0 ? 0 : names.length,
        count: i === 0 ? names.length : 0,
      })),
      names,
      kinds: Uint8Array.from(childFolders, (f) => (f === -1 ? CHILD.file : CHILD.folder)),
      childFolders: Int32Array.from(childFolders),
    });
    assert.ok(decodeKept(encodeKept(kept(['a', 'b'], [-1, -1])), key) !== undefined);
    for (const name of ['..', '.', '', 'a/b']) {
      assert.equal(decodeKept(encodeKept(kept([name], [-1])), key), undefined, JSON.stringify(name));
      for (const names of [
        [name, 'z'],
        ['a', name],
        ['a', name, 'z'],
      ])
        assert.equal(decodeKept(encodeKept(kept(names, [-1, -1, -1].slice(0, names.length))), key), undefined);
    }
    assert.equal(decodeKept(encodeKept(kept(['a', 'b'], [1, 1], 2)), key), undefined);
    assert.equal(decodeKept(encodeKept(kept(['a'], [0], 1)), key), undefined);
  });

  it('equals a fresh walk after random edits, run after run', () => {
    const random = seeded(30);
    const root = tempFolder({});
    const names = ['a', 'b', 'c.log', 'd.txt', 'keep.log', 'tmp', 'x'];
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const rules = ['*.log', '!keep.log', 'tmp/', 'b', '/x', '**/a/d.txt', '*.txt\n!d.txt'];
    const folders = () => listFolders(root);
    for (let i = 0; i < 30; i++)
      writeFiles(root, {
        [`${Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(names)).join('/')}.f`]: '',
      });
    let kept: Uint8Array | undefined;
    let reused = 0;
    for (let round = 0; round < 60; round++) {
      if (round % 4 === 0) age(root);
      const edits = 1 + Math.floor(random() * 3);
      for (let e = 0; e < edits; e++) {
        const folder = pick(folders());
        const at = path.join(folder, pick(names));
        const what = Math.floor(random() * 8);
        try {
          if (what === 0) writeFiles(at, { [pick(names)]: '' });
          else if (what === 1) fs.writeFileSync(`${at}.f`, '');
          else if (what === 2) fs.rmSync(at, { recursive: true, force: true });
          else if (what === 3) fs.writeFileSync(path.join(folder, '.gitignore'), `${pick(rules)}\n`);
          else if (what === 4) fs.renameSync(pick(fs.readdirSync(folder).map((n) => path.join(folder, n))), at);
          else if (what === 5) fs.symlinkSync(path.relative(folder, path.join(root, pick(names))), `${at}.link`);
          else if (what === 6) fs.rmSync(path.join(folder, '.gitignore'), { force: true });
          else fs.appendFileSync(path.join(folder, '.gitignore'), `${pick(rules)}\n`);
        } catch {
          // A rename onto a folder, a name already there: that edit is skipped.
        }
      }
      const again = walkFrom(root, kept);
      assert.deepEqual(again.result, walk(createSandbox(root)), `round ${round}`);
      kept = again.kept ?? kept;
      reused += again.reused;
    }
    assert.ok(reused > 0, 'some folders were taken from what was kept');
  });
});

describe('the executor and the state folder', () => {
  it('keeps the walk in the state folder as the run closes, and the next run starts from it', async () => {
    const root = tempFolder({ 'src/a.ts': 'export const a = 1;\n', 'b.md': '' });
    const state = tempFolder({}, 'deepwork-state-');
    age(root);
    const one = createExecutor(root, { walkStore: (r) => walkStore(state, r) });
    const first = one.walked();
    await one.close();
    const files = fs.readdirSync(path.join(state, 'walks'));
    assert.equal(files.length, 1);
    const file = path.join(state, 'walks', files[0] ?? '');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const written = fs.statSync(file).mtimeMs;
    const two = createExecutor(root, { walkStore: (r) => walkStore(state, r) });
    assert.deepEqual(two.walked(), first);
    await two.close();
    assert.equal(fs.statSync(file).mtimeMs, written, 'nothing changed: not written again');
    fs.writeFileSync(file, 'not a kept walk');
    const three = createExecutor(root, { walkStore: (r) => walkStore(state, r) });
    assert.deepEqual(three.walked(), first);
    await three.close();
    assert.notEqual(fs.readFileSync(file, 'utf8'), 'not a kept walk', 'a damaged file is replaced');
  });

  // Within a second: without the message's signal it would be kept only 2 s after the walk.
  it('keeps the walk while the model reads the message, before the run closes', { timeout: 1_000 }, async () => {
    const root = tempFolder({ 'src/a.ts': '', 'b.md': '' });
    let saved: (bytes: Uint8Array) => void = () => {};
    const kept = new Promise<Uint8Array>((resolve) => {
      saved = resolve;
    });
    const executor = createExecutor(root, { walkStore: () => ({ load: () => undefined, save: saved }) });
    executor.walked();
    executor.waiting?.();
    const bytes = await kept;
    assert.ok(bytes.length > 0);
    await executor.close();
  });

  // The pult's case: the walk made for its tree, nothing else under way but a listening server, kept 2 s after.
  it('keeps the walk of an idle pult', { timeout: 5_000 }, async () => {
    // Folders enough that their stats take several slices.
    const root = tempFolder({}, 'deepwork-test-', true);
    for (let i = 0; i < 3_000; i++) fs.mkdirSync(path.join(root, `d${i}`));
    let saved: (bytes: Uint8Array) => void = () => {};
    const kept = new Promise<Uint8Array>((resolve) => {
      saved = resolve;
    });
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const executor = createExecutor(root, { walkStore: () => ({ load: () => undefined, save: saved }) });
    try {
      executor.walked();
      assert.ok((await kept).length > 0);
    } finally {
      await executor.close();
      server.close();
    }
  });

  it('walks as before when the state folder cannot be written', async () => {
    const root = tempFolder({ 'a.txt': '' });
    const blocked = path.join(tempFolder({ file: '' }), 'file');
    const executor = createExecutor(root, { walkStore: (r) => walkStore(blocked, r) });
    assert.deepEqual(
      executor.walked().entries.map((e) => e.rel),
      ['a.txt'],
    );
    await executor.close();
  });
});

// Every folder under `root`, root first, but .git.
function listFolders(root: string): string[] {
  const out = [root];
  for (const name of fs.readdirSync(root, { withFileTypes: true }))
    if (name.isDirectory() && name.name !== '.git') out.push(...listFolders(path.join(root, name.name)));
  return out;
}

// A small deterministic generator (mulberry32), so that a failing round can be run again.
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
