import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createSandbox, normalizeRequest, resolvePath, resolveTarget } from '../reading/sandbox.ts';
import { tempFolder, writeFiles } from './helpers.ts';
import picomatch from 'picomatch';
import { BUILT_IN_SOURCES, defaultSecretNames } from '../reading/secret-names.ts';
import { walk } from '../reading/walk.ts';

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

describe('the path rule against spellings and links', () => {
  const root = tempFolder({
    '.git/config': '[remote "origin"]\n  url = https://token@example.com/x.git\n',
    '.git/hooks/.keep': '',
    'node_modules/dep/index.js': 'x\n',
    'src/a.js': 'a\n',
    '.ssh/deploy_key': 'k\n',
    'home/.ssh/config': 'Host x\n',
    'putty.ppk': 'k\n',
    '.kube/config': 'apiVersion: v1\n',
    '.pgpass': 'h:5432:*:u:p\n',
    '.docker/config.json': '{}\n',
    'infra/terraform.tfstate': '{}\n',
    'infra/terraform.tfstate.backup': '{}\n',
    '.my.cnf': '[client]\n',
    'state/pult-1.json': '{"token":"t"}\n',
    'state/runs/x.json': '{}\n',
    'config.json': '{}\n',
  });
  fs.symlinkSync('.git', path.join(root, 'docs'));
  fs.symlinkSync('node_modules', path.join(root, 'deps'));
  const box = createSandbox(root, {
    backupDir: path.join(root, 'backup'),
    guard: [
      { path: path.join(root, 'state'), what: "deepwork's state folder" },
      { path: path.join(root, 'config.json'), what: "deepwork's config file" },
    ],
  });

  const withheld: Array<[string, RegExp]> = [
    ['.GIT/config', /git internals/],
    ['.Git/config', /git internals/],
    ['.git./config', /git internals/],
    ['.git /config', /git internals/],
    ['docs/config', /git internals/],
    ['docs/hooks/pre-commit', /git internals/],
    ['.ssh/deploy_key', /secret/],
    ['home/.ssh/config', /secret/],
    ['putty.ppk', /secret/],
    ['.kube/config', /secret/],
    ['.pgpass', /secret/],
    ['.docker/config.json', /secret/],
    ['infra/terraform.tfstate', /secret/],
    ['infra/terraform.tfstate.backup', /secret/],
    ['.my.cnf', /secret/],
    ['state/pult-1.json', /state folder/],
    ['STATE/runs/x.json', /state folder/],
    ['config.json', /config file/],
    ['backup/2026/files/a.js', /backup folder/],
  ];
  for (const [rel, reason] of withheld) {
    it(`withholds ${rel} from reading`, () => {
      const place = resolvePath(box, rel);
      assert.equal(place.kind, 'withheld', JSON.stringify(place));
      if (place.kind === 'withheld') assert.match(place.reason, reason);
    });
  }

  const unwritable: Array<[string, RegExp]> = [
    ['docs/hooks/pre-commit', /git internals/],
    ['docs/commondir', /git internals/],
    ['docs/info/attributes', /git internals/],
    ['docs/new-folder/x', /git internals/],
    ['.GIT/config', /\.git/],
    ['.Git/hooks/post-checkout', /\.git/],
    ['.git./config', /\.git/],
    ['NODE_MODULES/dep/index.js', /node_modules/],
    ['Node_Modules/x.js', /node_modules/],
    ['deps/dep/index.js', /node_modules/],
    ['deps/new.js', /node_modules/],
    ['GIT~1/config', /short name/],
    ['NODE_M~1/x.js', /short name/],
    ['src/a.js:stream', /data stream/],
    ['src/NUL.txt', /device name/],
    ['src/a.js.', /dot or space/],
    ['state/runs/x.json', /state folder/],
    ['state/new.json', /state folder/],
    ['config.json', /config file/],
    ['backup/2026/manifest.json', /backup folder/],
    ['.ssh/authorized_keys', /secret/],
  ];
  for (const [rel, reason] of unwritable) {
    it(`refuses to write ${rel}`, () => {
      const target = resolveTarget(box, rel);
      assert.equal(target.kind, 'refused', JSON.stringify(target));
      if (target.kind === 'refused') assert.match(target.reason, reason);
    });
  }

  it('still writes ordinary new and existing files, by their real place', () => {
    assert.deepEqual(resolveTarget(box, 'src/a.js'), {
      kind: 'existing',
      rel: 'src/a.js',
      real: path.join(root, 'src', 'a.js'),
      realRel: 'src/a.js',
    });
    assert.deepEqual(resolveTarget(box, 'src/new/b.js'), {
      kind: 'new',
      rel: 'src/new/b.js',
      real: path.join(root, 'src', 'new', 'b.js'),
      realRel: 'src/new/b.js',
    });
  });
});

