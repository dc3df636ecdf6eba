// How time grows with input: the exponent of a least-squares fit of log time on log size, given as the factor for
// twice the input (2.0 for linear, 4.0 for quadratic). Four sizes resist one noisy sample far better than one pair.
// Sizes that take under a millisecond are doubled until they do not: at microseconds a fit measures caches, not the
// code. `gcShare` is the part of the timed runs the garbage collector took (V8's gc entries), so a factor driven by
// the collector is told apart from one driven by the code.

import { PerformanceObserver } from 'node:perf_hooks';

// `factor`: the fit of the best times; `withoutGc`: the fit of the best times less the collector's pauses inside them
// (what the code itself does); `gcShare`: the collector's part of all the timed runs.
// `sizes`: the sizes fitted, after any doubling.
export type Growth = { factor: number; withoutGc: number; gcShare: number; smallestMs: number; sizes: number[] };

// Each timed run is its own task, so V8's gc entries reach the observer between runs; the pauses that fall inside a
// timed run are its collector time.
export async function growthFactor(
  make: (size: number) => string,
  sizes: readonly number[],
  run: (input: string) => unknown,
  tries: number,
): Promise<Growth> {
  const pauses: Array<[number, number]> = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push([e.startTime, e.duration]);
  });
  observer.observe({ entryTypes: ['gc'] });
  // The sizes take turns, one run of each per round, so that the machine slowing down or speeding up meanwhile (this
  // VM's neighbours) hits every size alike rather than tilting the fit: run size by size, the same build's factor moved
  // between 1.5 and 2.8 from one run to the next.
  const timeRuns = async (inputs: readonly string[]) => {
    const windows: Array<Array<[number, number]>> = inputs.map(() => []);
    for (let i = 0; i < tries; i++) {
      for (const [k, input] of inputs.entries()) {
        const started = performance.now();
        run(input);
        windows[k]?.push([started, performance.now()]);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return windows;
  };
  const best = (windows: Array<[number, number]>) => Math.min(...windows.map(([a, b]) => b - a));
  // The smallest size, run once untimed first (the compiler's first pass is slower), is doubled until it takes a
  // millisecond; if the measured runs then come out faster than that after all, the sizes are doubled again.
  const probe = async (size: number) => {
    const input = make(size);
    run(input);
    return best((await timeRuns([input]))[0] ?? []);
  };
  let scale = 1;
  while (scale < 1024 && (await probe((sizes[0] ?? 1) * scale)) < 1) scale *= 2;
  let scaled: number[] = [];
  let runs: Array<Array<[number, number]>> = [];
  for (;;) {
    scaled = sizes.map((s) => s * scale);
    pauses.length = 0;
    const inputs = scaled.map(make);
    for (const input of inputs) run(input);
    runs = await timeRuns(inputs);
    if (scale >= 1024 || best(runs[0] ?? []) >= 1) break;
    scale *= 2;
  }
  await new Promise((resolve) => setImmediate(resolve));
  observer.disconnect();
  const gcIn = ([a, b]: [number, number]) =>
    pauses.reduce((sum, [at, duration]) => sum + (at >= a && at <= b ? duration : 0), 0);
  const times = runs.map(best);
  const bare = runs.map((windows) => Math.min(...windows.map((w) => w[1] - w[0] - gcIn(w))));
  const total = runs.flat().reduce((sum, [a, b]) => sum + (b - a), 0);
  const gc = runs.flat().reduce((sum, w) => sum + gcIn(w), 0);
  const logs = scaled.map(Math.log);
  return {
    factor: 2 ** slope(logs, times.map(Math.log)),
    withoutGc:
      2 **
      slope(
        logs,
        bare.map((t) => Math.log(Math.max(t, 1e-3))),
      ),
    gcShare: total > 0 ? gc / total : 0,
    smallestMs: times[0] ?? 0,
    sizes: scaled,
  };
}

function slope(xs: number[], ys: number[]): number {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * ((ys[i] ?? 0) - my);
    den += (x - mx) ** 2;
  });
  return num / den;
}
