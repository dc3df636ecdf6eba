// What the model is told when a SEARCH matches nowhere: the file's lines closest to it, numbered as the model read
// them, and what differs when that can be told — a non-breaking space for a space, a curly quote for a straight one,
// tabs for spaces, line numbers in another form — so that the next try is a fix, not a guess (issue 25: a refusal
// whose closest lines looked the same on screen as the SEARCH). The look-alikes are named, never forgiven: a quote
// changed in a string changes what the code does.

import { columnsOf, indentStyle } from './edit-indent.ts';
import { withoutNumbersWhereNumbered } from './line-numbers.ts';
import { hashOf, linesRuns } from './line-runs.ts';
import { lookAlikesIn, loose, nameOf, plain, plainOf } from './look-alikes.ts';

// Where a line of the file stands as the model knows it: a line it read (1-based, as NEED numbered it), or one that
// an earlier pair of the same EDIT put in (the line of that pair's REPLACE).
export type Place = { kind: 'read'; line: number } | { kind: 'added'; pair: number; line: number };

// "line 17", or "line 2 of the lines pair 1 put in".
export function placeText(place: Place): string {
  return place.kind === 'read' ? `line ${place.line}` : `line ${place.line} of the lines pair ${place.pair} put in`;
}

// "lines 12 and 40", "lines 1, 2, 3 and more"; each place said in full when one is not a line the model read.
export function placesText(places: readonly Place[], more: boolean): string {
  const read = places.every((p) => p.kind === 'read');
  const each = places.map((p) => (read ? String(p.line) : placeText(p)));
  const list =
    each.length === 2 && !more ? `${each[0]} and ${each[1]}` : `${each.join(', ')}${more ? ' and more' : ''}`;
  return read ? `lines ${list}` : list;
}

// Lines of the file shown around the closest match of a failed SEARCH.
const CLOSEST_MARGIN = 2;
const CLOSEST_MAX = 40;
// Differences named at most, so that a SEARCH with a curly quote on every line is told once, not at every line.
const MAX_NAMED = 6;

export type Miss = { why: string; lines: string };

// Why `search` matches nowhere in `current` (the file's lines as the earlier pairs leave them), and the closest lines
// of `original` (the file as the model read it). `placeOf(i)`: where line i of `current` stands as the model knows it.
// `why` is '' when nothing can be told, else what follows the refusal: where the SEARCH would match but for what
// differs, or what may differ.
export function describeMiss(
  current: readonly string[],
  original: readonly string[],
  search: readonly string[],
  placeOf: (i: number) => Place,
): Miss {
  const numbers = numbering(search);
  let wanted = numbers.difference === undefined ? search : numbers.lines;
  const named: Difference[] = numbers.difference === undefined ? [] : [numbers.difference];
  let at = looseRun(current, wanted);
  if (at === undefined && numbers.other) {
    at = looseRun(current, numbers.lines);
    if (at !== undefined) {
      wanted = numbers.lines;
      named.push({ kind: 'numbers', form: numbers.form });
    }
  }
  if (at !== undefined) {
    named.push(...differencesAt(current.slice(at, at + wanted.length), wanted));
    const place = placeOf(at);
    const from = place.kind === 'read' ? place.line - 1 : closestStart(original, wanted);
    return {
      why: `; it would match at ${placeText(place)}${named.length === 0 ? '' : ` but for this: ${said(named)}`}`,
      lines: numbered(original, from, wanted.length),
    };
  }
  // A line cut out of a longer one (a model copies the end of a long line): the whole line is what a SEARCH holds.
  const part = partOfLine(current, wanted);
  if (part !== undefined) {
    const place = placeOf(part.at);
    named.push({ kind: 'part', line: part.line, place: placeText(place) });
    const start = place.kind === 'read' ? place.line - 1 - (part.line - 1) : closestStart(original, wanted);
    return {
      why: `; ${said(named)}`,
      lines: numbered(original, start === undefined ? undefined : Math.max(0, start), wanted.length),
    };
  }
  const from = closestStart(original, wanted);
  const near = from === undefined ? undefined : shown(original, from, wanted.length);
  named.push(...hints(current, near, wanted));
  return {
    why: named.length === 0 ? '' : `; what may differ: ${said(named)}`,
    lines: numbered(original, from, wanted.length),
  };
}

// What differs between the SEARCH and the file's lines, each kind decided here and said in one place (`said`).
type Difference =
  // Line numbers copied in a form that is not NEED's `12 | `, or NEED's with a line left out, or on some lines only.
  | { kind: 'numbers'; form: string }
  | { kind: 'numbers skip'; from: number; to: number }
  | { kind: 'numbers some' }
  // A look-alike on a line of the SEARCH where the file has its plain character, or the other way round ('' is none).
  | { kind: 'character'; line: number; wrote: string; file: string }
  // Tabs inside a line where the other has spaces, or other spacing inside it.
  | { kind: 'spacing'; line: number; tab: boolean }
  // The file indents with tabs and the SEARCH with spaces (`tabs`), or the other way round.
  | { kind: 'indent'; tabs: boolean; alone: boolean }
  | { kind: 'uneven' }
  // When the SEARCH matches nowhere even loosely: a look-alike on one side and not near it on the other.
  | { kind: 'only in search'; line: number; char: string; nowhere: boolean }
  | { kind: 'only in file'; line: number; char: string }
  // A line of the SEARCH that is only part of a line of the file (`place`: that line, as the model knows it).
  | { kind: 'part'; line: number; place: string };

