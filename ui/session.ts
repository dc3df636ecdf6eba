// What the pult shows: the runs of this session, each with its step log, its answer and its proposed files. The
// server feeds actions in; every change goes out to the page as a message.

import MarkdownIt from 'markdown-it';
import type { Executor } from '../reading/execute.ts';
import type { Bridge, LoopEvent } from '../protocol/loop.ts';
import { runQuestion } from '../app/question.ts';
import { applyFiles, previewFiles, type Applied } from '../writing/apply.ts';
import { undoLast, type UndoReport } from '../writing/undo.ts';
import type { Proposal } from '../protocol/parse.ts';
import { normalizeRequest } from '../reading/sandbox.ts';
import { DeepworkError, messageOf } from '../common/errors.ts';
import { formatDuration } from '../common/text.ts';
import { formatCount } from '../common/text.ts';

// Raw HTML in a reply stays text, and markdown-it's link check drops javascript: and data: URLs.
const markdown = new MarkdownIt({ html: false, linkify: true });

export type FileView = Applied & { backupSet?: string | undefined };

export type RunView = {
  id: number;
  question: string;
  attached: string[];
  bridge: string;
  state: 'running' | 'answered' | 'failed' | 'stopped';
  log: string[];
  // The step being waited for, and since when (ms since epoch): the page counts the seconds.
  waiting: { step: number; since: number; received: number; thinking: number } | undefined;
  answerHtml: string | undefined;
  stop: string | undefined;
  error: string | undefined;
  files: FileView[];
};

export type Outgoing =
  | { type: 'run'; run: RunView }
  | { type: 'progress'; id: number; received: number; thinking: number };

export type SessionOptions = {
  executor: Executor; backupDir: string; stateDir: string; steps: number; contextTokens: number | undefined; send: (message: Outgoing) => void;
};

export class Session {
  readonly runs: RunView[] = [];
  private readonly blocks = new Map<number, Proposal[]>();
  private controller: AbortController | undefined;
  private readonly options: SessionOptions;

  constructor(options: SessionOptions) {
    this.options = options;
  }

  get running(): boolean {
    return this.controller !== undefined;
  }

  // Starts a run; its progress and outcome arrive as messages. One run at a time.
  ask(question: string, files: string[], steps: number, bridge: Bridge): RunView {
    if (this.controller !== undefined) throw new DeepworkError('BUSY', 'A question is already running; stop it first.');
    const run: RunView = {
      id: this.runs.length + 1, question, attached: files, bridge: bridge.label, state: 'running', log: [],
      waiting: undefined, answerHtml: undefined, stop: undefined, error: undefined, files: [],
    };
    this.runs.push(run);
    const controller = new AbortController();
    this.controller = controller;
    const { executor, stateDir, contextTokens } = this.options;
    runQuestion({ bridge, executor, question, files, piped: undefined, earlier: [], steps, contextTokens, stateDir, signal: controller.signal, onEvent: (e) => this.onEvent(run, e, steps) }).then(
      ({ outcome, saveError }) => {
        if (saveError !== undefined) run.log.push(`The proposals could not be kept in ${stateDir} (${messageOf(saveError)}); \`deepwork apply\` will not find them.`);
        run.state = 'answered';
        run.stop = outcome.stop;
        run.answerHtml = markdown.render(outcome.answer);
        this.blocks.set(run.id, outcome.proposals);
        run.files = this.preview(run.id);
        run.log.push(`Answer after ${outcome.steps} step${outcome.steps === 1 ? '' : 's'} (${outcome.stop}).`);
      },
      (error: unknown) => {
        const stopped = error instanceof DeepworkError && error.code === 'ABORTED';
        run.state = stopped ? 'stopped' : 'failed';
        run.error = stopped ? 'Stopped.' : messageOf(error);
        run.log.push(run.error);
      },
    ).finally(() => {
      run.waiting = undefined;
      this.controller = undefined;
      this.options.send({ type: 'run', run });
    });
    this.options.send({ type: 'run', run });
    return run;
  }

  stop(): boolean {
    if (this.controller === undefined) return false;
    this.controller.abort();
    return true;
  }

