// Reads a model's reply into request blocks and proposed files.
//
// In three plain passes over the lines that can matter (those whose first character can start a marker or a fence;
// prose lines are passed over and leave no trace): what each line is; then, from the bottom up, where the next END
// line and the next bare fence stand from each line; then the reply read from the top with an explicit state, outside
// or in a fence. Every line is looked at a constant number of times and nothing backtracks, so a reply of any shape
// parses in time linear in its length (test/parse.test.ts holds it to that).
//
// Requests count on lines of their own outside FILE and EDIT bodies, also inside a markdown fence or a blockquote that
// holds nothing but requests (models wrap their requests in one). A fence or a blockquote that holds anything else is
// a sample the model shows the user: the requests in it are quoted, not asked (and a final answer that shows one stays
// the answer). A fence that never closes is no fence. FILE and EDIT blocks count wherever they stand, but behind a
// quote mark.
//
// A line that means a request and is not written as one is never passed over: when it says exactly which requests it
// means (`NEED: a.js`, `=== NEED: a.js`, `<NEED: a.js>`, `=== READ: a.js ===`, two markers on one line) they are read
// as any other, and the model is told how the line was read (a slip); when it does not, it is not understood, and the
// model is told how to write it.

import { attemptOf, fenceOf, markerOf, type Fence } from './markers.ts';
import { isRequestKind, kindOf, requestKinds, requestLine, type Request } from './requests.ts';
import { tidyPath } from './paths.ts';
import { withoutLineNumbers } from './line-numbers.ts';
import { editPairs } from './edit-body.ts';
import type { EditPair } from './edit.ts';

export type { Request, NeedRequest, ListRequest, FindRequest } from './requests.ts';

// A proposed whole file. `complete` is false when the reply ended before the block's END marker. `path` is tidied as
// the path rule reads it (protocol/paths.ts), so every view names it one way.
export type FileBlock = { kind: 'file'; path: string; content: string; complete: boolean; line: number };

// A change to part of a file: SEARCH/REPLACE pairs applied in order. `problem`: why its body could not be read into
// pairs (it is then never applied, and the model is told). `left`: the pairs of the block as the model wrote it that
// did not apply and are left out (1-based `numbers` of `pairs`), while no later proposal for its path followed.
export type EditBlock = {
  kind: 'edit';
  path: string;
  pairs: EditPair[];
  complete: boolean;
  line: number;
  problem: string | undefined;
  left?: { pairs: number; numbers: number[] };
};

// What a reply proposes to write: whole files and edits, in the order they stand.
export type Proposal = FileBlock | EditBlock;

export type Block = Request | Proposal;

// A line that means a request but is not written as one, and says too little to be read as one for sure; `fix` is the
// request as it should be written, when the line says enough to write it.
export type Unclear = { line: number; text: string; problem: string; fix: string | undefined };

// A line that means requests and is not written as them, yet says exactly which (issue 25: no step is lost to a slip
// deepwork can read): its requests are in the reply's requests, answered as any other; `read` is each as it should
// be written, `problem` what was wrong.
export type Slip = { line: number; text: string; problem: string; read: string[] };

export type Reply = {
  blocks: Block[];
  requests: Request[];
  files: FileBlock[];
  edits: EditBlock[];
  proposals: Proposal[];
  unclear: Unclear[];
  slips: Slip[];
};

// Where a FILE or EDIT block stands in the text, from its marker line (or the fence around the block) to the end of
// its END line: what a reader of the prose sees in its place.
export type Span = { block: Proposal; from: number; to: number };

export function parseReply(text: string): Reply {
  return parse(text, undefined);
}

// The FILE and EDIT blocks of a reply with where each stands (for showing the prose without them). Kept apart from
// parseReply: an object per block is garbage the loop's parse need not make.
export function fileSpans(text: string): Span[] {
  const spans: Span[] = [];
  parse(text, spans);
  return spans;
}

// A line that can matter. `start`/`end`: its text (without the line end); `next`: where the next line starts;
// `joined`: only blank lines stand between it and the markup line before it. `role`: a request marker, a FILE or EDIT
// marker, an attempt at a request, a fence, or anything else. `closes`: an END marker, or one right after a bare fence.
// `bare`: a fence without a language tag, of that character. `alone`: it could stand in a fence of requests alone.
type Line = {
  start: number;
  end: number;
  next: number;
  number: number;
  joined: boolean;
  role: 'request' | 'body' | 'attempt' | 'fence' | 'other';
  closes: 'no' | 'end' | 'end after a fence';
  bare: '`' | '~' | undefined;
  alone: boolean;
};

