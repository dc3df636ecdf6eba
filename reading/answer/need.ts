// NEED: files whole or a range of their lines, through the one reader of text (reading/text.ts) for files it reads
// whole, a range at a time for larger UTF-8 files; a folder's entries. All NEED paths of a step share its budget.

import fs from 'node:fs';
import path from 'node:path';
import type { NeedRequest } from '../../protocol/requests.ts';
import type { Result } from '../../protocol/results.ts';
import type { Limits } from '../../protocol/contract.ts';
import { holdsControls, protectedReason, resolvePath, type Sandbox } from '../sandbox.ts';
import { countFileLines, openFile, readLines, textLines, type Lines, type Opened } from '../read.ts';
import { encodingName, encodingOf } from '../encoding.ts';
import { KEY_WHOLE_FILE, restHoldsKey } from '../private-keys.ts';
import { binaryReason, SNIFF } from '../binary.ts';
import { binaryLine, readText, shownText, TEXT_READ_BYTES, unfitReason } from '../text.ts';
import type { PathIndex } from '../similar.ts';
import { countLines, formatCount } from '../../common/text.ts';
import type { Step } from './step.ts';
import { languageOf } from '../outline/languages.ts';

// All NEED paths of a step share its budget: characters, paths, look-ups of the closest paths.
export function answerNeeds(requests: readonly NeedRequest[], { box, limits, folder, earlier }: Step): Result[][] {
  const need: NeedBudget = {
    left: limits.needChars,
    sent: new Set<string>(),
    paths: limits.needPaths,
    suggestions: limits.suggestions,
  };
  return requests.map((request) => {
    const now = request.paths.slice(0, Math.max(0, need.paths));
    need.paths -= now.length;
    const answered = now.map((p) => needOne(box, limits, p, need, folder.paths, earlier));
    const later = request.paths.slice(now.length);
    if (later.length > 0)
      answered.push({
        kind: 'too-many',
        request: `NEED (${later.length} more)`,
        paths: later,
        limit: limits.needPaths,
      });
    return answered;
  });
}

// What is left of a step's NEED limits: characters, paths, and look-ups of the closest paths.
type NeedBudget = { left: number; sent: Set<string>; paths: number; suggestions: number };

// `path:120-240`, `path:120-` and `path:120` ask for lines of a file (NEED's and OUTLINE's form).
// `reversed`: the range was written last line first (`a.js:50-10`).
export function splitRange(raw: string): {
  path: string;
  from: number;
  to: number;
  ranged: boolean;
  reversed: boolean;
} {
  const colon = raw.lastIndexOf(':');
  const range = colon > 0 ? /^(\d+)(?:-(\d*))?$/.exec(raw.slice(colon + 1)) : null;
  if (range === null) return { path: raw, from: 1, to: Infinity, ranged: false, reversed: false };
  const from = Math.max(1, Number(range[1]));
  const asked = range[2] === undefined ? from : range[2] === '' ? Infinity : Number(range[2]);
  return { path: raw.slice(0, colon), from, to: Math.max(from, asked), ranged: true, reversed: asked < from };
}

