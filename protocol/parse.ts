// Reads a model's reply into request blocks and proposed files.
//
// The parser works line by line and never uses a backtracking regular expression: every line is looked at a
// constant number of times, so a reply of any shape parses in time linear in its length.

import { markerOf, fenceOf, type Fence } from './markers.ts';

export type NeedRequest = { kind: 'need'; paths: string[]; line: number };
export type ListRequest = { kind: 'list'; mask: string; line: number };
export type FindRequest = { kind: 'find'; text: string; line: number };
export type Request = NeedRequest | ListRequest | FindRequest;

// A proposed whole file. `complete` is false when the reply ended before the block's END marker.
export type FileBlock = { kind: 'file'; path: string; content: string; complete: boolean; line: number };

export type Block = Request | FileBlock;

export type Reply = { blocks: Block[]; requests: Request[]; files: FileBlock[] };

// How each keyword becomes a block. A request kind reads its one-line payload; a body kind also owns the lines up to
// its END marker. A new block kind is one more entry here.
type RequestKind = { body: false; read: (payload: string, line: number) => Request | undefined };
type BodyKind = { body: true; read: (payload: string, content: string, complete: boolean, line: number) => Block };

const kinds: Record<string, RequestKind | BodyKind> = {
  need: {
    body: false,
    read: (payload, line) => {
      const paths = unique(payload.split(',').map(cleanPath).filter((p) => p !== ''));
      return paths.length > 0 ? { kind: 'need', paths, line } : undefined;
    },
  },
  list: {
    body: false,
    read: (payload, line) => {
      const mask = cleanPath(payload);
      return mask !== '' ? { kind: 'list', mask, line } : undefined;
    },
  },
  find: {
    body: false,
    read: (payload, line) => {
      const text = unwrap(payload, '`');
      return text !== '' ? { kind: 'find', text, line } : undefined;
    },
  },
  file: {
    body: true,
    read: (payload, content, complete, line) => ({ kind: 'file', path: cleanPath(payload), content, complete, line }),
  },
};

// The keywords the parser knows, for instructions and messages.
export const blockKeywords: readonly string[] = Object.keys(kinds).map((k) => k.toUpperCase());

// Where each line starts and ends (without its line break), and the code of its first non-blank character (-1 for a
// blank line). Typed arrays: a reply can hold hundreds of thousands of lines.
type Lines = { count: number; start: Int32Array; end: Int32Array; lead: Int32Array };

export function parseReply(text: string): Reply {
  const lines = splitLines(text);
  const ends = endMarkers(text, lines);
  const blocks: Block[] = [];

  for (let i = 0; i < lines.count; i++) {
    const marker = markerOf(slice(text, lines, i));
    if (marker === undefined) continue;
    const kind = kinds[marker.keyword];
    if (kind === undefined) continue;
    if (!kind.body) {
      const block = kind.read(marker.payload, i + 1);
      if (block !== undefined) blocks.push(block);
      continue;
    }
    const body = bodyAfter(text, lines, ends, i);
    blocks.push(kind.read(marker.payload, body.content, body.complete, i + 1));
    i = body.endLine;
  }

  return {
    blocks,
    requests: blocks.filter((b): b is Request => b.kind !== 'file'),
    files: blocks.filter((b): b is FileBlock => b.kind === 'file'),
  };
}

// Most lines of a reply are prose: one look at the first non-blank character tells they hold no marker and no fence.
function splitLines(text: string): Lines {
  let count = 1;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) count++;
  if (text.endsWith('\n') || text === '') count--;
  const lines: Lines = { count, start: new Int32Array(count), end: new Int32Array(count), lead: new Int32Array(count) };
  let start = 0;
  for (let n = 0; n < count; n++) {
    const nl = text.indexOf('\n', start);
    let end = nl === -1 ? text.length : nl;
    if (end > start && text.charCodeAt(end - 1) === 13) end--;
    let i = start;
    while (i < end && isBlank(text.charCodeAt(i))) i++;
    lines.start[n] = start;
    lines.end[n] = end;
    lines.lead[n] = i < end ? text.charCodeAt(i) : -1;
    start = nl === -1 ? text.length : nl + 1;
  }
  return lines;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 13 || code === 11 || code === 12;
}

