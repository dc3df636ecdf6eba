// The conversation as data, rendered into each message within the model's window. The bridge remembers nothing, so
// every message carries everything; when that would not fit, the results the model already read give way first, each
// to a one-line note, oldest first; then its older answers. The instructions, the tree, the files the user attached,
// the question and the closing reminder are never dropped: when even they do not fit, nothing is sent.

import { estimateTokens } from '../common/tokens.ts';
import { DeepworkError } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';
import { renderResult, type Result } from './results.ts';
import type { Texts } from './transcript.ts';

// What a dropped piece's note costs, about; and the closing reminder with the step line.
const NOTE_TOKENS = 30;
const TAIL_TOKENS = 120;

// A piece of the message that may give way, with what stands in its place when it does: `note` once the model has
// read it, `unsent` when it gives way before the model ever saw it (a result of the latest step).
type Piece = { text: string; tokens: number; note: string; unsent: string; dropped: boolean };

type Step = { step: number; answer: Piece; results: Piece[]; sent: Result[] };

export type Window = {
  // Tokens the prompt may take: the model's window less the room kept for its reply.
  promptTokens: number;
  // The whole window, for what the model is told.
  windowTokens: number;
};

// `dropped`: how many earlier results and answers stand as one-line notes in this message.
export type Rendered = { message: string; tokens: number; dropped: number };

export type Conversation = {
  // Adds a step: the model's answer and the results of its requests; returns the results' length in characters.
  add(step: number, answer: string, results: readonly Result[]): number;
  // The message for step `step` of `steps`, within the window.
  render(step: number, steps: number): Rendered;
  // The file results still in the message, by their key (path and range), with the step that sent them.
  stillSent(): ReadonlyMap<string, number>;
};

export type Start = { texts: Texts; tree: string; attached: readonly Result[]; question: string; window: Window };

export function createConversation(start: Start): Conversation {
  const { texts, window } = start;
  const attached = start.attached.map(renderResult).join('\n\n');
  const head = [texts.instructions, `=== PROJECT FOLDER ===\n${start.tree}`];
  if (attached !== '') head.push(`=== FILES ATTACHED BY THE USER ===\n${attached}`);
  head.push(texts.reminder, `=== QUESTION ===\n${start.question.trim()}`);
  const fixed = head.join('\n\n');
  const fixedTokens = estimateTokens(fixed);
  const steps: Step[] = [];

  const tail = (step: number, steps: number, room: number): string => {
    const where = `This is step ${step} of ${steps}. The window holds about ${formatCount(window.windowTokens)} tokens; about ${formatCount(Math.max(0, room))} are left for what you ask next.`;
    return [texts.reminder, where, ...(step >= steps ? [texts.lastStep] : [])].join('\n');
  };

  const assemble = (step: number, total: number, room: number): string => {
    const parts = [fixed];
    const latest = steps.at(-1);
    for (const s of steps) {
      parts.push(s.answer.dropped ? s.answer.note : `=== YOUR ANSWER AT STEP ${s.step} ===\n${s.answer.text}\n=== END OF YOUR ANSWER ===`);
      const shown = s.results.map((r) => (!r.dropped ? r.text : s === latest ? r.unsent : r.note));
      if (s.results.length > 0) parts.push(`=== RESULTS OF YOUR REQUESTS AT STEP ${s.step} ===\n${shown.join('\n\n')}`);
    }
    parts.push(tail(step, total, room));
    return parts.join('\n\n');
  };

  return {
    add(step, answer, results) {
      const trimmed = answer.trim();
      steps.push({
        step,
        answer: { text: trimmed, tokens: estimateTokens(trimmed), note: `[Your answer at step ${step} (${formatCount(trimmed.length)} characters) was dropped to fit the window.]`, unsent: '', dropped: false },
        results: results.map((r) => {
          const text = renderResult(r);
          return { text, tokens: estimateTokens(text), note: noteOf(r, step), unsent: unsentNote(r, estimateTokens(text)), dropped: false };
        }),
        sent: [...results],
      });
      return steps.at(-1)?.results.reduce((sum, r) => sum + r.text.length + 2, 0) ?? 0;
    },
    render(step, total) {
      // Drop, oldest first, until the estimate fits (never the latest answer).
      // Results the model read, then its older answers, then (not yet read) the latest step's results.
      const older = steps.slice(0, -1);
      const pieces = [...older.flatMap((s) => s.results), ...older.map((s) => s.answer), ...(steps.at(-1)?.results ?? [])];
      // Markers and joins cost a few tokens each; the closing reminder about TAIL_TOKENS.
      const cost = (p: Piece) => (p.dropped ? NOTE_TOKENS : p.tokens + 4);
      let estimate = fixedTokens + TAIL_TOKENS + steps.reduce((sum, s) => sum + cost(s.answer) + 20 + s.results.reduce((a, r) => a + cost(r), 0), 0);
      for (const piece of pieces) {
        if (estimate <= window.promptTokens) break;
        if (piece.dropped || piece.tokens < NOTE_TOKENS * 2) continue;
        estimate -= cost(piece);
        piece.dropped = true;
        estimate += cost(piece);
      }
      const dropped = pieces.filter((p) => p.dropped).length;
      if (estimate > window.promptTokens) {
        throw new DeepworkError('CONTEXT_FULL', `The message would take about ${formatCount(estimate)} tokens, over the ${formatCount(window.promptTokens)} the model's window leaves for it, even with every earlier result dropped: the instructions, the folder tree, the attached files, the question and the latest answer take that much. Attach fewer files (or ranges of lines), or raise contextTokens in config.json (--context-tokens) if the model's window is larger.`);
      }
      const message = assemble(step, total, window.promptTokens - estimate);
      return { message, tokens: estimateTokens(message), dropped };
    },
    stillSent() {
      const sent = new Map<string, number>();
      for (const s of steps) {
        s.sent.forEach((r, i) => {
          if (r.kind === 'file' && s.results[i]?.dropped === false) sent.set(r.key, s.step);
        });
      }
      return sent;
    },
  };
}

// The line that stands for a result of the latest step that did not fit at all: the model never saw it.
function unsentNote(r: Result, tokens: number): string {
  return `=== RESULT ${r.request}: not sent: its ~${formatCount(tokens)} tokens do not fit the window with everything else; ask for less at once (a range of lines, a longer FIND text, a narrower mask) ===`;
}

// The line that stands for a result once it is dropped: what it was, that it was sent, how to get it back.
function noteOf(r: Result, step: number): string {
  const dropped = `were sent at step ${step} and dropped to fit the window; ask again if needed`;
  switch (r.kind) {
    case 'file':
      return `[${r.path} lines ${r.first}-${r.last} ${dropped}.]`;
    case 'folder':
      return `[The listing of ${r.path}/ ${dropped.replace('were', 'was')}.]`;
    case 'list':
      return `[The ${formatCount(r.paths.length)} paths of ${r.request} ${dropped}.]`;
    case 'find':
      return `[The ${formatCount(r.hits.length)} hits of ${r.request} ${dropped}.]`;
    default:
      return `[The result of ${r.request} was dropped to fit the window.]`;
  }
}
