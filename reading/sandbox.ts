// The one path rule: every path a model names goes through `resolvePath`, which returns an inside-the-root real path or
// a refusal with its reason. Reading, listing, searching and writing all use it.

import fs from 'node:fs';
import path from 'node:path';
import { DeepworkError, errnoOf } from '../common/errors.ts';
import { normalizeRequest } from '../protocol/paths.ts';
import { gitDirShape, gitPlaces, isGitDir } from './git-places.ts';
import { defaultSecretNames, secretMatcher } from './secret-names.ts';

export { defaultSecretNames } from './secret-names.ts';

export type Sandbox = {
  // The root's real path: symlinks resolved, no trailing separator.
  root: string;
  // deepwork's own places — its backup and state folders, its config file — by real location: never read, listed,
  // searched or written, wherever they are configured (the project may be deepwork's own folder).
  guarded: readonly Guarded[];
  // Whether a relative path names a secret; `name`, its last part, when the caller has it at hand.
  isSecret: (rel: string, name?: string) => boolean;
  // The same test for the files of one folder (`folder` relative, '.' for the root): what depends only on the folder
  // is looked at once, and no file's path is copied to be tested.
  secretsIn: (folder: string) => (rel: string, name: string) => boolean;
};

// `folded` is `real` as foldName sees each part: what a case-insensitive disk would take for the same place.
export type Guarded = { real: string; folded: string; what: string };

export type SandboxOptions = {
  backupDir?: string | undefined;
  // Further places of deepwork's own to guard: its state folder, its config file.
  guard?: ReadonlyArray<{ path: string; what: string }> | undefined;
  // Names never sent, besides the built-in list.
  secretNames?: readonly string[] | undefined;
};

export function createSandbox(root: string, options: SandboxOptions = {}): Sandbox {
  let real: string;
  try {
    real = fs.realpathSync.native(root);
  } catch (error) {
    throw new DeepworkError(
      'ROOT_INVALID',
      `The project folder ${root} cannot be opened (${errnoOf(error) ?? 'error'}). Run deepwork inside an existing folder.`,
      { cause: error },
    );
  }
  if (!fs.statSync(real).isDirectory()) {
    throw new DeepworkError(
      'ROOT_INVALID',
      `The project folder ${root} is not a folder. Run deepwork inside a project folder.`,
    );
  }
  // The config's names add to the built-in ones: an old or hostile config cannot turn the filter off.
  const { isSecret, secretsIn } = secretMatcher([...defaultSecretNames, ...(options.secretNames ?? [])]);
  const places = [
    ...(options.backupDir === undefined ? [] : [{ path: options.backupDir, what: "deepwork's backup folder" }]),
    ...(options.guard ?? []),
  ];
  const guarded = places.map((p) => {
    const where = realLocation(path.resolve(p.path));
    return { real: where, folded: foldPath(where), what: p.what };
  });
  return { root: real, guarded, isSecret, secretsIn };
}

export type Resolved =
  | { kind: 'file'; rel: string; real: string; size: number }
  | { kind: 'folder'; rel: string; real: string }
  | { kind: 'missing'; rel: string }
  | { kind: 'refused'; rel: string; reason: string }
  // `why` as a tag; `reason` the same in words.
  | { kind: 'withheld'; rel: string; why: Protected; reason: string };

// How a path the model wrote is read first is the protocol's (protocol/paths.ts); the rule below judges where it leads.
export { normalizeRequest };

