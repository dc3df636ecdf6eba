// Applies an EDIT block's SEARCH/REPLACE pairs to a file's text, in order. A SEARCH matches whole lines: exactly
// first, then forgiving only the mistakes models really make — trailing whitespace, a uniform change of indentation
// (the REPLACE is re-indented the same way), line numbers copied from NEED's output. Nothing fuzzier: a SEARCH that
// matches nowhere, or in more than one place, is refused with what was found, so the model can send it again.
//
// The text is worked on with LF line ends and without a BOM (the file conventions restore both when it is written).

import { withoutLineNumbers, withoutNumbersWhereNumbered } from './line-numbers.ts';
import { MAX_PAIRS_PER_EDIT, tooManyPairs } from './caps.ts';

export type EditPair = { search: string; replace: string };

export type EditOutcome =
  | { ok: true; text: string; pairs: number }
  // `pair`: 1-based; `lines`: the file's lines nearest to the SEARCH, numbered, when something came close.
  | { ok: false; pair: number; problem: string; lines: string };

// Lines of the file shown around the closest match of a failed SEARCH.
const CLOSEST_MARGIN = 2;
const CLOSEST_MAX = 40;

export function applyEdit(text: string, pairs: readonly EditPair[]): EditOutcome {
  // Each pair costs passes over the file: an EDIT of 100,000 pairs on a 200,000-line file took most of a minute.
  if (pairs.length > MAX_PAIRS_PER_EDIT)
    return { ok: false, pair: MAX_PAIRS_PER_EDIT + 1, problem: tooManyPairs(pairs.length), lines: '' };
  const normal = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  // Worked on as an array of lines: a pair costs a scan of the lines and a splice, never a copy of the whole text
  // (on a 20,000-line file, copying the text per pair took 4 ms; 200 pairs, most of a second).
  const lines = splitLines(normal);
  const file: Lines = { lines, hashes: lines.map(hashOf), keyed: new Map() };
  let finalNewline = normal === '' || normal.endsWith('\n');
  for (const [i, raw] of pairs.entries()) {
    const pair = cleanPair(raw);
    if (pair.search.trim() === '') {
      // An empty SEARCH adds the REPLACE at the end of the file (which it makes when there is none).
      replaceLines(file, file.lines.length, 0, splitLines(pair.replace));
      finalNewline = true;
      continue;
    }
    const problem = applyPair(file, pair);
    if (problem !== undefined) {
      // The closest lines are numbered as in the text before this block, which is what the model has seen.
      const closest =
        i === 0 || problem.lines === '' ? problem.lines : closestLines(splitLines(normal), splitLines(pair.search));
      return { ok: false, pair: i + 1, problem: problem.problem, lines: closest };
    }
  }
  return {
    ok: true,
    text: lines.length === 0 ? '' : lines.join('\n') + (finalNewline ? '\n' : ''),
    pairs: pairs.length,
  };
}

// LF line ends, and line numbers copied from NEED's output taken off: from the SEARCH when every line carries one,
// and then from those REPLACE lines that carry one (lines the model kept from the SEARCH).
function cleanPair(pair: EditPair): EditPair {
  const search = pair.search.replace(/\r\n/g, '\n');
  const replace = pair.replace.replace(/\r\n/g, '\n');
  const unnumbered = withoutLineNumbers(search);
  if (unnumbered === search || search.trim() === '') return { search, replace };
  return { search: unnumbered, replace: withoutNumbersWhereNumbered(replace) };
}

// Replaces the one place the SEARCH matches, in the file's lines; or says why it cannot.
function applyPair(file: Lines, pair: EditPair): { problem: string; lines: string } | undefined {
  const search = splitLines(pair.search);
  const replace = splitLines(pair.replace);
  for (const way of WAYS) {
    const found = way.find(file, search);
    if (found.length === 0) continue;
    if (found.length > 1) {
      const at = found.slice(0, 3).map((m) => m.start + 1);
      const where =
        at.length === 2
          ? `lines ${at[0]} and ${at[1]}`
          : `lines ${at.join(', ')}${found.length > 3 ? ' and more' : ''}`;
      return {
        problem: `the SEARCH matches in ${found.length > 3 ? 'more than 3' : found.length} places (${where}${way.name === 'exact' ? '' : `, ${way.name}`}); add lines around it so it is unique`,
        lines: '',
      };
    }
    const [match] = found;
    if (match === undefined) continue;
    replaceLines(
      file,
      match.start,
      search.length,
      match.indent === undefined ? replace : reindent(replace, match.indent),
    );
    return undefined;
  }
  return {
    problem:
      'the SEARCH matches no lines of the file (compared exactly, then ignoring trailing spaces, then ignoring a change of indentation)',
    lines: closestLines(file.lines, search),
  };
}

