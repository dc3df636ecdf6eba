// A file's definitions as OUTLINE and the map use them, made in the parser's worker from what the query found: one
// per name, nested by where each lies, each with its lines and a short header; and, for the map, the names the file
// uses.

import { countLines, escapeControls } from '../../common/text.ts';
import { HEADER_PREFIX, WRAPPERS, type Language } from './languages.ts';
import { definitions, type Ask, type Found } from './tree-sitter.ts';

// `depth` 0 at the top of the file; `first` and `last` are 1-based lines. `local`: it lies inside a function rather
// than at the top of the file or in a class, module or the like (a helper of one function, not for other files).
// `first`: the line it begins at, its decorators or attributes included; `own`: the line its own header begins at, when
// they come before it.
export type Def = {
  name: string;
  kind: string;
  depth: number;
  local: boolean;
  first: number;
  last: number;
  header: string;
  own?: number;
};

// Definitions whose members other code names: a definition nested in one of these is not local.
const CONTAINERS: ReadonlySet<string> = new Set(['class', 'interface', 'struct', 'trait', 'impl', 'module', 'enum']);

// `lines`: the file's lines. `refs`: the words it uses and how often (only when asked). `gaveUp`: the parse or the
// query took over the time allowed, so what was found is partial (or nothing). `capped`: there are more than MAX_DEFS.
export type Parsed = {
  lines: number;
  defs: Def[];
  errors: boolean;
  gaveUp: 'parse' | 'query' | undefined;
  capped: boolean;
  refs: Array<[string, number]> | undefined;
};

// A header's characters at most: enough for a signature, short enough for an outline of many.
export const HEADER_CHARS = 120;
// Definitions found in one file at most: a step's outline shows far fewer; a generated file may have far more.
export const MAX_DEFS = 20_000;
// Distinct words kept per file for the map, the most used first.
export const MAX_REFS = 250;

// `rows`: the zero-based lines wanted (the last excluded), when not all; `refs`: count the words the text uses.
export async function parseText(
  language: Language,
  text: string,
  options: { ms: number; rows: Ask['rows']; refs: boolean },
): Promise<Parsed> {
  const { found, errors, gaveUp, capped } = await definitions(language, text, { ...options, max: MAX_DEFS });
  const defs = nest(unique(found.filter((f) => keep(language, f, text)))).map((n) => defOf(n, text));
  return {
    lines: countLines(text),
    defs: defs.slice(0, MAX_DEFS),
    errors,
    gaveUp,
    capped,
    refs: options.refs ? wordsOf(text) : undefined,
  };
}

// Python's module-level assignments are constants only when named so (`MAX_SIZE = 10`), not every variable.
function keep(language: Language, f: Found, text: string): boolean {
  if (language !== 'python' || f.kind !== 'constant') return true;
  return /^[A-Z][A-Z0-9_]*$/.test(text.slice(f.name.start, f.name.end));
}

// One definition per name node: `export const f = () => …` matches as a function and as an exported constant; the
// widest match stays, a function before a constant.
function unique(found: Found[]): Found[] {
  const byName = new Map<number, Found>();
  for (const f of found) {
    const seen = byName.get(f.name.start);
    if (seen === undefined) {
      byName.set(f.name.start, f);
      continue;
    }
    const wider = f.place.end - f.place.start > seen.place.end - seen.place.start ? f : seen;
    const kind = seen.kind === 'function' || f.kind === 'function' ? 'function' : wider.kind;
    byName.set(f.name.start, { ...wider, kind });
  }
  return [...byName.values()];
}

type Nested = Found & { depth: number; start: number; local: boolean };

// Depth by what lies inside what: sorted by start (the outer first when two start together), with a stack of the
// definitions still open. A definition's start is its wrapper's when it has one (`export`, decorators), or its first
// attribute's.
function nest(found: Found[]): Nested[] {
  const started = found.map((f) => ({
    ...f,
    start: beginning(f).start,
    depth: 0,
    local: false,
  }));
  started.sort((a, b) => a.start - b.start || b.place.end - a.place.end);
  const open: Nested[] = [];
  for (const n of started) {
    while (open.length > 0 && (open.at(-1)?.place.end ?? 0) <= n.start) open.pop();
    const parent = open.at(-1);
    n.depth = open.length;
    n.local = parent !== undefined && (parent.local || !CONTAINERS.has(parent.kind));
    open.push(n);
  }
  return started;
}

// Where a definition's lines begin: at its first attribute, else its wrapper (`export`, Python's decorators), else
// itself.
function beginning(f: Found): Found['place'] {
  return f.lead ?? wrapperOf(f) ?? f.place;
}

function wrapperOf(f: Found): Found['place'] | undefined {
  return f.parent !== undefined && WRAPPERS.has(f.parent.type) ? f.parent.place : undefined;
}

function defOf(n: Nested, text: string): Def {
  const wrapped = wrapperOf(n);
  const startRow = beginning(n).startRow;
  const end = n.place;
  const last = end.endColumn === 0 && end.endRow > startRow ? end.endRow : end.endRow + 1;
  const name = text.slice(n.name.start, n.name.end);
  const own = n.place.startRow + 1;
  // The header leaves out the attributes: a `#[derive(…)]` of a dozen traits would push the name past its end.
  return {
    name: oneLine(name, 80),
    kind: n.kind,
    depth: n.depth,
    local: n.local,
    first: startRow + 1,
    last,
    header: headerOf(n, text, wrapped?.start ?? n.place.start),
    ...(own > startRow + 1 ? { own } : {}),
  };
}

// The source from the definition's start to its body (its signature), or its first line when it has no body; on one
// line, `( ` and `, )` of parameters written one a line closed up, a trailing `{` dropped, at most HEADER_CHARS characters.
function headerOf(n: Nested, text: string, start: number): string {
  // A header never needs more than a few hundred characters of source: a minified file's "first line" is all of it,
  // and looking for its end from every definition took minutes.
  const near = text.slice(start, Math.min(n.place.end, start + HEADER_CHARS * 8));
  const lineEnd = near.indexOf('\n');
  const firstLine = lineEnd === -1 ? near.length : lineEnd;
  const end = n.body !== undefined && n.body.start > start ? Math.min(n.body.start - start, near.length) : firstLine;
  const source = near.slice(0, end);
  const header = source
    .replace(/\s+/g, ' ')
    .replace(/\( /g, '(')
    .replace(/,? \)/g, ')')
    .replace(/\s*\{$/, '')
    .trim();
  return oneLine(`${HEADER_PREFIX[n.type] ?? ''}${header}`, HEADER_CHARS);
}

// On one line, control characters made visible, at most `max` characters.
function oneLine(text: string, max: number): string {
  const line = escapeControls(text.replace(/\s+/g, ' ').trim());
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

// The words a file uses, as the map's references: identifiers of three characters or more and how often each occurs,
// the most used first. Read off the text rather than the tree: a hundred times faster, and a name the file only
// mentions in a comment still ties it to the file that defines it.
function wordsOf(text: string): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/[A-Za-z_$][\w$]{2,}/g)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, MAX_REFS);
}
