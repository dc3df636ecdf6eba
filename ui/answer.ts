// A final answer as the page gets it: the model's prose as sanitised HTML, its FILE and EDIT blocks as references to
// the proposals (shown as cards, never as markdown), and which proposals hold characters a diff would not show.

import MarkdownIt from 'markdown-it';
import { fileSpans, type Proposal } from '../protocol/parse.ts';
import { tidyPath } from '../protocol/paths.ts';
import type { AnswerPart } from './contract.ts';

// Raw HTML in a reply stays text, and markdown-it's link check drops javascript: and data: URLs.
const markdown = new MarkdownIt({ html: false, linkify: true });

// The answer split at its FILE and EDIT blocks: prose through markdown, blocks as references.
export function answerParts(answer: string): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let at = 0;
  const prose = (text: string) => {
    if (text.trim() !== '') parts.push({ kind: 'prose', html: markdown.render(text) });
  };
  for (const { block, from, to } of fileSpans(answer)) {
    prose(answer.slice(at, from));
    parts.push({ kind: 'proposal', path: tidyPath(block.path), block: block.kind, complete: block.complete });
    at = to;
  }
  prose(answer.slice(at));
  return parts;
}

// What the page shows as boxed codes (ui/page/dom.js, HIDDEN): C0 and C1 controls but tab and newline, and Unicode's
// format characters, among them the bidirectional controls of Trojan Source (CVE-2021-42574). A CR ending a line and a
// BOM starting a file are the file's conventions, not hidden text.
const HIDDEN = /(?![\t\n])[\p{Cc}\p{Cf}]/u;

// The proposals' paths whose new text (a FILE's content, an EDIT's replacements) holds hidden characters.
export function hiddenIn(proposals: readonly Proposal[]): string[] {
  const holds = (text: string) => HIDDEN.test(text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n'));
  const paths = proposals.filter((p) =>
    p.kind === 'file' ? holds(p.content) : p.pairs.some((pair) => holds(pair.replace)),
  );
  return [...new Set(paths.map((p) => tidyPath(p.path)))];
}