// The file's lines as the pairs so far leave them, with a hash per line: the exact way compares numbers, and strings
// only where they agree. The forgiving ways compare each line's key (without its trailing spaces; without the spaces
// around it), hashed the same way: made when a way is first tried, then kept up to date by every replacement, so a
// pair never makes a string for every line of the file (on a 200,000-line file, 30 ms a pair on a busy machine).
type Lines = { lines: string[]; hashes: number[]; keyed: Map<Key, Keyed> };
type Key = 'trimEnd' | 'trim';
type Keyed = { keys: string[]; hashes: number[] };

const KEYS: { readonly [K in Key]: (line: string) => string } = {
  trimEnd: (line) => line.trimEnd(),
  trim: (line) => line.trim(),
};

function keyedLines(file: Lines, key: Key): Keyed {
  let keyed = file.keyed.get(key);
  if (keyed === undefined) {
    const keys = file.lines.map(KEYS[key]);
    keyed = { keys, hashes: keys.map(hashOf) };
    file.keyed.set(key, keyed);
  }
  return keyed;
}

// Puts `placed` where `count` lines stood from `start`, in the lines and in all that is kept beside them.
function replaceLines(file: Lines, start: number, count: number, placed: readonly string[]): void {
  spliceIn(file.lines, start, count, placed);
  spliceIn(file.hashes, start, count, placed.map(hashOf));
  for (const [key, keyed] of file.keyed) {
    const keys = placed.map(KEYS[key]);
    spliceIn(keyed.keys, start, count, keys);
    spliceIn(keyed.hashes, start, count, keys.map(hashOf));
  }
}

// A match: where it starts, and how the file's indentation differs from the SEARCH's there (`add` is added to every
// line of the SEARCH to get the file's; `cut` is taken off) when it matched only that way.
type Match = { start: number; indent: Indent | undefined };
type Indent = { add: string } | { cut: string };

type Way = { name: string; find: (file: Lines, search: readonly string[]) => Match[] };

// Exactly first, then the mistakes models make, in this order.
const WAYS: readonly Way[] = [
  { name: 'exact', find: (file, search) => windows(file.lines, file.hashes, search) },
  { name: 'ignoring trailing spaces', find: (file, search) => keyedWindows(file, 'trimEnd', search) },
  { name: 'with other indentation', find: indented },
];

// Where the SEARCH's lines, each taken by `key`, equal the file's lines so taken; at most four.
function keyedWindows(file: Lines, key: Key, search: readonly string[]): Match[] {
  const { keys, hashes } = keyedLines(file, key);
  return windows(keys, hashes, search.map(KEYS[key]));
}

// Where `wanted` stands in `lines` (whose hashes are `hashes`): the first four starts, overlapping ones counted. The
// lines themselves are compared only where their hashes agree, and a start is looked for natively, by the hash of
// the first line wanted.
function windows(lines: readonly string[], hashes: readonly number[], wanted: readonly string[]): Match[] {
  const wantedHashes = wanted.map(hashOf);
  const first = wantedHashes[0] ?? 0;
  const same = (i: number, j: number) => hashes[i] === wantedHashes[j] && lines[i] === wanted[j];
  return runsOf(lines.length, wanted, same, (i) => hashes.indexOf(first, i)).map((start) => ({
    start,
    indent: undefined,
  }));
}

// Where `wanted` stands as a run in a list of `length` items, `same(i, j)` saying whether item i equals wanted[j]:
// the first four starts, overlapping runs counted. Knuth-Morris-Pratt: each item is passed once, and after a mismatch
// the scan goes on from what of `wanted` is known to match, instead of comparing again from the next start. So the
// work grows with the file plus the SEARCH, never with their product: trying every start took 2 s for a SEARCH of
// 4,000 equal lines in a file of 8,000 such lines, four times that at each doubling (issue 23). `next(i)`: the first
// item at or after i that can start a run, or -1.
function runsOf(
  length: number,
  wanted: readonly string[],
  same: (i: number, j: number) => boolean,
  next: (i: number) => number,
): number[] {
  const m = wanted.length;
  const found: number[] = [];
  if (m === 0 || m > length) return found;
  // back[j]: the length of the longest proper prefix of wanted[0..j] that is also a suffix of it.
  const back = new Int32Array(m);
  for (let j = 1, k = 0; j < m; j++) {
    while (k > 0 && wanted[j] !== wanted[k]) k = back[k - 1] ?? 0;
    if (wanted[j] === wanted[k]) k++;
    back[j] = k;
  }
  for (let i = 0, j = 0; i < length && found.length < 4; i++) {
    if (j === 0) {
      i = next(i);
      if (i === -1) break;
    }
    for (;;) {
      if (same(i, j)) {
        j++;
        break;
      }
      if (j === 0) break;
      j = back[j - 1] ?? 0;
    }
    if (j === m) {
      found.push(i - m + 1);
      j = back[m - 1] ?? 0;
    }
  }
  return found;
}

// FNV-1a over a line's UTF-16 units.
function hashOf(line: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < line.length; i++) h = Math.imul(h ^ line.charCodeAt(i), 0x01000193);
  return h | 0;
}

