// When a worker thread (a search worker, the parser's) keeps the process alive: while work of its is out, and from the
// moment it is being ended until it has exited. Idle, it does not: a run whose workers are idle ends when its work is
// done. ref() and unref() are a switch, not a count, so once a worker has started each change goes through here.
//
// A worker being ended stays ref'd whatever answer comes in meanwhile: an answer taken in after terminate() was asked
// for, and before the thread's exit, used to unref it, and a caller awaiting its end with nothing else to wait for
// then ended with that promise pending (Node's exit 13, with no word). The search workers did in a few runs of a
// hundred; the parser's in a few whole bench runs of several.

import type { Worker } from 'node:worker_threads';

// Work out per worker: one piece may still be out (an answer nobody waits for any more) when the next is posted.
const out = new WeakMap<Worker, number>();
const ending = new WeakSet<Worker>();

// A piece of work posted to the worker (+1), or its answer taken in or given up on (-1).
export function holdFor(worker: Worker, change: 1 | -1): void {
  const count = (out.get(worker) ?? 0) + change;
  out.set(worker, count);
  if (count > 0 || ending.has(worker)) worker.ref();
  else worker.unref();
}

// The worker is being ended: it keeps the process alive from now until it has exited.
export function holdUntilEnded(worker: Worker): void {
  ending.add(worker);
  worker.ref();
}
