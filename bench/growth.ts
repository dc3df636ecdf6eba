// How time grows with input: the exponent of a least-squares fit of log time on log size, given as the factor for
// twice the input (2.0 for linear, 4.0 for quadratic). Four sizes resist one noisy sample far better than one pair.
// Sizes that take under a millisecond are doubled until they do not: at microseconds a fit measures caches, not the
// code. `gcShare` is the part of the timed runs the garbage collector took (V8's gc entries), so a factor driven by
// the collector is told apart from one driven by the code.

import { PerformanceObserver } from 'node:perf_hooks';

export type Growth = { factor: number; gcShare: number; smallestMs: number };

export function growthFactor(make: (size: number) => string, sizes: readonly number[], run: (input: string) => unknown, tries: number): Growth {
  let scale = 1;
  const bestOf = (input: string) => {
    let best = Infinity;
    for (let i = 0; i < tries; i++) {
      const started = process.hrtime.bigint();
      run(input);
      best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
    }
    return best;
  };
  for (let smallest = bestOf(make(sizes[0] ?? 1)); smallest < 1 && scale < 1024; scale *= 2) smallest = bestOf(make((sizes[0] ?? 1) * scale * 2));
  const scaled = sizes.map((s) => s * scale);
  const observer = new PerformanceObserver(() => {});
  observer.observe({ entryTypes: ['gc'] });
  let gc = 0;
  let total = 0;
  const times = scaled.map((size) => {
    const input = make(size);
    run(input);
    observer.takeRecords();
    const started = performance.now();
    const best = bestOf(input);
    total += performance.now() - started;
    gc += observer.takeRecords().reduce((sum, e) => sum + e.duration, 0);
    return best;
  });
  observer.disconnect();
  return { factor: 2 ** slope(scaled.map(Math.log), times.map(Math.log)), gcShare: total > 0 ? gc / total : 0, smallestMs: times[0] ?? 0 };
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
