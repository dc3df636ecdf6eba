// Reads a model's reply into request blocks and proposed files.
//
// The parser works line by line and never uses a backtracking regular expression: every line is looked at a
// constant number of times, so a reply of any shape parses in time linear in its length.

import { markerOf, fenceOf, type Fence } from './markers.ts';
import { cleanPath, isRequestKind, requestKinds, type Request } from './requests.ts';

export type { Request, NeedRequest, ListRequest, FindRequest } from './requests.ts';

// A proposed whole file. `complete` is false when the reply ended before the block's END marker.
export type FileBlock = { kind: 'file'; path: string; content: string; complete: boolean; line: number };

export type Block = Request | FileBlock;

export type Reply = { blocks: Block[]; requests: Request[]; files: FileBlock[] };

// The one kind with a body: FILE owns the lines up to its END marker. Request kinds come from requests.ts.
const BODY_KEYWORD = 'file';

// The lines that can matter: those whose first non-blank character can start a marker or a fence (= * _ ` ~ - + or a
// digit). Prose lines are passed over without a trace, so memory follows the markup, not the reply's length.
// `joined` says that only blank lines stand between a line and the one before it in this list.
type Lines = {
  count: number;
  start: Int32Array;
  end: Int32Array;
  next: Int32Array;
  number: Int32Array;
  joined: Uint8Array;
};

export function parseReply(text: string): Reply {
  const lines = markupLines(text);
  const ends = endMarkers(text, lines);
  const blocks: Block[] = [];

  for (let i = 0; i < lines.count; i++) {
    if (ends.isMarker[i] !== 1) continue;
    const marker = markerOf(slice(text, lines, i));
    if (marker === undefined) continue;
    const line = lines.number[i] ?? 0;
    if (isRequestKind(marker.keyword)) {
      const request = requestKinds[marker.keyword].read(marker.payload, line);
      if (request !== undefined) blocks.push(request);
      continue;
    }
    if (marker.keyword !== BODY_KEYWORD) continue;
    const body = bodyAfter(text, lines, ends, i);
    blocks.push({ kind: 'file', path: cleanPath(marker.payload), content: body.content, complete: body.complete, line });
    i = body.endLine;
  }

  return {
    blocks,
    requests: blocks.filter((b): b is Request => b.kind !== 'file'),
    files: blocks.filter((b): b is FileBlock => b.kind === 'file'),
  };
}

function markupLines(text: string): Lines {
  let capacity = 64;
  let lines: Lines = allocate(capacity);
  let count = 0;
  let number = 0;
  let onlyBlankSince = true;
  for (let start = 0; start < text.length; ) {
    number++;
    const nl = text.indexOf('\n', start);
    const next = nl === -1 ? text.length : nl + 1;
    let end = nl === -1 ? text.length : nl;
    if (end > start && text.charCodeAt(end - 1) === 13) end--;
    let i = start;
    while (i < end && isBlank(text.charCodeAt(i))) i++;
    if (i < end) {
      if (mayBeMarkup(text.charCodeAt(i))) {
        if (count === capacity) {
          capacity *= 2;
          lines = grow(lines, capacity);
        }
        lines.start[count] = start;
        lines.end[count] = end;
        lines.next[count] = next;
        lines.number[count] = number;
        lines.joined[count] = onlyBlankSince ? 1 : 0;
        count++;
        onlyBlankSince = true;
      } else {
        onlyBlankSince = false;
      }
    }
    start = next;
  }
  lines.count = count;
  return lines;
}

function allocate(capacity: number): Lines {
  return {
    count: 0,
    start: new Int32Array(capacity),
    end: new Int32Array(capacity),
    next: new Int32Array(capacity),
    number: new Int32Array(capacity),
    joined: new Uint8Array(capacity),
  };
}

function grow(lines: Lines, capacity: number): Lines {
  const bigger = allocate(capacity);
  bigger.start.set(lines.start);
  bigger.end.set(lines.end);
  bigger.next.set(lines.next);
  bigger.number.set(lines.number);
  bigger.joined.set(lines.joined);
  return bigger;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 13 || code === 11 || code === 12;
}

function mayBeMarkup(lead: number): boolean {
  return lead === 61 || lead === 42 || lead === 95 || lead === 96 || lead === 126 || lead === 45 || lead === 43 || (lead >= 48 && lead <= 57);
}

