// The .gitignore rules the walk matches, read as git reads them (reading/rule-set.ts, reading/wildmatch.ts) and
// bounded so that matching stays fast whatever a rules file holds. git's own matcher backtracks through runs of `**`:
// `a/**/**/**/**/**/**/**/**/**/**/**/**/b` on a folder chain 30 deep runs for minutes in `git check-ignore` too, and
// every rule is tried on every path. What goes into the matcher is bounded here.
//
// A rule over a bound errs toward leaving files out, never toward sending them: what the user ignored is often a
// secret, a dump or a build, and once sent to a model it cannot be taken back, while a file left out is visible in the
// tree's note and costs the model one question. So a rule past a bound is replaced by a wider one that hides at least
// as much, and a `!` rule past a bound is dropped, which keeps hidden what it would have shown again.

import fs from 'node:fs';
import path from 'node:path';
import { compileRules, type RuleSet } from './rule-set.ts';
import { configEntries } from './git-places.ts';

// The bounds, each well past what real rules need (github/gitignore's templates: at most two `**` before the last
// name, 87 characters, 705 rules in a file).
// `globstars`: `**` before a rule's last name, once runs are folded. Each is a loop the matcher backtracks through: a
// rule with none or one costs about a path's length, one with two its folders times its length, and each more
// multiplies by the folders again. `chars`: a rule's length. `rules` and `bytes`: a .gitignore with the files above it on the way, and its size.
// `twoGlobstarWork`: on a path whose folders times its length, times the rules with two `**`, passes this (about half a
// millisecond of matching; far deeper and longer paths than projects hold), those rules are matched in their one-`**`
// form, which hides at least as much.
export const RULE_LIMITS = {
  chars: 1_000,
  globstars: 2,
  rules: 5_000,
  bytes: 1 << 20,
  twoGlobstarWork: 1 << 17,
} as const;

// One .gitignore (or .git/info/exclude) as the walk matches it. `base`: its folder relative to the root, '.' for the
// root. `wide`: the same rules with each two-`**` rule in its one-`**` form, when there are any; `twoGlobstars`: how
// many. `count`: the rules it holds, so that the walk can bound them along a path.
export type Rules = {
  base: string;
  // The names in `base`: 0 for the root.
  depth: number;
  file: string;
  exact: RuleSet;
  wide: RuleSet | undefined;
  twoGlobstars: number;
  count: number;
};

// What the walk could not match as written, for the tree to say.
// `widened`: rules over a bound, by line, each read wider (or, for `!` rules, dropped).
// `too-many`: a file that would bring the rules along a path past RULE_LIMITS.rules, or is larger than
// RULE_LIMITS.bytes: everything in its folder is left out.
// `wide-paths`: paths matched against the one-`**` form of a file's two-`**` rules.
export type RuleNote =
  | { kind: 'widened'; file: string; lines: number[] }
  | { kind: 'too-many'; file: string }
  | { kind: 'wide-paths'; file: string; paths: number };

// Reads a rules file. `above`: the rules already in force along the path; `file`: its path from the root, for notes;
// `fold`: ASCII letters matched in either case (caseBlind).
export function readRules(
  base: string,
  abs: string,
  file: string,
  above: number,
  notes: RuleNote[],
  fold: boolean,
): Rules {
  let text = '';
  try {
    const stat = fs.statSync(abs);
    // A FIFO named .gitignore would block the read for ever.
    if (!stat.isFile()) return rulesOf(base, file, [], fold);
    if (stat.size > RULE_LIMITS.bytes) return everything(base, file, notes, fold);
    text = fs.readFileSync(abs, 'utf8');
  } catch {
    // An unreadable .gitignore ignores nothing, as in git.
  }
  const lines = text.split(/\r?\n/);
  const exact: string[] = [];
  const wide: string[] = [];
  const widened: number[] = [];
  let count = 0;
  let twoGlobstars = 0;
  lines.forEach((line, i) => {
    const rule = boundRule(i === 0 ? line.replace(/^\uFEFF/, '') : line);
    if (rule === undefined) {
      exact.push(line);
      wide.push(line);
      return;
    }
    count++;
    if (rule.widened) widened.push(i + 1);
    exact.push(rule.text);
    wide.push(rule.wide ?? rule.text);
    if (rule.wide !== undefined) twoGlobstars++;
  });
  if (above + count > RULE_LIMITS.rules) return everything(base, file, notes, fold);
  if (widened.length > 0) notes.push({ kind: 'widened', file, lines: widened });
  return {
    ...rulesOf(base, file, exact, fold),
    wide: twoGlobstars > 0 ? compileRules(wide, fold) : undefined,
    twoGlobstars,
    count,
  };
}

