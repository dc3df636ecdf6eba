// Reads a model's reply into request blocks and proposed files.
//
// The parser works line by line and never uses a backtracking regular expression: every line is looked at a
// constant number of times, so a reply of any shape parses in time linear in its length.

import { attemptOf, markerOf, fenceOf, type Fence } from './markers.ts';
import { cleanPath, describeRequest, isRequestKind, requestKinds, type Request } from './requests.ts';
import type { EditPair } from './edit.ts';

export type { Request, NeedRequest, ListRequest, FindRequest } from './requests.ts';

// A proposed whole file. `complete` is false when the reply ended before the block's END marker.
export type FileBlock = { kind: 'file'; path: string; content: string; complete: boolean; line: number };

// A change to part of a file: SEARCH/REPLACE pairs applied in order. `problem`: why its body could not be read into
// pairs (it is then never applied, and the model is told).
export type EditBlock = { kind: 'edit'; path: string; pairs: EditPair[]; complete: boolean; line: number; problem: string | undefined };

// What a reply proposes to write: whole files and edits, in the order they stand.
export type Proposal = FileBlock | EditBlock;

export type Block = Request | Proposal;

// A line that means a request but is not written as one; `fix` is the request as it should be written, when the line
// says enough to write it.
export type Unclear = { line: number; text: string; problem: string; fix: string | undefined };

export type Reply = { blocks: Block[]; requests: Request[]; files: FileBlock[]; edits: EditBlock[]; proposals: Proposal[]; unclear: Unclear[] };

// Where a FILE block stands in the text, from its marker line (or the fence around the block) to the end of its END
// line: what a reader of the prose sees in its place.
export type Span = { block: Proposal; from: number; to: number };

// The kinds with a body: FILE and EDIT own the lines up to their END marker. Request kinds come from requests.ts.
const BODY_KEYWORDS: ReadonlySet<string> = new Set(['file', 'edit']);

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

// Requests count on lines of their own outside FILE bodies, also inside a markdown fence that holds nothing but
// requests (models wrap their requests in one). A fence that holds anything else is a sample the model shows the
// user: the requests in it are quoted, not asked (and a final answer that shows one stays the answer). A fence that
// never closes is no fence. FILE blocks count wherever they stand.
export function parseReply(text: string): Reply {
  return parse(text, undefined);
}

// The FILE blocks of a reply with where each stands (for showing the prose without them). Kept apart from parseReply:
// an object per block is garbage the loop's parse need not make.
export function fileSpans(text: string): Span[] {
  const spans: Span[] = [];
  parse(text, spans);
  return spans;
}

function parse(text: string, spans: Span[] | undefined): Reply {
  const lines = markupLines(text);
  const ends = endMarkers(text, lines);
  const blocks: Block[] = [];
  const unclear: Unclear[] = [];
  let fenceStart = -1;
  let fenceEnd = -1;
  let quoted = false;

  for (let i = 0; i < lines.count; i++) {
    if (fenceEnd !== -1 && i >= fenceEnd) {
      const closes = i === fenceEnd;
      fenceEnd = -1;
      quoted = false;
      if (closes) continue;
    }
    const kind = ends.kind[i] ?? 0;
    if (fenceEnd === -1 && kind === FENCE) {
      const fence = fenceOf(slice(text, lines, i));
      const closer = fence === undefined ? -1 : (fence.char === '`' ? ends.nextBacktick : ends.nextTilde)[i + 1] ?? -1;
      if (closer !== -1) {
        fenceStart = i;
        fenceEnd = closer;
        quoted = (ends.unlike[closer] ?? 0) - (ends.unlike[i + 1] ?? 0) > 0 || lines.joined[closer] === 0;
      }
      continue;
    }
    if (kind === ATTEMPT || kind === REQUEST) {
      if (quoted) continue;
      const line = lines.number[i] ?? 0;
      const lineText = slice(text, lines, i);
      const marker = kind === REQUEST ? markerOf(lineText) : undefined;
      const request = marker !== undefined && isRequestKind(marker.keyword) ? requestKinds[marker.keyword].read(marker.payload, line) : undefined;
      if (request !== undefined) {
        blocks.push(request);
        continue;
      }
      const attempt = attemptOf(lineText) ?? { keyword: marker?.keyword ?? '', payload: '', problem: 'it asks for nothing' };
      const fixes = [requestOf(attempt.keyword, attempt.payload, line)];
      if (attempt.rest !== undefined) {
        const second = markerOf(attempt.rest) ?? attemptOf(attempt.rest);
        fixes.push(second === undefined ? undefined : requestOf(second.keyword, second.payload, line));
      }
      const fix = fixes.every((f) => f !== undefined) ? fixes.map(requestLine).join('\n') : undefined;
      unclear.push({ line, text: lineText.trim(), problem: attempt.problem, fix });
      continue;
    }
    if (kind !== FILE) continue;
    const marker = markerOf(slice(text, lines, i));
    if (marker === undefined) continue;
    const body = bodyAfter(text, lines, ends, i);
    const path = cleanPath(marker.payload);
    const line = lines.number[i] ?? 0;
    const block: Proposal = marker.keyword === 'edit'
      ? { kind: 'edit', path, ...editPairs(body.content), complete: body.complete, line }
      : { kind: 'file', path, content: withoutLineNumbers(body.content), complete: body.complete, line };
    blocks.push(block);
    // A fence around the whole block (opened right before the marker, closed right after END) belongs to it.
    const wrapped = fenceEnd !== -1 && fenceStart === i - 1 && fenceEnd === body.endLine + 1 && lines.joined[i] === 1 && lines.joined[fenceEnd] === 1;
    const last = wrapped ? fenceEnd : body.endLine;
    spans?.push({ block, from: lines.start[wrapped ? fenceStart : i] ?? 0, to: last < lines.count ? (lines.next[last] ?? text.length) : text.length });
    i = wrapped ? fenceEnd : body.endLine;
    if (wrapped) {
      fenceEnd = -1;
      quoted = false;
    }
  }

  return {
    blocks,
    requests: blocks.filter((b): b is Request => b.kind !== 'file' && b.kind !== 'edit'),
    files: blocks.filter((b): b is FileBlock => b.kind === 'file'),
    edits: blocks.filter((b): b is EditBlock => b.kind === 'edit'),
    proposals: blocks.filter((b): b is Proposal => b.kind === 'file' || b.kind === 'edit'),
    unclear,
  };
}

