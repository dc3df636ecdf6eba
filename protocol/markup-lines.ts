// The first of the parser's passes (protocol/parse.ts): which lines of a reply can matter and what each is — a request
// marker, a FILE or EDIT marker, an attempt at a request, a fence, an END — and where it stands. Prose lines are passed
// over and leave no trace.

import { attemptOf, fenceOf, markerOf } from './markers.ts';
import { isRequestKind, kindOf, requestKinds } from './requests.ts';

// The lines that can matter, a field per array. `start`/`end`: a line's text (without the line end); `next`: where the
// next line starts; `joined`: only blank lines stand between it and the markup line before it. `role`: a request
// marker, a FILE or EDIT marker, an attempt at a request, a fence, or anything else. `closes`: an END marker, or one
// right after a bare fence. `bare`: a fence without a language tag, of that character. `alone`: it could stand in a
// fence of requests alone.
// Typed arrays rather than an object per line: a 4 MB reply of fences and END lines has 400,000 of them, and objects
// that all live to the end of the parse were copied by every scavenge and grew the heap, so that twice the input took
// 2.3x the time (issue 30's adversarial row).
export const ROLE = { other: 0, request: 1, body: 2, attempt: 3, fence: 4 } as const;
export const CLOSES = { no: 0, end: 1, afterFence: 2 } as const;
export const BARE = { none: 0, backtick: 1, tilde: 2 } as const;
type Role = (typeof ROLE)[keyof typeof ROLE];
type Closes = (typeof CLOSES)[keyof typeof CLOSES];
type Bare = (typeof BARE)[keyof typeof BARE];

// What classify says of one line.
type Kind = { role: Role; closes: Closes; bare: Bare };

export class Lines {
  length = 0;
  start = new Int32Array(64);
  end = new Int32Array(64);
  next = new Int32Array(64);
  number = new Int32Array(64);
  joined = new Uint8Array(64);
  role = new Uint8Array(64);
  closes = new Uint8Array(64);
  bare = new Uint8Array(64);

  push(start: number, end: number, next: number, number: number, joined: boolean, kind: Kind): void {
    if (this.length === this.start.length) this.grow();
    const i = this.length++;
    this.start[i] = start;
    this.end[i] = end;
    this.next[i] = next;
    this.number[i] = number;
    this.joined[i] = joined ? 1 : 0;
    this.role[i] = kind.role;
    this.closes[i] = kind.closes;
    this.bare[i] = kind.bare;
  }

  // Line `i`'s text.
  text(reply: string, i: number): string {
    return i >= 0 && i < this.length ? reply.slice(this.start[i], this.end[i]) : '';
  }

  // Where line `i` starts, and where the line after it does; `otherwise` past the last line.
  startOf(i: number, otherwise: number): number {
    return i >= 0 && i < this.length ? (this.start[i] ?? otherwise) : otherwise;
  }

  nextOf(i: number, otherwise: number): number {
    return i >= 0 && i < this.length ? (this.next[i] ?? otherwise) : otherwise;
  }

  // Line `i` is there, with only blank lines between it and the markup line before it.
  isJoined(i: number): boolean {
    return i >= 0 && i < this.length && this.joined[i] === 1;
  }

  // Line `i` could stand in a fence of requests alone.
  alone(i: number): boolean {
    const role = this.role[i];
    return (role === ROLE.request || role === ROLE.attempt) && this.joined[i] === 1;
  }

  // Emptied for the next reply.
  reset(): this {
    this.length = 0;
    return this;
  }

  // Arrays grown past KEPT_LINES given back; whether there were any.
  shrink(): boolean {
    const grown = this.start.length > KEPT_LINES;
    if (grown) this.resize(64, false);
    return grown;
  }

  private grow(): void {
    this.resize(this.start.length * 2, true);
  }