function slice(text: string, lines: Lines, i: number): string {
  return i < lines.count ? text.slice(lines.start[i], lines.end[i]) : '';
}

// Whether line `i` directly follows line `i - 1` of the list, with only blank lines between.
function follows(lines: Lines, i: number): boolean {
  return i > 0 && i < lines.count && lines.joined[i] === 1;
}

// For each markup line, the first END marker at or after it, and the first END marker that directly follows a bare
// fence (blank lines between allowed). Both are computed once, from the bottom up.
// `isMarker` marks the lines that hold a marker of a known kind; what they say is read again only for the lines the
// main pass visits (nothing is kept per line: keeping a marker object for each line made the collector's work grow
// faster than the reply).
type EndIndex = { next: Int32Array; nextFenced: Int32Array; isMarker: Uint8Array };

function endMarkers(text: string, lines: Lines): EndIndex {
  const n = lines.count;
  const next = new Int32Array(n + 1).fill(-1);
  const nextFenced = new Int32Array(n + 1).fill(-1);
  const kind = new Uint8Array(n); // 1: END, 2: END right after a bare fence
  const isMarker = new Uint8Array(n);
  let previousIsBareFence = false;
  for (let i = 0; i < n; i++) {
    const line = slice(text, lines, i);
    const afterFence = previousIsBareFence && follows(lines, i);
    const marker = markerOf(line);
    if (marker !== undefined && (isRequestKind(marker.keyword) || marker.keyword === BODY_KEYWORD)) isMarker[i] = 1;
    if (marker !== undefined && marker.keyword === 'end') kind[i] = afterFence ? 2 : 1;
    const fence = fenceOf(line);
    previousIsBareFence = fence !== undefined && fence.info === '';
  }
  for (let i = n - 1; i >= 0; i--) {
    next[i] = kind[i] !== 0 ? i : (next[i + 1] ?? -1);
    nextFenced[i] = kind[i] === 2 ? i : (nextFenced[i + 1] ?? -1);
  }
  return { next, nextFenced, isMarker };
}

type Body = { content: string; complete: boolean; endLine: number };

// The content of a body block whose marker is markup line `at`. When the content starts with a markdown fence, the
// block ends at the first END right after a closing fence, so a fenced file may itself contain END lines (a file
// describing this protocol); without such an END it falls back to the first END. One fence wrapping the whole
// content is removed.
function bodyAfter(text: string, lines: Lines, ends: EndIndex, at: number): Body {
  const first = at + 1;
  const opener = follows(lines, first) ? fenceOf(slice(text, lines, first)) : undefined;

  let end = ends.next[at + 1] ?? -1;
  if (opener !== undefined) {
    const fenced = ends.nextFenced[at + 1] ?? -1;
    if (fenced !== -1) end = fenced;
  }
  const complete = end !== -1;
  const endLine = complete ? end : lines.count;
  const contentEnd = complete ? (lines.start[end] ?? text.length) : text.length;
  const plainStart = lines.next[at] ?? text.length;

  if (opener === undefined) return { content: text.slice(plainStart, contentEnd), complete, endLine };
  const innerStart = lines.next[first] ?? text.length;
  const closer = closingFence(text, lines, opener, first, endLine);
  const innerEnd = closer === -1 ? contentEnd : (lines.start[closer] ?? contentEnd);
  return { content: text.slice(innerStart, Math.max(innerStart, innerEnd)), complete, endLine };
}

// The markup line right before `endLine` (only blank lines between) when it closes `opener`'s fence, else -1.
function closingFence(text: string, lines: Lines, opener: Fence, first: number, endLine: number): number {
  const i = endLine - 1;
  if (i <= first) return -1;
  if (endLine < lines.count && !follows(lines, endLine)) return -1;
  if (endLine === lines.count && !lastIsTrailing(text, lines, i)) return -1;
  const fence = fenceOf(slice(text, lines, i));
  const closes = fence !== undefined && fence.info === '' && fence.char === opener.char && fence.length >= opener.length;
  return closes ? i : -1;
}

// Whether only blank lines follow markup line `i` to the end of the text.
function lastIsTrailing(text: string, lines: Lines, i: number): boolean {
  return text.slice(lines.next[i] ?? text.length).trim() === '';
}
