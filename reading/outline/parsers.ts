// The parser as the main thread sees it: one worker thread (parse-worker.ts), started when a file is first parsed —
// a run that never outlines never loads it — and sent a few files ahead of its answers. OUTLINE's files go before
// the map's (whose mapper asks for none while a step's requests are answered), so building the map in the background
// takes little from a step. Every failure — a worker that does not start, dies, or runs past its time — is one file's
// failed parse, and the files sent after it go to a fresh worker; a worker that parsed a big file is ended after it,
// and one left with nothing to parse is ended after a while, so the memory its WebAssembly heap grew to is given back.

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
  // Says more files are coming (the map's, paused while a step is answered): until the returned function is called, a
  // worker with nothing to parse is not ended for it.
  expect(): () => void;
  // Ends the worker; parses still waiting fail.
  close(): Promise<void>;
};

// `module`: the worker's compiled module (default: parse-worker.js beside this file). `ms`: the time a parse may take,
// and its query as much again, before the worker gives up on it; `hardMs`: past this the worker is ended. `idleMs`: a
// worker with nothing sent or waiting, and no more files expected, is ended after this long (0: at once).
export type ParsersOptions = { module?: URL; ms?: number; hardMs?: number; idleMs?: number };

// A text this long leaves the worker's heap grown by hundreds of MB (a 9 MB file: about 280 MB): the worker is ended
// after it, and nothing is sent behind it.
const BIG_TEXT = 4 << 20;
export const PARSE_MS = 15_000;
// A worker holds what its heap grew to for as long as it lives: on the Linux source, about 75 MB more than the process
// had before its first parse, after the map's 1,000 files (issue 30). Once the map is built it is ended, and a later
// OUTLINE starts a fresh one (a C++ file's first parse from cold: about 300 ms). Two seconds outlast the pauses of a
// map built in the background, which waits while a step's requests are answered; and the map says it has more files to
// send (expect()), so a step that takes longer (a FIND over all of Linux: up to about 4 s) does not end the worker in
// the middle of it, to start another for the map's next file.
const IDLE_MS = 2_000;
// Files sent to the worker before their answers come, at most, and their characters (past the first file): the worker
// takes the next as soon as it answers one, rather than after the answer has crossed to the main thread and the next
// file has been read and crossed back. A thousand files of 60 bytes took 275-420 ms one at a time, against 95 ms
// parsed in one thread; a file asked for now (OUTLINE) waits at most behind what is out.
const OUT_FILES = 16;
const OUT_CHARS = 64 << 10;

type Waiting = { job: ParseJob; later: boolean; resolve: (outcome: ParseOutcome) => void };
// The worker in use and what it has been sent, in order: it answers them in that order.
type Current = {
  thread: Worker;
  out: Waiting[];
  chars: number;
  timer: NodeJS.Timeout | undefined;
  last: boolean;
  idle: NodeJS.Timeout | undefined;
};

