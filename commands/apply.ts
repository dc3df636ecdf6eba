// `deepwork apply`: the last run's proposals for this folder, written now, without asking the model again.

import { createSandbox } from '../reading/sandbox.ts';
import { loadRun } from '../state/runs.ts';
import { filesJson, listFiles, printJson } from '../console/output.ts';
import { EXIT, settingsOf, writeOf, type Context } from './context.ts';
import { writeFiles } from './write.ts';

export async function run(context: Context): Promise<number> {
  const { io } = context;
  const { config, box: options } = settingsOf(context);
  const write = writeOf(context.flags);
  const box = createSandbox(context.cwd, options);
  const saved = loadRun(config.stateDir, box.root);
  if (saved === undefined || saved.files.length === 0) {
    io.err(
      `deepwork: ${saved === undefined ? 'no run of deepwork in this folder yet' : 'the last run proposed no files'}; nothing to apply. Ask a question first.`,
    );
    return EXIT.failure;
  }
  const { report, code } = await writeFiles(box, saved.files, config.backupDir, write);
  if (write.json) printJson(io, filesJson(report));
  else io.out(listFiles(report, true, write.diff));
  return code;
}