function rulesOf(base: string, file: string, lines: readonly string[], fold: boolean): Rules {
  const depth = base === '.' ? 0 : base.split('/').length;
  return { base, depth, file, exact: compileRules(lines, fold), wide: undefined, twoGlobstars: 0, count: 0 };
}

// A file past the bounds hides its whole folder: nothing in it is matched, nothing in it is sent.
function everything(base: string, file: string, notes: RuleNote[], fold: boolean): Rules {
  notes.push({ kind: 'too-many', file });
  return { ...rulesOf(base, file, ['*'], fold), count: 1 };
}

// One line of a rules file, bounded, or undefined for a line that is no rule. `text` is what goes to the matcher: the
// line as written (runs of `**` folded, which git reads the same way), or a wider rule when it is past a bound
// (`widened`), or '' for a `!` rule dropped. `wide`: a two-`**` rule's one-`**` form.
type Bounded = { text: string; wide: string | undefined; widened: boolean };

function boundRule(line: string): Bounded | undefined {
  // Blank lines (spaces only: git takes a tab for a name) and comments match nothing; `\#` and `\!` start rules.
  if (/^ *$/.test(line) || line.startsWith('#')) return undefined;
  const negative = line.startsWith('!');
  const written = parse(negative ? line.slice(1) : line);
  const text = (parts: readonly string[]) => `${negative ? '!' : ''}${parts.join('/')}${written.folder ? '/' : ''}`;
  const folded = fold(written.parts);
  if (text(folded).length > RULE_LIMITS.chars)
    return { text: negative ? '' : lastNameOnly(folded, written.folder), wide: undefined, widened: true };
  const widened = globstarsBefore(folded) > RULE_LIMITS.globstars;
  if (widened && negative) return { text: '', wide: undefined, widened };
  const parts = widened ? keepGlobstars(folded, RULE_LIMITS.globstars) : folded;
  // As written when nothing was folded or widened: the matcher reads its escapes and spaces as before.
  const as = widened || folded.length !== written.parts.length ? text(parts) : line;
  const wide = globstarsBefore(parts) < 2 ? undefined : negative ? '' : text(keepGlobstars(parts, 1));
  return { text: as, wide, widened };
}

// The rule's `/`-separated parts, with `***` and longer runs as `**`, and whether it ends in `/` (folders only).
// Trailing spaces are dropped as git drops them (not an escaped one), by a scan from the end: ` +$` would try every
// space of a long run in turn.
function parse(body: string): { parts: string[]; folder: boolean } {
  let end = body.length;
  while (end > 0 && body[end - 1] === ' ') end--;
  if (end < body.length && body[end - 1] === '\\') end++;
  const trimmed = body.slice(0, end);
  const folder = trimmed.endsWith('/') && trimmed.length > 1;
  const parts = (folder ? trimmed.slice(0, -1) : trimmed).split('/').map((p) => (/^\*{2,}$/.test(p) ? '**' : p));
  return { parts, folder };
}

// A rule of its last name alone, in every folder (`**/name`, or `**/name/**` for a rule ending in `/**`): every path the
// rule matches ends in that name, or lies inside it. A name that is itself too long gives `*`: everything.
function lastNameOnly(parts: readonly string[], folder: boolean): string {
  const inside = parts.at(-1) === '**';
  const name = parts.at(inside ? -2 : -1);
  if (name === undefined || name === '' || name === '**' || name.length > RULE_LIMITS.chars) return '*';
  return `**/${name}${inside ? '/**' : ''}${folder ? '/' : ''}`;
}

// `**/**` matches what `**` does (zero or more folders, twice, is zero or more folders), in git and in the matcher.
function fold(parts: string[]): string[] {
  return parts.filter((p, i) => !(p === '**' && parts[i - 1] === '**'));
}

