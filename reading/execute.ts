// Answers one step's requests inside the project folder, read-only and within the limits.

import fs from 'node:fs';
import path from 'node:path';
import { isRequestKind, type FindRequest, type NeedRequest, type Request, type RequestKind, type RequestOf } from '../protocol/requests.ts';
import type { Result } from '../protocol/results.ts';
import { defaultLimits, type FileText, type Limits, type Reader } from '../protocol/contract.ts';
import { createSandbox, holdsControls, protectedReason, resolvePath, type Sandbox, type SandboxOptions } from './sandbox.ts';
import { compileMask, isPlainPath } from './mask.ts';
import { walk, type WalkEntry, type WalkNote } from './walk.ts';
import { createFinder, PARALLEL_MIN_FILES, type FindOutcome, type SearchFile } from './search/finder.ts';
import { countFileLines, openFile, readLines, textLines, type Lines, type Opened } from './read.ts';
import { encodingName, encodingOf } from './encoding.ts';
import { KEY_WHOLE_FILE, restHoldsKey } from './private-keys.ts';
import { binaryReason, SNIFF } from './binary.ts';
import { binaryLine, forChange, readText, TEXT_READ_BYTES, unfitReason } from './text.ts';
import { buildTree } from './tree.ts';
import { createPathIndex, type PathIndex } from './similar.ts';
import { countLines, formatCount } from '../common/text.ts';

// The project folder as the loop reads it (protocol/contract.ts's Reader), with the sandbox it reads through.
export type Executor = Reader & {
  box: Sandbox;
  close(): Promise<void>;
};

// `onLargeFolder`: told once when the walk passes `largeFolder` entries (LARGE_FOLDER unless a test says), so a wrong
// folder is noticed early.
export type ExecutorOptions = SandboxOptions & { limits?: Partial<Limits>; onLargeFolder?: (entries: number) => void; largeFolder?: number };


export function createExecutor(root: string, options: ExecutorOptions = {}): Executor {
  const box = createSandbox(root, options);
  const limits = { ...defaultLimits, ...options.limits };
  const finder = createFinder(box.root);
  let entries: WalkEntry[] | undefined;
  let notes: WalkNote[] = [];
  let files: WalkEntry[] | undefined;
  let searchable: SearchFile[] | undefined;
  let index: PathIndex | undefined;
  let closed = false;
  const folder: Folder = {
    entries: () => {
      if (entries === undefined) {
        ({ entries, notes } = walk(box, options.onLargeFolder, options.largeFolder));
        // A folder big enough for a search worker gets it started, and given the files, once this thread is free:
        // while the model reads the first message, not before that message is sent.
        let count = 0;
        for (const e of entries) if (e.kind === 'file' && ++count >= PARALLEL_MIN_FILES) break;
        const walked = entries;
        if (count >= PARALLEL_MIN_FILES) {
          setImmediate(() => {
            if (!closed && entries === walked) finder.warm(folder.searchable());
          });
        }
      }
      return entries;
    },
    files: () => (files ??= folder.entries().filter((e) => e.kind === 'file')),
    searchable: () => (searchable ??= sourceFirst(folder.files())),
    paths: () => (index ??= createPathIndex(folder.files().map((e) => e.rel))),
    finder,
  };
  return {
    box,
    limits,
    answer: (requests, earlier) => answer(box, limits, folder, requests, earlier ?? new Map()),
    text: (wanted) => textOf(box, wanted),
    tree: () => {
      const all = folder.entries();
      return buildTree(all, path.basename(box.root), { maxChars: limits.treeChars, maxEntriesPerFolder: limits.folderEntries }, notes);
    },
    reset: () => {
      entries = undefined;
      notes = [];
      files = undefined;
      searchable = undefined;
      index = undefined;
      finder.reset();
    },
    close: () => {
      closed = true;
      return finder.close();
    },
  };
}

// The files in the order FIND searches them, which is the order of its hits: code first, then prose (READMEs,
// changelogs, docs), then what is generated (lock files, minified and map files), each in walk order. A FIND of a
// common word shows where the code uses it before what a changelog says about it.
function sourceFirst(files: readonly WalkEntry[]): WalkEntry[] {
  const ranked: WalkEntry[][] = [[], [], []];
  for (const file of files) ranked[rankOf(file.rel)]?.push(file);
  return ranked.flat();
}

