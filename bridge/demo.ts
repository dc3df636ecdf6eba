// The demo bridge: not a model. It drives the real loop on the real folder so a newcomer without a model sees the
// whole thing work: it FINDs and LISTs the question's words, NEEDs the files with most hits, then reports what it
// found. Like the real bridge it remembers nothing: it reads its state from the transcript it is sent.

import type { Bridge } from '../protocol/contract.ts';
import { requestLine } from '../protocol/requests.ts';
import { found as headings } from '../protocol/wire.ts';

export const DEMO_LABEL = 'demo bridge (not a model)';

const STOPWORDS = new Set(
  'what where which when does this that with from have there their about into file files code project folder should would could make made used uses using find show tell please function decided'.split(
    ' ',
  ),
);

export function createDemoBridge(): Bridge {
  return {
    label: DEMO_LABEL,
    chat(message) {
      return Promise.resolve({ text: replyTo(message) });
    },
  };
}

function replyTo(message: string): string {
  const question = questionOf(message);
  const words = keywords(question);
  const step = (message.match(headings.answer) ?? []).length + 1;
  const header = `[${DEMO_LABEL}: it searches for the question's words; a real model would read and reason.]`;

  if (words.length === 0) {
    return `${header}\n\nThe question has no word to search for. Ask about a name in the code, like "where is loadConfig used?".`;
  }
  if (step === 1) {
    const finds = words.map((w) => requestLine({ kind: 'find', text: w, scope: undefined, line: 0 })).join('\n');
    return `${header}\n\nLooking for ${words.map((w) => `"${w}"`).join(', ')}.\n\n${finds}\n${requestLine({ kind: 'list', mask: `**/*${words[0] ?? ''}*`, line: 0 })}`;
  }
  const results = lastResults(message);
  const hits = [...results.matchAll(/^([^\s:][^:\n]*):(\d+): (.*)$/gm)].map((m) => ({
    path: m[1] ?? '',
    line: Number(m[2]),
    text: m[3] ?? '',
  }));
  if (step === 2 && hits.length > 0) {
    const counts = new Map<string, number>();
    for (const h of hits) counts.set(h.path, (counts.get(h.path) ?? 0) + 1);
    const top = [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 2)
      .map(([p]) => p);
    return `${header}\n\nFound ${hits.length} hits; reading the files with most of them.\n\n${requestLine({ kind: 'need', paths: top, line: 0 })}`;
  }
  const earlier = allResults(message);
  const found = [...earlier.matchAll(/^([^\s:][^:\n]*):(\d+): (.*)$/gm)]
    .slice(0, 8)
    .map((m) => `- \`${m[1]}\` line ${m[2]}: \`${(m[3] ?? '').slice(0, 80)}\``);
  const read = [...earlier.matchAll(headings.fileResult)].map((m) => `- \`${m[1]}\` (${m[2]} lines)`);
  if (found.length === 0) {
    return `${header}\n\nNothing in this folder contains ${words.map((w) => `"${w}"`).join(' or ')}.`;
  }
  return [
    header,
    '',
    `Where ${words.map((w) => `"${w}"`).join(', ')} ${words.length === 1 ? 'occurs' : 'occur'}:`,
    ...found,
    ...(read.length > 0 ? ['', 'Files read:', ...read] : []),
  ].join('\n');
}

function questionOf(message: string): string {
  const start = message.indexOf(headings.question);
  if (start === -1) return '';
  const rest = message.slice(start + headings.question.length);
  const end = rest.indexOf('\n\n');
  return end === -1 ? rest : rest.slice(0, end);
}

// Identifiers first (camelCase, snake_case, dotted), then long words; at most three.
function keywords(question: string): string[] {
  const words = question.match(/[A-Za-z_$][\w$.-]{2,}/g) ?? [];
  const candidates = [...new Set(words.map((w) => w.replace(/[.-]+$/, '')))].filter(
    (w) => w.length >= 4 && !STOPWORDS.has(w.toLowerCase()),
  );
  const identifier = (w: string) => /[a-z][A-Z]|_|\./.test(w);
  return candidates.sort((a, b) => Number(identifier(b)) - Number(identifier(a)) || b.length - a.length).slice(0, 3);
}

const RESULTS = headings.results;

function allResults(message: string): string {
  return message.split(RESULTS).slice(1).join('\n');
}

function lastResults(message: string): string {
  const parts = message.split(RESULTS);
  return parts.length > 1 ? (parts.at(-1) ?? '') : '';
}
