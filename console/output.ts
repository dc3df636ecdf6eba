// What the console prints: the answer set apart from deepwork's own lines, lists of proposed files, undo reports,
// JSON, and the step log with its status line. Everything meant for people passes through `forPeople`, which makes a
// model's control characters visible.

import type { ApplyReport } from '../writing/apply.ts';
import { fileSpans } from '../protocol/parse.ts';
import { tidyPath } from '../protocol/paths.ts';
import { CONTROLS_JSON_LEAVES, escapeControls } from '../common/text.ts';
import { consoleTexts, STATUS } from '../common/strings/console.js';
import { textsIn, type Lang } from '../common/strings/language.js';
import type { Shown } from './lists.ts';

// The console: `out` is stdout, `err` stderr; `json` prints JSON text as it is; `status` a terminal status line with
// its own cursor controls (a text starting with "\r" is written without a line end); `stream` writes to stderr as it
// is, without a line end (a reply as it streams in). `outTTY`: stdout is a terminal. `own` prints deepwork's own lines
// on stdout, bold when `colour` says stdout takes it (see printAnswer); `safe` prints on stdout text already made safe
// (console/lists.ts). `lang`: the language deepwork speaks to the person in (English when not given).
export type Io = {
  out: (text: string) => void;
  err: (text: string) => void;
  isTTY: boolean;
  json?: (text: string) => void;
  status?: (text: string) => void;
  stream?: (text: string) => void;
  outTTY?: boolean;
  own?: (text: string) => void;
  safe?: (text: string) => void;
  colour?: boolean;
  lang?: Lang;
};

// Does stdout take colour? FORCE_COLOR says so whatever stdout is (0 or false: no), as Node's own output takes it;
// else not when NO_COLOR is set (https://no-color.org), nor in a dumb terminal, nor where stdout is no terminal.
export function takesColour(outTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  return outTTY && (env.NO_COLOR ?? '') === '' && env.TERM !== 'dumb';
}

// The same console with control characters made visible in all text for people: a model's answer, paths and messages
// can carry terminal escapes (clear the screen, set the clipboard through OSC 52, hide a link through OSC 8). Since
// nothing a model writes can style a line, deepwork's own lines can be told apart by their style where stdout is a
// terminal that takes colour (takesColour).
export function forPeople(raw: Io, env: NodeJS.ProcessEnv = {}, lang: Lang = 'en'): Io {
  const stream = raw.stream;
  const colour = takesColour(raw.outTTY === true, env);
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
    safe: raw.out,
    lang,
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

export function answerParts(
  answer: string,
  report: ApplyReport,
  leftOutFrom?: number,
  lang: Lang = 'en',
): AnswerPart[] {
  const t = textsIn(consoleTexts, lang);
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
      ? t.blockLeftOut
      : !block.complete
        ? t.blockIncomplete
        : fate === undefined
          ? t.blockReplaced
          : fate.status === 'failed'
            ? t.blockFailed(fate.reason ?? STATUS[lang].failed)
            : STATUS[lang][fate.status];
    parts.push({
      from: 'deepwork',
      text: t.block(block.kind === 'file' ? 'FILE' : 'EDIT', block.path, `${what}${counts}`),
    });
  }
  prose(answer.slice(at).trimEnd());
  return parts;
}

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
      'файлы:',
      'proposed files\\b',
      'would write\\b',
      'предложенные файлы',
      'было бы записано',
      'previous versions saved\\b',
      'прежние версии',
      '(?:new|changed|held back|refused|failed|unchanged|stopped) {2,}\\S',
      '(?:новый|изменён|задержан|отказ|ошибка|без изменений|остановлен) {2,}\\S',
      '(?:incomplete|неполный) \\S',
      "(?:end of )?(?:the )?model's answer",
      '(?:конец )?ответа? модели',
    ].join('|'),
    ')',
  ].join(''),
  'iu',
);

// Prints an answer so that no line of the model's can pass for deepwork's own (a forged list of proposals, a forged
// backup line, a forged end of the answer): the model's lines that look like deepwork's are marked "(model)";
// deepwork's own lines are bold on a terminal that takes colour, and elsewhere the model's text is framed. `after`:
// deepwork's own paragraphs after the answer (a note, the list of proposals).
export function printAnswer(io: Io, parts: readonly AnswerPart[], after: ReadonlyArray<string | Shown>): void {
  const own = io.own ?? io.out;
  const t = textsIn(consoleTexts, io.lang ?? 'en');
  const FRAME = { open: t.frameOpen, close: t.frameClose };
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
  for (const text of after) {
    if (typeof text === 'string') own(`\n${text}`);
    else (io.safe ?? io.out)(`\n${text.shown}`);
  }
}
