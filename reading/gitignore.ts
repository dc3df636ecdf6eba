// The .gitignore rules the walk matches, bounded so that matching stays fast. The `ignore` package turns each rule into
// a backtracking regular expression, and some rules make it explode: `a/**/**/**/**/**/**/**/**/**/**/**/**/b` on a
// folder chain 30 deep ran for minutes, a rule of 33,000 characters throws instead of matching, and every rule is tried
// on every path. The matcher itself stays as it is (another issue reworks it); what goes into it is bounded here.
//
// A rule over a bound errs toward leaving files out, never toward sending them: what the user ignored is often a
// secret, a dump or a build, and once sent to a model it cannot be taken back, while a file left out is visible in the
// tree's note and costs the model one question. So a rule past a bound is replaced by a wider one that hides at least
// as much, and a `!` rule past a bound is dropped, which keeps hidden what it would have shown again.

import fs from 'node:fs';
import ignore, { type Ignore } from 'ignore';

// The bounds, each well past what real rules need (github/gitignore's templates: at most two `**` before the last
// name, 87 characters, 705 rules in a file).
// `globstars`: `**` before a rule's last name, once runs are folded. Each is a loop the regular expression backtracks
// through: a rule with none or one costs about a path's length, one with two its folders times its length, and each
// more multiplies by the folders again. `chars`: a rule's length; far longer ones throw (`Regular expression too
// large` from 33,000 characters). `rules` and `bytes`: a .gitignore with the files above it on the way, and its size.
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
  file: string;
  exact: Ignore;
  wide: Ignore | undefined;
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

// Reads a rules file. `above`: the rules already in force along the path; `file`: its path from the root, for notes.
export function readRules(base: string, abs: string, file: string, above: number, notes: RuleNote[]): Rules {
  let text = '';
  try {
    const stat = fs.statSync(abs);
    // A FIFO named .gitignore would block the read for ever.
    if (!stat.isFile()) return rulesOf(base, file, '');
    if (stat.size > RULE_LIMITS.bytes) return everything(base, file, notes);
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
  if (above + count > RULE_LIMITS.rules) return everything(base, file, notes);
  if (widened.length > 0) notes.push({ kind: 'widened', file, lines: widened });
  return {
    ...rulesOf(base, file, exact.join('\n')),
    wide: twoGlobstars > 0 ? ignore().add(wide.join('\n')) : undefined,
    twoGlobstars,
    count,
  };
}

function rulesOf(base: string, file: string, text: string): Rules {
  return { base, file, exact: ignore().add(text), wide: undefined, twoGlobstars: 0, count: 0 };
}

// A file past the bounds hides its whole folder: nothing in it is matched, nothing in it is sent.
function everything(base: string, file: string, notes: RuleNote[]): Rules {
  notes.push({ kind: 'too-many', file });
  return { ...rulesOf(base, file, '*'), count: 1 };
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
// RULE_LIMITS.twoGlobstarWork; `wide` counts those paths per file.
export function isIgnored(rules: readonly Rules[], rel: string, folder: boolean, wide: Map<Rules, number>): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const r = rules[i];
    if (r === undefined) continue;
    const sub = r.base === '.' ? rel : rel.slice(r.base.length + 1);
    let ig = r.exact;
    if (r.wide !== undefined && r.twoGlobstars * depthOf(sub) * sub.length > RULE_LIMITS.twoGlobstarWork) {
      ig = r.wide;
      wide.set(r, (wide.get(r) ?? 0) + 1);
    }
    const verdict = ig.test(folder ? `${sub}/` : sub);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

function depthOf(sub: string): number {
  let n = 1;
  for (let at = sub.indexOf('/'); at !== -1; at = sub.indexOf('/', at + 1)) n++;
  return n;
}
