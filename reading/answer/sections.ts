// The sections of a text file deepwork has no grammar for, as the definitions FIND's hits and NEED's parts are placed
// in (answer/find.ts): a Markdown file's headings, and the `[name]` lines that open a section in INI and TOML files and
// in data-driven tests (mypy's test-data `.test` files: `[case testName]`). A player editing mypy got 48 hits of
// `== Return code:` in test-data/unit/cmdline.test with no word of the case each lay in, which was what it needed to
// know where to add its own.

import type { MapDef } from '../map/graph.ts';

// A section's name as shown, at most this long.
const NAME_CHARS = 60;
const MARKDOWN = /\.(md|markdown|mdx)$/i;
// reStructuredText, which Python's projects write their READMEs and Sphinx docs in: a title underlined (and perhaps
// overlined) with a run of one punctuation character at least as long as it. A player's FIND in tenacity's README.rst
// came back with no section, and it spent a step reading 100 lines to find the one on waiting (issue 30).
const RST = /\.(rst|rest)$/i;
const ADORNMENT = /^([!-/:-@[-`{-~])\1*\s*$/;
// The files whose `[name]` lines open sections: INI and TOML files. Not any text: a JSON array on a line of its own looks
// the same. In data-driven tests only `[case name]` does: `[file a.py]` and `[out]` are parts of a case.
const SECTIONED = /\.(ini|cfg|conf|toml)$|(^|\/)\.(editorconfig|gitconfig)$/i;
const CASES = /\.test$/i;
const CASE = /^\[case [^[\]]+\]\s*$/;
// A `[name]` line: a bracket at the start, one at the end, none between (not a Markdown link, not an array).
const BRACKETED = /^\[[^[\]]+\]\s*$/;
const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

// A text's lines as sectionsOf takes them: no last empty line, no carriage returns.
export function textLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => line.replace(/\r$/, ''));
}

// Whether a file at `rel` may have sections.
export function hasSections(rel: string): boolean {
  return MARKDOWN.test(rel) || RST.test(rel) || SECTIONED.test(rel) || CASES.test(rel);
}

// The sections of `lines` (a file's lines, the first line 1) for the file at `rel`; none when it has no such lines.
export function sectionsOf(rel: string, lines: readonly string[]): MapDef[] {
  if (MARKDOWN.test(rel)) return headings(lines);
  if (RST.test(rel)) return titles(lines);
  if (CASES.test(rel)) return bracketed(lines, CASE);
  return SECTIONED.test(rel) ? bracketed(lines, BRACKETED) : [];
}

// Markdown's headings, outside code fences: each from its line to the line before the next heading of its level or
// higher (fewer #), its depth its level less one.
function headings(lines: readonly string[]): MapDef[] {
  const sections: MapDef[] = [];
  const open: MapDef[] = [];
  let fence: string | undefined;
  lines.forEach((line, i) => {
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const heading = HEADING.exec(line);
    if (heading === null) return;
    const depth = (heading[1]?.length ?? 1) - 1;
    while ((open.at(-1)?.depth ?? -1) >= depth) {
      const closed = open.pop();
      if (closed !== undefined) closed.last = i;
    }
    const section = { name: shortened(line.trim()), first: i + 1, last: lines.length, depth };
    sections.push(section);
    open.push(section);
  });
  return sections;
}

// reStructuredText's section titles: a line of text not indented, after a blank line (or an overline), and under it a
// line of one punctuation character repeated at least as long; an overline too, when there is one, of the same. The
// levels go by the styles in the order they first come, as docutils takes them; each section runs to the line before
// the next title of its level or higher.
function titles(lines: readonly string[]): MapDef[] {
  const sections: MapDef[] = [];
  const open: MapDef[] = [];
  const styles: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const title = lines[i - 1] ?? '';
    const under = ADORNMENT.exec(lines[i] ?? '')?.[1];
    const text = title.trim();
    if (under === undefined || text === '' || ADORNMENT.test(title) || (lines[i] ?? '').trimEnd().length < text.length)
      continue;
    const above = i >= 2 ? (lines[i - 2] ?? '') : '';
    const over = i >= 2 && above.trimEnd() === (lines[i] ?? '').trimEnd();
    if (!over && (/^\s/.test(title) || (i >= 2 && above.trim() !== ''))) continue;
    const style = `${under}${over ? 'o' : 'u'}`;
    if (!styles.includes(style)) styles.push(style);
    const depth = styles.indexOf(style);
    const first = over ? i - 1 : i;
    while ((open.at(-1)?.depth ?? -1) >= depth) {
      const closed = open.pop();
      if (closed !== undefined) closed.last = first - 1;
    }
    const section = { name: shortened(text), first, last: lines.length, depth };
    sections.push(section);
    open.push(section);
  }
  return sections;
}

// The lines `opens` matches: each section to the line before the next.
function bracketed(lines: readonly string[], opens: RegExp): MapDef[] {
  const sections: MapDef[] = [];
  lines.forEach((line, i) => {
    if (!opens.test(line)) return;
    const last = sections.at(-1);
    if (last !== undefined) last.last = i;
    sections.push({ name: shortened(line.trim()), first: i + 1, last: lines.length, depth: 0 });
  });
  return sections;
}

function shortened(name: string): string {
  return name.length > NAME_CHARS ? `${name.slice(0, NAME_CHARS)}…` : name;
}
