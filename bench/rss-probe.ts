// Run by the benchmark in a fresh process: what a FIND-heavy run does on the corpus, then the peak RSS in KB.

import { createExecutor } from '../reading/executor.ts';
import { CORPUS } from './tools.ts';

const executor = createExecutor(CORPUS);
executor.tree();
const find = (texts: string[]) =>
  executor.answer(texts.map((text) => ({ kind: 'find' as const, text, scope: undefined, line: 0 })));
await find(['zzqqxxyy_rare', 'xxzz_none_at_all', 'nothing_here_1', 'missing.Symbol()', 'no_such_identifier_2']);
await find(['qqq_nope_never']);
await find(['function']);
await executor.answer([{ kind: 'need', paths: ['typescript/lib/typescript.js'], line: 0 }]);
await executor.close();
process.stdout.write(`${process.resourceUsage().maxRSS}\n`);
