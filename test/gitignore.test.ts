import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createSandbox } from '../reading/sandbox.ts';
import { walk, type Walk } from '../reading/walk.ts';
import { buildTree } from '../reading/tree.ts';
import { tempFolder, writeFiles } from './helpers.ts';

// A git repository in a temp folder holding `.gitignore` and an empty file at each path.
function repo(gitignore: string, paths: readonly string[]): string {
  const root = tempFolder({ '.gitignore': gitignore, ...Object.fromEntries(paths.map((p) => [p, ''])) });
  execFileSync('git', ['init', '-q', root]);
  return root;
}

// The paths git ignores, as `git check-ignore` says (a path in an ignored folder counts as ignored).
function gitIgnored(root: string, paths: readonly string[]): string[] {
  try {
    return execFileSync('git', ['-C', root, 'check-ignore', '--stdin'], { input: paths.join('\n'), encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .sort();
  } catch (error) {
    // Exit status 1: none of them is ignored.
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}

function walked(root: string): Walk {
  return walk(createSandbox(root));
}

// The given paths the walk leaves out.
function leftOut(result: Walk, paths: readonly string[]): string[] {
  const files = new Set(result.entries.filter((e) => e.kind === 'file').map((e) => e.rel));
  return paths.filter((p) => !files.has(p)).sort();
}

const chain = (depth: number, name: string) => Array.from({ length: depth }, () => name).join('/');

describe('.gitignore rules the matcher would take minutes on', () => {
  // git's own matcher backtracks through runs of `**` too: on the 30-deep chain `git check-ignore` does not finish
  // either. So git is asked on shallow paths with the rules as written, and on the chain with the runs folded.
  const twelve = 'a/**/**/**/**/**/**/**/**/**/**/**/**/b';
  const runs = [twelve, '**/**/c', 'd/**/**', '/**/**/e', 'f/***/g', '**/ios/**/**/Pods/', '!**/ios/**/Pods/keep'];

  it('folds runs of ** as git does: it hides exactly what git check-ignore hides', () => {
    const paths = [
      'a/b',
      'a/x/b',
      'a/x/y/b',
      'a/bb',
      'x/a/b',
      'c',
      'x/y/c',
      'd/x/y',
      'd0',
      'e',
      'x/e',
      'f/g',
      'f/x/y/g',
      'g',
      'ios/Pods/x',
      'ios/a/b/Pods/x',
      'x/ios/y/Pods/z',
      'ios/Pods/keep',
      'Pods/x',
    ];
    const root = repo(`${runs.join('\n')}\n`, paths);
    const result = walked(root);
    assert.deepEqual(leftOut(result, paths), gitIgnored(root, paths));
    assert.deepEqual(result.notes, []);
  });

  it(`walks a 30-deep chain under ${twelve} at once, hiding what git hides for the rule folded`, {
    timeout: 20_000,
  }, () => {
    const deep = `a/${chain(30, 'x')}`;
    const paths = [
      `${deep}/b`,
      `${deep}/bb`,
      `${deep}/c`,
      `${deep}/e`,
      `${deep}/ios/${chain(5, 'y')}/Pods/x`,
      `${deep}/g`,
    ];
    const root = repo(`${['a/**/b', ...runs.slice(1)].join('\n')}\n`, paths);
    const ignored = gitIgnored(root, paths);
    fs.writeFileSync(path.join(root, '.gitignore'), `${runs.join('\n')}\n`);
    const result = walked(root);
    assert.deepEqual(leftOut(result, paths), ignored);
    assert.deepEqual(ignored, [`${deep}/b`, `${deep}/c`, `${deep}/e`, `${deep}/ios/${chain(5, 'y')}/Pods/x`]);
    assert.deepEqual(result.notes, []);
  });

  it('reads a rule with more than two ** wider and drops such a ! rule, so it hides at least what git hides, and says so', {
    timeout: 20_000,
  }, () => {
    const rules = ['**/p/**/q/**/r/**/*.log', '!**/p/**/q/**/r/**/keep.log'];
    const deep = `p/q/${chain(30, 'x')}/a.log`;
    const paths = [
      'p/q/r/a.log',
      'p/1/q/2/r/3/a.log',
      'p/q/r/keep.log',
      'p/q/a.log',
      deep,
      'p/a.log',
      'q/r/a.log',
      'a.log',
    ];
    const root = repo(`${rules.join('\n')}\n`, paths);
    const result = walked(root);
    const ignored = gitIgnored(root, paths);
    const hidden = leftOut(result, paths);
    assert.deepEqual(ignored, ['p/1/q/2/r/3/a.log', 'p/q/r/a.log']);
    assert.deepEqual(
      ignored.filter((p) => !hidden.includes(p)),
      [],
      'every path git ignores is left out',
    );
    // Read as **/p/**/*.log.
    assert.deepEqual(
      hidden,
      ['p/1/q/2/r/3/a.log', 'p/q/r/a.log', 'p/q/r/keep.log', 'p/q/a.log', deep, 'p/a.log'].sort(),
    );
    assert.deepEqual(result.notes, [{ kind: 'widened', file: '.gitignore', lines: [1, 2] }]);
    assert.match(
      buildTree(result.entries, 'root', { maxChars: 4_000, maxEntriesPerFolder: 100 }, result.notes),
      /\n\(\.gitignore lines 1, 2: past deepwork's limits for a rule \(1,000 characters, 2 \*\* before the last name\), so read wider, and some files git shows may be left out\)$/,
    );
  });

  it('matches a rule of 40,000 characters, which the matcher throws on, as its last name', () => {
    const paths = ['src/secret.txt', 'secret.txt', 'src/other.txt', 'keep.txt'];
    const root = repo(`${'long/'.repeat(8_000)}secret.txt\n!${'x'.repeat(40_000)}\n`, paths);
    const result = walked(root);
    assert.deepEqual(leftOut(result, paths), ['secret.txt', 'src/secret.txt']);
    assert.deepEqual(result.notes, [{ kind: 'widened', file: '.gitignore', lines: [1, 2] }]);
  });

  it('leaves out everything in the folder of a .gitignore past 5,000 rules with those above it, and says so', () => {
    const rules = (n: number, name: string) => Array.from({ length: n }, (_, i) => `${name}${i}.tmp`).join('\n');
    const root = tempFolder({
      '.gitignore': rules(3_000, 'top'),
      'sub/.gitignore': rules(3_000, 'sub'),
      'sub/a.js': '',
      'sub/deeper/b.js': '',
      'c.js': '',
      'top1.tmp': '',
    });
    const result = walked(root);
    assert.deepEqual(
      result.entries.map((e) => e.rel),
      ['.gitignore', 'c.js', 'sub'],
    );
    assert.deepEqual(result.notes, [{ kind: 'too-many', file: 'sub/.gitignore' }]);
    assert.match(
      buildTree(result.entries, 'root', { maxChars: 4_000, maxEntriesPerFolder: 100 }, result.notes),
      /\n\(sub\/\.gitignore is past deepwork's limits \(5,000 rules with the files above it, 1 MB\), so everything in its folder is left out\)$/,
    );
  });

  it('hides at least what git check-ignore hides for random rules, and exactly that when none is read wider', {
    timeout: 60_000,
  }, () => {
    // A fixed seed: the same rules and paths on every run.
    let seed = 23;
    const pick = <T>(list: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return list[Math.floor(seed / 65536) % list.length] as T;
    };
    const sizes = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    for (let round = 0; round < 20; round++) {
      const rules = Array.from({ length: pick([1, 2, 3, 4]) }, () => {
        const parts = Array.from({ length: pick(sizes) }, () => pick(['**', '**', 'a', 'b', '*', 'a*', '?', '***']));
        return `${pick(['', '', '', '!'])}${pick(['', '', '', '/'])}${parts.join('/')}${pick(['', '', '', '/'])}`;
      });
      const paths = new Set<string>();
      for (let i = 0; i < 20; i++)
        paths.add(
          `${Array.from({ length: pick([1, 2, 3, 4, 5, 6]) }, () => pick(['a', 'b', 'ab', 'c'])).join('/')}/f${pick([0, 1, 2])}`,
        );
      // A file may not also be a folder: keep the paths no other path runs through.
      const files = [...paths].filter((p) => ![...paths].some((q) => q.startsWith(`${p}/`)));
      const root = repo(`${rules.join('\n')}\n`, files);
      const result = walked(root);
      const ignored = gitIgnored(root, files);
      const hidden = leftOut(result, files);
      assert.deepEqual(
        ignored.filter((p) => !hidden.includes(p)),
        [],
        `sent what git ignores, under ${JSON.stringify(rules)}`,
      );
      if (result.notes.length === 0) assert.deepEqual(hidden, ignored, JSON.stringify(rules));
    }
  });

  it('matches rules with two ** in their one-** form on a path too deep and long for them, and says so', () => {
    const deep = `${chain(200, 'xxx')}/Pods`;
    const root = tempFolder({ '.gitignore': '**/ios/**/Pods\n', [deep]: '', 'a/Pods': '', 'ios/a/Pods': '' });
    const result = walked(root);
    assert.deepEqual(leftOut(result, [deep, 'a/Pods', 'ios/a/Pods']), ['ios/a/Pods', deep]);
    assert.equal(result.notes.length, 1);
    const [note] = result.notes;
    assert.ok(note?.kind === 'wide-paths' && note.file === '.gitignore' && note.paths > 0, JSON.stringify(note));
  });
});

describe('.gitignore rules matched as git matches them', () => {
  it('finds the .S files a *.s rule leaves alone: case-sensitive, as git check-ignore on a case-sensitive disk', () => {
    const paths = ['arch/x86/entry/entry_64.S', 'arch/x86/entry/entry_64.s', 'lib/a.o', 'lib/A.O', 'README'];
    const root = repo('*.s\n*.o\n', paths);
    const result = walked(root);
    assert.deepEqual(leftOut(result, paths), gitIgnored(root, paths));
    assert.deepEqual(leftOut(result, paths), ['arch/x86/entry/entry_64.s', 'lib/a.o']);
  });

  it('matches blind to case where the repository sets core.ignorecase, as git does then', () => {
    const paths = ['entry_64.S', 'entry_64.s', 'Build/x.js', 'build/y.js', 'keep.S'];
    const root = repo('*.s\nbuild/\n!KEEP.s\n', paths);
    execFileSync('git', ['-C', root, 'config', 'core.ignorecase', 'true']);
    const result = walked(root);
    assert.deepEqual(leftOut(result, paths), gitIgnored(root, paths));
    assert.deepEqual(leftOut(result, paths), ['Build/x.js', 'build/y.js', 'entry_64.S', 'entry_64.s']);
  });

  it('hides exactly what git check-ignore hides for random rules of every kind, nested files included', {
    timeout: 120_000,
  }, () => {
    let seed = 30;
    const pick = <T>(list: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return list[Math.floor(seed / 65536) % list.length] as T;
    };
    const parts = [
      'a',
      'b',
      'A',
      'ab',
      '*',
      '?',
      '**',
      '[ab]',
      '[!a]',
      '[a-c]',
      '[[:upper:]]',
      '*.s',
      '\\*',
      'a*',
      '*b',
    ];
    const rule = () =>
      `${pick(['', '', '', '!'])}${pick(['', '', '/'])}${Array.from({ length: pick([1, 1, 2, 3]) }, () => pick(parts)).join('/')}${pick(['', '', '/', '  ', '\\ '])}`;
    const names = ['a', 'b', 'A', 'ab', 'B', 'x.s', 'x.S', '.x', 'c', 'a b', '*'];
    for (let round = 0; round < 40; round++) {
      const files = new Set<string>();
      for (let i = 0; i < 25; i++)
        files.add(`${Array.from({ length: pick([1, 2, 3, 4]) }, () => pick(names)).join('/')}/f${pick([0, 1])}`);
      // A file may not also be a folder: keep the paths no other path runs through.
      const list = [...files].filter((p) => ![...files].some((q) => q.startsWith(`${p}/`)));
      const rules = Array.from({ length: pick([1, 2, 3, 4, 5]) }, rule);
      const inner = Array.from({ length: pick([0, 1, 2]) }, rule);
      const root = repo(`${rules.join('\n')}\n`, list);
      // A second .gitignore one folder down, where a folder of the paths is.
      const folder = list.find((p) => p.includes('/'))?.split('/')[0] ?? 'a';
      if (inner.length > 0) fs.writeFileSync(path.join(root, folder, '.gitignore'), `${inner.join('\n')}\n`);
      if (round % 4 === 3) execFileSync('git', ['-C', root, 'config', 'core.ignorecase', 'true']);
      const result = walked(root);
      assert.deepEqual(leftOut(result, list), gitIgnored(root, list), JSON.stringify({ rules, inner, folder }));
      assert.deepEqual(result.notes, []);
    }
  });

  it('walks a tree shaped like the Linux source, with rules nested four deep, as git ls-files lists it', () => {
    const files: Record<string, string> = {
      '.gitignore': [
        '.*',
        '!.gitignore',
        '*.a',
        '*.asn1.[ch]',
        '*.c.[012]*.*',
        '*.dtb.S',
        '*.o',
        '*.o.*',
        '*.s',
        '*.tab.[ch]',
        '\\#*#',
        '/vmlinux',
        'modules.order',
        '/arch/*/include/generated/',
        'patches-*',
        'cscope.*',
        'sphinx_*/',
        '/*.spec',
      ].join('\n'),
      'scripts/.gitignore': '/asn1_compiler\n/bin2c\n!/keep.o\n',
      'tools/.gitignore': 'build/\n!*.s\n',
      'tools/perf/.gitignore': 'perf\n/config/*.conf\n!/config/base.conf\n',
      'tools/perf/util/.gitignore': '*-flex.*\nparse-events-bison.[ch]\n',
    };
    const paths = [
      'Makefile',
      'vmlinux',
      'arch/vmlinux',
      'kernel.spec',
      'docs/a.spec',
      '.clang-format',
      'arch/x86/entry/entry_64.S',
      'arch/x86/entry/entry_64.s',
      'arch/x86/entry/entry_64.o',
      'arch/x86/include/generated/asm/a.h',
      'arch/x86/include/asm/a.h',
      'arch/arm/boot/dts/a.dtb.S',
      'crypto/rsapub.asn1.c',
      'crypto/rsapub.asn1.h',
      'drivers/a.c.000i.cgraph',
      'drivers/a.o.cmd',
      'drivers/a.c',
      'drivers/#a.c#',
      'lib/modules.order',
      'patches-1/x.diff',
      'cscope.out',
      'sphinx_1/x.py',
      'sphinx_2',
      'scripts/asn1_compiler',
      'scripts/kconfig/asn1_compiler',
      'scripts/keep.o',
      'scripts/other.o',
      'tools/build/a.c',
      'tools/arch/x86/memcpy.s',
      'tools/perf/perf',
      'tools/perf/perf.c',
      'tools/perf/config/a.conf',
      'tools/perf/config/base.conf',
      'tools/perf/util/pmu-flex.c',
      'tools/perf/util/parse-events-bison.c',
      'tools/perf/util/parse-events.c',
    ];
    const root = repo('', paths);
    writeFiles(root, files);
    const listed = execFileSync('git', ['-C', root, 'ls-files', '-o', '--exclude-standard'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .sort();
    const result = walked(root);
    assert.deepEqual(
      result.entries
        .filter((e) => e.kind === 'file')
        .map((e) => e.rel)
        .sort(),
      listed,
    );
    assert.ok(listed.includes('arch/x86/entry/entry_64.S') && listed.includes('tools/arch/x86/memcpy.s'));
  });
});
