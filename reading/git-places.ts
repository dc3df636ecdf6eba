// The places in a project that git itself acts on, besides `.git`: a folder shaped like a git directory under any
// other name, the folder core.hooksPath names, and config files a git config includes. Writing any of them makes
// git run code (a hook on commit, core.fsmonitor on status); a git directory also holds what .git holds.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// git takes a folder for a repository, whatever its name, when it holds HEAD and objects/ and refs/, or HEAD and a
// commondir file (is_git_directory in git's setup.c): then `git status` inside it reads its config, core.fsmonitor
// included. One rule, asked of the disk, of a listing, or of a listing plus files about to be written.
export function gitDirShape(has: (name: 'HEAD' | 'objects' | 'refs' | 'commondir') => boolean): boolean {
  return has('HEAD') && (has('commondir') || (has('objects') && has('refs')));
}

// Whether a folder on disk has that shape; the disk's own case rules decide what `HEAD` finds.
export function isGitDir(abs: string): boolean {
  return gitDirShape((name) => fs.existsSync(path.join(abs, name)));
}

// Where git takes hooks from and which config files it reads besides its own, for the repository holding `root`.
export type GitPlaces = { hooks: string[]; configs: string[] };

// core.hooksPath as the project's repository and the user's global config set it, every value found (a value set in
// one file and overridden in another is still named: refusing too much is safe here), and the files their include
// and includeIf sections pull in. A relative hooksPath is relative to the work tree, as git takes it. Read on every
// call: a config changed while the pult runs counts at once.
export function gitPlaces(root: string, env: NodeJS.ProcessEnv = process.env): GitPlaces {
  const places: GitPlaces = { hooks: [], configs: [] };
  const home = os.homedir();
  const repo = repositoryOf(root);
  const files: Array<{ file: string; base: string }> = [];
  if (repo !== undefined) {
    for (const file of repo.configs) files.push({ file, base: repo.workTree });
  }
  const global = env.GIT_CONFIG_GLOBAL;
  const xdg =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  const globals =
    global !== undefined && global !== '' ? [global] : [path.join(home, '.gitconfig'), path.join(xdg, 'git', 'config')];
  // A global hooksPath is relative to whichever work tree git runs in: this one.
  for (const file of globals) files.push({ file, base: repo?.workTree ?? root });
  const seen = new Set<string>();
  const read = (file: string, base: string, depth: number): void => {
    // git stops at ten levels of includes; a loop stops at the first file seen twice.
    if (depth > 10 || seen.has(file)) return;
    seen.add(file);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return;
    }
    for (const { section, sub, key, value } of configEntries(text)) {
      if (section === 'core' && !sub && key === 'hookspath' && value !== '')
        places.hooks.push(path.resolve(base, expandHome(value, home)));
      if ((section === 'include' || section === 'includeif') && key === 'path' && value !== '') {
        const included = path.resolve(path.dirname(file), expandHome(value, home));
        places.configs.push(included);
        read(included, base, depth + 1);
      }
    }
  };
  for (const { file, base } of files) read(file, base, 0);
  return places;
}

// The repository git would find from `root`: the nearest folder upwards holding `.git`, a folder or a file that
// points to one (a linked worktree, a submodule). Its config, the shared one of a worktree, and config.worktree.
function repositoryOf(root: string): { workTree: string; configs: string[] } | undefined {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    let gitDir: string | undefined;
    try {
      if (fs.statSync(dotGit).isDirectory()) gitDir = dotGit;
      else {
        const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'))?.[1];
        if (pointer !== undefined) gitDir = path.resolve(dir, pointer);
      }
    } catch {
      // No .git here: look further up.
    }
    if (gitDir !== undefined) {
      const configs = [path.join(gitDir, 'config'), path.join(gitDir, 'config.worktree')];
      try {
        configs.push(
          path.join(path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim()), 'config'),
        );
      } catch {
        // Not a linked worktree.
      }
      return { workTree: dir, configs };
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

function expandHome(value: string, home: string): string {
  return value === '~' ? home : value.startsWith('~/') ? path.join(home, value.slice(2)) : value;
}

// The variables of a git config file, in order: section and key lower-cased (git's names are case-blind), `sub` when
// the section has a subsection (`[core "x"]` is not core), values unquoted and unescaped as git-config(1) describes,
// comments and line continuations handled. Only as much of the syntax as reading two variables needs; a line it
// cannot read is skipped.
export function configEntries(text: string): Array<{ section: string; sub: boolean; key: string; value: string }> {
  const entries: Array<{ section: string; sub: boolean; key: string; value: string }> = [];
  const lines = text.replace(/\\\r?\n/g, '').split(/\r?\n/);
  let section = '';
  let sub = false;
  for (const raw of lines) {
    let line = raw.trimStart();
    const header = /^\[\s*([A-Za-z0-9.-]+)(\s+"(?:[^"\\]|\\.)*")?\s*\]/.exec(line);
    if (header !== null) {
      // `[section.sub]` is the old spelling of `[section "sub"]`.
      const [name = '', ...rest] = (header[1] ?? '').toLowerCase().split('.');
      section = name;
      sub = header[2] !== undefined || rest.length > 0;
      line = line.slice(header[0].length).trimStart();
    }
    const variable = /^([A-Za-z][A-Za-z0-9-]*)\s*(=?)(.*)$/.exec(line);
    if (variable === null) continue;
    const key = (variable[1] ?? '').toLowerCase();
    entries.push({ section, sub, key, value: variable[2] === '' ? 'true' : unquote(variable[3] ?? '') });
  }
  return entries;
}

// A value as git reads it: quotes removed, `\"`, `\\`, `\n`, `\t`, `\b` unescaped, a comment (# or ;) outside
// quotes cut off, whitespace at the ends dropped but kept inside quotes.
function unquote(raw: string): string {
  let out = '';
  let quoted = false;
  let pendingSpace = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? '';
    if (c === '\\') {
      const next = raw[++i] ?? '';
      out += pendingSpace + ({ n: '\n', t: '\t', b: '\b' }[next] ?? next);
      pendingSpace = '';
    } else if (c === '"') {
      out += pendingSpace;
      pendingSpace = '';
      quoted = !quoted;
    } else if (!quoted && (c === '#' || c === ';')) {
      break;
    } else if (!quoted && (c === ' ' || c === '\t')) {
      if (out !== '') pendingSpace += c;
    } else {
      out += pendingSpace + c;
      pendingSpace = '';
    }
  }
  return out;
}