function needOne(
  box: Sandbox,
  limits: Limits,
  raw: string,
  budget: NeedBudget,
  paths: () => PathIndex,
  earlier: ReadonlyMap<string, number>,
): Result {
  const { path: wanted, from, to, ranged, reversed } = splitRange(raw);
  const request = `NEED ${raw}`;
  if (reversed) {
    const [first, last] = raw.slice(wanted.length + 1).split('-');
    return {
      kind: 'refused',
      request,
      path: wanted,
      reason: `the range ${first}-${last} runs backwards; ask for ${wanted}:${last}-${first}`,
    };
  }
  const place = resolvePath(box, wanted);
  switch (place.kind) {
    case 'refused':
    case 'withheld':
      return { kind: place.kind, request, path: wanted, reason: place.reason };
    case 'missing': {
      if (/[*?]/.test(place.rel)) return { kind: 'missing', request, path: place.rel, closest: [], mask: true };
      return {
        kind: 'missing',
        request,
        path: place.rel,
        closest: budget.suggestions-- > 0 ? paths().closest(place.rel) : [],
        mask: false,
      };
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
  const lines = textLines(shownText(read.text), read.bytes.length, from, to, budget.left);
  return sent(asked, lines, read.encoding === 'utf8' ? undefined : encodingName(read.encoding), budget, () => ({
    lines: countLines(read.text),
    exact: true,
  }));
}

// What one NEED path asks for, once the path rule has found the file.
type Asked = { request: string; path: string; key: string; from: number; to: number; ranged: boolean; size: number };

// The lines read for a NEED, as a result: binary when what would be sent is (text at its start and binary further in:
// an archive with a text header, a log with a dump in it), refused when the range lies past the end.
function sent(
  asked: Asked,
  lines: Lines,
  encoding: string | undefined,
  budget: NeedBudget,
  total: () => { lines: number; exact: boolean },
): Result {
  const { request, path: rel, from, to } = asked;
  if (binaryLine(lines.text) !== undefined)
    return {
      kind: 'binary',
      request,
      path: rel,
      bytes: asked.size,
      what: `lines ${lines.first}-${lines.last} are mostly control characters`,
    };
  if (asked.ranged && lines.text === '' && from > 1) {
    const all = total();
    const span = to === Infinity ? `from line ${from}` : from === to ? `line ${from}` : `lines ${from}-${to}`;
    return {
      kind: 'refused',
      request,
      path: rel,
      reason: `${span} asked; the file has ${all.exact ? '' : 'about '}${formatCount(all.lines)} line${all.lines === 1 ? '' : 's'}`,
    };
  }
  budget.left -= lines.text.length;
  return {
    kind: 'file',
    request,
    path: rel,
    key: asked.key,
    text: lines.text,
    first: lines.first,
    last: lines.last,
    whole: lines.whole,
    rest: lines.rest,
    ranged: asked.ranged,
    encoding,
    ...(asked.ranged && lines.whole && to !== Infinity && lines.last < to ? { pastEnd: true } : {}),
    // A range's file's length, where the file was read whole anyway: a player of the relay spent part of a step
    // finding where a test file's block ended.
    ...(asked.ranged && asked.size <= TEXT_READ_BYTES ? { of: total().lines } : {}),
    ...(languageOf(rel) === undefined ? {} : { outlined: true }),
  };
}

// A file over TEXT_READ_BYTES (a log, a dump): read a range at a time, in UTF-8 only, so a huge file costs what is
// sent. Binary by its first bytes; withheld when a private key lies in it (looked at whole up to KEY_WHOLE_FILE, else
// around what is sent).
function needLarge(real: string, asked: Asked, budget: NeedBudget): Result {
  const { request, path: rel } = asked;
  const file = openFile(real);
  if (file === undefined)
    return { kind: 'refused', request, path: rel, reason: 'not a regular file, or it cannot be opened' };
  try {
    const sniff = Buffer.alloc(Math.min(file.size, SNIFF));
    fs.readSync(file.fd, sniff, 0, sniff.length, 0);
    const binary = binaryReason(sniff);
    if (binary !== undefined) return { kind: 'binary', request, path: rel, bytes: file.size, what: binary };
    const encoding = encodingOf(sniff);
    if (encoding !== 'utf8')
      return {
        kind: 'refused',
        request,
        path: rel,
        reason: `it is in ${encodingName(encoding)} and larger than ${formatCount(TEXT_READ_BYTES >> 20)} MB, which deepwork reads only in UTF-8`,
      };
    const lines = readLines(file, asked.from, asked.to, budget.left);
    if (holdsKey(file, lines.start, lines.end))
      return { kind: 'withheld', request, path: rel, reason: 'it holds a private key' };
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
  return restHoldsKey(
    file.fd,
    piece,
    whole ? 0 : Math.max(0, start - KEY_MARGIN),
    whole ? file.size : Math.min(file.size, end + KEY_MARGIN),
  );
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
  return {
    kind: 'folder',
    request,
    path: rel,
    entries: lines,
    more: Math.max(0, sorted.length - limits.folderEntries),
    controlNames: entries.length - named.length,
  };
}

function sizeOf(abs: string): string {
  try {
    const bytes = fs.statSync(abs).size;
    return bytes < 10_000 ? `${bytes} bytes` : `${formatCount(Math.round(bytes / 1024))} KB`;
  } catch {
    return 'size unknown';
  }
}
