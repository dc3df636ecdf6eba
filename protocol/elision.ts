// A whole file with parts left out: a FILE block that stands for code it does not hold with a placeholder
// (`// ... rest of the file unchanged`) and is much shorter than the file it would replace. Written, it would delete
// that code. The loop tells the model at once, while steps remain (send EDIT blocks for the parts that change), and the
// apply holds it back until the user writes it anyway.

import { countLines } from '../common/text.ts';

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
