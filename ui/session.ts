// What the pult shows: the runs of this session, each with its step log, its answer and its proposed files. The
// server feeds actions in; every change goes out to the page as a message.

import type { Executor } from '../reading/executor.ts';
import { answerOf, type LoopEvent } from '../protocol/loop.ts';
import type { Bridge } from '../protocol/contract.ts';
import type { Turn } from '../protocol/conversation.ts';
import { listConversations, loadConversation, newConversationId } from '../saved/conversations.ts';
import {
  cleanReply,
  createPasteBridge,
  newChat,
  ReplyRefused,
  type ChatState,
  type PasteStep,
} from '../bridge/paste.ts';
import { runQuestion } from '../app/question.ts';
import { applyFiles, previewFiles } from '../writing/apply.ts';
import { laterWrites, undoLast } from '../writing/undo.ts';
import { tidyPath } from '../protocol/paths.ts';
import { CHAT_SITES, type ChatSite } from '../bridge/chat-sites.ts';
import { DeepworkError, messageOf } from '../common/errors.ts';
import { fileView, PultError, saidOfError, undoneView } from './said.ts';
import { parseReply, type Proposal } from '../protocol/parse.ts';
import { answerParts, hiddenIn } from './answer.ts';
import { pasteView } from './paste-waiting.ts';
import type { Conversations, FileView, Outgoing, RunBridge, RunView, UndoReport } from './contract.ts';

// The tests name these as the session's; they are the contract's (ui/contract.ts).
export type { Outgoing, RunView } from './contract.ts';

// `chatLimits`: what the web chat of the copy-and-paste bridge takes (bridge/chat-sites.ts). `relay`: hands a step of
// a question asked through the browser extension to it (ui/extension-link.ts); the step waits to be pasted all the same.
export type SessionOptions = {
  executor: Executor;
  backupDir: string;
  stateDir: string;
  steps: number;
  contextTokens: number | undefined;
  send: (message: Outgoing) => void;
  chatLimits?: ChatSite;
  relay?: (runId: number, step: PasteStep) => void;
};

export class Session {
  readonly runs: RunView[] = [];
  private readonly blocks = new Map<number, Proposal[]>();
  private controller: AbortController | undefined;
  private readonly options: SessionOptions;
  // The conversation a follow-up continues: its id, its questions so far, and the web chat its questions were pasted
  // into, when they were (a follow-up pasted into the same chat sends only what is new).
  private current: { id: string; turns: Turn[]; chat?: ChatState } | undefined;
  // The copy-and-paste step waiting for its reply.
  private pasting: { runId: number; step: PasteStep } | undefined;

  constructor(options: SessionOptions) {
    this.options = options;
  }

  get running(): boolean {
    return this.controller !== undefined;
  }