// From each line on (the line itself included): the next END marker, the next END right after a bare fence, the next
// bare fence of each character; and how many lines before it could not stand in a fence of requests alone.
type Ahead = {
  end: Int32Array;
  fencedEnd: Int32Array;
  backtick: Int32Array;
  tilde: Int32Array;
  notAloneBefore: Int32Array;
};

function parse(text: string, spans: Span[] | undefined): Reply {
  const lines = markupLines(text);
  const ahead = lookAhead(lines);
  const blocks: Block[] = [];
  const unclear: Unclear[] = [];
  const slips: Slip[] = [];
  const lineText = (i: number) => {
    const line = lines[i];
    return line === undefined ? '' : text.slice(line.start, line.end);
  };
  // The state: outside, or in a fence from line `start` to its closing line `end`; `quoted` when it holds anything
  // but requests.
  let fence: { start: number; end: number; quoted: boolean } | undefined;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === undefined) break;
    if (fence !== undefined && i >= fence.end) {
      const closing = i === fence.end;
      fence = undefined;
      if (closing) continue;
    }
    if (line.role === 'fence') {
      if (fence === undefined) fence = fenceFrom(i, fenceOf(lineText(i)), lines, ahead);
      continue;
    }
    if (line.role === 'request' || line.role === 'attempt') {
      if (fence?.quoted === true) continue;
      const read = readLine(lineText(i), line);
      if (read.kind === 'request') blocks.push(read.request);
      else if (read.kind === 'slip') {
        blocks.push(...read.requests);
        slips.push(read.slip);
      } else unclear.push(read.unclear);
      continue;
    }
    if (line.role !== 'body') continue;
    const marker = markerOf(lineText(i));
    if (marker === undefined) continue;
    const body = bodyAfter(text, lines, ahead, i);
    const path = tidyPath(marker.payload);
    const block: Proposal =
      marker.keyword === 'edit'
        ? { kind: 'edit', path, ...editPairs(body.content), complete: body.complete, line: line.number }
        : { kind: 'file', path, content: withoutLineNumbers(body.content), complete: body.complete, line: line.number };
    blocks.push(block);
    // A fence around the whole block (opened right before the marker, closed right after END) belongs to it.
    const wrapped =
      fence !== undefined &&
      fence.start === i - 1 &&
      fence.end === body.endLine + 1 &&
      line.joined &&
      lines[fence.end]?.joined === true;
    const from = wrapped && fence !== undefined ? fence.start : i;
    const last = wrapped && fence !== undefined ? fence.end : body.endLine;
    spans?.push({ block, from: lines[from]?.start ?? 0, to: lines[last]?.next ?? text.length });
    i = last;
    if (wrapped) fence = undefined;
  }

  return {
    blocks,
    requests: blocks.filter((b): b is Request => b.kind !== 'file' && b.kind !== 'edit'),
    files: blocks.filter((b): b is FileBlock => b.kind === 'file'),
    edits: blocks.filter((b): b is EditBlock => b.kind === 'edit'),
    proposals: blocks.filter((b): b is Proposal => b.kind === 'file' || b.kind === 'edit'),
    unclear,
    slips,
  };
}

type Read =
  | { kind: 'request'; request: Request }
  | { kind: 'slip'; requests: Request[]; slip: Slip }
  | { kind: 'unclear'; unclear: Unclear };

// A request line read into its request; or, for a line that means requests and is not written as them, the requests
// it says exactly (a slip), else what is wrong with it and the requests it should have been.
function readLine(text: string, line: Line): Read {
  const marker = line.role === 'request' ? markerOf(text) : undefined;
  const request = marker === undefined ? undefined : requestOf(marker.keyword, marker.payload, line.number);
  if (request !== undefined) return { kind: 'request', request };
  const attempt = attemptOf(text) ?? {
    meant: [{ keyword: marker?.keyword ?? '', payload: '' }],
    problem: 'it asks for nothing',
    exact: false,
  };
  const requests: Request[] = [];
  for (const { keyword, payload } of attempt.meant) {
    const meant = requestOf(keyword, payload, line.number);
    if (meant !== undefined) requests.push(meant);
  }
  const read = requests.length === attempt.meant.length ? requests.map(requestLine) : undefined;
  const said = { line: line.number, text: text.trim(), problem: attempt.problem };
  if (attempt.exact && read !== undefined) return { kind: 'slip', requests, slip: { ...said, read } };
  return { kind: 'unclear', unclear: { ...said, fix: read?.join('\n') } };
}

