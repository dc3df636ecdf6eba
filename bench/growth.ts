// How time grows with input: the exponent of a least-squares fit of log time on log size, given as the factor for
// twice the input (2.0 for linear, 4.0 for quadratic). Four sizes resist one noisy sample far better than one pair.

export function growthFactor(make: (size: number) => string, sizes: readonly number[], run: (input: string) => unknown, tries: number): number {
  const times = sizes.map((size) => {
    const input = make(size);
    run(input);
    let best = Infinity;
    for (let i = 0; i < tries; i++) {
      const started = process.hrtime.bigint();
      run(input);
      best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
    }
    return best;
  });
  return 2 ** slope(sizes.map(Math.log), times.map(Math.log));
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
