// `deepwork --selftest`: built-in checks; sends nothing anywhere.

import { runSelftest } from '../app/selftest.ts';
import { EXIT, type Context } from './context.ts';

export async function run(context: Context): Promise<number> {
  return (await runSelftest((line) => context.io.out(line))) ? EXIT.ok : EXIT.failure;
}
