// OUTLINE: a file's definitions, or those of the files a mask matches, parsed in the parser's worker. A path goes
// through the one path rule and the one reader of text, as NEED's does (a secret is withheld, a binary file named);
// a mask takes the run's walk, as LIST's does. All OUTLINE requests of a step share its limits: characters sent,
// files outlined, bytes parsed; whatever they leave out is said, with how to ask for it.

import type { OutlineRequest } from '../../protocol/requests.ts';
import type { Result } from '../../protocol/results.ts';
import {
  symbolLine,
  fileLine,
  type OutlineFile,
  type OutlineResults,
  type OutlineSkip,
  type OutlineSymbol,
} from '../../protocol/kinds/outline.ts';
import { counted, formatCount } from '../../common/text.ts';
import { resolvePath } from '../sandbox.ts';
import { compileMask, isPlainPath } from '../mask.ts';
import { readPathOf } from '../walk.ts';
import { readText, shownText, unfitReason } from '../text.ts';
import { extensionOf, languageOf } from '../outline/languages.ts';
import type { Parsed } from '../outline/symbols.ts';
import { hasSections, sectionsOf, textLines } from './sections.ts';
import { splitRange } from './need.ts';
import type { Step } from './step.ts';

// Definitions nested deeper than this are left out: an outline is a map, not the code.
export const OUTLINE_DEPTH = 6;

type Budget = { chars: number; files: number; bytes: number };
type Outline = OutlineResults['outline'];
// A file the target names: its path, and where it is read (a symlinked file at its target).
type Named = { rel: string; real: string };

const RANGE_OF_ONE = 'a range of lines takes one file, not a mask or a folder';

export async function answerOutlines(requests: readonly OutlineRequest[], step: Step): Promise<Result[][]> {
  const { limits } = step;
  const budget: Budget = { chars: limits.outlineChars, files: limits.outlineFiles, bytes: limits.outlineBytes };
  const results: Result[][] = [];
  for (const request of requests) {
    const answered: Result[] = [];
    for (const target of request.targets) answered.push(await outlineTarget(target, step, budget));
    results.push(answered);
  }
  return results;
}

async function outlineTarget(raw: string, step: Step, budget: Budget): Promise<Result> {
  const request = `OUTLINE ${raw}`;
  const { path: wanted, from, to, ranged, reversed } = isPlainPath(raw) ? splitRange(raw) : rangeless(raw);
  if (!isPlainPath(raw) && /:\d+(-\d*)?$/.test(raw))
    return { kind: 'refused', request, path: raw, reason: RANGE_OF_ONE };
  if (reversed)
    return {
      kind: 'refused',
      request,
      path: wanted,
      reason: `the range runs backwards; ask for ${wanted}:${to}-${from}`,
    };
  const target = named(wanted, step);
  if (!('files' in target)) return { ...target, request };
  const { files, mask } = target;
  if (ranged && mask) return { kind: 'refused', request, path: wanted, reason: RANGE_OF_ONE };
  const outcome = await outlineFiles(files, mask, ranged ? { from, to } : undefined, step, budget);
  const only = outcome.skipped[0];
  // A single file that holds a private key is withheld, as NEED withholds it.
  if (!mask && only !== undefined && only.why.kind === 'unfit' && only.key)
    return { kind: 'withheld', request, path: only.path, reason: only.why.reason };
  const skipped = outcome.skipped.map(({ path, why }) => ({ path, why }));
  return { kind: 'outline', request, target: wanted, mask, matched: files.length, ...outcome, skipped };
}

function rangeless(raw: string) {
  return { path: raw, from: 1, to: Infinity, ranged: false, reversed: false };
}