function requestOf(keyword: string, payload: string, line: number): Request | undefined {
  return isRequestKind(keyword) ? kindOf(keyword).read(payload, line) : undefined;
}

// The fence a fence line opens: up to the next bare fence of its character. None when it never closes.
function fenceFrom(
  i: number,
  opener: Fence | undefined,
  lines: readonly Line[],
  ahead: Ahead,
): { start: number; end: number; quoted: boolean } | undefined {
  if (opener === undefined) return undefined;
  const end = (opener.char === '`' ? ahead.backtick : ahead.tilde)[i + 1] ?? -1;
  if (end === -1) return undefined;
  const notAlone = (ahead.notAloneBefore[end] ?? 0) - (ahead.notAloneBefore[i + 1] ?? 0);
  return { start: i, end, quoted: notAlone > 0 || lines[end]?.joined !== true };
}

// The lines whose first non-blank character can start markup: = * _ ` ~ - + # > < [ { or a digit, or a request keyword
// in capitals with a colon (the bare form of an attempted request, `NEED: a.js`). A line behind a quote mark counts
// only as a request or an attempt at one, and only in a blockquote (the lines from a quote mark to the next line
// without one) that holds nothing else: the rest of a blockquote is prose, and one that holds prose a sample.
function markupLines(text: string): Line[] {
  const lines: Line[] = [];
  let number = 0;
  let onlyBlankSince = true;
  let previousBareFence = false;
  // The blockquote being read: where its lines start in `lines`, and whether it holds anything but requests.
  let quote: { from: number; sample: boolean } | undefined;
  for (let start = 0; start < text.length; ) {
    number++;
    const nl = text.indexOf('\n', start);
    const next = nl === -1 ? text.length : nl + 1;
    const lineEnd = nl === -1 ? text.length : nl;
    const end = lineEnd > start && text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd;
    const lead = firstNonBlank(text, start, end);
    const quoted = lead !== -1 && text[lead] === '>';
    if (quote !== undefined && !quoted) {
      endBlockquote(lines, quote);
      quote = undefined;
    }
    if (quoted) quote ??= { from: lines.length, sample: false };
    const line: Line | undefined =
      lead !== -1 && mayBeMarkup(text, lead)
        ? classify(
            text.slice(start, end),
            { start, end, next, number, joined: onlyBlankSince },
            previousBareFence && onlyBlankSince,
          )
        : undefined;
    if (quote !== undefined && line?.role !== 'request' && line?.role !== 'attempt') {
      if (!quoteMarksOnly(text, lead, end)) quote.sample = true;
      onlyBlankSince = false;
      previousBareFence = false;
    } else if (line !== undefined) {
      lines.push(line);
      previousBareFence = line.bare !== undefined;
      onlyBlankSince = true;
    } else if (lead !== -1) {
      onlyBlankSince = false;
      previousBareFence = false;
    }
    start = next;
  }
  if (quote !== undefined) endBlockquote(lines, quote);
  return lines;
}

// Ends a blockquote, whose lines are the last of `lines`: the requests in one that holds anything else are quoted, not
// asked.
function endBlockquote(lines: readonly Line[], quote: { from: number; sample: boolean }): void {
  if (!quote.sample) return;
  for (const line of lines.slice(quote.from)) {
    line.role = 'other';
    line.alone = false;
  }
}

// `>` and `> >`: an empty line of a blockquote.
function quoteMarksOnly(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text[i] !== '>' && text[i] !== ' ' && text[i] !== '\t') return false;
  return true;
}

// What a markup line is; `afterBareFence`: it comes right after a bare fence.
function classify(
  text: string,
  place: Pick<Line, 'start' | 'end' | 'next' | 'number' | 'joined'>,
  afterBareFence: boolean,
): Line {
  const marker = markerOf(text);
  const fence = marker === undefined ? fenceOf(text) : undefined;
  let role: Line['role'] = 'other';
  if (marker !== undefined && !marker.quoted && (marker.keyword === 'file' || marker.keyword === 'edit')) role = 'body';
  else if (fence !== undefined) role = 'fence';
  else if (attemptOf(text) !== undefined) role = 'attempt';
  else if (marker !== undefined && isRequestKind(marker.keyword)) role = 'request';
  const closes = marker?.keyword !== 'end' || marker.quoted ? 'no' : afterBareFence ? 'end after a fence' : 'end';
  const bare = fence !== undefined && fence.info === '' ? fence.char : undefined;
  // Written out field by field: a spread of `place` here took a third of a 10 MB reply's parse (V8 clones it slowly).
  return {
    start: place.start,
    end: place.end,
    next: place.next,
    number: place.number,
    joined: place.joined,
    role,
    closes,
    bare,
    alone: (role === 'request' || role === 'attempt') && place.joined,
  };
}