  // Arrays of `size` lines, holding what these hold when `keep`.
  private resize(size: number, keep: boolean): void {
    const sized = <T extends Int32Array | Uint8Array>(fresh: T, from: T): T => {
      if (keep) fresh.set(from);
      return fresh;
    };
    this.start = sized(new Int32Array(size), this.start);
    this.end = sized(new Int32Array(size), this.end);
    this.next = sized(new Int32Array(size), this.next);
    this.number = sized(new Int32Array(size), this.number);
    this.joined = sized(new Uint8Array(size), this.joined);
    this.role = sized(new Uint8Array(size), this.role);
    this.closes = sized(new Uint8Array(size), this.closes);
    this.bare = sized(new Uint8Array(size), this.bare);
  }
}

// The lines of every reply are read into one Lines, its arrays kept from one reply to the next (a parse runs from start
// to end in one go and keeps nothing of them); past KEPT_LINES (about 1.2 MB; a 10 MB reply of prose and code has
// 17,000 markup lines) only until the parser gives them back (protocol/parse.ts). Kept for its shape too: optimized code
// holds a class's shape weakly, and once no Lines outlived a collection every function that reads one was thrown out
// to be optimized again (47 deoptimizations in 15 parses of a 10 MB reply with a collection between, each parse
// 1.3-1.6x as slow).
export const KEPT_LINES = 1 << 16;
const reused = new Lines();

// Gives back the arrays grown past KEPT_LINES; whether there were any.
export function shrinkLines(): boolean {
  return reused.shrink();
}

// The lines whose first non-blank character can start markup: = * _ ` ~ - + # > < [ { or a digit, or a request keyword
// in capitals with a colon (the bare form of an attempted request, `NEED: a.js`). A line behind a quote mark counts
// only as a request or an attempt at one, and only in a blockquote (the lines from a quote mark to the next line
// without one) that holds nothing else: the rest of a blockquote is prose, and one that holds prose a sample. The Lines
// returned is the one every call fills again: read it before the next.
export function markupLines(text: string): Lines {
  const lines = reused.reset();
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
    const kind: Kind | undefined =
      lead !== -1 && mayBeMarkup(text, lead)
        ? classify(text.slice(start, end), previousBareFence && onlyBlankSince)
        : undefined;
    if (quote !== undefined && kind?.role !== ROLE.request && kind?.role !== ROLE.attempt) {
      if (!quoteMarksOnly(text, lead, end)) quote.sample = true;
      onlyBlankSince = false;
      previousBareFence = false;
    } else if (kind !== undefined) {
      lines.push(start, end, next, number, onlyBlankSince, kind);
      previousBareFence = kind.bare !== BARE.none;
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
function endBlockquote(lines: Lines, quote: { from: number; sample: boolean }): void {
  if (!quote.sample) return;
  lines.role.fill(ROLE.other, quote.from, lines.length);
}

// `>` and `> >`: an empty line of a blockquote.
function quoteMarksOnly(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text[i] !== '>' && text[i] !== ' ' && text[i] !== '\t') return false;
  return true;
}

// What a markup line is; `afterBareFence`: it comes right after a bare fence.
function classify(text: string, afterBareFence: boolean): Kind {
  const marker = markerOf(text);
  const fence = marker === undefined ? fenceOf(text) : undefined;
  let role: Role = ROLE.other;
  if (marker !== undefined && !marker.quoted && (marker.keyword === 'file' || marker.keyword === 'edit')) {
    role = ROLE.body;
  } else if (fence !== undefined) role = ROLE.fence;
  else if (attemptOf(text) !== undefined) role = ROLE.attempt;
  else if (marker !== undefined && isRequestKind(marker.keyword)) role = ROLE.request;
  const closes =
    marker?.keyword !== 'end' || marker.quoted ? CLOSES.no : afterBareFence ? CLOSES.afterFence : CLOSES.end;
  const bare = fence === undefined || fence.info !== '' ? BARE.none : fence.char === '`' ? BARE.backtick : BARE.tilde;
  return { role, closes, bare };
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