  // Starts a run; its progress and outcome arrive as messages. One run at a time. `follow`: continue the current
  // conversation (the model gets its questions, answers and results); else a new conversation starts.
  // `bridge`: a bridge, or 'paste' for a person copying each message into a web chat and pasting its reply back, or
  // 'extension' for the browser extension doing that in a chat tab; `which`: what the page calls it (by default, the
  // bridge's label).
  ask(
    question: string,
    files: string[],
    steps: number,
    given: Bridge | 'paste' | 'extension',
    follow = false,
    which?: RunBridge,
  ): RunView {
    if (this.controller !== undefined)
      throw new PultError('BUSY', { code: 'busy' }, 'A question is already running; stop it first.');
    const continued = follow ? this.current : undefined;
    const conversation = continued ?? { id: newConversationId(), turns: [] };
    this.current = conversation;
    const id = this.runs.length + 1;
    const chatContinues = typeof given === 'string' && (conversation.chat?.messages ?? 0) > 0;
    const bridge = typeof given === 'string' ? this.pasteBridge(id, chatOf(conversation), given) : given;
    const run: RunView = {
      id,
      conversation: conversation.id,
      question,
      attached: files,
      bridge: typeof given === 'string' ? { kind: given } : (which ?? { kind: 'other', label: bridge.label }),
      state: 'running',
      reopened: false,
      log: [],
      waiting: undefined,
      parts: undefined,
      stop: undefined,
      error: undefined,
      files: [],
      hiddenIn: [],
    };
    this.runs.push(run);
    const controller = new AbortController();
    this.controller = controller;
    const { executor, stateDir, contextTokens, backupDir } = this.options;
    const earlier = conversation.turns;
    runQuestion({
      bridge,
      executor,
      backupDir,
      question,
      files,
      piped: undefined,
      earlier,
      conversationId: conversation.id,
      chatContinues,
      steps,
      contextTokens,
      stateDir,
      signal: controller.signal,
      onEvent: (e) => this.onEvent(run, e, steps),
    })
      .then(
        (result) => {
          const { outcome, saveError } = result;
          if (saveError !== undefined)
            run.log.push({ kind: 'not-saved', where: stateDir, reason: messageOf(saveError) });
          run.state = 'answered';
          run.stop = outcome.stop;
          run.parts = answerParts(answerOf(outcome));
          this.blocks.set(run.id, outcome.proposals);
          run.files = this.preview(run.id);
          run.hiddenIn = hiddenIn(outcome.proposals);
          if (result.edits !== undefined) run.log.push({ kind: 'edits', ...result.edits });
          run.log.push({ kind: 'done', steps: outcome.steps, stop: outcome.stop });
          conversation.turns = result.conversation;
        },
        (error: unknown) => {
          const stopped = error instanceof DeepworkError && error.code === 'ABORTED';
          run.state = stopped ? 'stopped' : 'failed';
          const where = run.bridge.kind === 'configured' ? run.bridge : { host: '', model: '' };
          run.error = stopped ? undefined : saidOfError(error, where.host, where.model);
        },
      )
      .finally(() => {
        run.waiting = undefined;
        if (this.pasting?.runId === run.id) this.pasting = undefined;
        this.controller = undefined;
        this.options.send({ type: 'run', run });
        this.options.send(this.conversations());
      });
    this.options.send({ type: 'run', run });
    this.options.send(this.conversations());
    return run;
  }

  stop(): boolean {
    if (this.controller === undefined) return false;
    this.controller.abort();
    return true;
  }

  // A bridge whose "model" is the person at the page: each message waits to be copied, each reply to be pasted.
  private pasteBridge(runId: number, chat: ChatState, via: 'paste' | 'extension'): Bridge {
    const limits = this.options.chatLimits ?? CHAT_SITES.deepseek;
    const bridge = createPasteBridge({
      limits,
      chat,
      onMessage: (step) => {
        this.pasting = { runId, step };
        const run = this.runs.find((r) => r.id === runId);
        if (run?.waiting === undefined) return;
        run.waiting.paste = pasteView(step);
        this.options.send({ type: 'run', run });
        if (via === 'extension') this.options.relay?.(runId, step);
      },
    });
    return via === 'extension' ? { ...bridge, label: 'web chat tab (extension)' } : bridge;
  }

  // The message the copy-and-paste step of a run waits to have copied; `standalone`: the one for a new chat.
  pasteMessage(runId: number, standalone = false): string {
    if (this.pasting?.runId !== runId) throw notWaiting(runId);
    const { step } = this.pasting;
    return standalone && step.standalone !== undefined ? step.standalone.message : step.message;
  }

  // The reply to the waiting step, as pasted: cleaned of what the chat's page adds, refused when empty or when it is
  // the chat's notice that a message was too long. `newChat`: it came from a new chat, sent the standalone message.
  paste(runId: number, pasted: string, newChat = false): void {
    const waiting = this.pasting;
    if (waiting?.runId !== runId) throw notWaiting(runId);
    let reply: string;
    try {
      reply = cleanReply(pasted);
    } catch (error) {
      if (!(error instanceof ReplyRefused)) throw error;
      const said =
        error.kind === 'notice'
          ? { code: 'chat-notice' as const, notice: error.notice }
          : { code: 'empty-reply' as const };
      throw new PultError('BAD_REQUEST', said, error.message);
    }
    this.pasting = undefined;
    const run = this.runs.find((r) => r.id === runId);
    if (run?.waiting !== undefined) delete run.waiting.paste;
    waiting.step.supply(reply, newChat);
  }

