// Recognises the one-line shapes of the protocol: block markers (`=== NEED: a.js ===`) and markdown fences.
// Each function looks at one line a constant number of times; nothing here can backtrack.

import { kindOf, requestKinds, synonyms } from './requests.ts';

export type Marker = { keyword: string; payload: string };
// A line that tries to be a request and is not one: `keyword` is the request it means (need, list, find) or, for a
// request deepwork does not have, what the model wrote (run); `payload` what it asks for, `problem` what is wrong.
// `rest`: the second block of a line holding two.
export type Attempt = { keyword: string; payload: string; problem: string; rest?: string };
export type Fence = { char: '`' | '~'; length: number; info: string };

const MIN_RUN = 3;

// A marker line, as chat models really write it: `- **=== need: a.js ====**`, `` `=== FIND: x ===` ``, `1. === LIST: * ===`.
// A marker in the middle of a sentence is not one: the line must consist of the marker and its decoration alone.
export function markerOf(line: string): Marker | undefined {
  let s = line.trim();
  if (s.length < 2 * MIN_RUN) return undefined;
  s = withoutListMarker(s);
  s = withoutDecoration(s);
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
  if (keyword === 'end') return rest === '' || rest.toLowerCase() === 'file' ? { keyword, payload: '' } : undefined;
  return { keyword, payload: rest };
}

// Words models use for the requests, mapped to the one deepwork has (each kind names its own, protocol/kinds/); and
// requests it has on purpose not.
const COMMANDS = new Set(['run', 'exec', 'shell', 'cmd', 'bash', 'execute', 'write', 'delete']);
const REQUESTS: ReadonlySet<string> = new Set(requestKinds);
const KEYWORDS = requestKinds.map((k) => kindOf(k).keyword).join(', ');

// A line that means a request but is not written as one: `=== NEED: a.js` (no closing run), `== LIST: * ==`,
// `NEED: a.js`, `**NEED:** a.js`, `<NEED: a.js>`, `### FIND: x`, `=== READ: a.js ===`, `=== FIND:  ===`, and two
// markers on one line. Prose is not an attempt: bare keywords count only in capitals and with a colon right after.
// Call it on lines that are not markers of a known kind.
export function attemptOf(line: string): Attempt | undefined {
  let s = line.trim();
  if (s.length < 4) return undefined;
  s = withoutListMarker(s);
  if (s.startsWith('#')) s = s.slice(runLength(s, 0, '#')).trim();
  s = withoutDecoration(s);
  const c = s[0];
  if (c === '=') return equalsAttempt(s);
  if (c === '<' || c === '[' || c === '{') {
    const close = c === '<' ? '>' : c === '[' ? ']' : '}';
    if (!s.endsWith(close)) return undefined;
    const inner = keywordAt(s.slice(1, -1).trim(), false);
    return inner === undefined ? undefined : attempt(inner, `it is in ${c}${close} instead of === markers`);
  }
  const bare = keywordAt(withoutEmphasisLead(s), true);
  return bare === undefined ? undefined : attempt(bare, 'it has no === markers around it');
}

// `=== NEED: a.js`, `== NEED: a.js ==`, `=== READ: a.js ===`, `=== FIND:  ===`, `=== LIST: x === === FIND: y ===`.
function equalsAttempt(s: string): Attempt | undefined {
  const lead = runLength(s, 0, '=');
  let end = s.length;
  while (end > lead && s.charCodeAt(end - 1) === 61) end--;
  const trail = s.length - end;
  const found = keywordAt(s.slice(lead, end).trim(), false);
  if (found === undefined) return undefined;
  if (lead < MIN_RUN || trail < MIN_RUN) {
    const missing = trail === 0 ? 'it has no closing ===' : 'a marker has three or more = on each side';
    return attempt(found, missing);
  }
  const second = secondMarker(found.payload);
  if (second !== -1) {
    return {
      keyword: found.keyword,
      payload: withoutTrailing(found.payload.slice(0, second), '='),
      problem: 'two blocks stand on one line; each needs a line of its own',
      rest: `${found.payload.slice(second)} ===`,
    };
  }
  if (found.payload === '' && REQUESTS.has(found.keyword)) return { ...found, problem: 'it asks for nothing' };
  return REQUESTS.has(found.keyword) ? undefined : attempt(found, '');
}

// The keyword a text starts with and what follows it. `strict`: only NEED, LIST or FIND in capitals, with a colon
// right after (what prose never starts a line with).
function keywordAt(s: string, strict: boolean): { keyword: string; payload: string } | undefined {
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
  if (rest.startsWith(':')) rest = rest.slice(1).trim();
  // `**NEED:** a.js`: the emphasis closed after the colon (a mask may start with ** itself).
  const close = runLength(rest, 0, rest[0] === '_' ? '_' : '*');
  if (close > 0 && (rest[close] === ' ' || rest[close] === '\t')) rest = rest.slice(close).trim();
  return { keyword, payload: rest };
}

// What is wrong with an attempt, and the request it should have been.
function attempt(found: { keyword: string; payload: string }, problem: string): Attempt {
  const meant = synonyms.get(found.keyword);
  if (meant !== undefined) {
    return {
      keyword: meant,
      payload: found.payload,
      problem: `there is no ${found.keyword.toUpperCase()} request; ${meant.toUpperCase()} does that`,
    };
  }
  if (COMMANDS.has(found.keyword)) {
    return {
      keyword: found.keyword,
      payload: found.payload,
      problem: `there is no ${found.keyword.toUpperCase()} request: deepwork only reads (${KEYWORDS}) and proposes changes (FILE, EDIT); it runs nothing`,
    };
  }
  return { ...found, problem };
}

// Where a second marker starts in a payload (`x === === FIND: y`), or -1. A FIND text may itself hold `===`
// (`a === b`), so only a run of = followed by a request keyword and a colon counts.
function secondMarker(payload: string): number {
  for (let at = payload.indexOf('==='); at !== -1; ) {
    let i = at;
    while (i < payload.length && payload[i] === '=') i++;
    while (i < payload.length && payload[i] === ' ') i++;
    let k = i;
    while (k < payload.length && k - i < 5 && isLetter(payload.charCodeAt(k))) k++;
    const word = payload.slice(i, k).toLowerCase();
    while (k < payload.length && payload[k] === ' ') k++;
    if ((REQUESTS.has(word) || word === 'file') && payload[k] === ':') return at;
    at = payload.indexOf('===', Math.max(i, at + 3));
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

function withoutListMarker(s: string): string {
  const c = s[0];
  if ((c === '-' || c === '*' || c === '+') && (s[1] === ' ' || s[1] === '\t')) return s.slice(2).trim();
  let d = 0;
  while (d < s.length && d < 4 && isDigit(s.charCodeAt(d))) d++;
  if (d > 0 && (s[d] === '.' || s[d] === ')') && (s[d + 1] === ' ' || s[d + 1] === '\t')) return s.slice(d + 2).trim();
  return s;
}

// Strips what a model wraps a marker in: **bold**, __bold__, *italic*, `code`, in any nesting up to a few levels.
function withoutDecoration(s: string): string {
  for (let round = 0; round < 4; round++) {
    const c = s[0];
    if (c !== '*' && c !== '_' && c !== '`') return s;
    const lead = runLength(s, 0, c);
    if (lead * 2 > s.length) return s;
    let trail = 0;
    while (trail < lead && s[s.length - 1 - trail] === c) trail++;
    if (trail !== lead) return s;
    s = s.slice(lead, s.length - lead).trim();
  }
  return s;
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

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