const PROSE = /\.(md|markdown|mdx|rst|txt|adoc|textile|org)$|(^|\/)(history|changelog|changes|news|authors|contributors|license|licence|copying|notice)[^/]*$|(^|\/)docs?\//i;
const GENERATED = /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|cargo\.lock|poetry\.lock|composer\.lock|gemfile\.lock|go\.sum)$|\.(min\.js|min\.css|map|snap)$/i;

function rankOf(rel: string): number {
  return GENERATED.test(rel) ? 2 : PROSE.test(rel) ? 1 : 0;
}

// A file's text for checking an EDIT against it: through the one reader, judged as a change judges it (readText and
// forChange), so the check quotes nothing NEED would withhold and accepts nothing apply would refuse.
function textOf(box: Sandbox, wanted: string): FileText {
  const place = resolvePath(box, wanted);
  if (place.kind === 'missing') return { kind: 'missing' };
  if (place.kind === 'folder') return { kind: 'refused', reason: 'it is a folder' };
  if (place.kind !== 'file') return { kind: 'refused', reason: place.reason };
  const read = forChange(readText(place.real));
  return read.kind === 'text' ? { kind: 'text', text: read.text } : { kind: 'refused', reason: unfitReason(read.why) };
}

// The run's view of the folder: walked once, kept until reset().
type Folder = {
  entries: () => WalkEntry[];
  files: () => WalkEntry[];
  searchable: () => SearchFile[];
  paths: () => PathIndex;
  finder: ReturnType<typeof createFinder>;
};

// What the answerers of one step share.
type Step = { box: Sandbox; limits: Limits; folder: Folder; earlier: ReadonlyMap<string, number> };

// Answers the requests of one kind in a step, in their order: a list of results for each request.
type Answerer<K extends RequestKind> = (requests: ReadonlyArray<RequestOf<K>>, step: Step) => Result[][] | Promise<Result[][]>;

// One answerer per request kind (the text side of each kind is in protocol/requests.ts).
const answerers: { [K in RequestKind]: Answerer<K> } = {
  need: answerNeeds,
  list: (requests, step) => requests.map((r) => [list(step.box, step.limits, step.folder, r.mask)]),
  find: answerFinds,
};

async function answer(box: Sandbox, limits: Limits, folder: Folder, requests: readonly Request[], earlier: ReadonlyMap<string, number>): Promise<Result[]> {
  const results: Result[][] = requests.map(() => []);
  const step: Step = { box, limits, folder, earlier };
  for (const kind of Object.keys(answerers).filter(isRequestKind)) await answerKind(kind, requests, step, results);
  return results.flat();
}

async function answerKind<K extends RequestKind>(kind: K, requests: readonly Request[], step: Step, results: Result[][]): Promise<void> {
  const at: number[] = [];
  const mine: Array<RequestOf<K>> = [];
  requests.forEach((request, index) => {
    if (isOfKind(request, kind)) {
      at.push(index);
      mine.push(request);
    }
  });
  if (mine.length === 0) return;
  const answerer: Answerer<K> = answerers[kind];
  (await answerer(mine, step)).forEach((answered, j) => results[at[j] ?? -1]?.push(...answered));
}

function isOfKind<K extends RequestKind>(request: Request, kind: K): request is RequestOf<K> {
  return request.kind === kind;
}

// All NEED paths of a step share its budget: characters, paths, look-ups of the closest paths.
function answerNeeds(requests: readonly NeedRequest[], { box, limits, folder, earlier }: Step): Result[][] {
  const need: NeedBudget = { left: limits.needChars, sent: new Set<string>(), paths: limits.needPaths, suggestions: limits.suggestions };
  return requests.map((request) => {
    const now = request.paths.slice(0, Math.max(0, need.paths));
    need.paths -= now.length;
    const answered = now.map((p) => needOne(box, limits, p, need, folder.paths, earlier));
    const later = request.paths.slice(now.length);
    if (later.length > 0) answered.push({ kind: 'too-many', request: `NEED (${later.length} more)`, paths: later, limit: limits.needPaths });
    return answered;
  });
}