  // The folder's conversations and the one a follow-up continues.
  conversations(): Conversations {
    return {
      type: 'conversations',
      current: this.current?.id,
      list: listConversations(this.options.stateDir, this.options.executor.box.root),
    };
  }

  // Starts afresh: the next question begins a new conversation.
  newConversation(): Conversations {
    if (this.controller !== undefined)
      throw new PultError('BUSY', { code: 'busy' }, 'A question is running; stop it first.');
    this.current = undefined;
    const list = this.conversations();
    this.options.send(list);
    return list;
  }

  // Makes a saved conversation the current one, so a follow-up continues it. Its questions are shown as they were
  // answered, each one's proposals judged against the disk as it is now: written where they still apply.
  open(id: string): Conversations {
    if (this.controller !== undefined)
      throw new PultError('BUSY', { code: 'busy' }, 'A question is running; stop it first.');
    const { stateDir, executor } = this.options;
    const saved = loadConversation(stateDir, executor.box.root, id);
    if (saved === undefined)
      throw new PultError('NOT_FOUND', { code: 'no-conversation', id }, `No saved conversation ${id} in this folder.`);
    this.current = { id, turns: saved.turns };
    if (!this.runs.some((r) => r.conversation === id)) {
      for (const turn of saved.turns) {
        const run: RunView = {
          id: this.runs.length + 1,
          conversation: id,
          question: turn.question,
          attached: [],
          bridge: { kind: 'other', label: '' },
          state: 'answered',
          reopened: true,
          log: [],
          waiting: undefined,
          parts: answerParts(turn.answer),
          stop: undefined,
          error: undefined,
          files: [],
          hiddenIn: [],
        };
        this.runs.push(run);
        const proposals = parseReply(turn.answer).proposals;
        this.blocks.set(run.id, proposals);
        run.files = this.preview(run.id);
        run.hiddenIn = hiddenIn(proposals);
        this.options.send({ type: 'run', run });
      }
    }
    const list = this.conversations();
    this.options.send(list);
    return list;
  }

  // Writes proposed files of a run with the same code as --apply: one file (`path`) or all that can be written, each
  // only if it is still what its diff was made against (`bases`, path to base, from the preview the page showed).
  // A file that changed since is not written: its new diff is shown, to be written again. `force`: the user pressed
  // Write on the card of a held-back file, having seen why: it is written, elided-looking or running code.
  async write(runId: number, bases: ReadonlyMap<string, string>, force: boolean): Promise<FileView[]> {
    const run = this.runs.find((r) => r.id === runId);
    const blocks = this.blocks.get(runId) ?? [];
    // The page names a file as the preview did: the model's path made tidy by the path rule. Every proposal for the
    // path goes, in order: a FILE and the EDITs after it.
    const ops = blocks.filter((b) => bases.has(tidyPath(b.path)));
    if (run === undefined || ops.length === 0)
      throw new PultError(
        'NOT_FOUND',
        { code: 'no-proposal', run: runId, paths: [...bases.keys()] },
        `No proposed file ${[...bases.keys()].join(', ')} in run ${runId}.`,
      );
    const box = this.options.executor.box;
    const trust = force ? [...bases.keys()] : [];
    const report = await applyFiles(box, ops, {
      backupDir: this.options.backupDir,
      force,
      trust,
      diff: true,
      expected: bases,
    });
    const now = new Map(previewFiles(box, ops, { diff: true }).map((f) => [f.path, fileView(f)]));
    const results = report.files.map((applied): FileView => {
      const fresh = now.get(applied.path);
      const base = bases.get(applied.path);
      if (!applied.written && fresh !== undefined && base !== undefined && fresh.base !== base) {
        return { ...fresh, said: { code: 'changed-since-shown' } };
      }
      return { ...fileView(applied), backupSet: report.backupSet };
    });
    const byPath = new Map(results.map((f) => [f.path, f]));
    run.files = run.files.map((f) => byPath.get(f.path) ?? f);
    this.refreshOthers(run.id);
    this.options.send({ type: 'run', run });
    return results;
  }

