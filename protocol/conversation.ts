// The conversation as data, rendered into each message within the model's window. The bridge remembers nothing, so
// every message carries everything: the earlier questions of a continued conversation with their answers and
// results, then this question's steps. When that would not fit, what the model already read gives way first, each
// piece to a one-line note, oldest first: earlier questions' results, their answers, then this question's older
// results and answers. The instructions, the tree, the files the user attached, the question and the closing reminder
// are never dropped: when even they do not fit, nothing is sent.

import { estimateTokens, estimateTokensUpTo, joinedTokens } from '../common/tokens.ts';
import { DeepworkError } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';
import { droppedNote, onceNote, renderResult, unsentNote, type Result } from './results.ts';
import { heading } from './wire.ts';
import type { Texts } from './transcript.ts';

// What a result that never fit offers to send instead, at most: this part of what a message may take, so that it fits
// beside the rest.
const UNSENT_SHARE = 1 / 4;
// What a dropped piece's note costs, about; and the closing reminder with the step line.
const NOTE_TOKENS = 30;
// Characters of code a token of the room stands for, told beside it: common/tokens.ts counts code at about 3.4 a
// token, at or above the real count; 3 keeps the figure on the safe side.
const CODE_CHARS_PER_TOKEN = 3;

// A piece of the message that may give way, with what stands in its place when it does: `note` once the model has
// read it (`seen`), `unsent` when it gave way before the model ever saw it (a result of the latest step that did not
// fit): a result never sent is never said to have been sent and dropped.
// `once`: a result sent once (results.ts), its `note` what stands for it in the messages after the one that carried it.
type Piece = {
  text: string;
  tokens: number;
  note: string;
  unsent: string;
  dropped: boolean;
  seen: boolean;
  once: boolean;
};

// `said`: the answer as the model wrote it.
type Step = { step: number; said: string; answer: Piece; results: Piece[]; sent: Result[] };

// An earlier question of the same conversation as it was sent: each step's answer and its results (each with the note
// it becomes when dropped), and the final answer. Kept with the saved run, so a later question can continue it.
// `time`: when it was answered (ISO; absent in turns kept by an older deepwork). `fates`: what became of its FILE and
// EDIT proposals (written, undone, not written), worked out when the conversation is continued, never kept.
export type Turn = {
  question: string;
  steps: Array<{ step: number; answer: string; results: Array<{ text: string; note: string }> }>;
  answer: string;
  time?: string;
  fates?: string;
};

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
  // The message for step `step` of `steps`, within the window: it stands on its own.
  render(step: number, steps: number): Rendered;
  // The same step's message for a chat that holds everything sent and answered before: only what is new — at a
  // question's first step, the question; after that, the latest step's results — and the closing reminder. Call it
  // after render() for the same step. `carries` says what it holds, for the person who copies it.
  renderNew(step: number, steps: number): Rendered & { carries: string[] };
  // The file results still in the message, by their key (path and range), with the step that sent them.
  stillSent(): ReadonlyMap<string, number>;
  // This question as a turn of the conversation, with its final answer: what a later question continues.
  turn(answer: string): Turn;
};

// `earlier`: the questions before this one in a continued conversation, oldest first.
// `piped`: text given with the question (what was piped in).
// `map`: the map of the code (protocol/code-map.ts), or the note that it follows. `quoted`: where the texts the
// question quotes occur (protocol/quoted.ts), sent with the question.
export type Start = {
  texts: Texts;
  tree: string;
  map?: string | undefined;
  // What stands in the map's place after the first step ('' for nothing), or what says it as each message is made (a
  // map still being made); undefined keeps the map.
  mapAfter?: string | (() => string) | undefined;
  attached: readonly Result[];
  piped?: string | undefined;
  quoted?: string | undefined;
  question: string;
  window: Window;
  earlier?: readonly Turn[];
};

