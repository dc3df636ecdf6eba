// Applies an EDIT block's SEARCH/REPLACE pairs to a file's text, in order. A SEARCH matches whole lines: exactly
// first, then forgiving only the mistakes models really make — trailing whitespace, a uniform change of indentation,
// tabs turned into spaces or spaces into tabs (the REPLACE is re-indented the same way, in the file's own style), line
// numbers copied from NEED's output. Nothing fuzzier: a SEARCH that matches nowhere, or in more than one place, is
// refused with what was found (edit-miss.ts: the closest lines, and what differs), so the model can send it again.
// Lines are named as the model read them: a line an earlier pair put in is said to be one.
//
// The text is worked on with LF line ends and without a BOM (the file conventions restore both when it is written).

import { withoutLineNumbers, withoutNumbersWhereNumbered } from './line-numbers.ts';
import { MAX_PAIRS_PER_EDIT, tooManyPairs } from './caps.ts';
import { type Columns, columnsOf, indentStyle, inColumns, inFileStyle, TAB_WIDTHS } from './edit-indent.ts';
import { describeMiss, type Place, placesText } from './edit-miss.ts';
import { hashOf, linesRuns } from './line-runs.ts';

export type EditPair = { search: string; replace: string };

// A pair that did not apply. `pair`: 1-based; `lines`: the file's lines nearest to the SEARCH, numbered, when something
// came close; or, with `places`, the lines around each place a SEARCH found more than once matches.
export type PairMiss = { pair: number; problem: string; lines: string; places?: true };

export type EditOutcome = { ok: true; text: string; pairs: number } | ({ ok: false } & PairMiss);

// All the pairs, or none: the first that does not apply ends it.
export function applyEdit(text: string, pairs: readonly EditPair[]): EditOutcome {
  const done = applyPairs(text, pairs, false);
  const [miss] = done.missed;
  return miss === undefined ? { ok: true, text: done.text, pairs: pairs.length } : { ok: false, ...miss };
}

// What an EDIT's pairs make of a text when those that do not apply are passed over: the text with the others made, in
// order, which did not, and the pairs as they are kept (`kept`, one per pair that applied, in order). The pairs kept
// make the same text on their own (writing/plan.ts applies them so).
export type PairsOutcome = { text: string; missed: PairMiss[]; kept: EditPair[] };

// `read`: the lines of `text` the model was shown, as 1-based [first, last] ranges. A SEARCH found exactly in several
// places of which one lies in lines the model read is taken there (it copied it from those lines; issue 27's relay
// runs: `max_redirects: int` / `trust_env: bool` in both Session, which the model read, and SessionRedirectMixin, which
// it never saw), and kept with as many lines around it as make it found once.
export function applyEachPair(
  text: string,
  pairs: readonly EditPair[],
  read: ReadonlyArray<readonly [number, number]> = [],
): PairsOutcome {
  return applyPairs(text, pairs, true, read);
}

