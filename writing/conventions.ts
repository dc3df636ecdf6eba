// A replaced file keeps its conventions (line ends, BOM, final newline), and a proposal that elides code with a
// placeholder is caught before it deletes anything.

import { countLines } from '../common/text.ts';

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

// Comment openers and closers around a placeholder line.
const COMMENT_START = /^(?:\/\/+|#+|\/\*+|\*+|<!--|--|;+|'|rem\b)\s*/i;
const COMMENT_END = /\s*(?:\*+\/|-->)$/;
const PLACEHOLDER_WORDS =
  /\b(?:rest of|remainder of|unchanged|omitted|as before|same as before|existing (?:code|content|methods|functions|imports|logic|implementation|tests?)|(?:other|remaining|previous) (?:code|methods|functions|imports|lines|content)|code (?:here|remains|continues)|keep (?:the )?(?:rest|existing))\b/i;

// The first line that stands for code left out (`// ... rest of the file unchanged`, `# existing code here`, a lone
// `...`), or undefined. Only comments and bare ellipses count: a `...` spread in code is code.
function placeholderLine(text: string): string | undefined {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '...' || line === '…') return line;
    const comment = COMMENT_START.exec(line);
    if (comment === null) continue;
    const inner = line.slice(comment[0].length).replace(COMMENT_END, '').trim();
    if (inner === '...' || inner === '…') return line;
    if (
      PLACEHOLDER_WORDS.test(inner) &&
      (inner.includes('...') || inner.includes('…') || /\b(?:unchanged|omitted|here|as before)\b/i.test(inner))
    )
      return line;
  }
  return undefined;
}

// Held back: a placeholder, and much shorter than the file it would replace.
const MUCH_SHORTER = 0.75;

export function elisionOf(old: string, proposed: string): string | undefined {
  const line = placeholderLine(proposed);
  if (line === undefined) return undefined;
  const before = countLines(old);
  const after = countLines(proposed);
  if (after >= before * MUCH_SHORTER) return undefined;
  return `it looks elided ("${line.slice(0, 60)}") and has ${after} lines where the file has ${before}`;
}