function requestOf(keyword: string, payload: string, line: number): Request | undefined {
  return isRequestKind(keyword) ? requestKinds[keyword].read(payload, line) : undefined;
}

// A request as the model should write it.
export function requestLine(request: Request): string {
  return `=== ${describeRequest(request).replace(' ', ': ')} ===`;
}

// An EDIT body read into its pairs:
//   <<<<<<< SEARCH
//   lines as they are in the file
//   =======
//   the lines that replace them
//   >>>>>>> REPLACE
// Five to nine marker characters are taken, as models write them; text between pairs is passed over.
function editPairs(content: string): { pairs: EditPair[]; problem: string | undefined } {
  const pairs: EditPair[] = [];
  let state: 'outside' | 'search' | 'replace' = 'outside';
  let search: string[] = [];
  let replace: string[] = [];
  const lines = content.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (state === 'outside') {
      if (SEARCH_LINE.test(line)) {
        state = 'search';
        search = [];
      }
    } else if (state === 'search') {
      if (DIVIDER_LINE.test(line)) {
        state = 'replace';
        replace = [];
      } else if (SEARCH_LINE.test(line) || REPLACE_LINE.test(line)) {
        return { pairs, problem: `pair ${pairs.length + 1} has no ======= line between its SEARCH and its REPLACE` };
      } else {
        search.push(raw);
      }
    } else if (REPLACE_LINE.test(line)) {
      pairs.push({ search: joined(search), replace: joined(replace) });
      state = 'outside';
    } else if (SEARCH_LINE.test(line)) {
      return { pairs, problem: `pair ${pairs.length + 1} has no >>>>>>> REPLACE line before the next SEARCH` };
    } else {
      replace.push(raw);
    }
  }
  if (state !== 'outside') return { pairs, problem: `pair ${pairs.length + 1} has no >>>>>>> REPLACE line` };
  if (pairs.length === 0) return { pairs, problem: 'it holds no <<<<<<< SEARCH … ======= … >>>>>>> REPLACE pair' };
  return { pairs, problem: undefined };
}

const SEARCH_LINE = /^\s*<{5,9} ?SEARCH\s*$/i;
const DIVIDER_LINE = /^\s*={5,9}\s*$/;
const REPLACE_LINE = /^\s*>{5,9} ?REPLACE\s*$/i;

