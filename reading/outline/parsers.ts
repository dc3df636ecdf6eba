// The parser as the main thread sees it: one worker thread (parse-worker.ts), started when a file is first parsed —
// a run that never outlines never loads it — and given one file at a time. OUTLINE's files go before the map's (whose
// mapper asks for none while a step's requests are answered), so building the map in the background takes nothing
// from a step. Every failure — a worker that does not start, dies, or runs past its time — is one file's failed
// parse, and the next file gets a fresh worker; a worker that parsed a big file is ended after it, so the memory its
// WebAssembly heap grew to is given back.

import type { Worker } from 'node:worker_threads';
import type { Language } from './languages.ts';
import { readAnswer, type ParseJob } from './messages.ts';
import type { Parsed } from './symbols.ts';
import { holdFor, holdUntilEnded } from '../threads.ts';

// `ended`: the run ended (close()) before the file was parsed, which says nothing of the file.
export type ParseOutcome = ({ kind: 'parsed' } & Parsed) | { kind: 'failed'; reason: string } | { kind: 'ended' };

export type Parsers = {
  // Parses one file's text. `rows`: only the definitions on these zero-based lines (the last excluded) and around
  // them. `refs`: count the words it uses too (the map). `background`: the map's, which waits behind any other.
  parse(
    language: Language,
    text: string,
    options: { refs: boolean; rows?: { from: number; to: number }; background?: boolean },
  ): Promise<ParseOutcome>;
  // Ends the worker; parses still waiting fail.
  close(): Promise<void>;
};

// `module`: the worker's compiled module (default: parse-worker.js beside this file). `ms`: the time a parse may take,
// and its query as much again, before the worker gives up on it; `hardMs`: past this the worker is ended.
export type ParsersOptions = { module?: URL; ms?: number; hardMs?: number };

// A text this long leaves the worker's heap grown by hundreds of MB (a 9 MB file: about 280 MB): the worker is ended
// after it.
const BIG_TEXT = 4 << 20;
export const PARSE_MS = 15_000;

type Waiting = { job: ParseJob; resolve: (outcome: ParseOutcome) => void };

export function createParsers(options: ParsersOptions = {}): Parsers {
  const module = options.module ?? new URL('./parse-worker.js', import.meta.url);
  const ms = options.ms ?? PARSE_MS;
  const hardMs = options.hardMs ?? ms * 2 + 30_000;
  const now: Waiting[] = [];
  const background: Waiting[] = [];
  let busy = false;
  let closed = false;
  let nextId = 1;
  let worker: Promise<Worker> | undefined;

  const pump = () => {
    if (busy || closed) return;
    const next = now.shift() ?? background.shift();
    if (next === undefined) return;
    busy = true;
    run(next).then(
      (outcome) => finish(next, outcome),
      (error: unknown) => finish(next, { kind: 'failed', reason: String(error) }),
    );
  };
  const finish = (waiting: Waiting, outcome: ParseOutcome) => {
    busy = false;
    waiting.resolve(outcome);
    pump();
  };

  const run = async ({ job }: Waiting): Promise<ParseOutcome> => {
    let thread: Worker;
    try {
      // A worker that died while idle (its thread id is -1 once it has exited) is replaced by a fresh one.
      if (worker !== undefined && (await worker.catch(() => undefined))?.threadId === -1) worker = undefined;
      worker ??= start(module);
      thread = await worker;
    } catch (error) {
      worker = undefined;
      return { kind: 'failed', reason: `the parser did not start: ${String(error)}` };
    }
    const outcome = await ask(thread, job, hardMs);
    if (closed) return { kind: 'ended' };
    if (outcome.kind === 'failed' || job.text.length > BIG_TEXT) {
      worker = undefined;
      void end(thread);
    }
    return outcome;
  };

  return {
    parse(language, text, { refs, rows, background: later = false }) {
      if (closed) return Promise.resolve({ kind: 'ended' });
      return new Promise((resolve) => {
        const job: ParseJob = { kind: 'parse', id: nextId++, language, text, ms, rows, refs };
        (later ? background : now).push({ job, resolve });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const w of [...now.splice(0), ...background.splice(0)]) w.resolve({ kind: 'ended' });
      const running = worker;
      worker = undefined;
      if (running !== undefined) await running.then(end, () => undefined);
    },
  };
}

// Starts a worker, resolved once it is online: terminate() of a worker not yet online never settles on Node 20.
async function start(module: URL): Promise<Worker> {
  const { Worker } = await import('node:worker_threads');
  // Ref'd while it starts: a parse is waiting for it.
  const thread = new Worker(module, { execArgv: [] });
  await new Promise<void>((resolve, reject) => {
    thread.once('online', resolve);
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`it exited (${code})`)));
  });
  // Heard for as long as it lives: an error with no parse out would otherwise end the process.
  thread.on('error', () => undefined);
  thread.unref();
  return thread;
}

// Posts one parse and waits for its answer; the worker dying or running past `hardMs` fails it. The worker keeps the
// process alive only while a parse is out, or once it is being ended (reading/threads.ts).
function ask(thread: Worker, job: ParseJob, hardMs: number): Promise<ParseOutcome> {
  return new Promise((resolve) => {
    const done = (outcome: ParseOutcome) => {
      clearTimeout(timer);
      thread.off('message', onMessage);
      thread.off('error', onError);
      thread.off('exit', onExit);
      holdFor(thread, -1);
      resolve(outcome);
    };
    const onMessage = (raw: unknown) => {
      const answer = readAnswer(raw, job.id);
      if (answer === undefined) return;
      if (answer.kind === 'failed') done({ kind: 'failed', reason: answer.message });
      else {
        const { kind: _kind, id: _id, ...parsed } = answer;
        done({ kind: 'parsed', ...parsed });
      }
    };
    const onError = (error: unknown) => done({ kind: 'failed', reason: `the parser stopped: ${String(error)}` });
    const onExit = (code: number) => done({ kind: 'failed', reason: `the parser stopped (exit ${code})` });
    const timer = setTimeout(
      () => done({ kind: 'failed', reason: `it took over ${Math.round(hardMs / 1000)} s` }),
      hardMs,
    );
    timer.unref();
    thread.on('message', onMessage);
    thread.on('error', onError);
    thread.on('exit', onExit);
    holdFor(thread, 1);
    thread.postMessage(job);
  });
}

// Ends the worker, keeping the process alive until it has exited, whatever answer comes in meanwhile.
async function end(thread: Worker): Promise<void> {
  holdUntilEnded(thread);
  await thread.terminate().catch(() => undefined);
}
