// Recognises the one-line shapes of the protocol: block markers (`=== NEED: a.js ===`) and markdown fences.
// Each function looks at one line a constant number of times; nothing here can backtrack.

export type Marker = { keyword: string; payload: string };
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