describe('secret names in any case', () => {
  const box = createSandbox(tempFolder({ 'a.js': '' }));
  it('withholds names and folders of the list however they are spelt, and nothing that only looks like them', () => {
    for (const rel of [
      'Deploy.PEM',
      'certs/Server.Key',
      'home/.SSH/config',
      '.Kube/config',
      'ID_RSA',
      'infra/prod.TFSTATE.backup',
      'x.Ppk',
    ]) {
      assert.equal(box.isSecret(rel), true, rel);
    }
    for (const rel of [
      'key.js',
      'notes.pem.txt',
      'src/ssh.ts',
      'docs/kube/config',
      'monkey.ts',
      'backup.ts',
      'a',
      '.e',
    ]) {
      assert.equal(box.isSecret(rel), false, rel);
    }
  });
});

describe('the walk and secret paths', () => {
  it('leaves out what the path patterns name, found in the folder or in the name, and keeps what only looks like it', () => {
    const root = tempFolder({
      'home/.SSH/config': 'x',
      'deep/a/.ssh/b/c.txt': 'x',
      '.kube/config': 'x',
      'app/.docker/config.json': 'x',
      'Server.PEM': 'x',
      'src/ssh.ts': 'x',
      '.docker/other.json': 'x',
      'kube/config': 'x',
      'src/a.js': 'x',
    });
    const files = walk(createSandbox(root))
      .entries.filter((e) => e.kind === 'file')
      .map((e) => e.rel)
      .sort();
    assert.deepEqual(files, ['.docker/other.json', 'kube/config', 'src/a.js', 'src/ssh.ts']);
  });
});

