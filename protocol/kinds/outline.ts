// OUTLINE: the definitions of a file, or of the files a mask matches — classes, functions, methods, types, exported
// constants — nested, each with its lines in the form NEED takes, so the model can ask for just the part it needs.

import { counted, formatCount } from '../../common/text.ts';
import { cleanPath } from '../paths.ts';
import { heading } from '../wire.ts';
import type { Kind, ResultTexts } from './kind.ts';

// `targets`: paths (with a line range, `big.js:2000-4000`, as NEED takes them) or masks, as written.
export type OutlineRequest = { kind: 'outline'; line: number; targets: string[] };

// One definition: `depth` 0 at the top of the file; `first` and `last` its lines; `header` what it is, as the source
// writes it up to its body (`export function runLoop(input: LoopInput): Promise<LoopOutcome>`), kept short.
export type OutlineSymbol = { name: string; depth: number; first: number; last: number; header: string };

// A file outlined. `total`: its definitions (in the range asked for), `more` when there are more than were looked for;
// `shown`: how many of `symbols` fit (in order);
// `range`: the lines asked for, when a range was.
// `errors`: the parser met code it could not read, so some definitions may be missing. `deep`: definitions nested
// deeper than the outline shows, left out.
export type OutlineFile = {
  path: string;
  lines: number;
  symbols: OutlineSymbol[];
  total: number;
  more: boolean;
  shown: number;
  range: { from: number; to: number } | undefined;
  errors: boolean;
  deep: number;
};

// Why a file was not outlined, as a tag; the words are made where it is shown. `language`: no grammar for `ext`
// (`.md`, or the file's name when it has no extension).
export type OutlineSkip =
  | { kind: 'language'; ext: string }
  | { kind: 'unfit'; reason: string }
  | { kind: 'failed'; reason: string };

export type OutlineResults = {
  // `matched`: the files the target named (1 for a path). `nested`: nested definitions were left out of every file to
  // fit the step's characters. `left`: files matched and not outlined at this step, over its limits (`why`).
  outline: {
    kind: 'outline';
    request: string;
    target: string;
    mask: boolean;
    files: OutlineFile[];
    skipped: Array<{ path: string; why: OutlineSkip }>;
    matched: number;
    nested: boolean;
    left: { paths: string[]; count: number; why: string } | undefined;
  };
};

export const outline: Kind<OutlineRequest> = {
  keyword: 'OUTLINE',
  form: 'path or mask',
  synonyms: ['symbols', 'defs', 'structure', 'skeleton', 'ctags'],
  read: (payload, line) => {
    const targets = [...new Set(splitTargets(payload).map(cleanPath))].filter((t) => t !== '');
    return targets.length > 0 ? { kind: 'outline', targets, line } : undefined;
  },
  describe: (r) => `OUTLINE ${r.targets.join(', ')}`,
  teach: [
    '=== OUTLINE: src/app.ts ===',
    "  lists a file's definitions (classes, functions, methods, types, exported constants), nested, each with the lines",
    '  to NEED: `src/app.ts:120-188 export function start(port: number)`; a Markdown, reStructuredText, INI or TOML file',
    '  named alone, its sections. A mask outlines many source files at once:',
    '  `=== OUTLINE: src/**/*.ts ===`; a range outlines part of a big file: `=== OUTLINE: src/big.js:2000-4000 ===`.',
  ].join('\n'),
};

// Targets are separated by commas, except inside a mask's braces (`src/{a,b}/*.ts` is one).
function splitTargets(payload: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < payload.length; i++) {
    const c = payload[i];
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      out.push(payload.slice(start, i));
      start = i + 1;
    }
  }
  out.push(payload.slice(start));
  return out;
}

// One definition's line: indented by its depth, its place as NEED takes it, then its header. The answerer measures
// the outline with it, so what it fits is what is sent.
export function symbolLine(path: string, s: OutlineSymbol, indent = ''): string {
  const lines = s.first === s.last ? `${s.first}` : `${s.first}-${s.last}`;
  return `${indent}${'  '.repeat(s.depth)}${path}:${lines} ${s.header}`;
}

// A file's own line in the outline of a mask.
export function fileLine(f: Pick<OutlineFile, 'path' | 'lines' | 'total' | 'more'>): string {
  return `${f.path} (${counted(f.lines, 'line')}, ${definitions(f)})`;
}

function definitions(f: Pick<OutlineFile, 'total' | 'more'>): string {
  if (f.total === 0) return 'no definitions';
  return f.more ? `${formatCount(f.total)}+ definitions` : counted(f.total, 'definition');
}