// All FIND texts of a step in one pass over the files; a FIND kept to a folder or mask searches its files alone. A
// text with no hits at all is looked for again ignoring the case of ASCII letters, and the result says so.
async function answerFinds(requests: readonly FindRequest[], { box, limits, folder }: Step): Promise<Result[][]> {
  const options = { maxHits: limits.findHits, lineChars: limits.findLineChars };
  const files = folder.searchable();
  const whole = [...new Set(requests.filter((r) => r.scope === undefined).map((r) => r.text))];
  const found = new Map<string, FindOutcome>();
  // Each text is looked for as it is and, when it has letters, ignoring case, in the same pass over the files: the
  // folded hits are used only when the exact text has none.
  const search = async (texts: string[], key: (text: string) => string, only?: readonly number[]) => {
    const folded = texts.filter((t) => /[A-Za-z]/.test(t));
    const fold = [...texts.map(() => false), ...folded.map(() => true)];
    const all = await folder.finder.find(files, [...texts, ...folded], { ...options, fold, ...(only === undefined ? {} : { only }) });
    texts.forEach((text, i) => {
      const exact = all[i];
      const other = all[texts.length + folded.indexOf(text)];
      if (exact === undefined) return;
      found.set(key(text), exact.hits.length > 0 || other === undefined ? exact : { ...other, folded: true });
    });
  };
  if (whole.length > 0) await search(whole, (text) => text);
  const results: Result[][] = [];
  for (const request of requests) {
    const name = `FIND ${request.text}${request.scope === undefined ? '' : ` IN ${request.scope}`}`;
    if (request.scope !== undefined && !found.has(name)) {
      const scope = scopeOf(box, request.scope);
      if (typeof scope === 'string') {
        results.push([{ kind: 'refused', request: name, path: request.scope, reason: scope }]);
        continue;
      }
      const only: number[] = [];
      files.forEach((f, i) => {
        if (scope(f.rel)) only.push(i);
      });
      await search([request.text], () => name, only);
    }
    const outcome = found.get(request.scope === undefined ? request.text : name);
    results.push(outcome === undefined ? [] : [{ kind: 'find', request: name, text: outcome.text, hits: outcome.hits, cut: outcome.cut, folded: outcome.folded === true }]);
  }
  return results;
}

// Which files a FIND's `IN` keeps to: a folder's, a file itself, or a mask's; or why none.
function scopeOf(box: Sandbox, scope: string): ((rel: string) => boolean) | string {
  const compiled = compileMask(scope);
  if (compiled.kind === 'refused') return compiled.reason;
  if (!isPlainPath(compiled.mask)) return compiled.match;
  const place = resolvePath(box, compiled.mask);
  if (place.kind === 'folder') return place.rel === '.' ? () => true : (rel) => rel.startsWith(`${place.rel}/`);
  if (place.kind === 'file') return (rel) => rel === place.rel;
  if (place.kind === 'missing') return `there is no folder or file ${compiled.mask}; LIST shows what there is`;
  return place.reason;
}

// What is left of a step's NEED limits: characters, paths, and look-ups of the closest paths.
type NeedBudget = { left: number; sent: Set<string>; paths: number; suggestions: number };

// `path:120-240`, `path:120-` and `path:120` ask for lines of a file.
// `reversed`: the range was written last line first (`a.js:50-10`).
function splitRange(raw: string): { path: string; from: number; to: number; ranged: boolean; reversed: boolean } {
  const colon = raw.lastIndexOf(':');
  const range = colon > 0 ? /^(\d+)(?:-(\d*))?$/.exec(raw.slice(colon + 1)) : null;
  if (range === null) return { path: raw, from: 1, to: Infinity, ranged: false, reversed: false };
  const from = Math.max(1, Number(range[1]));
  const asked = range[2] === undefined ? from : range[2] === '' ? Infinity : Number(range[2]);
  return { path: raw.slice(0, colon), from, to: Math.max(from, asked), ranged: true, reversed: asked < from };
}

