// One .gitignore's rules as git reads and matches them (dir.c: add_patterns_from_buffer, parse_path_pattern,
// match_basename, match_pathname, last_matching_pattern_from_list), indexed so that a path costs a few lookups however
// many rules there are. git tries every rule from the last up; most rules are a name (`Module.symvers`), a name's end
// (`*.o`) or a path from the file's folder (`/vmlinux`), and each of those kinds is one map here: the last rule of them
// that matches is found at once, and only the rules with wildcards past it are tried one by one, from the last.
//
// Case: git compares as the file system does, blind to the case of ASCII letters when core.ignorecase is set
// (`fold`), exactly otherwise: on Linux `*.s` leaves `entry_64.S` alone.

import { asBytes, foldAscii, isAscii, isGlobSpecial, wildmatch, type WildFlags } from './wildmatch.ts';

// A rule with wildcards, tried one by one. `text`: what wildmatch is given, the rule after its literal start, which is
// compared first (`start`, folded when case-blind): for a path rule as git does (match_pathname), for a name rule
// because it comes to the same (without WM_PATHNAME a literal character matches itself alone).
// Looks that rule a path out before wildmatch is asked: `lead`, the literal start with its escapes read (`\\#*#`:
// `#`), which the rule is filed under by its first character; `must`, a run of literal characters every match holds;
// `dots`, the dots every matching name holds (`*.o.*`: two), which most names do not; `depth`, how many names a path
// it matches has (`/*.spec`: one), or the fewest when `deeper` (a `**` may stand for any number of folders).
type Glob = {
  index: number;
  dirOnly: boolean;
  start: string;
  text: string;
  lead: string;
  must: string;
  dots: number;
  depth: number;
  deeper: boolean;
  ascii: boolean;
};

// A rule `*literal` on a name, `suffix` folded when case-blind; a path without wildcards, from the file's folder.
type Suffix = { index: number; dirOnly: boolean; suffix: string };
type PathRule = { index: number; dirOnly: boolean; path: string };

// What a name finds in one look: the last rule naming it for a file and for a folder (-1: none), and the path rules
// that end in it.
type Named = { file: number; folder: number; paths: PathRule[] };

// Lists filed by a character: one per ASCII code, one for the rest, each made when a rule is filed there (a project
// has hundreds of .gitignore files, most with a few names). Each list is latest rule first, so that a look stops at
// its first match.
type ByChar<T> = Array<T[] | undefined>;

const slotOf = (code: number) => Math.min(code, 128);

function fileUnder<T>(lists: ByChar<T>, code: number, value: T): void {
  const slot = slotOf(code);
  const list = lists[slot];
  if (list === undefined) lists[slot] = [value];
  else list.unshift(value);
}

// The rules of one file, compiled. `verdict` is the file's say on a path: the last rule that matches it decides
// ('ignored', or 'shown' for a `!` rule), or it has none. The path is `rel` from `from` on (the part below the file's
// folder: no string is cut for it unless a path rule with wildcards needs one), `depth` names deep, and `name` its
// last name.
export type RuleSet = {
  verdict(rel: string, from: number, depth: number, name: string, folder: boolean): 'ignored' | 'shown' | undefined;
};