export function createParsers(options: ParsersOptions = {}): Parsers {
  const module = options.module ?? new URL('./parse-worker.js', import.meta.url);
  const ms = options.ms ?? PARSE_MS;
  const hardMs = options.hardMs ?? ms * 2 + 30_000;
  const idleMs = options.idleMs ?? IDLE_MS;
  const now: Waiting[] = [];
  const background: Waiting[] = [];
  let current: Current | undefined;
  let starting: Promise<Worker> | undefined;
  let closed = false;
  let nextId = 1;
  // How many are expecting more files (expect()).
  let expected = 0;

  // Sends what waits while the worker has room, starting one when there is none.
  const pump = () => {
    if (closed || starting !== undefined) return;
    if (current === undefined) {
      if (now.length === 0 && background.length === 0) return;
      starting = start(module);
      starting.then(
        (thread) => {
          starting = undefined;
          if (closed) return; // close() ends it
          current = attach(thread);
          pump();
        },
        (error: unknown) => {
          // One file fails with it; the next is given a fresh worker.
          starting = undefined;
          if (closed) return;
          (now.shift() ?? background.shift())?.resolve({
            kind: 'failed',
            reason: `the parser did not start: ${String(error)}`,
          });
          pump();
        },
      );
      return;
    }
    const c = current;
    clearTimeout(c.idle);
    c.idle = undefined;
    while (!c.last && c.out.length < OUT_FILES) {
      const queue = now.length > 0 ? now : background;
      const next = queue[0];
      if (next === undefined && c.out.length === 0) return rest(c);
      if (next === undefined || (c.out.length > 0 && c.chars + next.job.text.length > OUT_CHARS)) return;
      queue.shift();
      c.out.push(next);
      c.chars += next.job.text.length;
      c.last = next.job.text.length > BIG_TEXT;
      if (c.out.length === 1) arm(c);
      holdFor(c.thread, 1);
      c.thread.postMessage(next.job);
    }
  };

  // A worker with nothing to do is ended after `idleMs`, unless given a file by then, or more files are expected.
  const rest = (c: Current) => {
    if (expected > 0) return;
    if (idleMs === 0) return retire(c);
    c.idle = setTimeout(() => {
      if (current === c && c.out.length === 0) retire(c);
    }, idleMs);
    c.idle.unref();
  };

  // The file at the head of what is out gets `hardMs` from when the worker reached it.
  const arm = (c: Current) => {
    clearTimeout(c.timer);
    c.timer = setTimeout(() => lose(c, `it took over ${Math.round(hardMs / 1000)} s`), hardMs);
    c.timer.unref();
  };

  const attach = (thread: Worker): Current => {
    const c: Current = { thread, out: [], chars: 0, timer: undefined, last: false, idle: undefined };
    thread.on('message', (raw: unknown) => {
      const head = c.out[0];
      const answer = head === undefined ? undefined : readAnswer(raw, head.job.id);
      if (head === undefined || answer === undefined) return;
      c.out.shift();
      c.chars -= head.job.text.length;
      clearTimeout(c.timer);
      holdFor(thread, -1);
      if (answer.kind === 'failed' || head.job.text.length > BIG_TEXT) retire(c);
      else if (c.out.length > 0) arm(c);
      if (answer.kind === 'failed') head.resolve({ kind: 'failed', reason: answer.message });
      else {
        const { kind: _kind, id: _id, ...parsed } = answer;
        head.resolve({ kind: 'parsed', ...parsed });
      }
      pump();
    });
    thread.on('error', (error: unknown) => lose(c, `the parser stopped: ${String(error)}`));
    thread.on('exit', (code: number) => lose(c, `the parser stopped (exit ${code})`));
    return c;
  };

  // The worker died or ran past its time: the file it was on fails, the rest it was sent go to the next worker.
  const lose = (c: Current, reason: string) => {
    if (current !== c) return;
    const head = c.out.shift();
    if (head !== undefined) holdFor(c.thread, -1);
    retire(c);
    head?.resolve({ kind: 'failed', reason });
    pump();
  };

  // Ends the worker; what it was sent and has not answered waits again, first in its queue.
  const retire = (c: Current) => {
    if (current === c) current = undefined;
    clearTimeout(c.timer);
    clearTimeout(c.idle);
    for (const w of c.out.splice(0).reverse()) {
      holdFor(c.thread, -1);
      (w.later ? background : now).unshift(w);
    }
    c.chars = 0;
    void end(c.thread);
  };

  return {
    parse(language, text, { refs, rows, background: later = false }) {
      if (closed) return Promise.resolve({ kind: 'ended' });
      return new Promise((resolve) => {
        const job: ParseJob = { kind: 'parse', id: nextId++, language, text, ms, rows, refs };
        (later ? background : now).push({ job, later, resolve });
        pump();
      });
    },
    expect() {
      expected++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        expected--;
        // Nothing more coming: an idle worker is ended as it would have been.
        const c = current;
        if (expected === 0 && c !== undefined && c.out.length === 0 && c.idle === undefined && !closed) rest(c);
      };
    },
    async close() {
      closed = true;
      const begun = starting;
      const c = current;
      current = undefined;
      const out = c === undefined ? [] : c.out.splice(0);
      for (const w of [...out, ...now.splice(0), ...background.splice(0)]) w.resolve({ kind: 'ended' });
      if (begun !== undefined) await begun.then(end, () => undefined);
      if (c === undefined) return;
      clearTimeout(c.timer);
      clearTimeout(c.idle);
      for (const _ of out) holdFor(c.thread, -1);
      await end(c.thread);
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

// Ends the worker, keeping the process alive until it has exited, whatever answer comes in meanwhile.
async function end(thread: Worker): Promise<void> {
  holdUntilEnded(thread);
  await thread.terminate().catch(() => undefined);
}