// The files a target names: a file through the path rule; a folder's or a mask's from the run's walk. Or why none.
function named(
  wanted: string,
  { box, folder }: Step,
): { files: Named[]; mask: boolean } | Exclude<Result, { kind: 'outline' }> {
  const compiled = compileMask(wanted);
  if (compiled.kind === 'refused') return { kind: 'refused', request: '', path: wanted, reason: compiled.reason };
  let base = compiled.base;
  let match = compiled.match;
  if (isPlainPath(compiled.mask)) {
    const place = resolvePath(box, compiled.mask);
    switch (place.kind) {
      case 'file':
        return { files: [{ rel: place.rel, real: place.real }], mask: false };
      case 'folder':
        base = place.rel;
        match = () => true;
        break;
      case 'missing':
        return {
          kind: 'missing',
          request: '',
          path: place.rel,
          closest: folder.paths().closest(place.rel),
          mask: false,
        };
      default:
        return { kind: place.kind, request: '', path: place.rel, reason: place.reason };
    }
  } else {
    const start = resolvePath(box, base);
    if (start.kind !== 'folder') return { files: [], mask: true };
    base = start.rel;
  }
  const prefix = base === '.' ? '' : `${base}/`;
  const files = folder
    .files()
    .filter((e) => e.rel.startsWith(prefix) && match(e.rel))
    .map((e) => ({ rel: e.rel, real: readPathOf(box, e) }));
  return { files, mask: true };
}

type Skipped = { path: string; why: OutlineSkip; key?: boolean };
type Outcome = Pick<Outline, 'files' | 'nested' | 'left'> & { skipped: Skipped[] };

// Parses the files in order within the step's limits and fits what they define to its characters: every file whole
// when all fit; else each file's top-level definitions; else the files that fit, and the rest named. A single file that
// does not fit is cut where its characters run out, with the request that shows the rest.
async function outlineFiles(
  files: readonly Named[],
  mask: boolean,
  range: { from: number; to: number } | undefined,
  { limits, folder }: Step,
  budget: Budget,
): Promise<Outcome> {
  const outlined: OutlineFile[] = [];
  const skipped: Skipped[] = [];
  let rest: Named[] = [];
  let why = '';
  let topChars = 0;
  for (const [i, file] of files.entries()) {
    const language = languageOf(file.rel);
    // A text file named alone, which has no grammar but may have sections (a Markdown or reStructuredText file's
    // headings, an INI or TOML file's `[name]` lines): they are its outline. A player asked OUTLINE README.rst for
    // the section to add a link to, and got "no outline for .rst files" (issue 30). A mask keeps to code.
    if (language === undefined && !mask && hasSections(file.rel) && budget.files > 0) {
      const read = readText(file.real);
      if (read.kind === 'text' && read.bytes.length <= budget.bytes) {
        budget.files--;
        budget.bytes -= read.bytes.length;
        outlined.push(fileOf(file.rel, sectionsParsed(file.rel, shownText(read.text)), range));
        continue;
      }
    }
    if (language === undefined) {
      skipped.push({ path: file.rel, why: { kind: 'language', ext: extensionOf(file.rel) } });
      continue;
    }
    const stop =
      budget.files <= 0
        ? `over this step's ${counted(limits.outlineFiles, 'file')} outlined`
        : (mask && topChars > budget.chars) || budget.chars <= 0
          ? `over this step's ${formatCount(limits.outlineChars)} characters`
          : undefined;
    if (stop !== undefined) {
      rest = files.slice(i).filter((f) => languageOf(f.rel) !== undefined);
      why = stop;
      break;
    }
    const read = readText(file.real);
    if (read.kind === 'unfit') {
      skipped.push({
        path: file.rel,
        why: { kind: 'unfit', reason: unfitReason(read.why) },
        key: read.why.kind === 'key',
      });
      continue;
    }
    if (read.bytes.length > budget.bytes) {
      rest = files.slice(i).filter((f) => languageOf(f.rel) !== undefined);
      why = `over this step's ${megabytes(limits.outlineBytes)} of files parsed`;
      break;
    }
    budget.files--;
    budget.bytes -= read.bytes.length;
    const rows = range === undefined ? undefined : { from: range.from - 1, to: Math.min(range.to, 2 ** 31 - 1) };
    const text = shownText(read.text);
    const parsed = await folder
      .parsers()
      .parse(language, text, { refs: false, ...(rows === undefined ? {} : { rows }) });
    if (parsed.kind !== 'parsed' || parsed.gaveUp === 'parse') {
      const reason =
        parsed.kind === 'failed'
          ? parsed.reason
          : parsed.kind === 'ended'
            ? 'the run ended'
            : 'it took too long to parse';
      skipped.push({ path: file.rel, why: { kind: 'failed', reason } });
      continue;
    }
    const f = fileOf(file.rel, parsed, range);
    outlined.push(f);
    topChars += sizeOf(f, 0);
  }
  const fitted = mask ? fitMany(outlined, budget) : fitSingle(outlined, budget);
  const leftOut = [...fitted.dropped.map((f) => f.path), ...rest.map((f) => f.rel)];
  if (fitted.dropped.length > 0) why = `over this step's ${formatCount(limits.outlineChars)} characters`;
  const left = leftOut.length === 0 ? undefined : { paths: leftOut.slice(0, 10), count: leftOut.length, why };
  return { files: fitted.files, nested: fitted.nested, skipped, left };
}