// `lines`: the file's lines (without line ends). `fold`: ASCII letters in either case (core.ignorecase).
export function compileRules(lines: readonly string[], fold: boolean): RuleSet {
  const negative: boolean[] = [];
  const named = new Map<string, Named>();
  // `*literal` rules by their last character; `*` alone; rules with wildcards by the first character of their literal
  // start, and those without one.
  const suffixes: ByChar<Suffix> = [];
  const everyName: Suffix[] = [];
  const nameGlobs: ByChar<Glob> = [];
  const looseNameGlobs: Glob[] = [];
  const pathGlobs: ByChar<Glob> = [];
  const loosePathGlobs: Glob[] = [];
  const key = fold ? foldAscii : (text: string) => text;
  const namedAs = (name: string): Named => {
    const known = named.get(name);
    if (known !== undefined) return known;
    const entry: Named = { file: -1, folder: -1, paths: [] };
    named.set(name, entry);
    return entry;
  };
  let suffixCount = 0;
  let nameGlobCount = 0;
  let pathGlobCount = 0;
  for (const line of lines) {
    const rule = parseRule(line);
    if (rule === undefined) continue;
    const index = negative.length;
    negative.push(rule.negative);
    const { text, dirOnly } = rule;
    const literal = simpleLength(text) === text.length;
    if (rule.nodir && literal) {
      const entry = namedAs(key(text));
      entry.folder = index;
      if (!dirOnly) entry.file = index;
    } else if (rule.nodir && text.startsWith('*') && simpleLength(text, 1) === text.length) {
      const suffix = { index, dirOnly, suffix: key(text.slice(1)) };
      if (suffix.suffix === '') everyName.unshift(suffix);
      else fileUnder(suffixes, suffix.suffix.charCodeAt(suffix.suffix.length - 1), suffix);
      suffixCount++;
    } else if (!rule.nodir && literal) {
      // A path without wildcards matches that one path from the file's folder (a leading `/` only anchors it).
      const path = key(text.startsWith('/') ? text.slice(1) : text);
      if (path === '') continue;
      namedAs(path.slice(path.lastIndexOf('/') + 1)).paths.unshift({ index, dirOnly, path });
    } else {
      const body = !rule.nodir && text.startsWith('/') ? text.slice(1) : text;
      const start = simpleLength(body);
      const looks = looksOf(body);
      const glob: Glob = {
        index,
        dirOnly,
        start: key(body.slice(0, start)),
        text: body.slice(start),
        lead: key(looks.lead),
        must: key(looks.must),
        dots: looks.dots,
        ...looks.depth,
        ascii: isAscii(body),
      };
      if (rule.nodir) nameGlobCount++;
      else pathGlobCount++;
      if (glob.lead === '') (rule.nodir ? looseNameGlobs : loosePathGlobs).unshift(glob);
      else fileUnder(rule.nodir ? nameGlobs : pathGlobs, glob.lead.charCodeAt(0), glob);
    }
  }
  const nameFlags: WildFlags = { pathname: false, fold };
  const pathFlags: WildFlags = { pathname: true, fold };
  const wild = (pattern: string, ascii: boolean, text: string, flags: WildFlags) =>
    ascii && isAscii(text) ? wildmatch(pattern, text, flags) : wildmatch(asBytes(pattern), asBytes(text), flags);
  // The last rule of a list past `best` that the name matches, or `best`.
  const lastOnName = (list: readonly Glob[], name: string, nameKey: string, folder: boolean, best: number) => {
    let dots = -1;
    for (const glob of list) {
      if (glob.index <= best) return best;
      if (glob.dirOnly && !folder) continue;
      if (glob.dots > 0) {
        if (dots === -1) dots = dotsIn(name);
        if (glob.dots > dots) continue;
      }
      if (!nameKey.startsWith(glob.lead) || (glob.must !== '' && !nameKey.includes(glob.must))) continue;
      if (wild(glob.text, glob.ascii, name.slice(glob.start.length), nameFlags)) return glob.index;
    }
    return best;
  };
  // The same for the path `rel` from `from` on, `depth` names deep (`relKey`: folded when case-blind).
  const lastOnPath = (
    list: readonly Glob[],
    rel: string,
    relKey: string,
    from: number,
    depth: number,
    folder: boolean,
    best: number,
  ) => {
    for (const glob of list) {
      if (glob.index <= best) return best;
      if (glob.dirOnly && !folder) continue;
      if (glob.deeper ? depth < glob.depth : depth !== glob.depth) continue;
      if (!relKey.startsWith(glob.lead, from) || (glob.must !== '' && !relKey.includes(glob.must, from))) continue;
      if (wild(glob.text, glob.ascii, rel.slice(from + glob.start.length), pathFlags)) return glob.index;
    }
    return best;
  };
  return {
    verdict(rel, from, depth, name, folder) {
      const nameKey = key(name);
      let best = -1;
      if (named.size > 0) {
        const entry = named.get(nameKey);
        if (entry !== undefined) {
          best = folder ? entry.folder : entry.file;
          if (entry.paths.length > 0) best = lastPath(entry.paths, key(rel), from, folder, best);
        }
      }
      if (suffixCount > 0) {
        const ends = suffixes[slotOf(nameKey.charCodeAt(nameKey.length - 1))];
        if (ends !== undefined) best = lastSuffix(ends, nameKey, folder, best);
        if (everyName.length > 0) best = lastSuffix(everyName, nameKey, folder, best);
      }
      if (nameGlobCount > 0) {
        const filed = nameGlobs[slotOf(nameKey.charCodeAt(0))];
        if (filed !== undefined) best = lastOnName(filed, name, nameKey, folder, best);
        if (looseNameGlobs.length > 0) best = lastOnName(looseNameGlobs, name, nameKey, folder, best);
      }
      if (pathGlobCount > 0) {
        const relKey = key(rel);
        const filed = pathGlobs[slotOf(relKey.charCodeAt(from))];
        if (filed !== undefined) best = lastOnPath(filed, rel, relKey, from, depth, folder, best);
        if (loosePathGlobs.length > 0) best = lastOnPath(loosePathGlobs, rel, relKey, from, depth, folder, best);
      }
      return best === -1 ? undefined : negative[best] === true ? 'shown' : 'ignored';
    },
  };
}