function applyPairs(
  text: string,
  pairs: readonly EditPair[],
  passOver: boolean,
  read: ReadonlyArray<readonly [number, number]> = [],
): PairsOutcome {
  // Each pair costs passes over the file: an EDIT of 100,000 pairs on a 200,000-line file took most of a minute.
  if (pairs.length > MAX_PAIRS_PER_EDIT)
    return {
      text,
      missed: [{ pair: MAX_PAIRS_PER_EDIT + 1, problem: tooManyPairs(pairs.length), lines: '' }],
      kept: [],
    };
  const normal = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  // Worked on as an array of lines: a pair costs a scan of the lines and a splice, never a copy of the whole text
  // (on a 20,000-line file, copying the text per pair took 4 ms; 200 pairs, most of a second).
  const lines = splitLines(normal);
  const file: Lines = { lines, hashes: lines.map(hashOf), keyed: new Map(), origin: undefined };
  let finalNewline = normal === '' || normal.endsWith('\n');
  const missed: PairMiss[] = [];
  const kept: EditPair[] = [];
  const wasRead = (i: number): boolean => {
    const place = placeOf(file, i);
    return place.kind === 'added' || read.some(([first, last]) => place.line >= first && place.line <= last);
  };
  for (const [i, raw] of pairs.entries()) {
    const pair = cleanPair(raw);
    if (pair.search.trim() === '') {
      // An empty SEARCH adds the REPLACE at the end of the file (which it makes when there is none).
      const added = inFileStyle(splitLines(pair.replace), [], () => indentStyle(file.lines) === true);
      replaceLines(file, file.lines.length, 0, added, i);
      finalNewline = true;
      kept.push(raw);
      continue;
    }
    const search = splitLines(pair.search);
    const problem = applyPair(file, search, splitLines(pair.replace), i, read.length === 0 ? undefined : wasRead);
    if (problem === undefined) {
      kept.push(raw);
      continue;
    }
    if (problem.kind === 'widened') {
      kept.push(problem.pair);
      continue;
    }
    if (problem.kind === 'ambiguous')
      missed.push({
        pair: i + 1,
        problem: problem.text,
        lines: placesAround(file, problem.starts, search.length),
        places: true,
      });
    else {
      // The closest lines are numbered as in the text before this block, which is what the model has seen.
      const before = file.origin === undefined ? file.lines : splitLines(normal);
      const miss = describeMiss(file.lines, before, search, (at) => placeOf(file, at));
      missed.push({ pair: i + 1, problem: `${NO_MATCH}${miss.why}`, lines: miss.lines });
    }
    if (!passOver) break;
  }
  return { text: lines.length === 0 ? '' : lines.join('\n') + (finalNewline ? '\n' : ''), missed, kept };
}

const NO_MATCH = `the SEARCH matches no lines of the file (compared exactly, then ignoring trailing spaces, then ignoring a change of indentation, then counting a tab as ${TAB_WIDTHS.slice(0, -1).join(', ')} or ${TAB_WIDTHS.at(-1)} spaces)`;

// LF line ends, and line numbers copied from NEED's output taken off: from the SEARCH when every line carries one,
// and then from those REPLACE lines that carry one (lines the model kept from the SEARCH).
function cleanPair(pair: EditPair): EditPair {
  const search = pair.search.replace(/\r\n/g, '\n');
  const replace = pair.replace.replace(/\r\n/g, '\n');
  const unnumbered = withoutLineNumbers(search);
  if (unnumbered === search || search.trim() === '') return { search, replace };
  return { search: unnumbered, replace: withoutNumbersWhereNumbered(replace) };
}

// Lines shown above and below each place a SEARCH was found in, so that the model can add the ones that tell them apart.
const AROUND = 2;

// The lines around each place, numbered as the model read them; a place among lines an earlier pair put in is left out
// (its numbers are not the model's).
function placesAround(file: Lines, starts: readonly number[], length: number): string {
  const blocks: string[] = [];
  for (const start of starts) {
    const from = Math.max(0, start - AROUND);
    const to = Math.min(file.lines.length, start + length + AROUND);
    const rows: string[] = [];
    for (let i = from; i < to; i++) {
      const place = placeOf(file, i);
      if (place.kind !== 'read') break;
      const line = file.lines[i] ?? '';
      rows.push(line === '' ? `${place.line} |` : `${place.line} | ${line}`);
    }
    if (rows.length === to - from) blocks.push(rows.join('\n'));
  }
  return blocks.join('\n…\n');
}

// Lines added around a SEARCH taken in the lines the model read, at most, to make it found once.
const MAX_WIDENING = 40;