export function createConversation(start: Start): Conversation {
  const { texts, window } = start;
  const attachedText = start.attached.map(renderResult).join('\n\n');
  // Each part is estimated once (the tree is most of every message, and the estimate runs cold in a fresh process),
  // and a head's estimate is summed from its parts'.
  const before = [texts.instructions, `${heading.projectFolder}\n${start.tree}`];
  const after = [
    ...(attachedText !== '' ? [`${heading.attached}\n${attachedText}`] : []),
    ...(start.piped !== undefined ? [`${heading.piped}\n${start.piped.replace(/\n$/, '')}\n${heading.pipedEnd}`] : []),
    ...(start.quoted !== undefined ? [start.quoted] : []),
  ];
  const beforeTokens = before.map(estimateTokens);
  const afterTokens = after.map(estimateTokens);
  const headWith = (map: string | undefined): { text: string; tokens: number } => {
    const maps = map !== undefined && map !== '' ? [map] : [];
    return {
      text: [...before, ...maps, ...after].join('\n\n'),
      tokens: joinedTokens([...beforeTokens, ...maps.map(estimateTokens), ...afterTokens]),
    };
  };
  // The map of the code leads the first step; after it the model has asked with it in view, and each later message
  // carries a line in its place rather than the map again (its room goes to results).
  const first = headWith(start.map);
  const heads = new Map<string, { text: string; tokens: number }>();
  const laterOf = (): { text: string; tokens: number } => {
    const after = typeof start.mapAfter === 'function' ? start.mapAfter() : start.mapAfter;
    if (after === undefined) return first;
    const made = heads.get(after) ?? headWith(after);
    heads.set(after, made);
    return made;
  };
  // Above the question, the reminder until the first results: from then on the closing lines carry it, and a player
  // read it twice in every message of an 8,192-token window (walkdir, issue 30).
  const asked = { text: `${heading.question}\n${start.question.trim()}`, tokens: 0 };
  asked.tokens = estimateTokens(asked.text);
  const question = `${texts.reminder}\n\n${asked.text}`;
  const questionTokens = estimateTokens(question);
  const questionNow = () => (steps.length === 0 ? { text: question, tokens: questionTokens } : asked);
  const headOf = (step: number) => (step <= 1 ? first : laterOf());
  const headTokensOf = (step: number) => headOf(step).tokens;
  const fixedTokensOf = (step: number) => headTokensOf(step) + questionNow().tokens;
  const earlier = (start.earlier ?? []).map(earlierPieces);
  const steps: Step[] = [];

  // The step line says what the room left is for: "2,048 are kept for your reply" read to two players as space set aside,
  // and that their replies, carried in later messages, take from the room went unsaid (click, ky; issue 30).
  // The short reminder and the step line that close every message; before the first step's results, the reminder
  // is the one just above the question, and the step line closes the message alone. In the same chat the window was
  // told with the question, so the step line gives only what changed: the step and the room left.
  const tail = (step: number, total: number, room: number, sameChat = false): string => {
    const kept = window.windowTokens - window.promptTokens;
    // In characters too: NEED's limits are in characters, and two players could not tell how many lines fit.
    const tokens = formatCount(Math.max(0, room));
    const chars = `(some ${formatCount(Math.max(0, Math.floor((room * CODE_CHARS_PER_TOKEN) / 100) * 100))} characters of code)`;
    const left = `${tokens} ${chars}`;
    const where = sameChat
      ? `This is step ${step} of ${total} for this question; about ${tokens} tokens ${chars} are left for the results of what you ask next.`
      : `This is step ${step} of ${total} for this question. The window holds about ${formatCount(window.windowTokens)} tokens: your reply may take up to ${formatCount(kept)}, and after this message about ${left} are left for all later steps: your replies and the results of what you ask.`;
    const reminder = steps.length === 0 ? [] : [sameChat ? texts.sameChat : texts.reminder];
    return [...reminder, where, ...(step >= total ? [texts.lastStep] : [])].join('\n');
  };

  // What the closing lines cost: the reminder, the step and window line (with the largest room it can name), the
  // last step's warning.
  const tailTokens = (step: number, total: number): number =>
    estimateTokens(tail(step, total, window.promptTokens)) + 2;

  // The message and its estimate, summed from its parts' (joinedTokens: at or above the estimate of the whole text).
  const assemble = (step: number, total: number, room: number): { message: string; tokens: number } => {
    const parts = [headOf(step).text];
    const tokens = [headTokensOf(step)];
    const add = (text: string, estimate: number) => {
      parts.push(text);
      tokens.push(estimate);
    };
    const addResults = (title: string, results: ReadonlyArray<{ text: string; tokens: number }>) =>
      add(
        `${title}\n${results.map((r) => r.text).join('\n\n')}`,
        joinedTokens([estimateTokens(title), ...results.map((r) => r.tokens)]),
      );
    for (const turn of earlier) {
      add(turn.question.text, turn.question.tokens);
      for (const s of turn.steps) {
        add(shown(s.answer), shownTokens(s.answer));
        if (s.results.length > 0)
          addResults(
            heading.results(s.step, turn.number),
            s.results.map((r) => ({ text: shown(r), tokens: shownTokens(r) })),
          );
      }
      add(shown(turn.answer), shownTokens(turn.answer));
    }
    add(questionNow().text, questionNow().tokens);
    for (const s of steps) {
      add(shown(s.answer), shownTokens(s.answer));
      const results = s.results.map((r) => {
        if (!r.dropped) return { text: r.text, tokens: r.tokens };
        const text = r.seen ? r.note : r.unsent;
        return { text, tokens: estimateTokens(text) };
      });
      if (s.results.length > 0) addResults(heading.results(s.step), results);
    }
    const closing = tail(step, total, room);
    add(closing, estimateTokens(closing));
    return { message: parts.join('\n\n'), tokens: joinedTokens(tokens) };
  };

  return {
    add(step, answer, results) {
      const trimmed = answer.trim();
      steps.push({
        step,
        said: trimmed,
        answer: piece(
          `${heading.answer(step)}\n${trimmed}\n${heading.answerEnd}`,
          `[Your answer at step ${step} (${formatCount(trimmed.length)} characters) was dropped to fit the window.]`,
        ),
        results: results.map((r) => {
          const once = onceNote(r, step);
          const made = piece(renderResult(r), once ?? droppedNote(r, step), false, window.promptTokens);
          return {
            ...made,
            unsent: unsentNote(r, made.tokens, window.promptTokens * UNSENT_SHARE),
            once: once !== undefined,
          };
        }),
        sent: [...results],
      });
      return steps.at(-1)?.results.reduce((sum, r) => sum + r.text.length + 2, 0) ?? 0;
    },
    render(step, total) {
      // Drop, oldest first, until the estimate fits (never the latest answer): earlier questions' results, their
      // answers along the way, their final answers; then this question's results the model read, its older answers,
      // and last (not yet read) the latest step's results.
      const older = steps.slice(0, -1);
      // A result sent once, read in the message before, stands as its line from now on.
      for (const r of older.flatMap((s) => s.results)) if (r.once && r.seen) r.dropped = true;
      const pieces = [
        ...earlier.flatMap((t) => t.steps.flatMap((s) => s.results)),
        ...earlier.flatMap((t) => t.steps.map((s) => s.answer)),
        ...earlier.map((t) => t.answer),
        ...older.flatMap((s) => s.results),
        ...older.map((s) => s.answer),
        ...(steps.at(-1)?.results ?? []),
      ];
      // Markers and joins cost a few tokens each; the closing lines what they say with the most room.
      const cost = (p: Piece) => (p.dropped ? (p.once ? estimateTokens(p.note) + 4 : NOTE_TOKENS) : p.tokens + 4);
      const earlierTokens = earlier.reduce(
        (sum, t) =>
          sum +
          t.question.tokens +
          cost(t.answer) +
          t.steps.reduce((a, s) => a + cost(s.answer) + 20 + s.results.reduce((b, r) => b + cost(r), 0), 0),
        0,
      );
      let estimate =
        fixedTokensOf(step) +
        tailTokens(step, total) +
        earlierTokens +
        steps.reduce((sum, s) => sum + cost(s.answer) + 20 + s.results.reduce((a, r) => a + cost(r), 0), 0);
      for (const p of pieces) {
        if (estimate <= window.promptTokens) break;
        if (p.dropped || p.tokens < NOTE_TOKENS * 2) continue;
        estimate -= cost(p);
        p.dropped = true;
        estimate += cost(p);
      }
      // Only what the model had read counts as dropped; what never fit was never sent.
      const dropped = pieces.filter((p) => p.dropped && p.seen && !p.once).length;
      if (estimate > window.promptTokens) {
        throw new DeepworkError(
          'CONTEXT_FULL',
          `The message would take about ${formatCount(estimate)} tokens, over the ${formatCount(window.promptTokens)} the model's window leaves for it, even with every earlier result dropped: the instructions, the folder tree, the attached files, the question and the latest answer take that much. Attach fewer files (or ranges of lines), or raise contextTokens in config.json (--context-tokens) if the model's window is larger.`,
        );
      }
      // The latest step's results that fit are read by the model now; those that did not never will be.
      for (const r of steps.at(-1)?.results ?? []) if (!r.dropped) r.seen = true;
      return { ...assemble(step, total, window.promptTokens - estimate), dropped };
    },
    renderNew(step, total) {
      const latest = steps.at(-1);
      if (step === 1 || latest === undefined) {
        // A follow-up in the same chat: the question, with where the texts it quotes occur.
        const asked = start.quoted === undefined ? question : `${start.quoted}\n\n${question}`;
        const message = `${asked}\n\n${tail(step, total, window.promptTokens - estimateTokens(asked) - tailTokens(step, total))}`;
        const carries =
          start.quoted === undefined ? ['the question'] : ['the question', 'where the text it quotes occurs'];
        return { message, tokens: estimateTokens(message), dropped: 0, carries };
      }
      // What fit the message that stands on its own fits this one too: render() has decided it for this step.
      const results = latest.results.map((r) => (!r.dropped ? r.text : r.unsent));
      const parts = [...(results.length > 0 ? [`${heading.results(latest.step)}\n${results.join('\n\n')}`] : [])];
      const estimate = estimateTokens(parts.join('\n\n')) + tailTokens(step, total);
      const message = [...parts, tail(step, total, window.promptTokens - estimate, true)].join('\n\n');
      const carries = latest.sent.map(
        (r, i) => `${r.request}${latest.results[i]?.dropped === true ? ' (did not fit)' : ''}`,
      );
      return { message, tokens: estimateTokens(message), dropped: 0, carries };
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
    turn(answer) {
      return {
        question: start.question.trim(),
        steps: steps.map((s) => ({
          step: s.step,
          answer: s.said,
          // A result the model never saw is carried as what it was told of it.
          // A result sent once is kept as its line: a later question's messages are after the one that carried it.
          results: s.results.map((r) =>
            !r.seen
              ? { text: r.unsent, note: r.unsent }
              : r.once
                ? { text: r.note, note: r.note }
                : { text: r.text, note: r.note },
          ),
        })),
        answer: answer.trim(),
        time: new Date().toISOString(),
      };
    },
  };
}

type EarlierTurn = {
  number: number;
  question: { text: string; tokens: number };
  steps: Array<{ step: number; answer: Piece; results: Piece[] }>;
  answer: Piece;
};

function earlierPieces(turn: Turn, index: number): EarlierTurn {
  const number = index + 1;
  const question = `${heading.earlierQuestion(number)}\n${turn.question}`;
  const fates = turn.fates === undefined ? '' : `\n${turn.fates}`;
  return {
    number,
    question: { text: question, tokens: estimateTokens(question) },
    steps: turn.steps.map((s) => ({
      step: s.step,
      answer: piece(
        `${heading.answer(s.step, number)}\n${s.answer}\n${heading.answerEnd}`,
        `[Your answer at step ${s.step} of question ${number} (${formatCount(s.answer.length)} characters) was dropped to fit the window.]`,
      ),
      results: s.results.map((r) => piece(r.text, r.note)),
    })),
    answer: piece(
      `${heading.finalAnswer(number)}\n${turn.answer}\n${heading.answerEnd}${fates}`,
      `[Your final answer to question ${number} (${formatCount(turn.answer.length)} characters) was dropped to fit the window.]${fates}`,
    ),
  };
}

// `seen`: the model reads it whole when it is in the message (an answer it wrote; a result once a message held it).
// `most`: what the message may take; a text past it is priced no closer (estimateTokensUpTo).
function piece(text: string, note: string, seen = true, most = Number.POSITIVE_INFINITY): Piece {
  return { text, tokens: estimateTokensUpTo(text, most), note, unsent: note, dropped: false, seen, once: false };
}

function shown(p: Piece): string {
  return p.dropped ? p.note : p.text;
}

function shownTokens(p: Piece): number {
  return p.dropped ? estimateTokens(p.note) : p.tokens;
}