// A text file's sections as a parse's definitions, each named as FIND names it (`## Exit codes`, `[tool.x]`).
function sectionsParsed(rel: string, text: string): Parsed {
  const lines = textLines(text);
  const defs = sectionsOf(rel, lines).map((d) => ({ ...d, kind: 'section', local: false, header: d.name }));
  return { lines: lines.length, defs, errors: false, gaveUp: undefined, capped: false, refs: undefined };
}

function fileOf(
  path: string,
  { lines, defs, errors, gaveUp, capped }: Parsed,
  range: { from: number; to: number } | undefined,
): OutlineFile {
  // The definitions begun in the range, and those it lies inside of (the method whose body it shows).
  const inRange = range === undefined ? defs : defs.filter((d) => d.first <= range.to && d.last >= range.from);
  const symbols: OutlineSymbol[] = inRange
    .filter((d) => d.depth < OUTLINE_DEPTH)
    .map(({ name, depth, first, last, header }) => ({ name, depth, first, last, header }));
  return {
    path,
    lines,
    symbols,
    total: inRange.length,
    more: capped,
    shown: symbols.length,
    range: range === undefined ? undefined : { from: range.from, to: Math.min(range.to, lines) },
    errors: errors || gaveUp !== undefined,
    deep: inRange.length - symbols.length,
  };
}

// The characters a file's outline takes in a mask's outline (a line for the file, each definition indented under it),
// with its definitions down to `depth`.
function sizeOf(f: OutlineFile, depth: number): number {
  let n = fileLine(f).length + 1;
  for (const s of f.symbols) if (s.depth <= depth) n += symbolLine(f.path, s, '  ').length + 1;
  return n;
}

// One file: its definitions in order, as many as the characters left take.
function fitOne(f: OutlineFile, budget: Budget): OutlineFile {
  let shown = 0;
  for (const s of f.symbols) {
    const size = symbolLine(f.path, s).length + 1;
    if (size > budget.chars) break;
    budget.chars -= size;
    shown++;
  }
  return { ...f, shown };
}

// A file named alone: when not one of its definitions fits what the step has left, it is left for the next step.
function fitSingle(
  files: OutlineFile[],
  budget: Budget,
): { files: OutlineFile[]; nested: boolean; dropped: OutlineFile[] } {
  const fitted = files.map((f) => fitOne(f, budget));
  const none = fitted.filter((f) => f.shown === 0 && f.symbols.length > 0);
  return { files: fitted.filter((f) => !none.includes(f)), nested: false, dropped: none };
}

// Many files: all of each when they fit; else the top-level definitions of as many as fit, in order.
function fitMany(
  files: OutlineFile[],
  budget: Budget,
): { files: OutlineFile[]; nested: boolean; dropped: OutlineFile[] } {
  const whole = files.reduce((n, f) => n + sizeOf(f, Infinity), 0);
  if (whole <= budget.chars) {
    budget.chars -= whole;
    return { files, nested: false, dropped: [] };
  }
  const kept: OutlineFile[] = [];
  const dropped: OutlineFile[] = [];
  for (const f of files) {
    const size = sizeOf(f, 0);
    if (dropped.length > 0 || size > budget.chars) {
      dropped.push(f);
      continue;
    }
    budget.chars -= size;
    const symbols = f.symbols.filter((s) => s.depth === 0);
    kept.push({ ...f, symbols, shown: symbols.length, deep: 0 });
  }
  return { files: kept, nested: true, dropped };
}

function megabytes(bytes: number): string {
  return `${formatCount(Math.round(bytes / (1 << 20)))} MB`;
}