// Replaces the one place the SEARCH matches, in the file's lines, for pair `pair` (0-based); or says why it cannot.
// `wasRead(i)`: line i of the file was shown to the model; a SEARCH found exactly in several places, one of them in lines
// it read, is made there and comes back `widened`: the pair with the lines around it that make it found once.
function applyPair(
  file: Lines,
  search: readonly string[],
  replace: readonly string[],
  pair: number,
  wasRead?: (i: number) => boolean,
):
  | { kind: 'ambiguous'; text: string; starts: number[] }
  | { kind: 'missing' }
  | { kind: 'widened'; pair: EditPair }
  | undefined {
  for (const way of WAYS) {
    const found = way.find(file, search, replace);
    if (found.length === 0) continue;
    const widened = found.length > 1 && way.name === 'exact' && wasRead !== undefined;
    const seen = widened ? found.filter((m) => search.every((_, k) => wasRead(m.start + k))) : [];
    const [only] = seen;
    if (seen.length === 1 && only !== undefined) {
      const wide = widenedPair(file, only.start, search, replace);
      if (wide !== undefined) {
        const replaced = file.lines.slice(only.start, only.start + search.length);
        replaceLines(
          file,
          only.start,
          search.length,
          inFileStyle(replace, replaced, () => indentStyle(file.lines) === true),
          pair,
        );
        return { kind: 'widened', pair: wide };
      }
    }
    if (found.length > 1) {
      const where = placesText(
        found.slice(0, 3).map((m) => placeOf(file, m.start)),
        found.length > 3,
      );
      const text = `the SEARCH matches in ${found.length > 3 ? 'more than 3' : found.length} places (${where}${way.name === 'exact' ? '' : `, ${way.name}`}); add lines around it so it is unique`;
      return { kind: 'ambiguous', text, starts: found.slice(0, 3).map((m) => m.start) };
    }
    const [match] = found;
    if (match === undefined) continue;
    const replaced = file.lines.slice(match.start, match.start + search.length);
    const usesTabs = () => indentStyle(file.lines) === true;
    const placed =
      match.indent === undefined
        ? inFileStyle(replace, replaced, usesTabs)
        : match.indent.kind === 'add'
          ? reindent(inFileStyle(replace, replaced, usesTabs), match.indent)
          : reindent(replace, match.indent);
    replaceLines(file, match.start, search.length, placed, pair);
    return undefined;
  }
  return { kind: 'missing' };
}

// The pair found exactly at `start` with the fewest lines of the file around it (above first) that make its SEARCH
// found there alone; undefined when MAX_WIDENING lines do not.
function widenedPair(
  file: Lines,
  start: number,
  search: readonly string[],
  replace: readonly string[],
): EditPair | undefined {
  const afterEnd = file.lines.length - start - search.length;
  for (let more = 1; more <= MAX_WIDENING && more <= start + afterEnd; more++) {
    // Half above and half below, or what there is on one side and the rest on the other.
    const below = Math.min(afterEnd, more - Math.min(start, Math.ceil(more / 2)));
    const above = Math.min(start, more - below);
    const before = file.lines.slice(start - above, start);
    const after = file.lines.slice(start + search.length, start + search.length + below);
    const wide = [...before, ...search, ...after];
    if (linesRuns(file.lines, file.hashes, wide).length === 1) {
      const text = (lines: readonly string[]) => lines.map((l) => `${l}\n`).join('');
      return { search: text(wide), replace: text([...before, ...replace, ...after]) };
    }
  }
  return undefined;
}

// The file's lines as the pairs so far leave them, with a hash per line: the exact way compares numbers, and strings
// only where they agree. The forgiving ways compare each line's key (without its trailing spaces; without the spaces
// around it), hashed the same way: made when a way is first tried, then kept up to date by every replacement, so a
// pair never makes a string for every line of the file (on a 200,000-line file, 30 ms a pair on a busy machine).
// `origin`: where each line came from (see `placeOf`), made at the first replacement; until then line i is line i.
type Lines = { lines: string[]; hashes: number[]; keyed: Map<Key, Keyed>; origin: number[] | undefined };
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

// An origin is a line's index in the text the model read, or, below zero, line k of what pair p put in: -1 - (k *
// PAIR_SLOTS + p). A SEARCH found twice after an earlier pair added lines is then named by the numbers the model saw
// (issue 25: "lines 22 and 29" for lines NEED had numbered 17 and 24).
const PAIR_SLOTS = MAX_PAIRS_PER_EDIT + 1;

