// A replaced file keeps its conventions (line ends, BOM, final newline), and a proposal that elides code with a
// placeholder is caught before it deletes anything (protocol/elision.ts says what looks elided).

export { elisionOf } from '../protocol/elision.ts';

const BOM = '\uFEFF';

// The proposed text adjusted to the old file's conventions: CRLF stays CRLF, a BOM stays, a final newline stays as
// it was (present or absent).
export function keepConventions(old: string, proposed: string): string {
  let text = proposed;
  const oldBody = old.startsWith(BOM) ? old.slice(1) : old;
  if (text.startsWith(BOM)) text = text.slice(1);
  if (usesCrlf(oldBody)) text = text.replace(/\r?\n/g, '\r\n');
  const newline = usesCrlf(oldBody) ? '\r\n' : '\n';
  if (oldBody !== '') {
    const oldEnds = oldBody.endsWith('\n');
    if (oldEnds && !text.endsWith('\n') && text !== '') text += newline;
    if (!oldEnds) text = text.replace(/\r?\n$/, '');
  }
  return old.startsWith(BOM) ? BOM + text : text;
}

// Most line ends are CRLF.
function usesCrlf(text: string): boolean {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf;
}
