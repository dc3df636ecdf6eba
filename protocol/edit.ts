// Applies an EDIT block's SEARCH/REPLACE pairs to a file's text, in order. A SEARCH matches whole lines: exactly
// first, then forgiving only the mistakes models really make — trailing whitespace, a uniform change of indentation
// (the REPLACE is re-indented the same way), line numbers copied from NEED's output. Nothing fuzzier: a SEARCH that
// matches nowhere, or in more than one place, is refused with what was found, so the model can send it again.
//
// The text is worked on with LF line ends and without a BOM (the file conventions restore both when it is written).

import { withoutLineNumbers } from './parse.ts';

export type EditPair = { search: string; replace: string };

export type EditOutcome =
  | { ok: true; text: string; pairs: number }
  // `pair`: 1-based; `lines`: the file's lines nearest to the SEARCH, numbered, when something came close.
  | { ok: false; pair: number; problem: string; lines: string };

// Lines of the file shown around the closest match of a failed SEARCH.
const CLOSEST_MARGIN = 2;
const CLOSEST_MAX = 40;

export function applyEdit(text: string, pairs: readonly EditPair[]): EditOutcome {
  let current = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  for (const [i, raw] of pairs.entries()) {
    const pair = cleanPair(raw);
    const done = applyPair(current, pair);
    if (!done.ok) return { ok: false, pair: i + 1, problem: done.problem, lines: done.lines };
    current = done.text;
  }
  return { ok: true, text: current, pairs: pairs.length };
}

type PairOutcome = { ok: true; text: string } | { ok: false; problem: string; lines: string };

// LF line ends, and line numbers copied from NEED's output taken off: from the SEARCH when every line carries one,
// and then from those REPLACE lines that carry one (lines the model kept from the SEARCH).
function cleanPair(pair: EditPair): EditPair {
  const search = pair.search.replace(/\r\n/g, '\n');
  const replace = pair.replace.replace(/\r\n/g, '\n');
  const unnumbered = withoutLineNumbers(search);
  if (unnumbered === search || search.trim() === '') return { search, replace };
  return { search: unnumbered, replace: replace.replace(/^ *\d{1,7} \|(?: |(?=$))/gm, '') };
}

function applyPair(text: string, pair: EditPair): PairOutcome {
  if (pair.search.trim() === '') {
    // An empty SEARCH adds the REPLACE at the end of the file (which it creates when there is none).
    const joiner = text === '' || text.endsWith('\n') ? '' : '\n';
    return { ok: true, text: text + joiner + withNewline(pair.replace) };
  }
  const exact = exactly(text, withNewline(pair.search), pair.replace === '' ? '' : withNewline(pair.replace));
  if (exact !== undefined) return exact;
  const lines = splitLines(text);
  const search = splitLines(withNewline(pair.search));
  const replace = pair.replace === '' ? [] : splitLines(withNewline(pair.replace));

  for (const way of WAYS) {
    const found = way.find(lines, search);
    if (found.length === 0) continue;
    if (found.length > 1) {
      const at = found.slice(0, 3).map((m) => m.start + 1);
      const where = at.length === 2 ? `lines ${at[0]} and ${at[1]}` : `lines ${at.join(', ')}${found.length > 3 ? ' and more' : ''}`;
      return { ok: false, problem: `the SEARCH matches in ${found.length} places (${where}${way.name === 'exact' ? '' : `, ${way.name}`}); add lines around it so it is unique`, lines: '' };
    }
    const [match] = found;
    if (match === undefined) continue;
    const replaced = match.indent === undefined ? replace : reindent(replace, match.indent);
    const out = [...lines.slice(0, match.start), ...replaced, ...lines.slice(match.start + search.length)];
    return { ok: true, text: joinLines(out, text.endsWith('\n')) };
  }
  return { ok: false, problem: 'the SEARCH matches no lines of the file (compared exactly, then ignoring trailing spaces, then ignoring a change of indentation)', lines: closestLines(lines, search) };
}

// The common case, on the text as it is: the SEARCH's lines occur once, exactly, at a line start. Undefined when they
// occur nowhere or more than once (the line-by-line ways then look, and say where).
function exactly(text: string, search: string, replace: string): PairOutcome | undefined {
  const hay = text.endsWith('\n') || text === '' ? text : `${text}\n`;
  let found = -1;
  for (let at = hay.indexOf(search); at !== -1; at = hay.indexOf(search, at + 1)) {
    if (at > 0 && hay.charCodeAt(at - 1) !== 10) continue;
    if (found !== -1) return undefined;
    found = at;
  }
  if (found === -1) return undefined;
  const out = hay.slice(0, found) + replace + hay.slice(found + search.length);
  return { ok: true, text: hay === text ? out : out.slice(0, -1) };
}

// A match: where it starts, and how the file's indentation differs from the SEARCH's there (`add` is added to every
// line of the SEARCH to get the file's; `cut` is taken off) when it matched only that way.
type Match = { start: number; indent: Indent | undefined };
type Indent = { add: string } | { cut: string };

type Way = { name: string; find: (lines: readonly string[], search: readonly string[]) => Match[] };

const WAYS: readonly Way[] = [
  { name: 'exact', find: (lines, search) => windows(lines, search, (line) => line) },
  { name: 'ignoring trailing spaces', find: (lines, search) => windows(lines, search, (line) => line.trimEnd()) },
  { name: 'with other indentation', find: indented },
];

// The places where the SEARCH's lines, each passed through `key`, equal the file's. Joined into one string each, so
// the search is one native indexOf per candidate: linear in the file's size for these two ways.
function windows(lines: readonly string[], search: readonly string[], key: (line: string) => string): Match[] {
  const keyed = lines.map(key);
  const hay = `\n${keyed.join('\n')}\n`;
  const needle = `\n${search.map(key).join('\n')}\n`;
  // Where each line starts in `hay`, to turn an offset into a line number.
  const starts: number[] = [];
  let offset = 1;
  for (const line of keyed) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const found: Match[] = [];
  for (let at = hay.indexOf(needle); at !== -1 && found.length < 4; at = hay.indexOf(needle, at + 1)) {
    found.push({ start: lineAt(starts, at + 1), indent: undefined });
  }
  return found;
}

function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// The SEARCH with every line's indentation off by the same amount: found by comparing lines with their indentation
// stripped, then kept only where one prefix explains every non-blank line.
function indented(lines: readonly string[], search: readonly string[]): Match[] {
  const candidates = windows(lines, search, (line) => line.trim());
  const found: Match[] = [];
  for (const candidate of candidates) {
    const indent = uniformIndent(lines.slice(candidate.start, candidate.start + search.length), search);
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
    if (haveLead.length >= wantedLead.length && haveLead.endsWith(wantedLead)) here = { add: haveLead.slice(0, haveLead.length - wantedLead.length) };
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
  if (most === 0) return '';
  const from = Math.max(0, best - CLOSEST_MARGIN);
  const to = Math.min(lines.length, best + search.length + CLOSEST_MARGIN, from + CLOSEST_MAX);
  return lines.slice(from, to).map((line, k) => (line === '' ? `${from + k + 1} |` : `${from + k + 1} | ${line}`)).join('\n');
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

// The lines of a text, without their line ends; a final line end makes no empty last line.
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function joinLines(lines: readonly string[], finalNewline: boolean): string {
  if (lines.length === 0) return '';
  return lines.join('\n') + (finalNewline ? '\n' : '');
}