// The SEARCH with every line's indentation off by the same amount: found by comparing lines with their indentation
// stripped, then kept only where one prefix explains every non-blank line.
function indented(file: Lines, search: readonly string[]): Match[] {
  const candidates = keyedWindows(file, 'trim', search);
  const found: Match[] = [];
  for (const candidate of candidates) {
    const indent = uniformIndent(file.lines.slice(candidate.start, candidate.start + search.length), search);
    if (indent !== undefined) found.push({ start: candidate.start, indent });
  }
  return found;
}

function uniformIndent(file: readonly string[], search: readonly string[]): Indent | undefined {
  let indent: Indent | undefined;
  for (const [i, wanted] of search.entries()) {
    const have = file[i] ?? '';
    if (wanted.trim() === '' && have.trim() === '') continue;
    const haveLead = have.slice(0, have.length - have.trimStart().length);
    const wantedLead = wanted.slice(0, wanted.length - wanted.trimStart().length);
    let here: Indent;
    if (haveLead.length >= wantedLead.length && haveLead.endsWith(wantedLead))
      here = { add: haveLead.slice(0, haveLead.length - wantedLead.length) };
    else if (wantedLead.endsWith(haveLead)) here = { cut: wantedLead.slice(0, wantedLead.length - haveLead.length) };
    else return undefined;
    if (indent === undefined) indent = here;
    else if (JSON.stringify(indent) !== JSON.stringify(here)) return undefined;
  }
  return indent;
}

function reindent(lines: readonly string[], indent: Indent): string[] {
  return lines.map((line) => {
    if (line.trim() === '') return line;
    if ('add' in indent) return indent.add + line;
    return line.startsWith(indent.cut) ? line.slice(indent.cut.length) : line.trimStart();
  });
}

// The file's lines where most of the SEARCH's lines occur in order, numbered as NEED numbers them; '' when no line of
// the SEARCH occurs in the file at all.
function closestLines(lines: readonly string[], search: readonly string[]): string {
  const where = new Map<string, number[]>();
  lines.forEach((line, i) => {
    const key = line.trim();
    if (key.length < 3) return;
    const list = where.get(key);
    if (list === undefined) where.set(key, [i]);
    else if (list.length < 50) list.push(i);
  });
  const votes = new Map<number, number>();
  search.forEach((line, j) => {
    for (const i of where.get(line.trim()) ?? []) votes.set(i - j, (votes.get(i - j) ?? 0) + 1);
  });
  let best = -1;
  let most = 0;
  for (const [start, n] of votes) {
    if (n > most || (n === most && start < best)) {
      best = start;
      most = n;
    }
  }
  if (most === 0) {
    best = similarStart(lines, search);
    if (best === -1) return '';
  }
  const from = Math.max(0, best - CLOSEST_MARGIN);
  const to = Math.min(lines.length, best + search.length + CLOSEST_MARGIN, from + CLOSEST_MAX);
  return lines
    .slice(from, to)
    .map((line, k) => (line === '' ? `${from + k + 1} |` : `${from + k + 1} | ${line}`))
    .join('\n');
}

// When no line of the SEARCH occurs in the file as it is, where the file's line most like one of the SEARCH's first
// few lines stands (a typo, a renamed word), counted back to where the SEARCH would start; -1 when none is close.
// Likeness is the Dice coefficient of character pairs: 0.6 and up.
function similarStart(lines: readonly string[], search: readonly string[]): number {
  let best = -1;
  let bestScore = 0.6;
  search.slice(0, 3).forEach((wanted, j) => {
    const pairs = bigrams(wanted.trim());
    if (pairs.size < 4) return;
    lines.forEach((line, i) => {
      const text = line.trim();
      if (Math.abs(text.length - wanted.trim().length) > wanted.length) return;
      let shared = 0;
      let count = 0;
      for (let k = 0; k + 1 < text.length; k++) {
        count++;
        if (pairs.has(text.slice(k, k + 2))) shared++;
      }
      const score = (2 * shared) / (count + pairs.size);
      if (score > bestScore) {
        bestScore = score;
        best = Math.max(0, i - j);
      }
    });
  });
  return best;
}

function bigrams(text: string): Set<string> {
  const pairs = new Set<string>();
  for (let k = 0; k + 1 < text.length; k++) pairs.add(text.slice(k, k + 2));
  return pairs;
}

// lines.splice(start, count, ...items), in pieces: spreading a REPLACE of a hundred thousand lines into one call's
// arguments overflows the stack. In one call while it fits: a removal and then an insertion each move the rest of the
// lines, and V8 copied the whole array for the pair of them (4 ms a pair on a 200,000-line file, against 0.05 ms).
function spliceIn<T>(lines: T[], start: number, count: number, items: readonly T[]): void {
  if (items.length <= 10_000) {
    lines.splice(start, count, ...items);
    return;
  }
  lines.splice(start, count);
  for (let at = 0; at < items.length; at += 10_000) lines.splice(start + at, 0, ...items.slice(at, at + 10_000));
}

// The lines of a text, without their line ends; a final line end makes no empty last line.
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
