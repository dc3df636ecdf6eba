// Reading ahead while the model thinks: each searcher (the main thread and its worker) claims the chunks of the run's
// files that nobody holds yet (plan.ts) and reads their files into its keeper, until its memory for kept files is
// spent. The FIND to come then finds them kept, each chunk searched by the searcher that read it, rather than opening,
// reading and closing each file (about 20 µs a small file here: most of what five texts cost on the npm corpus, issue
// 30). A FIND that comes first uses what was read and reads the rest itself.

import type { Keeper } from './keeper.ts';
import { CHUNK_FILES } from './plan.ts';

// How long one step of a read ahead takes, at most, each step a task of its own: on the main thread an answer from the
// bridge waits at most that long; in a worker, a search asked of it.
const STEP_MS = 2;
// A read ahead stops when its keeper has less room than this left: files are then mostly bigger than the room, read
// for nothing.
const ROOM_LEFT = 16 << 10;

// Whose turn it is: while `hold[0]` is above zero, a step is being answered (finder.ts's hold()), and every read ahead
// pauses between two files, so that it takes no core from the step.
export type Hold = Int32Array<ArrayBufferLike>;

export function held(hold: Hold): boolean {
  return Atomics.load(hold, 0) > 0;
}

// A read ahead under way. `resume`: goes on after a hold (or does nothing, when it is not paused); `stop`: for good, when
// the keeper's files change or it is dropped; `idle`: resolves when it next stops reading, paused by a hold or done
// (its memory spent, every chunk claimed, or stopped).
export type ReadAhead = { resume(): void; stop(): void; idle(): Promise<'paused' | 'done'> };

// Starts a read ahead of the run's `count` files for searcher `me`, once the keeper's memory is ready (prepare()).
// `owner`: the run's chunk owners, shared by the searchers.
export function readAhead(
  keeper: Keeper,
  share: { count: number; owner: Int8Array<ArrayBufferLike>; me: number },
  hold: Hold,
): ReadAhead {
  const { count, owner, me } = share;
  const chunks = Math.ceil(count / CHUNK_FILES);
  // 'waiting' for the keeper's memory, 'reading' (a step is scheduled), 'paused' by a hold, 'done'.
  let state: 'waiting' | 'reading' | 'paused' | 'done' = 'waiting';
  let waiting: Array<(state: 'paused' | 'done') => void> = [];
  const settle = (to: 'paused' | 'done') => {
    state = to;
    for (const resolve of waiting) resolve(to);
    waiting = [];
  };
  // The next chunk to look at, and the files of the one being read: index up to end.
  let chunk = 0;
  let index = 0;
  let end = 0;
  // The next chunk this searcher holds or claims: false when none is left.
  const claimNext = (): boolean => {
    for (; chunk < chunks; chunk++) {
      const holder = Atomics.load(owner, chunk);
      if (holder === me || (holder === -1 && Atomics.compareExchange(owner, chunk, -1, me) === -1)) {
        index = chunk * CHUNK_FILES;
        end = Math.min(count, index + CHUNK_FILES);
        chunk++;
        return true;
      }
    }
    return false;
  };
  const step = () => {
    if (state !== 'reading') return;
    const until = performance.now() + STEP_MS;
    for (;;) {
      if (held(hold)) return settle('paused');
      if (keeper.room() < ROOM_LEFT || (index >= end && !claimNext())) return settle('done');
      keeper.readAhead(index++);
      if (performance.now() >= until) break;
    }
    setImmediate(step);
  };
  void keeper.prepare().then(() => {
    if (state !== 'waiting') return;
    state = 'reading';
    setImmediate(step);
  });
  return {
    resume() {
      if (state !== 'paused') return;
      state = 'reading';
      setImmediate(step);
    },
    stop() {
      settle('done');
    },
    idle() {
      if (state === 'paused' || state === 'done') return Promise.resolve(state);
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}