  // Undoes the named set (the one a Write made, all its files), or the last one. A set whose file a later Write wrote
  // again is not undone until that later one is.
  undo(set?: string): UndoReport {
    const report = undoLast(this.options.executor.box, this.options.backupDir, undefined, set);
    if (report.set === undefined)
      throw new PultError(
        'NOT_FOUND',
        { code: 'nothing-to-undo', set },
        set === undefined ? 'No applied set to undo.' : `No applied set ${set} to undo (already undone?).`,
      );
    if (report.later.length > 0)
      throw new PultError(
        'UNDO_BLOCKED',
        { code: 'undo-blocked', later: report.later },
        `Nothing was undone: ${laterWrites(report.later)}. Undoing this write would throw that later one away; undo it first (Undo on its card), then this one.`,
      );
    this.refreshOthers(undefined);
    return { ...report, files: report.files.map(undoneView) };
  }

  // A run's proposals as they stand against the disk now, written nothing.
  private preview(runId: number): FileView[] {
    const blocks = this.blocks.get(runId) ?? [];
    return previewFiles(this.options.executor.box, blocks, { diff: true }).map(fileView);
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

  // Every answered run's proposals judged against the disk as it is now (the reader may have edited a file since the
  // page last looked): the runs whose cards change. A written file still as its Write left it stays written, with
  // its Undo.
  look(): RunView[] {
    const changed: RunView[] = [];
    for (const run of this.runs) {
      if (run.state !== 'answered' || !this.blocks.has(run.id)) continue;
      const before = new Map(run.files.map((f) => [f.path, f]));
      const fresh = this.preview(run.id).map((f): FileView => {
        const was = before.get(f.path);
        return was?.written === true && f.status === 'unchanged' ? was : f;
      });
      if (JSON.stringify(fresh) === JSON.stringify(run.files)) continue;
      run.files = fresh;
      changed.push(run);
    }
    return changed;
  }

  private onEvent(run: RunView, e: LoopEvent, steps: number): void {
    if (e.kind === 'text') return;
    if (e.kind === 'receiving') {
      if (run.waiting !== undefined) {
        run.waiting.received = e.chars;
        run.waiting.thinking = e.thinking;
      }
      this.options.send({ type: 'progress', id: run.id, received: e.chars, thinking: e.thinking });
      return;
    }
    if (e.kind === 'sending') {
      run.log.push({
        kind: 'sending',
        step: e.step,
        steps,
        chars: e.chars,
        tokens: e.tokens,
        budget: e.budget,
        window: e.window,
        dropped: e.dropped,
      });
      run.waiting = {
        step: e.step,
        since: Date.now(),
        received: 0,
        thinking: 0,
        ...(e.carries === undefined ? {} : { carries: e.carries }),
      };
    } else if (e.kind === 'replied') {
      run.waiting = undefined;
      run.log.push({
        kind: 'replied',
        step: e.step,
        steps,
        chars: e.chars,
        ms: e.ms,
        requests: e.requests,
        files: e.files,
      });
    } else if (e.kind === 'warning') {
      run.log.push({ kind: 'warning', step: e.step, steps, message: e.message });
    } else if (e.kind === 'miscited') {
      run.log.push({ kind: 'miscited', step: e.step, steps, citations: e.citations, retry: e.retry });
    } else {
      run.log.push({ kind: 'answered-requests', step: e.step, steps, requests: e.requests, chars: e.chars });
    }
    this.options.send({ type: 'run', run });
  }
}

function notWaiting(run: number): PultError {
  return new PultError('NOT_FOUND', { code: 'not-waiting', run }, `Run ${run} is not waiting for a pasted reply.`);
}

// The web chat a conversation's questions are pasted into, begun when the first is.
function chatOf(conversation: { chat?: ChatState }): ChatState {
  const chat = conversation.chat ?? newChat();
  conversation.chat = chat;
  return chat;
}