export function skipText(why: OutlineSkip): string {
  switch (why.kind) {
    case 'language':
      return `no outline for ${why.ext} files; use FIND or NEED`;
    case 'unfit':
      return why.reason;
    case 'failed':
      return `the parser failed on it (${why.reason}); use FIND or NEED`;
  }
}

type Outline = OutlineResults['outline'];

export const outlineResults: ResultTexts<OutlineResults> = {
  outline: {
    render: (r) => {
      const single = !r.mask && r.files.length + r.skipped.length === 1;
      const skip = r.skipped[0];
      if (single && skip !== undefined) return heading.result(r.request, skipText(skip.why));
      if (!r.mask && r.left !== undefined)
        return heading.result(r.request, `not outlined: ${r.left.why}; ask for it again in the next step`);
      const file = r.files[0];
      const body = single && file !== undefined ? fileBody(file, '') : masked(r);
      return `${heading.result(r.request, single && file !== undefined ? fileSummary(file) : maskSummary(r))}\n${body}${heading.resultEnd}`;
    },
    dropped: (r, step) =>
      `[The outline of ${r.target} was sent at step ${step} and dropped to fit the window; ask again if needed.]`,
  },
};

function fileSummary(f: OutlineFile): string {
  const span = f.range === undefined ? counted(f.lines, 'line') : `lines ${f.range.from}-${f.range.to}`;
  return `${span}, ${definitions(f)}`;
}

function maskSummary(r: Outline): string {
  if (r.matched === 0) return 'no files match';
  const defs = r.files.reduce((n, f) => n + f.total, 0);
  return `${counted(r.matched, 'file')} matched, ${formatCount(r.files.length)} outlined, ${counted(defs, 'definition')}`;
}

// A file's definitions that fit, and what was left of them.
function fileBody(f: OutlineFile, indent: string): string {
  const lines = f.symbols.slice(0, f.shown).map((s) => `${symbolLine(f.path, s, indent)}\n`);
  const notes: string[] = [];
  if (f.errors) notes.push('the parser met code it could not read here, so some definitions may be missing');
  if (f.deep > 0)
    notes.push(`${counted(f.deep, 'definition')} nested deeper than this outline shows left out; NEED their lines`);
  const next = f.symbols[f.shown];
  if (next !== undefined) {
    const more = `cut: ${counted(f.symbols.length - f.shown, 'more definition')} not shown, over this step's limit`;
    // A minified file's definitions share its one line: no range of lines leads past those shown.
    const sameLine = f.shown > 0 && next.first <= (f.symbols[f.shown - 1]?.first ?? 0);
    const to = f.range === undefined ? '' : `${f.range.to}`;
    notes.push(
      sameLine
        ? `${more}; they lie on line ${formatCount(next.first)} with those above, so FIND a name to see where it is`
        : `${more}, from line ${formatCount(next.first)} on; ask === OUTLINE: ${f.path}:${next.first}-${to} === for them`,
    );
  }
  return `${lines.join('')}${notes.map((n) => `${indent}[${n}]\n`).join('')}`;
}

function masked(r: Outline): string {
  const parts: string[] = [];
  const empty = r.files.filter((f) => f.total === 0);
  for (const f of r.files) {
    if (f.total === 0) continue;
    parts.push(`${fileLine(f)}\n`);
    parts.push(fileBody(f, '  '));
  }
  if (empty.length > 0) parts.push(`[no definitions in: ${named(empty.map((f) => f.path))}]\n`);
  if (r.nested)
    parts.push(
      "[nested definitions (methods, inner functions) left out to fit this step's limit; OUTLINE one file for all of them]\n",
    );
  const bySkip = new Map<string, string[]>();
  for (const s of r.skipped) {
    const text = skipText(s.why);
    bySkip.set(text, [...(bySkip.get(text) ?? []), s.path]);
  }
  for (const [text, paths] of bySkip) parts.push(`[not outlined: ${named(paths)}: ${text}]\n`);
  if (r.left !== undefined) {
    const { paths, count, why } = r.left;
    parts.push(
      `[cut: ${counted(count, 'more file')} not outlined, ${why}: ${named(paths, count)}; OUTLINE a narrower mask or one file for them]\n`,
    );
  }
  return parts.join('');
}

// The first few paths of a list, and how many more.
function named(paths: readonly string[], count = paths.length): string {
  const shown = paths.slice(0, 10);
  return `${shown.join(', ')}${count > shown.length ? ` and ${formatCount(count - shown.length)} more` : ''}`;
}
