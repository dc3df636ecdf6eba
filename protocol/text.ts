// Small text measures shared by the parser's users.

// Lines in a text: a last line without a newline counts, an empty text has none.
export function countLines(text: string): number {
  let n = text === '' || text.endsWith('\n') ? 0 : 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