function joined(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

// A FILE body copied from NEED output with its line numbers (`12 | text`): every line numbered, the numbers counting
// up one by one. Then the numbers are taken off; anything short of that is content and stays as it is.
export function withoutLineNumbers(content: string): string {
  const numbered = /^ *(\d{1,7}) \|(?: |(?=\r?$))/;
  // Checked line by line, stopping at the first line without its number: content that is not numbered costs a line.
  // Where each line starts, and where its text starts after the number.
  const lineStarts: number[] = [];
  const starts: number[] = [];
  let expected = -1;
  for (let at = 0; at < content.length; ) {
    const nl = content.indexOf('\n', at);
    const end = nl === -1 ? content.length : nl;
    const match = numbered.exec(content.slice(at, Math.min(end, at + 16)));
    if (match === null || (expected !== -1 && Number(match[1]) !== expected)) return content;
    expected = Number(match[1]) + 1;
    lineStarts.push(at);
    starts.push(at + match[0].length);
    at = end + 1;
  }
  if (starts.length === 0) return content;
  let out = '';
  starts.forEach((from, i) => {
    out += content.slice(from, lineStarts[i + 1] ?? content.length);
  });
  return out;
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
      if (mayBeMarkup(text, i)) {
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

// = * _ ` ~ - + # < [ { or a digit; or NEED:, LIST:, FIND: in capitals (the bare form of an attempted request).
function mayBeMarkup(text: string, at: number): boolean {
  const lead = text.charCodeAt(at);
  if (lead === 61 || lead === 42 || lead === 95 || lead === 96 || lead === 126 || lead === 45 || lead === 43 || (lead >= 48 && lead <= 57)) return true;
  if (lead === 35 || lead === 60 || lead === 91 || lead === 123) return true;
  if (lead !== 78 && lead !== 76 && lead !== 70) return false;
  return text.startsWith('NEED:', at) || text.startsWith('LIST:', at) || text.startsWith('FIND:', at);
}

function slice(text: string, lines: Lines, i: number): string {
  return i < lines.count ? text.slice(lines.start[i], lines.end[i]) : '';
}

// Whether line `i` directly follows line `i - 1` of the list, with only blank lines between.
function follows(lines: Lines, i: number): boolean {
  return i > 0 && i < lines.count && lines.joined[i] === 1;
}

// What each markup line is, and for each line the first END marker at or after it, the first END marker that
// directly follows a bare fence (blank lines between allowed), and the next bare fence of each kind; all computed
// once, from the top and from the bottom. `unlike` counts, up to each line, the lines that could not stand in a fence
// of requests alone: a line that is not a request or an attempt at one, or prose between markup lines.
// What a marker says is read again only for the lines the main pass visits (keeping a marker object per line made
// the collector's work grow faster than the reply).
type EndIndex = { kind: Uint8Array; next: Int32Array; nextFenced: Int32Array; nextBacktick: Int32Array; nextTilde: Int32Array; unlike: Int32Array };

// 0: anything else.
const REQUEST = 1;
const FILE = 2;
const ATTEMPT = 3;
const FENCE = 4;

function endMarkers(text: string, lines: Lines): EndIndex {
  const n = lines.count;
  const next = new Int32Array(n + 1).fill(-1);
  const nextFenced = new Int32Array(n + 1).fill(-1);
  const nextBacktick = new Int32Array(n + 1).fill(-1);
  const nextTilde = new Int32Array(n + 1).fill(-1);
  const unlike = new Int32Array(n + 1);
  const end = new Uint8Array(n); // 1: END, 2: END right after a bare fence
  const bare = new Uint8Array(n); // 1: a bare fence of backticks, 2: of tildes
  const kind = new Uint8Array(n);
  let previousIsBareFence = false;
  for (let i = 0; i < n; i++) {
    const line = slice(text, lines, i);
    const afterFence = previousIsBareFence && follows(lines, i);
    const marker = markerOf(line);
    const fence = marker === undefined ? fenceOf(line) : undefined;
    const isFile = marker !== undefined && BODY_KEYWORDS.has(marker.keyword);
    if (isFile) kind[i] = FILE;
    else if (fence !== undefined) kind[i] = FENCE;
    else if (attemptOf(line) !== undefined) kind[i] = ATTEMPT;
    else if (marker !== undefined && isRequestKind(marker.keyword)) kind[i] = REQUEST;
    if (marker !== undefined && marker.keyword === 'end') end[i] = afterFence ? 2 : 1;
    if (fence !== undefined && fence.info === '') bare[i] = fence.char === '`' ? 1 : 2;
    previousIsBareFence = fence !== undefined && fence.info === '';
    const fits = (kind[i] === REQUEST || kind[i] === ATTEMPT) && lines.joined[i] === 1;
    unlike[i + 1] = (unlike[i] ?? 0) + (fits ? 0 : 1);
  }
  for (let i = n - 1; i >= 0; i--) {
    next[i] = end[i] !== 0 ? i : (next[i + 1] ?? -1);
    nextFenced[i] = end[i] === 2 ? i : (nextFenced[i + 1] ?? -1);
    nextBacktick[i] = bare[i] === 1 ? i : (nextBacktick[i + 1] ?? -1);
    nextTilde[i] = bare[i] === 2 ? i : (nextTilde[i + 1] ?? -1);
  }
  return { kind, next, nextFenced, nextBacktick, nextTilde, unlike };
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
