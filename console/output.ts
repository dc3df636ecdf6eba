// What the console prints: the answer set apart from deepwork's own lines, lists of proposed files, undo reports,
// JSON, and the step log with its status line. Everything meant for people passes through `forPeople`, which makes a
// model's control characters visible.

import type { ApplyReport } from '../writing/apply.ts';
import { fileSpans } from '../protocol/parse.ts';
import { tidyPath } from '../protocol/paths.ts';
import { laterWrites, type UndoReport } from '../writing/undo.ts';
import type { SetInfo } from '../writing/backup-sets.ts';
import type { LoopEvent } from '../protocol/loop.ts';
import { CONTROLS_JSON_LEAVES, escapeControls, formatCount, formatDuration } from '../common/text.ts';

// The console: `out` is stdout, `err` stderr; `json` prints JSON text as it is; `status` a terminal status line with
// its own cursor controls (a text starting with "\r" is written without a line end); `stream` writes to stderr as it
// is, without a line end (a reply as it streams in). `outTTY`: stdout is a terminal. `own` prints deepwork's own lines
// on stdout, bold when `colour` says stdout takes it (see printAnswer).
export type Io = {
  out: (text: string) => void;
  err: (text: string) => void;
  isTTY: boolean;
  json?: (text: string) => void;
  status?: (text: string) => void;
  stream?: (text: string) => void;
  outTTY?: boolean;
  own?: (text: string) => void;
  colour?: boolean;
};

// The same console with control characters made visible in all text for people: a model's answer, paths and messages
// can carry terminal escapes (clear the screen, set the clipboard through OSC 52, hide a link through OSC 8). Since
// nothing a model writes can style a line, deepwork's own lines can be told apart by their style where stdout is a
// terminal that takes colour: not when NO_COLOR is set (https://no-color.org) or the terminal is dumb.
export function forPeople(raw: Io, env: NodeJS.ProcessEnv = {}): Io {
  const stream = raw.stream;
  const colour = raw.outTTY === true && (env.NO_COLOR ?? '') === '' && env.TERM !== 'dumb';
  const bold = (text: string) =>
    text
      .split('\n')
      .map((line) => (line === '' ? line : `\x1b[1m${line}\x1b[22m`))
      .join('\n');
  return {
    out: (text) => raw.out(escapeControls(text)),
    err: (text) => raw.err(escapeControls(text)),
    isTTY: raw.isTTY,
    json: raw.out,
    status: raw.err,
    ...(stream === undefined ? {} : { stream: (text: string) => stream(escapeControls(text)) }),
    outTTY: raw.outTTY === true,
    colour,
    own: colour ? (text) => raw.out(bold(escapeControls(text))) : (text) => raw.out(escapeControls(text)),
  };
}

