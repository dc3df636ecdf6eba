// The folders the benchmark works in besides the npm corpus: the Linux source, 200,000 small files, one 500 MB file.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Tree = { root: string; name: string };

// The Linux source: Debian's `linux-source` package when it is installed (`apt-get install linux-source`), unpacked
// once into the temp folder and kept for later runs; else a tree generated in its shape. Either way a git repository
// with no commits, so that fd and ripgrep read its .gitignore files as deepwork does (fd 8 reads them only inside a
// repository).
export function linuxTree(): Tree {
  const tarball = fs
    .readdirSync('/usr/src', { withFileTypes: true })
    .filter((e) => e.isFile() && /^linux-source-[\d.]+\.tar\.xz$/.test(e.name))
    .map((e) => path.join('/usr/src', e.name))
    .sort()
    .at(-1);
  return tarball === undefined ? generatedLinux() : unpackedLinux(tarball);
}

function unpackedLinux(tarball: string): Tree {
  const version = /linux-source-([\d.]+)\.tar\.xz$/.exec(tarball)?.[1] ?? 'x';
  const base = path.join(os.tmpdir(), `deepwork-bench-linux-${version}`);
  const root = path.join(base, `linux-source-${version}`);
  const ready = path.join(base, 'ready');
  if (!fs.existsSync(ready)) {
    process.stderr.write(`Unpacking ${tarball} into ${base} (once)…\n`);
    fs.rmSync(base, { recursive: true, force: true });
    fs.mkdirSync(base, { recursive: true });
    execFileSync('tar', ['xJf', tarball, '-C', base], { stdio: 'inherit' });
    // Debian's packaging adds `/*` to the top .gitignore ("ignore everything at the top level, since it isn't included
    // in our repository"), which hides the whole unpacked tree from git, fd, ripgrep and deepwork alike. The kernel's
    // own .gitignore ends before it.
    const top = path.join(root, '.gitignore');
    const text = fs.readFileSync(top, 'utf8');
    const debian = text.indexOf('#\n# Debian packaging');
    if (debian !== -1) fs.writeFileSync(top, text.slice(0, debian));
    execFileSync('git', ['init', '-q', root]);
    fs.writeFileSync(ready, '');
  }
  return { root, name: `Linux ${version} (Debian's linux-source)` };
}

// Rules from the kernel's own .gitignore files, for a generated tree.
const TOP_RULES = [
  '.*',
  '!.gitignore',
  '*.a',
  '*.asn1.[ch]',
  '*.bin',
  '*.c.[012]*.*',
  '*.dtb',
  '*.dtb.S',
  '*.gz',
  '*.ko',
  '*.lex.c',
  '*.mod',
  '*.mod.c',
  '*.o',
  '*.o.*',
  '*.patch',
  '*.s',
  '*.so',
  '*.symtypes',
  '*.tab.[ch]',
  'Module.symvers',
  'modules.order',
  '/vmlinux',
  '/vmlinux-gdb.py',
  '/include/config/',
  '/include/generated/',
  '/arch/*/include/generated/',
  'patches-*',
  'cscope.*',
  'tags',
  '*~',
  '\\#*#',
  'sphinx_*/',
];
const NESTED_RULES = [
  ['/gen_init_cpio', '/initramfs_data.cpio'],
  ['vmlinux.lds', '!vmlinux.lds.S', '/relocs'],
  ['/fixdep', '/kallsyms', '/sorttable', '/asn1_compiler'],
  ['*.dtb.S', '*.dtbo.S', '/dtc'],
  ['*-flex.*', '*-bison.*', '/conf', '/mconf'],
  ['/test_*', '!test_*.c', '/output/'],
];