function dotsIn(name: string): number {
  let n = 0;
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) === 46) n++;
  return n;
}

// The last of the `*literal` rules (latest first) past `best` that the name ends with, or `best`.
function lastSuffix(list: readonly Suffix[], name: string, folder: boolean, best: number): number {
  for (const s of list) {
    if (s.index <= best) return best;
    if ((folder || !s.dirOnly) && name.endsWith(s.suffix)) return s.index;
  }
  return best;
}

// The last of the path rules (latest first) past `best` that is the path from `from` on, or `best`.
function lastPath(list: readonly PathRule[], rel: string, from: number, folder: boolean, best: number): number {
  for (const p of list) {
    if (p.index <= best) return best;
    if ((folder || !p.dirOnly) && rel.length - from === p.path.length && rel.endsWith(p.path)) return p.index;
  }
  return best;
}

// One line as git takes it: a comment or a blank line is none; trailing spaces go unless escaped; a NUL ends it (git
// reads C strings); `!` negates, a trailing `/` keeps it to folders, and a rule with no other slash matches names.
type Rule = { text: string; negative: boolean; dirOnly: boolean; nodir: boolean };

function parseRule(raw: string): Rule | undefined {
  if (raw === '' || raw.startsWith('#')) return undefined;
  const nul = raw.indexOf('\0');
  let text = trimTrailingSpaces(nul === -1 ? raw : raw.slice(0, nul));
  const negative = text.startsWith('!');
  if (negative) text = text.slice(1);
  const dirOnly = text.endsWith('/');
  if (dirOnly) text = text.slice(0, -1);
  // git's empty pattern (a line of spaces, a lone `!` or `/`) matches nothing.
  if (text === '') return undefined;
  return { text, negative, dirOnly, nodir: !text.includes('/') };
}

// git's trim_trailing_spaces: a run of spaces at the end goes, unless a backslash escapes its first space.
function trimTrailingSpaces(text: string): string {
  let lastSpace = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      if (lastSpace === -1) lastSpace = i;
    } else if (c === 92) {
      i++;
      if (i >= text.length) return text;
      lastSpace = -1;
    } else lastSpace = -1;
  }
  return lastSpace === -1 ? text : text.slice(0, lastSpace);
}

// git's simple_length: where the first wildcard or backslash is, from `from`.
function simpleLength(text: string, from = 0): number {
  let i = from;
  while (i < text.length && !isGlobSpecial(text.charCodeAt(i))) i++;
  return i;
}

// What every match of a rule holds, for the looks before wildmatch: its literal start with escapes read (`lead`); the
// longest run of literal characters between wildcards (`must`); the dots in those runs; and the names in a path it
// matches (`depth`, or the fewest when `deeper`). Read up to the first `[`, which this does not parse; a run after
// `**` may lose its leading slash, since `**/` can match no folder.
function looksOf(pattern: string): {
  lead: string;
  must: string;
  dots: number;
  depth: { depth: number; deeper: boolean };
} {
  let lead = '';
  let leading = true;
  let must = '';
  let run = '';
  let dots = 0;
  let afterStars = false;
  for (let i = 0; i < pattern.length; i++) {
    let c = pattern.charCodeAt(i);
    if (c === 91) break;
    if (c === 42 || c === 63) {
      leading = false;
      if (run.length > must.length) must = run;
      run = '';
      afterStars = c === 42 && pattern.charCodeAt(i - 1) === 42;
      continue;
    }
    if (c === 92) {
      // An escaped character is itself; a backslash at the end matches nothing, which no look needs to know.
      i++;
      if (i >= pattern.length) break;
      c = pattern.charCodeAt(i);
    }
    if (c === 46) dots++;
    if (leading) lead += pattern[i];
    if (run === '' && afterStars && c === 47) continue;
    run += pattern[i];
  }
  if (run.length > must.length) must = run;
  // `*`, `?` and `[...]` never stand for a slash under WM_PATHNAME, so the slashes of a rule are those of every path it
  // matches; a `**` may add any number, or take its own away. A set or an escape could hold a slash of its own: such a
  // rule is only said to match one name or more.
  const segments = pattern.split('/');
  const starStars = segments.filter((part) => /^\*{2,}$/.test(part)).length;
  const depth = /[[\\]/.test(pattern)
    ? { depth: 1, deeper: true }
    : pattern.includes('**')
      ? { depth: Math.max(1, segments.length - starStars), deeper: true }
      : { depth: segments.length, deeper: false };
  return { lead, must: must.length >= 2 ? must : '', dots, depth };
}