// JSON on stdout with every character a terminal could act on escaped: JSON.stringify leaves DEL, C1 controls and
// bidirectional overrides as they are.
export function printJson(io: Io, value: unknown): void {
  const text = JSON.stringify(value).replace(
    CONTROLS_JSON_LEAVES,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  (io.json ?? io.out)(text);
}

export function filesJson(report: ApplyReport): {
  files: Array<{ path: string; status: string; applied: boolean; reason?: string }>;
  backupSet: string | null;
} {
  return {
    files: report.files.map((f) => ({
      path: f.path,
      status: f.status,
      applied: f.written,
      ...(f.reason === undefined ? {} : { reason: f.reason }),
    })),
    backupSet: report.backupSet ?? null,
  };
}

// The answer as people read it, in parts: the model's prose, and deepwork's own line in place of each FILE and EDIT
// block, saying what it proposes (the list of proposals follows; --diff shows the changes). `report` says what became
// of each path; `leftOutFrom` is the first of the reply's blocks left out, past what one reply may propose, when some
// were.
export type AnswerPart = { from: 'model' | 'deepwork'; text: string };

export function answerParts(answer: string, report: ApplyReport, leftOutFrom?: number): AnswerPart[] {
  const parts: AnswerPart[] = [];
  // Each part is whole lines: the prose before a block loses the line end the block's own line puts back.
  const prose = (text: string) => {
    if (text !== '') parts.push({ from: 'model', text: text.replace(/\n$/, '') });
  };
  const fates = new Map(report.files.map((f) => [tidyPath(f.path), f]));
  let at = 0;
  for (const [i, { block, from, to }] of fileSpans(answer).entries()) {
    prose(answer.slice(at, from));
    at = to;
    // A block left out was never kept: what is listed for its path came from another block.
    const leftOut = leftOutFrom !== undefined && i >= leftOutFrom;
    const fate = leftOut ? undefined : fates.get(tidyPath(block.path));
    const counts =
      fate === undefined
        ? ''
        : fate.status === 'new'
          ? `, +${fate.added}`
          : fate.status === 'changed' || fate.status === 'held back'
            ? `, +${fate.added} -${fate.removed}`
            : '';
    const what = leftOut
      ? 'left out: past what one reply may propose'
      : !block.complete
        ? 'incomplete: the reply ended before its END line'
        : fate === undefined
          ? 'replaced by a later proposal'
          : fate.status === 'failed'
            ? `not applied: ${fate.reason ?? 'failed'}`
            : fate.status;
    parts.push({
      from: 'deepwork',
      text: `[${block.kind === 'file' ? 'FILE' : 'EDIT'} ${block.path}: ${what}${counts}; see the list below]`,
    });
  }
  prose(answer.slice(at).trimEnd());
  return parts;
}

// Where stdout takes no colour (a pipe, a file, NO_COLOR), the model's text is framed by these two lines.
const FRAME = { open: "==== the model's answer ====", close: "==== end of the model's answer ====" };
// What marks a line of the model's that could pass for one of deepwork's own.
const MODEL_MARK = '(model) ';
// Such a line, behind any markdown or dashes it wears: a frame line, one that starts like it or says what it says, a
// line standing for a FILE or EDIT block or a note of deepwork's, the heading of the proposals list, one of its lines,
// the backup line.
const POSES_AS_OWN = new RegExp(
  [
    '^[\\s>*_#`|+-]*(?:',
    [
      '={3}',
      '[─━═]{3}',
      '\\[(?:FILE|EDIT|deepwork)\\b',
      'deepwork:',
      'files:',
      'proposed files\\b',
      'previous versions saved\\b',
      '(?:new|changed|held back|refused|failed|unchanged|stopped) {2,}\\S',
      'incomplete \\S',
      "(?:end of )?(?:the )?model's answer",
    ].join('|'),
    ')',
  ].join(''),
  'i',
);

// Prints an answer so that no line of the model's can pass for deepwork's own (a forged list of proposals, a forged
// backup line, a forged end of the answer): the model's lines that look like deepwork's are marked "(model)";
// deepwork's own lines are bold on a terminal that takes colour, and elsewhere the model's text is framed. `after`:
// deepwork's own paragraphs after the answer (a note, the list of proposals).
export function printAnswer(io: Io, parts: readonly AnswerPart[], after: readonly string[]): void {
  const own = io.own ?? io.out;
  const lines: AnswerPart[] = [];
  for (const part of parts) {
    for (const line of part.text.split('\n')) {
      // A zero-width character in a line hides nothing from this test (U+200B in "Fi\u200bles:").
      const poses = part.from === 'model' && POSES_AS_OWN.test(line.replace(/\p{Cf}/gu, ''));
      lines.push({ from: part.from, text: poses ? `${MODEL_MARK}${line}` : line });
    }
  }
  const framed = io.colour !== true;
  if (framed) own(FRAME.open);
  // Consecutive lines of one origin go out together: one write each.
  let run: AnswerPart | undefined;
  const flush = () => {
    if (run !== undefined) (run.from === 'model' ? io.out : own)(run.text);
    run = undefined;
  };
  for (const line of lines) {
    if (run !== undefined && run.from === line.from) run.text += `\n${line.text}`;
    else {
      flush();
      run = { ...line };
    }
  }
  flush();
  if (framed) own(FRAME.close);
  for (const text of after) own(`\n${text}`);
}

// The proposals, one line each (`--diff` adds each file's diff); an apply stopped with Ctrl-C counts the files it
// did not reach on one line.
export function listFiles(report: ApplyReport, applied: boolean, diff: boolean): string {
  const stopped = report.files.filter((f) => f.status === 'stopped');
  const lines = report.files
    .filter((f) => f.status !== 'stopped')
    .map((f) => {
      const counts =
        f.status === 'changed' || f.status === 'held back'
          ? ` +${f.added} -${f.removed}`
          : f.status === 'new'
            ? ` +${f.added}`
            : '';
      const state = !applied ? '' : f.written ? '  written' : '  not written';
      const reason = f.reason === undefined ? '' : `: ${f.reason}`;
      const text = `  ${f.status.padEnd(10)} ${f.path}${counts}${state}${reason}`;
      return diff && f.diff !== undefined ? `${text}\n${f.diff}` : text;
    });
  if (stopped.length > 0)
    lines.push(
      `  stopped    ${formatCount(stopped.length)} more file${stopped.length === 1 ? '' : 's'} not written: Ctrl-C stopped the apply before them; they are as they were`,
    );
  const head = applied ? 'Files:' : 'Proposed files (not written; --apply writes them, or `deepwork apply` now):';
  const backup =
    report.backupSet === undefined
      ? ''
      : `\nPrevious versions saved in ${report.backupSet} (deepwork undo puts them back).`;
  return `${head}\n${lines.join('\n')}${backup}`;
}

export function listSets(sets: readonly SetInfo[]): string {
  if (sets.length === 0) return 'No applied sets for this folder.';
  return sets
    .map((set) => {
      const files = set.manifest.files.filter((f) => f.written).map((f) => `${f.existed ? '' : '+'}${f.path}`);
      const state = set.manifest.undone
        ? ' (undone)'
        : set.manifest.complete
          ? ''
          : ` (cut short: ${files.length} of ${set.manifest.files.length} files written)`;
      return `${set.name}${state}: ${files.join(', ')}`;
    })
    .join('\n');
}

export function undoneReport(report: UndoReport & { set: SetInfo }): string {
  if (report.later.length > 0)
    return `Not undoing ${report.set.name}: ${laterWrites(report.later)}. Undoing it would throw that later write away; undo the later set first, then this one. Nothing was changed.`;
  const lines = report.files.map(
    (f) => `  ${f.action.padEnd(9)} ${f.path}${f.reason === undefined ? '' : ` (${f.reason})`}`,
  );
  return [
    `Undoing ${report.set.name}:`,
    ...(lines.length === 0 ? ['  nothing to put back: no file of the set was written'] : lines),
  ].join('\n');
}

// What has arrived of a reply: ", thinking, 1,200 characters" while the model reasons, then the answer's characters.
export function receivedSoFar(chars: number, thinking: number): string {
  const thoughts = thinking > 0 ? `, thinking, ${formatCount(thinking)} characters` : '';
  return `${thoughts}${chars > 0 ? `, ${formatCount(chars)} characters so far` : ''}`;
}

// The step log on stderr. On a terminal: an elapsed-time line while the model thinks, then the reply, dimmed, as it
// streams in (stdout still gets only the answer), then the step's summary line. `typing`: the person types on the
// terminal while a step waits (copy and paste): then every event is a whole line, and nothing is redrawn over what they
// type (issue 26).
export function stepLog(
  io: Io,
  steps: number,
  { typing = false }: { typing?: boolean } = {},
): { event: (e: LoopEvent) => void; stop: () => void } {
  const live = io.isTTY && !typing;
  let timer: NodeJS.Timeout | undefined;
  let started = 0;
  let received = 0;
  let thought = 0;
  let waitingStep = 0;
  let streaming = false;
  let endsLine = true;
  // The status line's own cursor controls go out as they are; nothing in it comes from the model.
  const status = io.status ?? io.err;
  const clear = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    if (live) status('\r\x1b[K');
  };
  const endStream = () => {
    if (!streaming) return;
    streaming = false;
    if (!endsLine) io.stream?.('\n');
    status('\r\x1b[0m');
  };
  const tick = () => {
    status(
      `\r\x1b[Kstep ${waitingStep}: waiting ${formatDuration(Date.now() - started)}${receivedSoFar(received, thought)}`,
    );
  };
  return {
    event(e) {
      if (e.kind === 'sending') {
        const dropped =
          e.dropped > 0 ? `; ${e.dropped} earlier result${e.dropped === 1 ? '' : 's'} dropped to fit` : '';
        io.err(
          `step ${e.step}/${steps}: sending ${formatCount(e.chars)} characters, about ${formatCount(e.tokens)} tokens of the ${formatCount(e.budget)} a message may take (the window holds ${formatCount(e.window)})${dropped}`,
        );
        started = Date.now();
        received = 0;
        thought = 0;
        waitingStep = e.step;
        if (live) timer = setInterval(tick, 1000);
      } else if (e.kind === 'receiving') {
        received = e.chars;
        thought = e.thinking;
      } else if (e.kind === 'text') {
        if (!live || io.stream === undefined) return;
        if (!streaming) {
          clear();
          streaming = true;
          status('\r\x1b[2m');
        }
        io.stream(e.text);
        if (e.text !== '') endsLine = e.text.endsWith('\n');
      } else if (e.kind === 'warning') {
        endStream();
        clear();
        io.err(`step ${e.step}/${steps}: ${e.message}`);
      } else if (e.kind === 'miscited') {
        const some =
          e.citations.length === 1
            ? 'a place the answer cites does'
            : `${e.citations.length} places the answer cites do`;
        io.err(
          `step ${e.step}/${steps}: ${some} not match the files${e.retry ? ': the model is asked once to correct them' : ' (said after the answer)'}`,
        );
      } else if (e.kind === 'replied') {
        endStream();
        clear();
        const asks = e.requests.length > 0 ? `asks ${e.requests.join('; ')}` : 'no requests: the answer';
        const files = e.files.length > 0 ? `; proposes ${e.files.join(', ')}` : '';
        io.err(
          `step ${e.step}/${steps}: reply of ${formatCount(e.chars)} characters in ${formatDuration(e.ms)}; ${asks}${files}`,
        );
      }
    },
    stop: () => {
      endStream();
      clear();
    },
  };
}