function lookAhead(lines: readonly Line[]): Ahead {
  const n = lines.length;
  // Typed arrays, not arrays of numbers: outside the heap the collector walks, and filled from the end without holes to
  // check. On 4 MB replies of many markup lines (600,000 fence lines), the whole parse 8-14% faster (medians of 9,
  // alternated; issue 30).
  const ahead: Ahead = {
    end: new Int32Array(n + 1),
    fencedEnd: new Int32Array(n + 1),
    backtick: new Int32Array(n + 1),
    tilde: new Int32Array(n + 1),
    notAloneBefore: new Int32Array(n + 1),
  };
  ahead.end[n] = ahead.fencedEnd[n] = ahead.backtick[n] = ahead.tilde[n] = -1;
  for (let i = n - 1; i >= 0; i--) {
    const line = lines[i];
    ahead.end[i] = line?.closes !== 'no' ? i : (ahead.end[i + 1] ?? -1);
    ahead.fencedEnd[i] = line?.closes === 'end after a fence' ? i : (ahead.fencedEnd[i + 1] ?? -1);
    ahead.backtick[i] = line?.bare === '`' ? i : (ahead.backtick[i + 1] ?? -1);
    ahead.tilde[i] = line?.bare === '~' ? i : (ahead.tilde[i + 1] ?? -1);
  }
  ahead.notAloneBefore[0] = 0;
  lines.forEach((line, i) => {
    ahead.notAloneBefore[i + 1] = (ahead.notAloneBefore[i] ?? 0) + (line.alone ? 0 : 1);
  });
  return ahead;
}

function firstNonBlank(text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const c = text[i];
    if (c !== ' ' && c !== '\t' && c !== '\r' && c !== '\v' && c !== '\f') return i;
  }
  return -1;
}

const MARKUP_LEADS = new Set('=*_`~-+#><[{0123456789');
const BARE_KEYWORDS = requestKinds.map((k) => `${kindOf(k).keyword}:`);

function mayBeMarkup(text: string, at: number): boolean {
  return MARKUP_LEADS.has(text[at] ?? '') || BARE_KEYWORDS.some((k) => text.startsWith(k, at));
}

type Body = { content: string; complete: boolean; endLine: number };

// The content of a FILE or EDIT block whose marker is markup line `at`. When the content starts with a markdown
// fence, the block ends at the first END right after a closing fence, so a fenced file may itself contain END lines (a
// file describing this protocol); without such an END it falls back to the first END. One fence wrapping the whole
// content is removed.
function bodyAfter(text: string, lines: readonly Line[], ahead: Ahead, at: number): Body {
  const first = at + 1;
  const opener =
    lines[first]?.joined === true ? fenceOf(text.slice(lines[first]?.start, lines[first]?.end)) : undefined;
  let end = ahead.end[first] ?? -1;
  if (opener !== undefined) {
    const fenced = ahead.fencedEnd[first] ?? -1;
    if (fenced !== -1) end = fenced;
  }
  const complete = end !== -1;
  const endLine = complete ? end : lines.length;
  const contentEnd = complete ? (lines[end]?.start ?? text.length) : text.length;
  const plainStart = lines[at]?.next ?? text.length;
  if (opener === undefined) return { content: text.slice(plainStart, contentEnd), complete, endLine };
  const innerStart = lines[first]?.next ?? text.length;
  const closer = closingFence(text, lines, opener, first, endLine);
  const innerEnd = closer === -1 ? contentEnd : (lines[closer]?.start ?? contentEnd);
  return { content: text.slice(innerStart, Math.max(innerStart, innerEnd)), complete, endLine };
}

// The markup line right before `endLine` (only blank lines between) when it closes `opener`'s fence, else -1.
function closingFence(text: string, lines: readonly Line[], opener: Fence, first: number, endLine: number): number {
  const i = endLine - 1;
  const line = lines[i];
  if (i <= first || line === undefined) return -1;
  if (endLine < lines.length && lines[endLine]?.joined !== true) return -1;
  if (endLine === lines.length && text.slice(line.next).trim() !== '') return -1;
  const fence = fenceOf(text.slice(line.start, line.end));
  const closes =
    fence !== undefined && fence.info === '' && fence.char === opener.char && fence.length >= opener.length;
  return closes ? i : -1;
}