function said(named: readonly Difference[]): string {
  const texts = named.slice(0, MAX_NAMED).map(differenceText);
  return texts.join('; ') + (named.length > MAX_NAMED ? '; and more' : '');
}

function differenceText(d: Difference): string {
  switch (d.kind) {
    case 'numbers':
      return `your SEARCH's lines start with line numbers written as \`${d.form}\`: send the lines without them`;
    case 'numbers skip':
      return `your SEARCH's lines carry NEED's line numbers, and they go from ${d.from} to ${d.to}: a line was left out`;
    case 'numbers some':
      return "some of your SEARCH's lines start with NEED's line numbers and some do not: send the lines without them";
    case 'character': {
      const on = `line ${d.line} of your SEARCH`;
      if (d.file === '') return `${on} has ${nameOf(d.wrote)}, which the file does not have there`;
      if (d.wrote === '') return `${on} lacks ${nameOf(d.file)} that the file has there`;
      return `${on} has ${nameOf(d.wrote)} where the file has ${nameOf(d.file)}`;
    }
    case 'spacing':
      return d.tab
        ? `line ${d.line} of your SEARCH has spaces inside it where the file has a tab`
        : `the spacing inside line ${d.line} of your SEARCH differs from the file's`;
    case 'indent':
      return `the file's lines start with ${d.tabs ? 'tabs' : 'spaces'} and your SEARCH's with ${d.tabs ? 'spaces' : 'tabs'}${d.alone ? '' : ' (that alone would be forgiven)'}`;
    case 'uneven':
      return 'the lines are the same but for their indentation, which is off by another amount on some lines';
    case 'only in search':
      return `line ${d.line} of your SEARCH has ${nameOf(d.char)}, which ${d.nowhere ? 'the file has nowhere' : "the file's closest lines do not have"}`;
    case 'only in file':
      return `line ${d.line} of the file has ${nameOf(d.char)}, which your SEARCH does not have`;
    case 'part':
      return `line ${d.line} of your SEARCH is only part of ${d.place} of the file: a SEARCH holds whole lines, so copy the whole line`;
  }
}

// Shorter than this, a piece of a line is found inside too many others to say which it was cut from.
const MIN_PART = 12;

// The first line of the SEARCH, or its last, found inside a longer line of the file, and nowhere as a whole line:
// where (`at`, in `current`) and which line of the SEARCH (1-based). Undefined when neither is, or when it is inside
// more than one line.
function partOfLine(current: readonly string[], wanted: readonly string[]): { at: number; line: number } | undefined {
  const ends = [0, wanted.length - 1].filter((j, k, all) => all.indexOf(j) === k);
  for (const j of ends) {
    const piece = (wanted[j] ?? '').trim();
    if (piece.length < MIN_PART || current.some((line) => line.trim() === piece)) continue;
    const inside = current.flatMap((line, i) => (line.includes(piece) ? [i] : []));
    if (inside.length === 1 && inside[0] !== undefined) return { at: inside[0], line: j + 1 };
  }
  return undefined;
}

// Where the SEARCH matches the current lines loosely: the first place, or undefined. Linear, as the ways are.
function looseRun(current: readonly string[], wanted: readonly string[]): number | undefined {
  const keys = current.map(loose);
  return linesRuns(keys, keys.map(hashOf), wanted.map(loose))[0];
}

// The SEARCH's line numbers, when it carries numbers that were not taken off (they are taken off only when every
// line has NEED's form, counting up one by one): `lines` without them, and what is wrong with them. `other`: every
// line starts with a number in another form (`12: `, `12. `, a tab after it) — named only if the lines match without
// them, since a numbered list starts that way too.
const NEED_FORM = /^ *(\d{1,7}) \|(?: |$)/;
const OTHER_FORM = /^[ \t]*L?\d{1,7}(?:[ \t]*[|:.)][ \t]?|[ \t]|$)/;