function placeOf(file: Lines, i: number): Place {
  const origin = file.origin?.[i] ?? i;
  if (origin >= 0) return { kind: 'read', line: origin + 1 };
  const added = -1 - origin;
  return { kind: 'added', pair: (added % PAIR_SLOTS) + 1, line: Math.floor(added / PAIR_SLOTS) + 1 };
}

// Puts `placed`, from pair `pair` (0-based), where `count` lines stood from `start`, in the lines and in all that is
// kept beside them.
function replaceLines(file: Lines, start: number, count: number, placed: readonly string[], pair: number): void {
  file.origin ??= file.lines.map((_, i) => i);
  spliceIn(
    file.origin,
    start,
    count,
    placed.map((_, k) => -1 - (k * PAIR_SLOTS + pair)),
  );
  spliceIn(file.lines, start, count, placed);
  spliceIn(file.hashes, start, count, placed.map(hashOf));
  for (const [key, keyed] of file.keyed) {
    const keys = placed.map(KEYS[key]);
    spliceIn(keyed.keys, start, count, keys);
    spliceIn(keyed.hashes, start, count, keys.map(hashOf));
  }
}

// A match: where it starts, and how the file's indentation differs from the SEARCH's there when it matched only that
// way: `add` is added to every line of the SEARCH to get the file's, `cut` is taken off, or `columns` line them up.
type Match = { start: number; indent: Indent | undefined };
type Indent = { kind: 'add'; text: string } | { kind: 'cut'; text: string } | ({ kind: 'columns' } & Columns);

type Way = { name: string; find: (file: Lines, search: readonly string[], replace: readonly string[]) => Match[] };

// Exactly first, then the mistakes models make, in this order.
const WAYS: readonly Way[] = [
  { name: 'exact', find: (file, search) => starts(linesRuns(file.lines, file.hashes, search)) },
  { name: 'ignoring trailing spaces', find: (file, search) => keyedWindows(file, 'trimEnd', search) },
  { name: 'with other indentation', find: indented },
  { name: 'with tabs and spaces counted alike', find: tabbed },
];

function starts(found: readonly number[]): Match[] {
  return found.map((start) => ({ start, indent: undefined }));
}

// Where the SEARCH's lines, each taken by `key`, equal the file's lines so taken; at most four.
function keyedWindows(file: Lines, key: Key, search: readonly string[]): Match[] {
  const { keys, hashes } = keyedLines(file, key);
  return starts(linesRuns(keys, hashes, search.map(KEYS[key])));
}

// The SEARCH with its tabs turned into spaces, or its spaces into tabs (and maybe its indentation changed too): found
// by comparing lines with their indentation stripped, then kept only where a tab width lines every non-blank line up
// by the same number of columns.
function tabbed(file: Lines, search: readonly string[], replace: readonly string[]): Match[] {
  const found: Match[] = [];
  for (const candidate of keyedWindows(file, 'trim', search)) {
    const have = file.lines.slice(candidate.start, candidate.start + search.length);
    const columns = columnsOf(have, search, replace, () => indentStyle(file.lines) === true);
    if (columns !== undefined) found.push({ start: candidate.start, indent: { kind: 'columns', ...columns } });
  }
  return found;
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
      here = { kind: 'add', text: haveLead.slice(0, haveLead.length - wantedLead.length) };
    else if (wantedLead.endsWith(haveLead))
      here = { kind: 'cut', text: wantedLead.slice(0, wantedLead.length - haveLead.length) };
    else return undefined;
    if (indent === undefined) indent = here;
    else if (JSON.stringify(indent) !== JSON.stringify(here)) return undefined;
  }
  return indent;
}

function reindent(lines: readonly string[], indent: Indent): string[] {
  if (indent.kind === 'columns') return inColumns(lines, indent);
  return lines.map((line) => {
    if (line.trim() === '') return line;
    if (indent.kind === 'add') return indent.text + line;
    return line.startsWith(indent.text) ? line.slice(indent.text.length) : line.trimStart();
  });
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
