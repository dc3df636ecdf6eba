// Small text measures shared by the parser's users.

// Lines in a text: a last line without a newline counts, an empty text has none.
export function countLines(text: string): number {
  let n = text === '' || text.endsWith('\n') ? 0 : 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

// 12,345 for 12345: what toLocaleString('en-US') gives, without the cost of asking ICU for every number of a tree.
export function formatCount(n: number): string {
  const digits = String(Math.trunc(Math.abs(n)));
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? `-${out}` : out;
}
