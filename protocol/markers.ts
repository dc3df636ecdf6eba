// Recognises the one-line shapes of the protocol: block markers (`=== NEED: a.js ===`) and markdown fences.
// Each function looks at one line a constant number of times; nothing here can backtrack.

import { kindOf, requestKinds, synonyms } from './requests.ts';

// A block's keyword and what follows it: `need` and `a.js` in `=== NEED: a.js ===`.
export type Said = { keyword: string; payload: string };
// A marker line. `quoted`: it stands behind a quote mark (`> === NEED: a.js ===`), which a request may, and a FILE,
// EDIT or END line may not (its body would be quoted too).
export type Marker = Said & { quoted: boolean };
// A line that tries to be a request and is not one. `meant`: the blocks it means, in order, each keyword the request it
// means (need, list, find) or, for a request deepwork does not have, what the model wrote (run); `problem`: what is
// wrong. `exact`: it says exactly which requests it means, so they are answered like any other and the model is told how
// the line was read (issue 25: a step is not lost to a slip deepwork can read). Not exact: a command, an empty
// payload, text after a closing run, prose between markers, a keyword without its colon (`=== Open questions ===` is
// a heading more likely than a request).
export type Attempt = { meant: Said[]; problem: string; exact: boolean };
export type Fence = { char: '`' | '~'; length: number; info: string };

const MIN_RUN = 3;
// Layers of decoration taken off a line: `> - **`x`**` is four.
const LAYERS = 8;

// A marker line, as chat models really write it: `- **=== need: a.js ====**`, `` `=== FIND: x ===` ``,
// `### === LIST: * ===`, `> 1. === NEED: a.js ===`. A marker in the middle of a sentence is not one: the line must
// consist of the marker and its decoration alone.
export function markerOf(line: string): Marker | undefined {
  if (line.trim().length < 2 * MIN_RUN) return undefined;
  const { s, quoted } = undecorated(line);
  const lead = runLength(s, 0, '=');
  if (lead < MIN_RUN || lead === s.length) return undefined;
  let end = s.length;
  let trail = 0;
  while (end > lead && s.charCodeAt(end - 1) === 61 /* = */) {
    end--;
    trail++;
  }
  if (trail < MIN_RUN) return undefined;

  const inner = s.slice(lead, end).trim();
  let k = 0;
  while (k < inner.length && isLetter(inner.charCodeAt(k))) k++;
  if (k === 0) return undefined;
  const keyword = inner.slice(0, k).toLowerCase();
  let rest = inner.slice(k);
  if (rest !== '' && !rest.startsWith(':') && !/^\s/.test(rest)) return undefined;
  rest = rest.trim();
  if (rest.startsWith(':')) rest = rest.slice(1).trim();
  if (keyword === 'end')
    return rest === '' || rest.toLowerCase() === 'file' ? { keyword, payload: '', quoted } : undefined;
  return { keyword, payload: rest, quoted };
}

// Words models use for the requests, mapped to the one deepwork has (each kind names its own, protocol/kinds/); and
// requests it has on purpose not.
const COMMANDS = new Set(['run', 'exec', 'shell', 'cmd', 'bash', 'execute', 'write', 'delete']);
const REQUESTS: ReadonlySet<string> = new Set(requestKinds);
const KEYWORDS = requestKinds.map((k) => kindOf(k).keyword).join(', ');

// A line that means a request but is not written as one: `=== NEED: a.js` (no closing run), `== LIST: * ==`,
// `NEED: a.js`, `**NEED:** a.js`, `<NEED: a.js>`, `### FIND: x`, `=== READ: a.js ===`, `=== FIND:  ===`, and two or
// more markers on one line. Prose is not an attempt: bare keywords count only in capitals and with a colon right after.
// Call it on lines that are not markers of a known kind.
export function attemptOf(line: string): Attempt | undefined {
  if (line.trim().length < 4) return undefined;
  const { s } = undecorated(line);
  const c = s[0];
  if (c === '=') return equalsAttempt(s);
  if (c === '<' || c === '[' || c === '{') {
    const close = c === '<' ? '>' : c === '[' ? ']' : '}';
    if (!s.endsWith(close)) return undefined;
    const inner = keywordAt(s.slice(1, -1).trim(), false);
    return inner === undefined ? undefined : attempt([inner], `it is in ${c}${close} instead of === markers`, true);
  }
  const bare = keywordAt(withoutEmphasisLead(s), true);
  if (bare === undefined) return undefined;
  // `NEED: a.js ===`: only the opening run is missing.
  const payload =
    runBefore(bare.payload, bare.payload.length, '=') >= MIN_RUN ? withoutTrailing(bare.payload, '=') : bare.payload;
  return attempt([{ ...bare, payload }], 'it has no === markers around it', true);
}