function numbering(search: readonly string[]): {
  lines: string[];
  difference: Difference | undefined;
  other: boolean;
  form: string;
} {
  const inNeedForm = search.filter((line) => NEED_FORM.test(line)).length;
  if (inNeedForm > 0) {
    const lines = withoutNumbersWhereNumbered(search.join('\n')).split('\n');
    if (inNeedForm < search.length) return { lines, difference: { kind: 'numbers some' }, other: false, form: '' };
    const numbers = search.map((line) => Number(NEED_FORM.exec(line)?.[1]));
    const j = numbers.findIndex((n, k) => k > 0 && n !== (numbers[k - 1] ?? 0) + 1);
    const skip: Difference = { kind: 'numbers skip', from: numbers[j - 1] ?? 0, to: numbers[j] ?? 0 };
    return { lines, difference: j === -1 ? undefined : skip, other: false, form: '' };
  }
  const prefixes = search.map((line) => OTHER_FORM.exec(line)?.[0]);
  if (prefixes.some((p) => p === undefined))
    return { lines: [...search], difference: undefined, other: false, form: '' };
  return {
    lines: search.map((line, j) => line.slice(prefixes[j]?.length ?? 0)),
    difference: undefined,
    other: true,
    form: prefixes[0]?.trim() ?? '',
  };
}

// What differs between the file's lines `have` and the SEARCH's `wanted`, which are equal loosely.
function differencesAt(have: readonly string[], wanted: readonly string[]): Difference[] {
  const found: Difference[] = [];
  const told = new Set<string>();
  const tell = (key: string, d: Difference) => {
    if (told.has(key)) return;
    told.add(key);
    found.push(d);
  };
  for (const [j, line] of wanted.entries()) {
    const other = have[j] ?? '';
    // Told once for each plain character a look-alike stands for: “ and ” are one difference, not two.
    for (const c of lookAlikesIn(line))
      if (!other.includes(c))
        tell(`wrote ${plainOf(c)}`, { kind: 'character', line: j + 1, wrote: c, file: plainOf(c) });
    for (const c of lookAlikesIn(other))
      if (!line.includes(c)) tell(`file ${plainOf(c)}`, { kind: 'character', line: j + 1, wrote: plainOf(c), file: c });
    const mine = plain(line).trim();
    const theirs = plain(other).trim();
    if (mine !== theirs)
      tell('spacing', { kind: 'spacing', line: j + 1, tab: theirs.includes('\t') && !mine.includes('\t') });
  }
  const alone = found.length === 0;
  const tabs = indentStyle(have);
  const searchTabs = indentStyle(wanted);
  if (tabs !== undefined && searchTabs !== undefined && tabs !== searchTabs)
    found.push({ kind: 'indent', tabs, alone });
  // Nothing else differs, and no tab width lines the indentation up: it is off by more on some lines than on others.
  if (alone && columnsOf(have, wanted, [], () => false) === undefined) found.push({ kind: 'uneven' });
  return found;
}

// When the SEARCH matches nowhere even loosely: what looks like a cause in the lines shown (`near`, from the first
// line's number), or in the whole file when none is shown.
function hints(
  current: readonly string[],
  near: { from: number; lines: readonly string[] } | undefined,
  wanted: readonly string[],
): Difference[] {
  const found: Difference[] = [];
  const tabs = indentStyle(near?.lines ?? current);
  const searchTabs = indentStyle(wanted);
  if (tabs !== undefined && searchTabs !== undefined && tabs !== searchTabs)
    found.push({ kind: 'indent', tabs, alone: false });
  const told = new Set<string>();
  for (const [j, line] of wanted.entries()) {
    for (const c of lookAlikesIn(line)) {
      if (told.has(`wrote ${plainOf(c)}`) || near?.lines.some((l) => l.includes(c))) continue;
      told.add(`wrote ${plainOf(c)}`);
      found.push({ kind: 'only in search', line: j + 1, char: c, nowhere: !current.some((l) => l.includes(c)) });
    }
  }
  for (const [k, line] of (near?.lines ?? []).entries()) {
    for (const c of lookAlikesIn(line)) {
      if (told.has(`file ${plainOf(c)}`) || wanted.some((l) => l.includes(c))) continue;
      told.add(`file ${plainOf(c)}`);
      found.push({ kind: 'only in file', line: (near?.from ?? 0) + k + 1, char: c });
    }
  }
  return found;
}

// The lines shown for a SEARCH of `length` lines whose closest place starts at `start` (before the first line when
// the SEARCH's first lines are not in the file).
function shown(lines: readonly string[], start: number, length: number): { from: number; lines: string[] } {
  const from = Math.max(0, start - CLOSEST_MARGIN);
  const to = Math.min(lines.length, start + length + CLOSEST_MARGIN, from + CLOSEST_MAX);
  return { from, lines: lines.slice(from, to) };
}

// Those lines numbered as NEED numbers them; '' for none.
function numbered(lines: readonly string[], start: number | undefined, length: number): string {
  if (start === undefined) return '';
  const near = shown(lines, start, length);
  return near.lines
    .map((line, k) => (line === '' ? `${near.from + k + 1} |` : `${near.from + k + 1} | ${line}`))
    .join('\n');
}

// Where the file's lines hold most of the SEARCH's lines in order: the line the SEARCH would start at; undefined when
// no line of the SEARCH occurs in the file, and none is much like one of its first lines.
function closestStart(lines: readonly string[], search: readonly string[]): number | undefined {
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
  if (most > 0) return best;
  const similar = similarStart(lines, search);
  return similar === -1 ? undefined : similar;
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
