// How the map's work in the background gives way (reading/map/mapper.ts): it waits while a step is answered, so that
// a step never shares the cores with it; a long piece of work goes a slice at a time, each a task of its own; and the
// run's end ends every wait at once, so that a run never stays for its map.

export type Background = {
  // Told around each step's answers (by the executor).
  stepStarted(): void;
  stepEnded(): void;
  // Runs `work` once no step is being answered (at once when none is), or once closed: looked at in the task that runs
  // it, so that a step begun meanwhile is seen.
  run<T>(work: () => T): Promise<Awaited<T>>;
  // Resolved after `ms`, or at once when closed.
  pause(ms: number): Promise<void>;
  // Runs `parts` about `sliceMs` at a time, each slice a task of its own begun while no step is being answered: what
  // the last part gives, or undefined when `ended` says so before it.
  inSlices<T>(parts: Generator<void, T>, ended: () => boolean): Promise<T | undefined>;
  // Ends every wait: the run is over.
  close(): void;
  closed(): boolean;
};

export function createBackground(sliceMs: number): Background {
  let steps = 0;
  let closed = false;
  // Those waiting for the step being answered to end, and the pauses going on, each with its timer.
  let stepWaits: Array<() => void> = [];
  const pauses = new Map<NodeJS.Timeout, () => void>();
  const endStepWaits = () => {
    const waiting = stepWaits;
    stepWaits = [];
    for (const resolve of waiting) resolve();
  };
  const run = async <T>(work: () => T): Promise<Awaited<T>> => {
    while (steps > 0 && !closed) await new Promise<void>((resolve) => stepWaits.push(resolve));
    return await work();
  };

  return {
    stepStarted() {
      steps++;
    },
    stepEnded() {
      steps = Math.max(0, steps - 1);
      if (steps === 0) endStepWaits();
    },
    run,
    pause(ms) {
      if (closed) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          pauses.delete(timer);
          resolve();
        }, ms);
        pauses.set(timer, resolve);
      });
    },
    async inSlices(parts, ended) {
      for (;;) {
        const part = await run(() => (ended() ? undefined : slice(parts, sliceMs)));
        if (part === undefined) return undefined;
        if (part.done) return part.value;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    close() {
      closed = true;
      endStepWaits();
      for (const [timer, resolve] of pauses) {
        clearTimeout(timer);
        resolve();
      }
      pauses.clear();
    },
    closed: () => closed,
  };
}

// Runs `parts` for about `ms` (one part at least): the last part's result.
function slice<T>(parts: Generator<void, T>, ms: number): IteratorResult<void, T> {
  const until = performance.now() + ms;
  let part = parts.next();
  while (!part.done && performance.now() < until) part = parts.next();
  return part;
}