// `=== NEED: a.js`, `== NEED: a.js ==`, `=== READ: a.js ===`, `=== FIND:  ===`, `=== LIST: x === === FIND: y ===`.
function equalsAttempt(s: string): Attempt | undefined {
  const lead = runLength(s, 0, '=');
  const trail = runBefore(s, s.length, '=');
  const pieces = piecesOf(s.slice(lead, Math.max(lead, s.length - trail)));
  const found = keywordAt((pieces[0] ?? '').trim(), false);
  if (found === undefined) return undefined;
  if (pieces.length > 1) return crowded(pieces, lead >= MIN_RUN && trail >= MIN_RUN);
  if (trail === 0) {
    // Text after a closing run (`=== NEED: a.js === the loader`, `=== FIND: a === b`) leaves unsure where the request
    // ends: the fix offered ends it at that run.
    const close = found.payload.lastIndexOf('===');
    if (close === -1) return attempt([found], 'it has no closing ===', true);
    const cut = { ...found, payload: withoutTrailing(found.payload.slice(0, close), '=') };
    return attempt([cut], 'text follows its closing ===', false);
  }
  if (lead < MIN_RUN || trail < MIN_RUN) return attempt([found], 'a marker has three or more = on each side', true);
  if (!REQUESTS.has(found.keyword)) return attempt([found], '', true);
  return found.payload === '' ? attempt([found], 'it asks for nothing', false) : undefined;
}

// Several markers on one line, split where each after the first starts (its inner text, the opening run of the first
// and the closing run of the last taken off). Each but the last ends at its own closing run; what stands between that
// and the next may be blanks and decoration (`` `=== FIND: a ===` `=== FIND: b ===` ``), but words between them, or a
// piece with no closing run, leave unsure what was meant.
function crowded(pieces: readonly string[], outerRuns: boolean): Attempt {
  let exact = outerRuns;
  const said = pieces.map((piece, i) => {
    let text = i === 0 ? piece : piece.slice(runLength(piece, 0, '='));
    if (i < pieces.length - 1) {
      const close = text.lastIndexOf('===');
      if (close === -1 || /[\p{L}\p{N}]/u.test(text.slice(close + 3))) exact = false;
      if (close !== -1) text = withoutTrailing(text.slice(0, close + 3), '=');
    }
    return keywordAt(text.trim(), false) ?? { keyword: '', payload: '', colon: false };
  });
  const count = pieces.length === 2 ? 'two' : String(pieces.length);
  return attempt(said, `${count} blocks stand on one line`, exact);
}

// The keyword a text starts with and what follows it; `colon`: a colon followed the keyword. `strict`: only NEED, LIST
// or FIND in capitals, with a colon right after (what prose never starts a line with).
type Found = Said & { colon: boolean };

function keywordAt(s: string, strict: boolean): Found | undefined {
  let k = 0;
  while (k < s.length && k < 10 && isLetter(s.charCodeAt(k))) k++;
  if (k === 0 || k === 10) return undefined;
  const word = s.slice(0, k);
  const keyword = word.toLowerCase();
  if (strict && !(REQUESTS.has(keyword) && word === word.toUpperCase() && s[k] === ':')) return undefined;
  if (!strict && !REQUESTS.has(keyword) && !synonyms.has(keyword) && !COMMANDS.has(keyword)) return undefined;
  let rest = s.slice(k);
  if (rest !== '' && rest[0] !== ':' && rest[0] !== ' ' && rest[0] !== '\t') return undefined;
  rest = rest.trim();
  const colon = rest.startsWith(':');
  if (colon) rest = rest.slice(1).trim();
  // `**NEED:** a.js`: the emphasis closed after the colon (a mask may start with ** itself).
  const close = runLength(rest, 0, rest[0] === '_' ? '_' : '*');
  if (close > 0 && (rest[close] === ' ' || rest[close] === '\t')) rest = rest.slice(close).trim();
  return { keyword, payload: rest, colon };
}

// What is wrong with an attempt, and the requests it means: a synonym is read as the request it names. Exact only when
// every block it means is a request deepwork has, its keyword followed by a colon.
function attempt(said: readonly Found[], problem: string, exact: boolean): Attempt {
  const meant = said.map((s) => ({ keyword: synonyms.get(s.keyword) ?? s.keyword, payload: s.payload }));
  const runs = exact && said.every((s) => s.colon) && meant.every((m) => REQUESTS.has(m.keyword));
  const [only, ...more] = said;
  if (only === undefined || more.length > 0) return { meant, problem, exact: runs };
  const kind = synonyms.get(only.keyword);
  if (kind !== undefined) {
    const word = only.keyword.toUpperCase();
    return { meant, problem: `there is no ${word} request; ${kindOf(kind).keyword} does that`, exact: runs };
  }
  if (COMMANDS.has(only.keyword)) {
    return {
      meant,
      problem: `there is no ${only.keyword.toUpperCase()} request: deepwork only reads (${KEYWORDS}) and proposes changes (FILE, EDIT); it runs nothing`,
      exact: false,
    };
  }
  return { meant, problem, exact: runs };
}

