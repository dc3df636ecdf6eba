// The sections of a text file deepwork has no grammar for, as the definitions FIND's hits and NEED's parts are placed
// in (answer/find.ts): a Markdown file's headings, and the `[name]` lines that open a section in INI and TOML files and
// in data-driven tests (mypy's test-data `.test` files: `[case testName]`). A player editing mypy got 48 hits of
// `== Return code:` in test-data/unit/cmdline.test with no word of the case each lay in, which was what it needed to
// know where to add its own.

import type { MapDef } from '../map/graph.ts';

// A section's name as shown, at most this long.
const NAME_CHARS = 60;
const MARKDOWN = /\.(md|markdown|mdx)$/i;
// The files whose `[name]` lines open sections: INI and TOML files. Not any text: a JSON array on a line of its own looks
// the same. In data-driven tests only `[case name]` does: `[file a.py]` and `[out]` are parts of a case.
const SECTIONED = /\.(ini|cfg|conf|toml)$|(^|\/)\.(editorconfig|gitconfig)$/i;
const CASES = /\.test$/i;
const CASE = /^\[case [^[\]]+\]\s*$/;
// A `[name]` line: a bracket at the start, one at the end, none between (not a Markdown link, not an array).
const BRACKETED = /^\[[^[\]]+\]\s*$/;
const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

// Whether a file at `rel` may have sections.
export function hasSections(rel: string): boolean {
  return MARKDOWN.test(rel) || SECTIONED.test(rel) || CASES.test(rel);
}

// The sections of `lines` (a file's lines, the first line 1) for the file at `rel`; none when it has no such lines.
export function sectionsOf(rel: string, lines: readonly string[]): MapDef[] {
  if (MARKDOWN.test(rel)) return headings(lines);
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