export function isInside(root: string, real: string): boolean {
  if (real === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return real.startsWith(prefix);
}

// The relative path of a real path inside the root, with forward slashes; '.' for the root itself.
export function relativeTo(root: string, real: string): string {
  const rel = path.relative(root, real);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

// A name as a case-insensitive disk with Windows' rules sees it: `.Git`, `.GIT.` and `.git ` are all `.git`. Unicode's
// default-ignorable code points (zero-width joiners, bidi marks, variation selectors) are dropped first: HFS+ ignores
// them in names, so `.g\u200cit` is `.git` on a Mac (CVE-2014-9390).
export function foldName(name: string): string {
  return name
    .replace(IGNORABLE, '')
    .toLowerCase()
    .replace(/[. ]+$/, '');
}

// Control characters in a name: C0 and C1 controls (newline, carriage return, tab, ESC), the Unicode line and
// paragraph separators, and the bidirectional controls. A name holding one could forge a section of a message (a
// file named `notes\n=== QUESTION ===`) or show as another name, so deepwork never sends such a name: the walk and
// folder listings leave it out, and the path rule refuses it.
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

export function holdsControls(name: string): boolean {
  return CONTROLS.test(name);
}

export const foldPath = (p: string): string => p.split(path.sep).map(foldName).join(path.sep);
export const foldRel = (rel: string): string => rel.split('/').map(foldName).join('/');

// Where a path really is: the real path of its deepest existing parent plus the rest as written. A file that does not
// exist yet is judged by where it would be made, so a committed `docs -> .git` link cannot steer a new file into .git.
export function realLocation(abs: string): string {
  const rest: string[] = [];
  for (let at = abs; ; ) {
    try {
      return path.join(fs.realpathSync.native(at), ...rest.reverse());
    } catch (error) {
      const up = path.dirname(at);
      // A name that exists but cannot be resolved (a symlink loop, a dangling link) still stands for itself.
      if (up === at) return abs;
      if (errnoOf(error) !== 'ENOENT' && errnoOf(error) !== 'ENOTDIR') return abs;
      rest.push(path.basename(at));
      at = up;
    }
  }
}

// Why a place inside the root is never sent, as a tag: git's internals, one of deepwork's own places (`what` it is),
// or a secret by its name. The words are made where they are shown (protectedText).
export type Protected = { kind: 'git' } | { kind: 'deepwork'; what: string } | { kind: 'secret' };

export function protectedText(why: Protected): string {
  return why.kind === 'git' ? 'git internals' : why.kind === 'deepwork' ? why.what : 'looks like a secret';
}

// Why a place inside the root is never sent, or undefined when it may be. Judged on every spelling it has: the path
// as written and its real location, each folded as a case-insensitive disk would.
export function protectedReason(box: Sandbox, rel: string, real: string): Protected | undefined {
  const realRel = relativeTo(box.root, real);
  for (const spelling of rel === realRel ? [rel] : [rel, realRel]) {
    const parts = spelling.split('/').map(foldName);
    if (parts.includes('.git')) return { kind: 'git' };
  }
  if (inGitDir(box.root, real)) return { kind: 'git' };
  const folded = foldPath(real);
  for (const place of box.guarded) if (isInside(place.folded, folded)) return { kind: 'deepwork', what: place.what };
  if (rel !== '.' && (box.isSecret(rel) || (realRel !== rel && box.isSecret(realRel)))) return { kind: 'secret' };
  return undefined;
}

// Whether a place inside the root is, or lies in, a folder shaped like a git directory: under any name it holds what
// .git holds, and git obeys its config.
function inGitDir(root: string, real: string): boolean {
  for (let dir = real; isInside(root, dir); dir = path.dirname(dir)) {
    if (isGitDir(dir)) return true;
    if (dir === root) return false;
  }
  return false;
}

// The folders (relative, '.' for the root) that are shaped like a git directory once these files (relative real paths)
// are written: a git directory is refused as a whole, so a set of files that makes one (HEAD, objects/x, refs/x,
// config) is refused as a set, though no single file of it lies in one yet.
export function gitDirsMadeBy(root: string, rels: readonly string[]): string[] {
  const added = new Map<string, Set<string>>();
  for (const rel of rels) {
    const parts = rel.split('/');
    for (let i = 0; i < parts.length; i++) {
      const folder = i === 0 ? '.' : parts.slice(0, i).join('/');
      const names = added.get(folder) ?? new Set<string>();
      names.add(foldName(parts[i] ?? ''));
      added.set(folder, names);
    }
  }
  return [...added]
    .filter(([folder, names]) => {
      const abs = folder === '.' ? root : path.join(root, ...folder.split('/'));
      return gitDirShape((name) => names.has(name.toLowerCase()) || fs.existsSync(path.join(abs, name)));
    })
    .map(([folder]) => folder);
}

// Why git would act on a file written at `real`, from what the repository's and the user's git config say: it lies in
// the folder core.hooksPath names, or it is a config file a git config includes. Undefined when neither.
function gitActsOn(root: string, real: string): string | undefined {
  const places = gitPlaces(root);
  const folded = foldPath(real);
  for (const hooks of places.hooks) {
    const where = realLocation(hooks);
    // Hooks in the project folder itself: git runs only the files named as hooks there.
    if (where === root) {
      if (path.dirname(real) === root && GIT_HOOK_NAMES.test(path.basename(real)))
        return 'git runs it as a hook (core.hooksPath names the project folder); deepwork does not write hooks';
    } else if (isInside(root, where) && isInside(foldPath(where), folded)) {
      return `it is in ${relativeTo(root, where)}, the folder git runs hooks from (core.hooksPath); deepwork does not write hooks`;
    }
  }
  for (const config of places.configs) {
    if (foldPath(realLocation(config)) === folded)
      return 'git reads it as config (a git config includes it), and config makes git run commands; deepwork does not write it';
  }
  return undefined;
}

// The hooks git runs (githooks(5)), for a core.hooksPath that names the project folder itself.
const GIT_HOOK_NAMES =
  /^(?:applypatch-msg|pre-applypatch|post-applypatch|pre-commit|pre-merge-commit|prepare-commit-msg|commit-msg|post-commit|pre-rebase|post-checkout|post-merge|pre-push|pre-receive|update|proc-receive|post-receive|post-update|reference-transaction|push-to-checkout|pre-auto-gc|post-rewrite|sendemail-validate|fsmonitor-watchman|p4-changelist|p4-prepare-changelist|p4-post-changelist|p4-pre-submit|post-index-change)$/i;

// Resolves a requested path inside the sandbox for reading. FIFOs, sockets and devices are refused without opening
// them; a symlink is judged by where it really leads, and so is every folder on the way.
export function resolvePath(box: Sandbox, requested: string): Resolved {
  const normal = normalizeRequest(requested);
  if ('reason' in normal) return { kind: 'refused', rel: requested, reason: normal.reason };
  const rel = normal.rel;
  if (holdsControls(rel))
    return { kind: 'refused', rel, reason: 'the path holds control characters; deepwork leaves such names out' };
  const abs = rel === '.' ? box.root : path.join(box.root, ...rel.split('/'));

  let real: string;
  try {
    real = fs.realpathSync.native(abs);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ELOOP') return { kind: 'refused', rel, reason: 'a symlink loop' };
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      return { kind: 'refused', rel, reason: `cannot be read (${code ?? 'error'})` };
    // Missing: but say so only when the way there stays inside, or a link could probe the disk outside.
    if (isSymlink(abs)) {
      return {
        kind: 'refused',
        rel,
        reason: isInside(box.root, realLocation(path.dirname(abs)))
          ? 'a symlink that leads nowhere'
          : 'leads outside the project folder',
      };
    }
    const where = realLocation(abs);
    if (!isInside(box.root, where)) return { kind: 'refused', rel, reason: 'leads outside the project folder' };
    const hidden = protectedReason(box, rel, where);
    if (hidden !== undefined) return { kind: 'withheld', rel, why: hidden, reason: protectedText(hidden) };
    return { kind: 'missing', rel };
  }
  if (!isInside(box.root, real)) return { kind: 'refused', rel, reason: 'leads outside the project folder' };

  const hidden = protectedReason(box, rel, real);
  if (hidden !== undefined) return { kind: 'withheld', rel, why: hidden, reason: protectedText(hidden) };

  let stat: fs.Stats;
  try {
    stat = fs.statSync(real);
  } catch (error) {
    return { kind: 'refused', rel, reason: `cannot be read (${errnoOf(error) ?? 'error'})` };
  }
  if (stat.isDirectory()) return { kind: 'folder', rel, real };
  if (!stat.isFile()) return { kind: 'refused', rel, reason: 'not a regular file (a FIFO, socket or device)' };
  return { kind: 'file', rel, real, size: stat.size };
}

function isSymlink(abs: string): boolean {
  try {
    return fs.lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
}

// `real` is where the bytes go and `realRel` its path from the root: a symlink inside the folder is written through,
// and the backup set and undo name the file it leads to, not the link.
export type Target =
  | { kind: 'existing'; rel: string; real: string; realRel: string }
  | { kind: 'new'; rel: string; real: string; realRel: string }
  | { kind: 'refused'; rel: string; reason: string };

// Folders deepwork never writes into, whatever the spelling.
const UNWRITABLE_FOLDERS = new Set(['.git', 'node_modules']);
// Device names Windows reserves in every folder, with any extension.
const WINDOWS_DEVICES = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(?:\..*)?$/i;
// An 8.3 short name (`GIT~1`, `NODE_M~1`): on Windows it may name .git or node_modules under another spelling.
const SHORT_NAME = /~\d+(?:\.[^.]*)?$/;

// Why a name cannot be written on every disk the project may live on, or undefined.
function unwritableName(parts: readonly string[]): string | undefined {
  for (const part of parts) {
    const folded = foldName(part);
    if (UNWRITABLE_FOLDERS.has(folded)) return `deepwork does not write into ${folded}`;
    if (part.includes(':')) return `"${part}" holds ":", which names a hidden data stream on Windows`;
    if (SHORT_NAME.test(part))
      return `"${part}" looks like a Windows short name, which may stand for another folder (GIT~1 can be .git)`;
    if (WINDOWS_DEVICES.test(part)) return `"${part}" is a device name on Windows`;
    if (/[. ]$/.test(part)) return `"${part}" ends in a dot or space, which Windows drops`;
    if (holdsControls(part)) return 'the name holds control characters';
  }
  return undefined;
}

// Why a write into a folder that it would leave shaped like a git directory is refused.
export function madeGitDir(folder: string): string {
  return `it would make ${folder === '.' ? 'the project folder' : folder} a git directory (HEAD, objects/, refs/), whose config git obeys; deepwork does not write git internals`;
}

// Where a proposed file may be written: the read rule, judged on the real target (a symlink or a parent folder that
// leads outside is refused), plus what is never written — .git, node_modules, deepwork's own places, secrets,
// folders, names another disk would read differently, git's hooks folder and included config, git directories. The
// path as written and its real location are both judged.
export function resolveTarget(box: Sandbox, requested: string): Target {
  const normal = normalizeRequest(requested);
  if ('reason' in normal) return { kind: 'refused', rel: requested, reason: normal.reason };
  const rel = normal.rel;
  if (rel === '.') return { kind: 'refused', rel, reason: 'that is the project folder itself' };
  const asWritten = unwritableName(rel.split('/'));
  if (asWritten !== undefined) return { kind: 'refused', rel, reason: asWritten };
  const place = resolvePath(box, rel);
  switch (place.kind) {
    case 'folder':
      return { kind: 'refused', rel, reason: 'a folder has that path' };
    case 'withheld':
      return {
        kind: 'refused',
        rel,
        reason:
          place.why.kind === 'secret'
            ? 'it looks like a secret; deepwork does not write those'
            : `it is in ${place.reason}`,
      };
    case 'refused':
      return { kind: 'refused', rel, reason: place.reason };
    case 'file':
    case 'missing': {
      const real = place.kind === 'file' ? place.real : realLocation(path.join(box.root, ...rel.split('/')));
      const realRel = relativeTo(box.root, real);
      const really = realRel === rel ? undefined : unwritableName(realRel.split('/'));
      if (really !== undefined) return { kind: 'refused', rel, reason: `it leads to ${realRel}: ${really}` };
      const git = gitActsOn(box.root, real);
      if (git !== undefined) return { kind: 'refused', rel, reason: git };
      const [gitDir] = gitDirsMadeBy(box.root, [realRel]);
      if (gitDir !== undefined) return { kind: 'refused', rel, reason: madeGitDir(gitDir) };
      return { kind: place.kind === 'file' ? 'existing' : 'new', rel, real, realRel };
    }
  }
}
