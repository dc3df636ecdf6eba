// Indentation counted in columns, for a SEARCH whose tabs became spaces or whose spaces became tabs: models, and code
// copied out of a web chat, turn a tab into spaces all the time (issue 25: an EDIT of sindresorhus/got, which indents
// with tabs, sent with four spaces a tab). The lines are lined up by their columns, a tab taken as 4, 2 or 8, and the
// REPLACE is written back in the file's own indentation, so that the file does not end up with both.

// The tab widths tried, in this order when nothing tells which.
export const TAB_WIDTHS: readonly number[] = [4, 2, 8];

// How the file's lines and the SEARCH's line up: a tab is `width` columns, the file's lines stand `shift` columns
// right of the SEARCH's (left when negative), and the file indents with tabs or with spaces.
export type Columns = { width: number; shift: number; tabs: boolean };

// The spaces and tabs a line starts with; undefined when other whitespace follows them (a non-breaking space is not
// indentation: it is named when nothing matches, never matched).
export function leadOf(line: string): string | undefined {
  let n = 0;
  while (n < line.length && (line[n] === ' ' || line[n] === '\t')) n++;
  return line.length - line.trimStart().length === n || line.trim() === '' ? line.slice(0, n) : undefined;
}

// How the file's lines `have` line up with the SEARCH's `wanted`, equal to them but for their indentation; undefined
// when no tab width puts every non-blank line off by the same number of columns. Of the widths that do, the one that
// puts them off by none (the SEARCH is the file's lines with each tab spelt out); else the step the spaces go by
// (two spaces a level are a tab of 2); else the first in TAB_WIDTHS. `usesTabs` says how the file indents when
// these lines do not tell.
export function columnsOf(
  have: readonly string[],
  wanted: readonly string[],
  replace: readonly string[],
  usesTabs: () => boolean,
): Columns | undefined {
  const shifts = new Map<number, number>();
  for (const width of TAB_WIDTHS) {
    const shift = shiftAt(have, wanted, width);
    if (shift !== undefined) shifts.set(width, shift);
  }
  const step = spaceStep([...have, ...wanted, ...replace]);
  const width =
    TAB_WIDTHS.find((w) => shifts.get(w) === 0) ??
    (step !== undefined && shifts.has(step) ? step : TAB_WIDTHS.find((w) => shifts.has(w)));
  const shift = width === undefined ? undefined : shifts.get(width);
  if (width === undefined || shift === undefined) return undefined;
  return { width, shift, tabs: indentStyle(have) ?? usesTabs() };
}

// The REPLACE's lines moved by the columns the SEARCH was off by, each line's indentation written as the file writes
// it: tabs and then the spaces short of a tab, or spaces alone. A blank line is left empty.
export function inColumns(lines: readonly string[], at: Columns): string[] {
  return lines.map((line) => {
    if (line.trim() === '') return '';
    const lead = leadOf(line) ?? '';
    const column = Math.max(0, columnsIn(lead, at.width) + at.shift);
    const indent = at.tabs
      ? '\t'.repeat(Math.floor(column / at.width)) + ' '.repeat(column % at.width)
      : ' '.repeat(column);
    return indent + line.slice(lead.length);
  });
}

// A REPLACE indented with spaces, for lines of a file that indents with tabs, its SEARCH matched as written (a model
// writes spaces where it read tabs, and a web chat turns tabs into spaces): its spaces become the file's tabs, a tab
// taken as the step its spaces go by. Left as written when it has a tab, when the lines it replaces are indented with
// spaces, or when the file does not indent with tabs.
export function inFileStyle(
  replace: readonly string[],
  replaced: readonly string[],
  usesTabs: () => boolean,
): string[] {
  if (indentStyle(replace) !== false || replace.some((line) => line.startsWith('\t'))) return [...replace];
  if (replaced.some((line) => line.startsWith('  ')) || !usesTabs()) return [...replace];
  return inColumns(replace, { width: spaceStep(replace) ?? TAB_WIDTHS[0] ?? 4, shift: 0, tabs: true });
}

// true when these lines indent with tabs, false with spaces, undefined when none of them is indented. One space is
// not taken for indentation: in a file indented with tabs, the ` * ` lines of a comment at the top level have it.
export function indentStyle(lines: readonly string[]): boolean | undefined {
  let spaces = false;
  for (const line of lines) {
    if (line.trim() === '') continue;
    if (line.startsWith('\t')) return true;
    if (line.startsWith('  ')) spaces = true;
  }
  return spaces ? false : undefined;
}

// The columns a run of spaces and tabs takes, from the start of a line, tabs stopping at every `width` columns.
function columnsIn(lead: string, width: number): number {
  let column = 0;
  for (const c of lead) column = c === '\t' ? column - (column % width) + width : column + 1;
  return column;
}

function shiftAt(have: readonly string[], wanted: readonly string[], width: number): number | undefined {
  let shift: number | undefined;
  for (const [j, line] of wanted.entries()) {
    const other = have[j] ?? '';
    if (line.trim() === '' && other.trim() === '') continue;
    const lead = leadOf(line);
    const otherLead = leadOf(other);
    if (lead === undefined || otherLead === undefined) return undefined;
    const here = columnsIn(otherLead, width) - columnsIn(lead, width);
    if (shift === undefined) shift = here;
    else if (here !== shift) return undefined;
  }
  return shift;
}

// The step of indentation the lines indented with spaces alone go by, when it is one of TAB_WIDTHS: the largest
// width that divides every such indentation.
function spaceStep(lines: readonly string[]): number | undefined {
  let step = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const lead = leadOf(line);
    if (lead === undefined || lead === '' || lead.includes('\t')) continue;
    step = gcd(step, lead.length);
  }
  return step === 0 ? undefined : [...TAB_WIDTHS].sort((a, b) => b - a).find((w) => step % w === 0);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