// Characters a marker line or a fence line can start with: = * _ ` ~ - + and digits (list numbers).
function mayBeMarkup(lead: number): boolean {
  return lead === 61 || lead === 42 || lead === 95 || lead === 96 || lead === 126 || lead === 45 || lead === 43 || (lead >= 48 && lead <= 57);
}

function isBlankLine(lines: Lines, i: number): boolean {
  return lines.lead[i] === -1;
}

function slice(text: string, lines: Lines, i: number): string {
  const lead = lines.lead[i];
  return lead === undefined || !mayBeMarkup(lead) ? '' : text.slice(lines.start[i], lines.end[i]);
}

// Where line `i` starts; the end of the text past the last line.
function startOf(text: string, lines: Lines, i: number): number {
  return lines.start[i] ?? text.length;
}

// For each line, the index of the first END marker at or after it, and the first END marker that directly follows a
// closing fence (blank lines between allowed). Both are computed once, from the bottom up.
type EndIndex = { next: Int32Array; nextFenced: Int32Array };

function endMarkers(text: string, lines: Lines): EndIndex {
  const n = lines.count;
  const next = new Int32Array(n + 1).fill(-1);
  const nextFenced = new Int32Array(n + 1).fill(-1);
  const isEnd = new Uint8Array(n);
  const isFencedEnd = new Uint8Array(n);
  let lastNonBlankWasFence = false;
  for (let i = 0; i < n; i++) {
    if (isBlankLine(lines, i)) continue;
    const line = slice(text, lines, i);
    const marker = markerOf(line);
    if (marker !== undefined && marker.keyword === 'end') {
      isEnd[i] = 1;
      if (lastNonBlankWasFence) isFencedEnd[i] = 1;
    }
    const fence = fenceOf(line);
    lastNonBlankWasFence = fence !== undefined && fence.info === '';
  }
  for (let i = n - 1; i >= 0; i--) {
    next[i] = isEnd[i] === 1 ? i : (next[i + 1] ?? -1);
    nextFenced[i] = isFencedEnd[i] === 1 ? i : (nextFenced[i + 1] ?? -1);
  }
  return { next, nextFenced };
}

type Body = { content: string; complete: boolean; endLine: number };

// The content of a body block that opens at line `at`. When the content starts with a markdown fence, the block ends
// at the first END right after a closing fence, so a fenced file may itself contain END lines (a file describing this
// protocol); without such an END it falls back to the first END. One fence wrapping the whole content is removed.
function bodyAfter(text: string, lines: Lines, ends: EndIndex, at: number): Body {
  let first = at + 1;
  while (first < lines.count && isBlankLine(lines, first)) first++;
  const opener = first < lines.count ? fenceOf(slice(text, lines, first)) : undefined;

  let end = ends.next[at + 1] ?? -1;
  if (opener !== undefined) {
    const fenced = ends.nextFenced[at + 1] ?? -1;
    if (fenced !== -1) end = fenced;
  }
  const complete = end !== -1;
  const endLine = complete ? end : lines.count;
  const contentEnd = startOf(text, lines, endLine);
  const plainStart = startOf(text, lines, at + 1);

  if (opener === undefined) {
    return { content: text.slice(plainStart, contentEnd), complete, endLine };
  }
  const innerStart = startOf(text, lines, first + 1);
  const closer = closingFence(text, lines, opener, first, endLine);
  const innerEnd = closer === -1 ? contentEnd : startOf(text, lines, closer);
  return { content: text.slice(innerStart, Math.max(innerStart, innerEnd)), complete, endLine };
}

// The last non-blank line before `endLine` when it closes `opener`'s fence, else -1.
function closingFence(text: string, lines: Lines, opener: Fence, first: number, endLine: number): number {
  let i = endLine - 1;
  while (i > first && isBlankLine(lines, i)) i--;
  if (i <= first) return -1;
  const fence = fenceOf(slice(text, lines, i));
  const closes = fence !== undefined && fence.info === '' && fence.char === opener.char && fence.length >= opener.length;
  return closes ? i : -1;
}

// A path as models write it: in backticks or quotes, with `./` in front.
function cleanPath(raw: string): string {
  let path = unwrap(unwrap(unwrap(raw.trim(), '`'), '"'), "'").trim();
  while (path.startsWith('./')) path = path.slice(2);
  return path;
}

function unwrap(text: string, quote: string): string {
  const t = text.trim();
  return t.length >= 2 && t.startsWith(quote) && t.endsWith(quote) ? t.slice(1, -1) : t;
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