function needOne(box: Sandbox, limits: Limits, raw: string, budget: NeedBudget, paths: () => PathIndex, earlier: ReadonlyMap<string, number>): Result {
  const { path: wanted, from, to, ranged, reversed } = splitRange(raw);
  const request = `NEED ${raw}`;
  if (reversed) {
    const [first, last] = raw.slice(wanted.length + 1).split('-');
    return { kind: 'refused', request, path: wanted, reason: `the range ${first}-${last} runs backwards; ask for ${wanted}:${last}-${first}` };
  }
  const place = resolvePath(box, wanted);
  switch (place.kind) {
    case 'refused':
    case 'withheld':
      return { kind: place.kind, request, path: wanted, reason: place.reason };
    case 'missing':
    {
      if (/[*?]/.test(place.rel)) return { kind: 'missing', request, path: place.rel, closest: [], mask: true };
      return { kind: 'missing', request, path: place.rel, closest: budget.suggestions-- > 0 ? paths().closest(place.rel) : [], mask: false };
    }
    case 'folder':
      return folderListing(box, limits, request, place.rel, place.real);
    case 'file':
      break;
  }
  const key = `${place.real}:${from}-${to}`;
  if (budget.sent.has(key)) return { kind: 'repeated', request, path: place.rel };
  const sentAt = earlier.get(key);
  if (sentAt !== undefined) return { kind: 'repeated', request, path: place.rel, step: sentAt };
  budget.sent.add(key);
  if (budget.left <= 0) return { kind: 'over-budget', request, path: place.rel, limit: limits.needChars };

  const asked: Asked = { request, path: place.rel, key, from, to, ranged, size: place.size };
  if (place.size > TEXT_READ_BYTES) return needLarge(place.real, asked, budget);
  const read = readText(place.real);
  if (read.kind === 'unfit') {
    switch (read.why.kind) {
      case 'binary':
        return { kind: 'binary', request, path: place.rel, bytes: read.bytes, what: read.why.what };
      case 'key':
        return { kind: 'withheld', request, path: place.rel, reason: unfitReason(read.why) };
      case 'too-large':
        // It grew past the size for whole reads since the path rule looked: read as a large file.
        return needLarge(place.real, asked, budget);
      default:
        return { kind: 'refused', request, path: place.rel, reason: unfitReason(read.why) };
    }
  }
  const lines = textLines(read.text.replace(/^\uFEFF/, ''), read.bytes.length, from, to, budget.left);
  return sent(asked, lines, read.encoding === 'utf8' ? undefined : encodingName(read.encoding), budget, () => ({ lines: countLines(read.text), exact: true }));
}

// What one NEED path asks for, once the path rule has found the file.
type Asked = { request: string; path: string; key: string; from: number; to: number; ranged: boolean; size: number };

// The lines read for a NEED, as a result: binary when what would be sent is (text at its start and binary further in:
// an archive with a text header, a log with a dump in it), refused when the range lies past the end.
function sent(asked: Asked, lines: Lines, encoding: string | undefined, budget: NeedBudget, total: () => { lines: number; exact: boolean }): Result {
  const { request, path: rel, from, to } = asked;
  if (binaryLine(lines.text) !== undefined) return { kind: 'binary', request, path: rel, bytes: asked.size, what: `lines ${lines.first}-${lines.last} are mostly control characters` };
  if (asked.ranged && lines.text === '' && from > 1) {
    const all = total();
    const span = to === Infinity ? `from line ${from}` : from === to ? `line ${from}` : `lines ${from}-${to}`;
    return { kind: 'refused', request, path: rel, reason: `${span} asked; the file has ${all.exact ? '' : 'about '}${formatCount(all.lines)} line${all.lines === 1 ? '' : 's'}` };
  }
  budget.left -= lines.text.length;
  return {
    kind: 'file', request, path: rel, key: asked.key, text: lines.text, first: lines.first, last: lines.last, whole: lines.whole, rest: lines.rest,
    ranged: asked.ranged, encoding,
  };
}

// A file over TEXT_READ_BYTES (a log, a dump): read a range at a time, in UTF-8 only, so a huge file costs what is
// sent. Binary by its first bytes; withheld when a private key lies in it (looked at whole up to KEY_WHOLE_FILE, else
// around what is sent).
function needLarge(real: string, asked: Asked, budget: NeedBudget): Result {
  const { request, path: rel } = asked;
  const file = openFile(real);
  if (file === undefined) return { kind: 'refused', request, path: rel, reason: 'not a regular file, or it cannot be opened' };
  try {
    const sniff = Buffer.alloc(Math.min(file.size, SNIFF));
    fs.readSync(file.fd, sniff, 0, sniff.length, 0);
    const binary = binaryReason(sniff);
    if (binary !== undefined) return { kind: 'binary', request, path: rel, bytes: file.size, what: binary };
    const encoding = encodingOf(sniff);
    if (encoding !== 'utf8') return { kind: 'refused', request, path: rel, reason: `it is in ${encodingName(encoding)} and larger than ${formatCount(TEXT_READ_BYTES >> 20)} MB, which deepwork reads only in UTF-8` };
    const lines = readLines(file, asked.from, asked.to, budget.left);
    if (holdsKey(file, lines.start, lines.end)) return { kind: 'withheld', request, path: rel, reason: 'it holds a private key' };
    return sent(asked, lines, undefined, budget, () => countFileLines(file));
  } finally {
    fs.closeSync(file.fd);
  }
}

