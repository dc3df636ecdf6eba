// Files that make tools run code without anyone deciding to run it: on opening the folder in an editor, on a git
// command, on entering the folder in a shell, on a push. A model's proposal for one is held back from --apply and
// Write all; the user writes it by naming it (--trust, or the pult's Write on its card) after reading its diff.
//
// Refused outright instead, in the path rule (reading/sandbox.ts): .git and .git/hooks, the folder core.hooksPath
// names, config files a git config includes, folders shaped like a git directory; and, as secret names, direnv's
// .envrc (.env*), .npmrc and .yarnrc.yml.
//
// Left out on purpose: a Makefile and package.json scripts run when the user runs make or npm, like any code of the
// project, and both are edited all the time: holding them back would be noise. The exception is package.json's
// install scripts (below): `npm install` runs them, and people run it to fetch dependencies, not to run code.

import picomatch from 'picomatch';
import { foldRel } from '../reading/sandbox.ts';
import { isRecord } from '../common/unknown.ts';

// Each entry: the paths (a pattern without a slash is a name in any folder; every pattern matches in any folder, as
// monorepos nest them) and what runs the file, to be read after "it makes tools run code: ".
const RUN_CODE: ReadonlyArray<{ paths: readonly string[]; why: string }> = [
  {
    paths: ['.githooks/**'],
    why: 'git runs the hooks in .githooks on commit, push and checkout once core.hooksPath names it, as set-up scripts do',
  },
  { paths: ['.husky/**'], why: 'husky has git run these as hooks on commit, push and checkout' },
  { paths: ['.pre-commit-config.yaml'], why: 'pre-commit runs the hooks it names on git commit' },
  { paths: ['.gitattributes'], why: 'it picks the filter and diff drivers git runs on add, checkout and diff' },
  { paths: ['.gitmodules'], why: 'git clones and checks out what it names on submodule update and clone --recursive' },
  {
    paths: ['.gitconfig', '*.gitconfig'],
    why: 'a git config names commands git runs (core.fsmonitor, aliases, core.sshCommand) once it is included',
  },
  {
    paths: ['.github/workflows/**', '.github/actions/**'],
    why: "GitHub runs it on push and on pull requests, with the repository's secrets",
  },
  { paths: ['.gitlab-ci.yml'], why: "GitLab runs it on push, with the project's CI variables" },
  { paths: ['.vscode/tasks.json'], why: 'VS Code runs a task marked runOn: folderOpen when the folder is opened' },
  {
    paths: ['.vscode/settings.json', '*.code-workspace'],
    why: 'VS Code settings name programs the editor starts by itself (terminal profiles, linters, formatters)',
  },
  { paths: ['.vscode/launch.json'], why: 'VS Code runs what it names, and its preLaunchTask, when debugging starts' },
  {
    paths: ['.idea/**', '.run/**'],
    why: 'JetBrains IDEs run what its startup tasks, file watchers and run configurations name',
  },
  {
    paths: ['.devcontainer/**', '.devcontainer.json'],
    why: 'its initializeCommand runs on this machine when the folder is reopened in a container',
  },
  { paths: ['.yarnrc'], why: 'yarn runs the program its yarn-path names for every command' },
  { paths: ['*.desktop'], why: 'a file manager runs its Exec line when it is opened' },
  {
    paths: ['.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin'],
    why: 'a shell runs it on start where the folder is a home folder or linked into one, as dotfiles are',
  },
];

// The scripts npm, yarn and pnpm run by themselves on a plain install in the project.
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare', 'prepublish'];

const matchers = RUN_CODE.map((entry) => ({
  match: picomatch(
    entry.paths.map((p) => `**/${p}`),
    { dot: true, nocase: true },
  ),
  why: entry.why,
}));

// What runs a file written at `rel` (relative, as the path rule tidied it) with `next` as its content, or undefined
// when nothing runs it by itself. `old` and `mode` are the file's content and mode on disk, when it exists.
export function runsCode(
  rel: string,
  old: string | undefined,
  next: string,
  mode: number | undefined,
): string | undefined {
  const folded = foldRel(rel);
  const found = matchers.find((m) => m.match(folded));
  if (found !== undefined) return found.why;
  if (mode !== undefined && (mode & 0o111) !== 0)
    return 'its execute bit is set, so hooks, scripts and tools run it as a program';
  if (folded === 'package.json' || folded.endsWith('/package.json')) {
    const changed = INSTALL_SCRIPTS.filter((name) => scriptOf(old, name) !== scriptOf(next, name));
    if (changed.length > 0)
      return `npm install runs its ${changed.join(', ')} script${changed.length === 1 ? '' : 's'}, which this changes`;
  }
  return undefined;
}

// One script of a package.json text; undefined when the text is not JSON (npm refuses it and runs nothing).
function scriptOf(text: string | undefined, name: string): string | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || !isRecord(value.scripts) || !Object.hasOwn(value.scripts, name)) return undefined;
  return String(value.scripts[name]);
}