describe('places git acts on besides .git', () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

  it('withholds a git directory under another name from reading, listing and searching, as it does .git', () => {
    const root = tempFolder({ 'src/a.js': 'a\n' });
    git(root, 'init', '--quiet', '--bare', 'vendor/mirror');
    fs.appendFileSync(
      path.join(root, 'vendor', 'mirror', 'config'),
      '[core]\n\tfsmonitor = "touch /tmp/pwned; false"\n[remote "origin"]\n\turl = https://token@example.com/x.git\n',
    );
    // git itself takes the folder for a repository: `git status` there reads this config.
    assert.equal(git(path.join(root, 'vendor', 'mirror'), 'rev-parse', '--is-bare-repository'), 'true');
    const box = createSandbox(root);
    for (const rel of [
      'vendor/mirror',
      'vendor/mirror/config',
      'vendor/mirror/HEAD',
      'vendor/mirror/hooks/pre-commit',
      'vendor/mirror/refs/heads/x',
    ]) {
      const place = resolvePath(box, rel);
      assert.equal(place.kind, 'withheld', `${rel}: ${JSON.stringify(place)}`);
      if (place.kind === 'withheld') assert.equal(place.reason, 'git internals');
    }
    const walked = walk(box).entries.map((e) => e.rel);
    assert.deepEqual(
      walked.filter((rel) => rel.startsWith('vendor/mirror/')),
      [],
    );
    assert.ok(walked.includes('src/a.js'));
  });

  it('refuses to write into a git directory under another name, or a file that completes one', () => {
    const root = tempFolder({
      'evil/HEAD': 'ref: refs/heads/main\n',
      'evil/objects/.keep': '',
      'half/HEAD': 'ref: refs/heads/main\n',
      'half/objects/.keep': '',
    });
    fs.mkdirSync(path.join(root, 'evil', 'refs'));
    const box = createSandbox(root);
    for (const rel of ['evil/config', 'evil/hooks/post-checkout', 'half/refs/heads/main']) {
      const target = resolveTarget(box, rel);
      assert.equal(target.kind, 'refused', `${rel}: ${JSON.stringify(target)}`);
      if (target.kind === 'refused') assert.match(target.reason, /git/);
    }
    assert.match(JSON.stringify(resolveTarget(box, 'half/refs/heads/main')), /would make half a git directory/);
    assert.equal(resolveTarget(box, 'half/notes.txt').kind, 'new');
  });

  it('refuses to write into the folder core.hooksPath names, relative to the work tree, and config a git config includes', () => {
    const repo = tempFolder({
      'app/src/a.js': 'a\n',
      'app/hooks/pre-commit': '#!/bin/sh\nexit 0\n',
      'app/git.inc': '[core]\n',
    });
    git(repo, 'init', '--quiet');
    git(repo, 'config', 'core.hooksPath', 'app/hooks');
    git(repo, 'config', 'include.path', '../app/git.inc');
    // The project is a folder of the repository: the hooks path is the work tree's, not the project's.
    const box = createSandbox(path.join(repo, 'app'));
    for (const [rel, reason] of [
      ['hooks/pre-commit', /hooks, the folder git runs hooks from \(core\.hooksPath\)/],
      ['hooks/post-checkout', /core\.hooksPath/],
      ['HOOKS/helper.sh', /core\.hooksPath/],
      ['git.inc', /git reads it as config/],
    ] as const) {
      const target = resolveTarget(box, rel);
      assert.equal(target.kind, 'refused', `${rel}: ${JSON.stringify(target)}`);
      if (target.kind === 'refused') assert.match(target.reason, reason);
    }
    assert.equal(resolveTarget(box, 'src/a.js').kind, 'existing');
    // Reading the hooks stays allowed: they are the project's own code, and hold no secret.
    assert.equal(resolvePath(box, 'hooks/pre-commit').kind, 'file');
  });

  it('refuses the hooks folder a global git config names ($XDG_CONFIG_HOME/git/config, ~/.gitconfig)', () => {
    const repo = tempFolder({ 'src/a.js': 'a\n' });
    git(repo, 'init', '--quiet');
    const xdg = tempFolder({ 'git/config': '[core]\n\thooksPath = "tools/git hooks" ; a comment\n' });
    const home = tempFolder({
      '.gitconfig':
        '[Core]\n  HooksPath = ~/elsewhere\n[core "x"]\n  hooksPath = not-this\n[core]\n  hooksPath = ci/hooks\n',
    });
    const saved = {
      XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME,
      HOME: process.env.HOME,
      GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL,
    };
    try {
      Object.assign(process.env, { XDG_CONFIG_HOME: xdg, HOME: home });
      delete process.env.GIT_CONFIG_GLOBAL;
      // git reads the same values from there.
      assert.equal(git(repo, 'config', '--global', '--get', 'core.hooksPath'), 'ci/hooks');
      const box = createSandbox(repo);
      for (const rel of ['tools/git hooks/pre-push', 'ci/hooks/pre-commit'])
        assert.equal(resolveTarget(box, rel).kind, 'refused', rel);
      for (const rel of ['tools/git/pre-push', 'not-this/pre-commit', 'src/a.js'])
        assert.notEqual(resolveTarget(box, rel).kind, 'refused', rel);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe('names a Mac reads as .git (CVE-2014-9390)', () => {
  // HFS+ ignores zero-width and other default-ignorable code points in names: each of these is .git there.
  const spellings = ['.g\u200cit/config', '.git\u200d/hooks/x', '\u2060.git/HEAD', '.g\ufeffit/info/exclude'];
  const root = tempFolder({ ...Object.fromEntries(spellings.map((rel) => [rel, 'x\n'])), 'a.js': 'a\n' });
  const box = createSandbox(root);

  for (const rel of spellings) {
    it(`refuses to read or write ${JSON.stringify(rel)} as git internals`, () => {
      const place = resolvePath(box, rel);
      assert.equal(place.kind, 'withheld', JSON.stringify(place));
      if (place.kind === 'withheld') assert.equal(place.reason, 'git internals');
      const target = resolveTarget(box, rel);
      assert.equal(target.kind, 'refused', JSON.stringify(target));
      if (target.kind === 'refused') assert.match(target.reason, /\.git/);
    });
  }

  it('leaves them out of the walk', () => {
    assert.deepEqual(
      walk(box).entries.map((e) => e.rel),
      ['a.js'],
    );
  });
});

describe('the path rule and names with control characters', () => {
  const root = tempFolder({ 'tab\there.txt': 'x\n', 'a.js': 'a\n' });
  const box = createSandbox(root);

  it('refuses a path holding control characters, there or not', () => {
    for (const rel of ['tab\there.txt', 'src/new\u2028line.js', 'bidi\u202etxt.js', 'esc\x1b[2J']) {
      const place = resolvePath(box, rel);
      assert.equal(place.kind, 'refused', JSON.stringify(place));
      if (place.kind === 'refused') assert.match(place.reason, /control characters/);
      assert.equal(resolveTarget(box, rel).kind, 'refused', JSON.stringify(rel));
    }
  });
});

describe('the built-in secret names', () => {
  it('are compiled as picomatch compiles them, without loading it at each run', () => {
    for (const name of defaultSecretNames)
      assert.equal(BUILT_IN_SOURCES.get(name), picomatch.makeRe(name, { dot: true, nocase: true }).source, name);
    assert.equal(BUILT_IN_SOURCES.size, defaultSecretNames.length);
  });
});