// A file up to KEY_WHOLE_FILE is looked at whole for a private key, whatever range was asked: a range that skips the
// BEGIN line must not send the key's body. A larger file is looked at around what is sent: a key block is a few KB, so
// its BEGIN line lies within KEY_MARGIN before any part of it. About a millisecond per MB looked at.
const KEY_MARGIN = 64 << 10;

function holdsKey(file: Opened, start: number, end: number): boolean {
  const whole = file.size <= KEY_WHOLE_FILE;
  const piece = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(file.size, 1)));
  return restHoldsKey(file.fd, piece, whole ? 0 : Math.max(0, start - KEY_MARGIN), whole ? file.size : Math.min(file.size, end + KEY_MARGIN));
}

// A folder named in NEED: its entries, folders first, with sizes. An explicit request, so node_modules and ignored
// entries are listed too; what is never sent is left out, and names with control characters are counted, not shown.
function folderListing(box: Sandbox, limits: Limits, request: string, rel: string, real: string): Result {
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(real, { withFileTypes: true });
  } catch (error) {
    return { kind: 'refused', request, path: rel, reason: `the folder cannot be read (${String(error)})` };
  }
  const lines: string[] = [];
  const named = entries.filter((e) => !holdsControls(e.name));
  const sorted = named
    .filter((e) => {
      const childRel = rel === '.' ? e.name : `${rel}/${e.name}`;
      return protectedReason(box, childRel, path.join(real, e.name)) === undefined;
    })
    .sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || (a.name < b.name ? -1 : 1));
  for (const e of sorted.slice(0, limits.folderEntries)) {
    if (e.isDirectory()) lines.push(`${e.name}/`);
    else if (e.isSymbolicLink()) lines.push(`${e.name} (symlink)`);
    else if (e.isFile()) lines.push(`${e.name} (${sizeOf(path.join(real, e.name))})`);
    else lines.push(`${e.name} (not a regular file)`);
  }
  return { kind: 'folder', request, path: rel, entries: lines, more: Math.max(0, sorted.length - limits.folderEntries), controlNames: entries.length - named.length };
}

function sizeOf(abs: string): string {
  try {
    const bytes = fs.statSync(abs).size;
    return bytes < 10_000 ? `${bytes} bytes` : `${formatCount(Math.round(bytes / 1024))} KB`;
  } catch {
    return 'size unknown';
  }
}

function list(box: Sandbox, limits: Limits, folder: Folder, raw: string): Result {
  const request = `LIST ${raw}`;
  const compiled = compileMask(raw);
  if (compiled.kind === 'refused') return { kind: 'refused', request, path: raw, reason: compiled.reason };

  // A plain folder path lists what is inside it; a plain file path lists itself when it exists.
  let { mask, base, match } = compiled;
  if (isPlainPath(mask)) {
    const place = resolvePath(box, mask);
    if (place.kind === 'folder') return { ...list(box, limits, folder, place.rel === '.' ? '**' : `${place.rel}/**`), request };
    if (place.kind !== 'file') return { kind: 'list', request, mask, paths: [], total: 0 };
    base = '.';
    match = (rel) => rel === place.rel;
  }

  const start = resolvePath(box, base);
  if (start.kind !== 'folder') return { kind: 'list', request, mask, paths: [], total: 0 };
  const prefix = start.rel === '.' ? '' : `${start.rel}/`;
  const paths: string[] = [];
  let total = 0;
  for (const entry of folder.files()) {
    if (!entry.rel.startsWith(prefix) || !match(entry.rel)) continue;
    total++;
    if (paths.length < limits.listPaths) paths.push(entry.rel);
  }
  return { kind: 'list', request, mask, paths, total };
}
