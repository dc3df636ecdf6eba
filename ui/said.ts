// What the server says to the page, as codes (ui/contract.ts, Said): the tags of the layers below (why a file is not
// written, what undo left, why a bridge failed) turned into the codes the page words in the reader's language. The
// English sentences stay with the console; only the details those layers have no tag for yet travel as words.

import { DeepworkError, errnoOf, messageOf, type ErrorCode } from '../common/errors.ts';
import type { CheckReport } from '../bridge/check.ts';
import type { Applied, Why } from '../writing/apply.ts';
import type { Undone, UndoWhy } from '../writing/undo.ts';
import type { BridgeCheck, FileView, Said, UndoneFile } from './contract.ts';

// A refusal of the pult's own, with what the page words: a DeepworkError to the server (its status follows `code`),
// whose `said` goes to the page beside the English message.
export class PultError extends DeepworkError {
  readonly said: Said;
  constructor(code: ErrorCode, said: Said, message: string) {
    super(code, message);
    this.said = said;
  }
}

// A proposed file as the page gets it: the writing layer's report without its English reason, with the tag as a code.
export function fileView(applied: Applied): FileView {
  const { reason, hold: _hold, why, ...rest } = applied;
  const said = why === undefined ? (reason === undefined ? undefined : text(reason)) : saidOfWhy(why);
  return said === undefined ? rest : { ...rest, said };
}

function saidOfWhy(why: Why): Said {
  switch (why.kind) {
    case 'incomplete':
      return { code: 'incomplete', block: why.block };
    case 'edit-unreadable':
      return { code: 'edit-unreadable', detail: why.problem };
    case 'edit-failed':
      return { code: 'edit-failed', edit: why.edit, edits: why.edits, pair: why.pair, detail: why.problem };
    case 'no-file-to-edit':
    case 'read-only':
    case 'stopped':
    case 'changed-since-read':
    case 'changed-since-shown':
      return { code: why.kind };
    case 'path-refused':
    case 'elided':
    case 'runs-code':
    case 'git-dir':
      return { code: why.kind, detail: why.detail };
    case 'link':
      return { code: 'link', to: why.to };
    case 'edit-partial':
      return { code: 'edit-partial', pairs: why.pairs, missed: why.missed };
    case 'unreadable':
      return { code: 'unreadable', errno: why.code };
    case 'unencodable':
      return { code: 'unencodable', char: why.char, line: why.line, encoding: why.encoding };
    case 'written-later':
      return { code: 'written-later', path: why.path };
    case 'write-failed':
      return { code: 'write-failed', errno: why.code, detail: why.detail };
    case 'unfit': {
      const unfit = why.unfit;
      switch (unfit.kind) {
        case 'binary':
          return { code: 'binary', detail: unfit.what };
        case 'key':
          return { code: 'private-key', line: unfit.line };
        case 'too-large':
          return { code: 'too-large', bytes: unfit.bytes, limit: unfit.limit };
        case 'unreadable':
          return { code: 'unreadable', errno: unfit.code };
        case 'inexact':
          return { code: 'inexact', encoding: unfit.encoding };
      }
    }
  }
}

// What undo did with a file, as the page gets it.
export function undoneView(file: Undone): UndoneFile {
  const { reason, why, ...rest } = file;
  const said = why === undefined ? (reason === undefined ? undefined : text(reason)) : saidOfUndo(why);
  return said === undefined ? rest : { ...rest, said };
}

function saidOfUndo(why: UndoWhy): Said {
  switch (why.kind) {
    case 'outside':
      return { code: 'undo-outside' };
    case 'copy-outside':
      return { code: 'undo-copy-outside' };
    case 'path-refused':
      return { code: 'undo-path-refused', detail: why.detail };
    case 'now-link':
      return { code: 'undo-now-link', to: why.to };
    case 'unreadable':
      return { code: 'undo-unreadable', errno: why.code };
    case 'changed-after':
      return { code: 'undo-changed-after', copy: why.copy };
    case 'changed-while':
      return { code: 'undo-changed-while', copy: why.copy };
    case 'failed':
      return { code: 'undo-failed', detail: why.detail };
  }
}

// Why a run failed, or why a bridge is down, from the error: by its code and its cause's, never by its words. `host`:
// the bridge's, which the error's words name.
export function saidOfError(error: unknown, host: string, model: string): Said {
  if (error instanceof PultError) return error.said;
  if (!(error instanceof DeepworkError)) return text(messageOf(error));
  const errno = errnoOf(error.cause);
  switch (error.code) {
    case 'BRIDGE_DOWN':
      if (errno === 'ECONNREFUSED' || errno === 'EHOSTUNREACH' || errno === 'EADDRNOTAVAIL')
        return { code: 'not-listening', origin: originOf(host), errno };
      if (errno === 'ENOTFOUND' || errno === 'EAI_AGAIN') return { code: 'no-such-host', host: hostnameOf(host) };
      return text(error.message);
    case 'BRIDGE_TIMEOUT':
      return { code: 'timeout', origin: originOf(host) };
    case 'CONTEXT_FULL':
      return { code: 'window-full', detail: error.message };
    case 'BRIDGE_MODEL':
      return { code: 'unknown-model', model, detail: error.message };
    default:
      return text(error.message);
  }
}

// The bridge's state as the page gets it: what it says, by the state and the cause of a failure.
export function checkView(report: CheckReport): BridgeCheck {
  const { state, host, model } = report;
  const said: Said =
    state === 'ready'
      ? { code: 'ready', host: originOf(host), model }
      : state === 'idle'
        ? { code: 'idle', host: originOf(host), model }
        : report.cause === undefined
          ? text(report.message)
          : saidOfError(report.cause, host, model);
  // A failure without a code of its own keeps the check's words, which say what to do for that bridge.
  return { state, host, model, said: said.code === 'text' ? text(report.message) : said };
}

function text(words: string): Said {
  return { code: 'text', text: words };
}

function originOf(host: string): string {
  try {
    return new URL(host).origin;
  } catch {
    return host;
  }
}

function hostnameOf(host: string): string {
  try {
    return new URL(host).hostname;
  } catch {
    return host;
  }
}
