// The parser's worker: parses one file at a time with tree-sitter's WebAssembly runtime and answers with its
// definitions (symbols.ts). A thread of its own, so that a parse never holds up the main thread (the pult, the
// bridge's stream), a runtime that fails or grows takes nothing else with it, and its memory goes when it ends.

import { parentPort } from 'node:worker_threads';
import { messageOf } from '../../common/errors.ts';
import { readJob, type FromWorker } from './messages.ts';
import { parseText } from './symbols.ts';

const reply = (message: FromWorker) => parentPort?.postMessage(message);

// One file at a time, in the order sent: the main thread sends a few ahead (parsers.ts) and takes the answers in that
// order, and a file whose grammar is still loading would otherwise be overtaken by the next.
let last: Promise<void> = Promise.resolve();

parentPort?.on('message', (raw: unknown) => {
  const job = readJob(raw);
  if (job === undefined) return;
  last = last.then(() =>
    parseText(job.language, job.text, job).then(
      (parsed) => reply({ kind: 'parsed', id: job.id, ...parsed }),
      (error: unknown) => reply({ kind: 'failed', id: job.id, message: messageOf(error) }),
    ),
  );
});