// A marker's inner text cut where each further marker starts (`x === === FIND: y`): the first piece, then each further
// one from its run of =.
function piecesOf(inner: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (let at = nextMarker(inner, 0); at !== -1; at = nextMarker(inner, from + runLength(inner, from, '='))) {
    pieces.push(inner.slice(from, at));
    from = at;
  }
  pieces.push(inner.slice(from));
  return pieces;
}

// Where, from `from` on, the next marker starts in a text (`x === === FIND: y`), or -1. A FIND text may itself hold
// `===` (`a === b`), so only a run of = followed by a keyword (a request's, a word for one, a command, FILE) and a colon
// counts.
function nextMarker(text: string, from: number): number {
  for (let at = text.indexOf('===', from); at !== -1; ) {
    let i = at;
    while (i < text.length && text[i] === '=') i++;
    while (i < text.length && text[i] === ' ') i++;
    let k = i;
    while (k < text.length && k - i < 8 && isLetter(text.charCodeAt(k))) k++;
    const word = text.slice(i, k).toLowerCase();
    while (k < text.length && text[k] === ' ') k++;
    if ((REQUESTS.has(word) || synonyms.has(word) || COMMANDS.has(word) || word === 'file') && text[k] === ':')
      return at;
    at = text.indexOf('===', Math.max(i, at + 3));
  }
  return -1;
}

// `**NEED:** a.js` and `_FIND_: x`: emphasis marks at the start, and right after a colon.
function withoutEmphasisLead(s: string): string {
  let i = 0;
  while (i < s.length && (s[i] === '*' || s[i] === '_' || s[i] === '`')) i++;
  return s.slice(i).trim();
}

// A markdown fence line: three or more backticks or tildes, then an optional info string (a language tag).
export function fenceOf(line: string): Fence | undefined {
  const s = line.trim();
  const first = s[0];
  if (first !== '`' && first !== '~') return undefined;
  const length = runLength(s, 0, first);
  if (length < MIN_RUN) return undefined;
  const info = s.slice(length).trim();
  if (first === '`' && info.includes('`')) return undefined;
  return { char: first, length, info };
}

// A line without what models put around a marker, in any order and nesting, a few layers deep: heading marks
// (`### x ###`), quote marks (`> x`), list markers (`- x`, `1. x`), and **bold**, __bold__, *italic* or `code` wrapped
// around it. `quoted`: a quote mark stood in front. Each layer goes only whole: `` `=== NEED: path ===` is how `` keeps
// its backtick, so a sentence that starts with a quoted marker stays a sentence.
function undecorated(line: string): { s: string; quoted: boolean } {
  let s = line.trim();
  let quoted = false;
  for (let layer = 0; layer < LAYERS; layer++) {
    const c = s[0];
    let next = s;
    if (c === '>') {
      quoted = true;
      next = s.slice(1).trim();
    } else if (c === '#') next = withoutHeading(s);
    else next = withoutListMarker(s);
    if (next === s) next = unwrapped(s);
    if (next === s) break;
    s = next;
  }
  return { s, quoted };
}

// `### x` and `### x ###`.
function withoutHeading(s: string): string {
  const rest = s.slice(runLength(s, 0, '#')).trim();
  const closing = runBefore(rest, rest.length, '#');
  const before = rest[rest.length - closing - 1];
  return closing > 0 && (before === ' ' || before === '\t') ? rest.slice(0, rest.length - closing).trim() : rest;
}

function withoutListMarker(s: string): string {
  const c = s[0];
  if ((c === '-' || c === '*' || c === '+') && (s[1] === ' ' || s[1] === '\t')) return s.slice(2).trim();
  let d = 0;
  while (d < s.length && d < 4 && isDigit(s.charCodeAt(d))) d++;
  if (d > 0 && (s[d] === '.' || s[d] === ')') && (s[d + 1] === ' ' || s[d + 1] === '\t')) return s.slice(d + 2).trim();
  return s;
}

// One layer of **bold**, __bold__, *italic* or `code` around the whole text: the same run on both sides.
function unwrapped(s: string): string {
  const c = s[0];
  if (c !== '*' && c !== '_' && c !== '`') return s;
  const lead = runLength(s, 0, c);
  if (lead * 2 > s.length || runBefore(s, s.length, c) < lead) return s;
  return s.slice(lead, s.length - lead).trim();
}

function withoutTrailing(s: string, char: string): string {
  let end = s.trimEnd().length;
  while (end > 0 && s[end - 1] === char) end--;
  return s.slice(0, end).trim();
}

function runLength(s: string, from: number, char: string): number {
  let i = from;
  while (i < s.length && s[i] === char) i++;
  return i - from;
}

// The run of `char` that ends at `end`.
function runBefore(s: string, end: number, char: string): number {
  let i = end;
  while (i > 0 && s[i - 1] === char) i--;
  return end - i;
}

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
