// Reads a model's reply into request blocks and proposed files.
//
// In three plain passes over the lines that can matter (those whose first character can start a marker or a fence;
// prose lines are passed over and leave no trace): what each line is (protocol/markup-lines.ts); then, from the bottom
// up, where the next END line and the next bare fence stand from each line; then the reply read from the top with an
// explicit state, outside or in a fence. Every line is looked at a constant number of times and nothing backtracks, so
// a reply of any shape parses in time linear in its length (test/parse.test.ts holds it to that).
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
import { BARE, CLOSES, KEPT_LINES, type Lines, markupLines, ROLE, shrinkLines } from './markup-lines.ts';
import { isRequestKind, kindOf, requestLine, type Request } from './requests.ts';
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
  clearTimeout(giveBack);
  const lines = markupLines(text);
  const ahead = lookAhead(lines);
  // What grew past its kept size is given back once no reply has come for a while: a reply of many markup lines after
  // another reuses what the first grew (fresh memory cost a 4 MB reply of unclosed fences as much again per page as
  // a 0.5 MB one, its parse 2.23-2.25x the time for twice the input; reused, 2.05-2.11x).
  if (lines.start.length > KEPT_LINES || kept.end.length > KEPT_LINES + 1) {
    giveBack = setTimeout(() => {
      shrinkLines();
      kept = { ...small };
    }, GIVE_BACK_MS);
    giveBack.unref();
  }
  const blocks: Block[] = [];
  const unclear: Unclear[] = [];
  const slips: Slip[] = [];
  const lineText = (i: number) => lines.text(text, i);
  // The state: outside, or in a fence from line `start` to its closing line `end`; `quoted` when it holds anything
  // but requests.
  let fence: { start: number; end: number; quoted: boolean } | undefined;

  for (let i = 0; i < lines.length; i++) {
    if (fence !== undefined && i >= fence.end) {
      const closing = i === fence.end;
      fence = undefined;
      if (closing) continue;
    }
    const role = lines.role[i];
    if (role === ROLE.fence) {
      if (fence === undefined) fence = fenceFrom(i, fenceOf(lineText(i)), lines, ahead);
      continue;
    }
    if (role === ROLE.request || role === ROLE.attempt) {
      if (fence?.quoted === true) continue;
      const read = readLine(lineText(i), role, lines.number[i] ?? 0);
      if (read.kind === 'request') blocks.push(read.request);
      else if (read.kind === 'slip') {
        blocks.push(...read.requests);
        slips.push(read.slip);
      } else unclear.push(read.unclear);
      continue;
    }
    if (role !== ROLE.body) continue;
    const number = lines.number[i] ?? 0;
    const marker = markerOf(lineText(i));
    if (marker === undefined) continue;
    const body = bodyAfter(text, lines, ahead, i);
    const path = tidyPath(marker.payload);
    const block: Proposal =
      marker.keyword === 'edit'
        ? { kind: 'edit', path, ...editPairs(body.content), complete: body.complete, line: number }
        : { kind: 'file', path, content: withoutLineNumbers(body.content), complete: body.complete, line: number };
    blocks.push(block);
    // A fence around the whole block (opened right before the marker, closed right after END) belongs to it.
    const wrapped =
      fence !== undefined &&
      fence.start === i - 1 &&
      fence.end === body.endLine + 1 &&
      lines.isJoined(i) &&
      lines.isJoined(fence.end);
    const from = wrapped && fence !== undefined ? fence.start : i;
    const last = wrapped && fence !== undefined ? fence.end : body.endLine;
    spans?.push({ block, from: lines.startOf(from, 0), to: lines.nextOf(last, text.length) });
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
function readLine(text: string, role: number, number: number): Read {
  const marker = role === ROLE.request ? markerOf(text) : undefined;
  const request = marker === undefined ? undefined : requestOf(marker.keyword, marker.payload, number);
  if (request !== undefined) return { kind: 'request', request };
  const attempt = attemptOf(text) ?? {
    meant: [{ keyword: marker?.keyword ?? '', payload: '' }],
    problem: 'it asks for nothing',
    exact: false,
  };
  const requests: Request[] = [];
  for (const { keyword, payload } of attempt.meant) {
    const meant = requestOf(keyword, payload, number);
    if (meant !== undefined) requests.push(meant);
  }
  const read = requests.length === attempt.meant.length ? requests.map(requestLine) : undefined;
  const said = { line: number, text: text.trim(), problem: attempt.problem };
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
  lines: Lines,
  ahead: Ahead,
): { start: number; end: number; quoted: boolean } | undefined {
  if (opener === undefined) return undefined;
  const end = (opener.char === '`' ? ahead.backtick : ahead.tilde)[i + 1] ?? -1;
  if (end === -1) return undefined;
  const notAlone = (ahead.notAloneBefore[end] ?? 0) - (ahead.notAloneBefore[i + 1] ?? 0);
  return { start: i, end, quoted: notAlone > 0 || !lines.isJoined(end) };
}

// The look-ahead's tables, kept from one reply to the next as the lines are (protocol/markup-lines.ts), and how long
// after a reply of more than KEPT_LINES markup lines they and the lines' arrays are given back.
const small: Ahead = {
  end: new Int32Array(64),
  fencedEnd: new Int32Array(64),
  backtick: new Int32Array(64),
  tilde: new Int32Array(64),
  notAloneBefore: new Int32Array(64),
};
let kept: Ahead = { ...small };
const GIVE_BACK_MS = 1_000;
let giveBack: NodeJS.Timeout | undefined;

function lookAhead(lines: Lines): Ahead {
  const n = lines.length;
  // Typed arrays, not arrays of numbers: outside the heap the collector walks, and filled from the end without holes to
  // check. On 4 MB replies of many markup lines (600,000 fence lines), the whole parse 8-14% faster (medians of 9,
  // alternated; issue 30). Only the first n + 1 of each are written and read.
  if (kept.end.length < n + 1) {
    const size = Math.max(n + 1, kept.end.length * 2);
    kept = {
      end: new Int32Array(size),
      fencedEnd: new Int32Array(size),
      backtick: new Int32Array(size),
      tilde: new Int32Array(size),
      notAloneBefore: new Int32Array(size),
    };
  }
  const ahead = kept;
  ahead.end[n] = ahead.fencedEnd[n] = ahead.backtick[n] = ahead.tilde[n] = -1;
  for (let i = n - 1; i >= 0; i--) {
    const closes = lines.closes[i];
    const bare = lines.bare[i];
    ahead.end[i] = closes !== CLOSES.no ? i : (ahead.end[i + 1] ?? -1);
    ahead.fencedEnd[i] = closes === CLOSES.afterFence ? i : (ahead.fencedEnd[i + 1] ?? -1);
    ahead.backtick[i] = bare === BARE.backtick ? i : (ahead.backtick[i + 1] ?? -1);
    ahead.tilde[i] = bare === BARE.tilde ? i : (ahead.tilde[i + 1] ?? -1);
  }
  ahead.notAloneBefore[0] = 0;
  for (let i = 0; i < n; i++) ahead.notAloneBefore[i + 1] = (ahead.notAloneBefore[i] ?? 0) + (lines.alone(i) ? 0 : 1);
  return ahead;
}

type Body = { content: string; complete: boolean; endLine: number };

// The content of a FILE or EDIT block whose marker is markup line `at`. When the content starts with a markdown
// fence, the block ends at the first END right after a closing fence, so a fenced file may itself contain END lines (a
// file describing this protocol); without such an END it falls back to the first END. One fence wrapping the whole
// content is removed.
function bodyAfter(text: string, lines: Lines, ahead: Ahead, at: number): Body {
  const first = at + 1;
  const opener = lines.isJoined(first) ? fenceOf(lines.text(text, first)) : undefined;
  let end = ahead.end[first] ?? -1;
  if (opener !== undefined) {
    const fenced = ahead.fencedEnd[first] ?? -1;
    if (fenced !== -1) end = fenced;
  }
  const complete = end !== -1;
  const endLine = complete ? end : lines.length;
  const contentEnd = complete ? lines.startOf(end, text.length) : text.length;
  const plainStart = lines.nextOf(at, text.length);
  if (opener === undefined) return { content: text.slice(plainStart, contentEnd), complete, endLine };
  const innerStart = lines.nextOf(first, text.length);
  const closer = closingFence(text, lines, opener, first, endLine);
  const innerEnd = closer === -1 ? contentEnd : lines.startOf(closer, contentEnd);
  return { content: text.slice(innerStart, Math.max(innerStart, innerEnd)), complete, endLine };
}

// The markup line right before `endLine` (only blank lines between) when it closes `opener`'s fence, else -1.
function closingFence(text: string, lines: Lines, opener: Fence, first: number, endLine: number): number {
  const i = endLine - 1;
  if (i <= first || i >= lines.length) return -1;
  if (endLine < lines.length && !lines.isJoined(endLine)) return -1;
  if (endLine === lines.length && text.slice(lines.nextOf(i, text.length)).trim() !== '') return -1;
  const fence = fenceOf(lines.text(text, i));
  const closes =
    fence !== undefined && fence.info === '' && fence.char === opener.char && fence.length >= opener.length;
  return closes ? i : -1;
}
