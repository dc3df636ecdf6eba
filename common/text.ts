// Small text measures shared by the parser's users.

// Lines in a text: a last line without a newline counts, an empty text has none.
export function countLines(text: string): number {
  let n = text === '' || text.endsWith('\n') ? 0 : 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

// 12,345 for 12345: what toLocaleString('en-US') gives, without the cost of asking ICU for every number of a tree.
// `1 hit`, `2 hits`, `1,200 paths`: a count with its noun.
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

export function formatCount(n: number): string {
  const digits = String(Math.trunc(Math.abs(n)));
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? `-${out}` : out;
}

// What a terminal acts on beyond the C0 controls JSON already escapes: DEL, C1 controls (0x9b is CSI), and the
// bidirectional marks and overrides that reorder what is shown.
const BEYOND_C0 = '\\x7f-\\x9f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const TERMINAL_CONTROLS = new RegExp(`[\\x00-\\x08\\x0b-\\x1f${BEYOND_C0}]`, 'g');
export const CONTROLS_JSON_LEAVES = new RegExp(`[${BEYOND_C0}]`, 'g');

// Text from a model or a file, made safe to print on a terminal: control characters that a terminal would act on
// (ESC sequences that clear the screen, set the clipboard through OSC 52 or hide a link through OSC 8, a carriage
// return that overwrites a line, C1 controls, bidirectional overrides that reorder what is shown) are shown as
// visible escapes such as \x1b. Newlines and tabs stay; CRLF line ends become LF.
export function escapeControls(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(TERMINAL_CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

// 850 ms, 4.2 s, 3 min 5 s.
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

// Levenshtein distance, giving up (returning max + 1) once it must exceed `max`.
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > max) return max + 1;
    previous = current;
  }
  return previous[b.length] ?? max + 1;
}

// Text to match literally inside a regular expression.
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Numbers as a list people read: `2`, `1 and 3`, `1, 3 and 5`.
export function listed(numbers: readonly number[]): string {
  const words = numbers.map(String);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1) ?? ''}`;
}