  // Writes one proposed file of a run, with the same code as --apply, if the file is still what its diff was made
  // against (`base`, from the preview the page showed).
  async write(runId: number, path: string, force: boolean, base: string): Promise<FileView> {
    const run = this.runs.find((r) => r.id === runId);
    // The page names a file as the preview did: the model's path made tidy by the path rule.
    // Every proposal for the path, in order: a FILE and the EDITs after it.
    const ops = this.blocks.get(runId)?.filter((b) => b.path === path || tidy(b.path) === path) ?? [];
    const [first] = ops;
    if (run === undefined || first === undefined) throw new DeepworkError('NOT_FOUND', `No proposed file ${path} in run ${runId}.`);
    const expected = new Map([[tidy(first.path), base]]);
    const box = this.options.executor.box;
    const report = await applyFiles(box, ops, { backupDir: this.options.backupDir, force, diff: true, expected });
    let result: FileView = { ...(report.files[0] ?? { path, status: 'failed', added: 0, removed: 0, written: false }), backupSet: report.backupSet };
    const now = previewFiles(box, ops, { diff: true })[0];
    if (!result.written && now !== undefined && now.base !== base) {
      // Not written because the file is no longer what the page showed: show it as it is now, to be written again.
      result = { ...now, reason: `not written: the file changed since its diff was shown. This is the diff against it now; Write again to write it.` };
    }
    run.files = run.files.map((f) => (f.path === result.path ? result : f));
    this.refreshOthers(run.id);
    this.options.send({ type: 'run', run });
    return result;
  }

  // Undoes the named set (the one a Write made), or the last one.
  undo(set?: string): UndoReport {
    const report = undoLast(this.options.executor.box, this.options.backupDir, undefined, set);
    if (report.set === undefined) throw new DeepworkError('NOT_FOUND', set === undefined ? 'No applied set to undo.' : `No applied set ${set} to undo (already undone?).`);
    this.refreshOthers(undefined);
    return report;
  }

  // A run's proposals as they stand against the disk now, written nothing.
  private preview(runId: number): FileView[] {
    const blocks = this.blocks.get(runId) ?? [];
    return previewFiles(this.options.executor.box, blocks, { diff: true });
  }

  // After a write or an undo the disk changed: every other run's statuses and diffs are recomputed.
  private refreshOthers(except: number | undefined): void {
    for (const run of this.runs) {
      if (run.id === except || run.state !== 'answered') continue;
      const fresh = this.preview(run.id);
      run.files = fresh.map((f) => ({ ...f, written: false }));
      this.options.send({ type: 'run', run });
    }
  }

  private onEvent(run: RunView, e: LoopEvent, steps: number): void {
    const n = formatCount;
    if (e.kind === 'receiving') {
      if (run.waiting !== undefined) {
        run.waiting.received = e.chars;
        run.waiting.thinking = e.thinking;
      }
      this.options.send({ type: 'progress', id: run.id, received: e.chars, thinking: e.thinking });
      return;
    }
    if (e.kind === 'sending') {
      const dropped = e.dropped > 0 ? `; ${e.dropped} earlier result${e.dropped === 1 ? '' : 's'} dropped to fit` : '';
      run.log.push(`Step ${e.step}/${steps}: sending ${n(e.chars)} characters, about ${n(e.tokens)} tokens of ${n(e.budget)}${dropped}.`);
      run.waiting = { step: e.step, since: Date.now(), received: 0, thinking: 0 };
    } else if (e.kind === 'replied') {
      run.waiting = undefined;
      const asks = e.requests.length > 0 ? `asks ${e.requests.join('; ')}` : 'no requests: the answer';
      const files = e.files.length > 0 ? `; proposes ${e.files.join(', ')}` : '';
      run.log.push(`Step ${e.step}/${steps}: reply of ${n(e.chars)} characters in ${formatDuration(e.ms)}; ${asks}${files}.`);
    } else if (e.kind === 'warning') {
      run.log.push(`Step ${e.step}/${steps}: ${e.message}`);
    } else {
      run.log.push(`Step ${e.step}/${steps}: answered ${e.requests} request${e.requests === 1 ? '' : 's'} with ${n(e.chars)} characters.`);
    }
    this.options.send({ type: 'run', run });
  }
}

function tidy(p: string): string {
  const normal = normalizeRequest(p);
  return 'rel' in normal ? normal.rel : p;
}