function globstarsBefore(parts: readonly string[]): number {
  return parts.slice(0, -1).filter((p) => p === '**').length;
}

// Keeps the parts up to the `keep`th `**`, and the last name (with the `**` after it, for a rule ending in `/**`):
// `a/**/b/**/c/**/d` with 2 is `a/**/b/**/d`, `**/a/**/b/**` with 1 is `**/b/**`. What the dropped parts matched is
// folders, which the kept `**` before them matches too, so the result hides every path the rule hid, and more.
function keepGlobstars(parts: readonly string[], keep: number): string[] {
  const tail = parts.at(-1) === '**' && parts.length > 1 ? parts.length - 2 : parts.length - 1;
  let seen = 0;
  const kept: string[] = [];
  for (const part of parts.slice(0, tail)) {
    kept.push(part);
    if (part === '**' && ++seen === keep) break;
  }
  return fold([...kept, ...parts.slice(tail)]);
}

// Git's precedence: the deepest .gitignore with an opinion decides; a folder it ignores is not entered at all. A
// file's two-`**` rules are matched in their one-`**` form on a path where they would cost more than
// RULE_LIMITS.twoGlobstarWork; `wide` is told of each such path, with the file's rules. `name`: the path's last name;
// `depth`: its names.
export function isIgnored(
  rules: readonly Rules[],
  rel: string,
  name: string,
  depth: number,
  folder: boolean,
  wide: (rules: Rules) => void,
): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const r = rules[i];
    if (r === undefined) continue;
    const from = r.base === '.' ? 0 : r.base.length + 1;
    const below = depth - r.depth;
    let set = r.exact;
    if (r.wide !== undefined && r.twoGlobstars * below * (rel.length - from) > RULE_LIMITS.twoGlobstarWork) {
      set = r.wide;
      wide(r);
    }
    const verdict = set.verdict(rel, from, below, name, folder);
    if (verdict !== undefined) return verdict === 'ignored';
  }
  return false;
}

// Whether the repository's .gitignore rules are blind to the case of ASCII letters, as git decides: core.ignorecase in
// the repository's config (git sets it when `git init` or `git clone` finds the disk case-blind) or in the user's, the
// later one winning; with neither, git's default, false. A folder in no repository takes the platform's file systems:
// case-blind on Windows and macOS.
export function caseBlind(root: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const repo = repositoryConfigs(root);
  const home = env.HOME ?? env.USERPROFILE ?? '';
  const globals =
    env.GIT_CONFIG_GLOBAL !== undefined && env.GIT_CONFIG_GLOBAL !== ''
      ? [env.GIT_CONFIG_GLOBAL]
      : [path.join(home, '.gitconfig')];
  let value: boolean | undefined;
  for (const file of [...globals, ...(repo ?? [])]) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const entry of configEntries(text)) {
      if (entry.section === 'core' && !entry.sub && entry.key === 'ignorecase') value = gitBoolean(entry.value);
    }
  }
  if (value !== undefined) return value;
  return repo === undefined && (process.platform === 'win32' || process.platform === 'darwin');
}

// The config files of the repository holding `root`: its own `.git` folder's, or those of the one a `.git` file
// points to (a linked worktree reads its main repository's config, and its own config.worktree).
function repositoryConfigs(root: string): string[] | undefined {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    try {
      let gitDir: string | undefined;
      if (fs.statSync(dotGit).isDirectory()) gitDir = dotGit;
      else {
        const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'))?.[1];
        if (pointer !== undefined) gitDir = path.resolve(dir, pointer);
      }
      if (gitDir !== undefined) {
        let common = gitDir;
        try {
          common = path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
        } catch {
          // Not a linked worktree.
        }
        return [path.join(common, 'config'), path.join(gitDir, 'config.worktree')];
      }
    } catch {
      // No .git here: look further up.
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

// git's booleans: true, yes, on, a number but 0; false, no, off, 0 and empty.
function gitBoolean(value: string): boolean {
  const v = value.toLowerCase();
  if (v === 'true' || v === 'yes' || v === 'on') return true;
  if (v === 'false' || v === 'no' || v === 'off' || v === '') return false;
  return Number.isInteger(Number(v)) && Number(v) !== 0;
}