// About 80,000 files in folders shaped as the kernel's (arch, drivers, fs, …, five deep), C, headers, assembly
// (`.S`), Makefiles and Kconfig files of a few KB of C-like lines, with a .gitignore in one folder of twenty.
function generatedLinux(): Tree {
  const base = path.join(os.tmpdir(), 'deepwork-bench-linux-generated');
  const root = path.join(base, 'linux');
  const ready = path.join(base, 'ready');
  if (fs.existsSync(ready)) return { root, name: 'a generated tree in the shape of Linux' };
  process.stderr.write(`No /usr/src/linux-source-*.tar.xz: generating a tree in its shape in ${base} (once)…\n`);
  fs.rmSync(base, { recursive: true, force: true });
  const tops = ['arch', 'drivers', 'fs', 'net', 'sound', 'tools', 'kernel', 'mm', 'lib', 'include', 'scripts'];
  const kinds = ['.c', '.c', '.c', '.h', '.h', '.S', '.o', '.s', '.dtb.S'];
  const line = (i: number) =>
    `static int unit_${i}(struct device *dev, unsigned long flags)\n{\n\tif (!dev)\n\t\treturn -EINVAL;\n\treturn probe(dev, flags | ${i});\n}\n`;
  let files = 0;
  let folder = 0;
  const add = (dir: string, depth: number): void => {
    fs.mkdirSync(dir, { recursive: true });
    folder++;
    if (folder % 20 === 0) {
      const rules = NESTED_RULES[folder % NESTED_RULES.length] ?? [];
      fs.writeFileSync(path.join(dir, '.gitignore'), `${rules.join('\n')}\n`);
    }
    fs.writeFileSync(path.join(dir, 'Makefile'), `obj-y += part_${folder}.o\n`);
    fs.writeFileSync(path.join(dir, 'Kconfig'), `config PART_${folder}\n\tbool "part ${folder}"\n`);
    files += 2;
    for (let f = 0; f < 14; f++) {
      const ext = kinds[(folder + f) % kinds.length] ?? '.c';
      const body = Array.from({ length: 20 + ((folder * 7 + f * 13) % 60) }, (_, i) => line(i)).join('');
      fs.writeFileSync(path.join(dir, `part_${folder}_${f}${ext}`), body);
      files++;
    }
    if (depth < 5) {
      const children = depth === 1 ? 5 : depth === 2 ? 4 : 3;
      for (let c = 0; c < children && files < 80_000; c++) add(path.join(dir, `sub${c}`), depth + 1);
    }
  };
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, '.gitignore'), `${TOP_RULES.join('\n')}\n`);
  for (let t = 0; files < 80_000; t++) add(path.join(root, tops[t % tops.length] ?? 'x', `part${t}`), 1);
  execFileSync('git', ['init', '-q', root]);
  fs.writeFileSync(ready, '');
  return { root, name: 'a generated tree in the shape of Linux' };
}

// A folder of `count` small source files in folders of a thousand, on tmpfs where there is one; removed by the caller.
export function manyFilesFolder(count: number): string {
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const folder = fs.mkdtempSync(path.join(base, 'deepwork-bench-many-'));
  for (let d = 0; d * 1000 < count; d++) {
    const dir = path.join(folder, `pkg${d}`, 'src');
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 1000 && d * 1000 + f < count; f++)
      fs.writeFileSync(path.join(dir, `file${f}.ts`), `export const value${f} = ${d} + ${f};\n// text of file ${f}\n`);
  }
  return folder;
}

// A folder holding one file of `mb` megabytes of code-like lines, without the rare text; removed by the caller.
export function bigFileFolder(mb: number): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-bench-big-'));
  const lines = Array.from(
    { length: 20_000 },
    (_, i) => `  const value${i} = compute(${i}, "some text here", options); // line ${i}`,
  );
  const block = Buffer.from(`${lines.join('\n')}\n`);
  const fd = fs.openSync(path.join(folder, 'huge.log'), 'w');
  try {
    for (let written = 0; written < mb << 20; written += block.length) fs.writeSync(fd, block);
  } finally {
    fs.closeSync(fd);
  }
  return folder;
}

// How many files git would list in a tree (untracked, not ignored): what deepwork's walk should hold, less symlinks
// to folders and secrets.
export function gitListed(root: string): string[] {
  const run = spawnSync('git', ['-C', root, 'ls-files', '-o', '--exclude-standard', '-z'], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  return run.stdout.split('\0').filter(Boolean);
}
