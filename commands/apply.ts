// `deepwork apply`: the last run's proposals for this folder, written now, without asking the model again. On a
// terminal the list comes first and the person is asked (--yes: not); --dry-run lists and diffs, and writes nothing.

import { createSandbox } from '../reading/sandbox.ts';
import { loadRun } from '../saved/runs.ts';
import { previewFiles } from '../writing/apply.ts';
import { filesJson, printJson } from '../console/output.ts';
import { listFiles, show } from '../console/lists.ts';
import { consoleTexts } from '../common/strings/console.js';
import { EXIT, settingsOf, type Context } from './context.ts';
import { confirmWrite, writeFiles, writeOf } from './write.ts';

export async function run(context: Context): Promise<number> {
  const { io, lang, flags } = context;
  const { config, box: options } = settingsOf(context);
  const write = writeOf(flags);
  const box = createSandbox(context.cwd, options);
  const saved = loadRun(config.stateDir, box.root);
  if (saved === undefined || saved.files.length === 0) {
    io.err((saved === undefined ? consoleTexts.noRun : consoleTexts.noProposals)[lang]);
    return EXIT.failure;
  }
  const dryRun = flags['dry-run'] === true;
  const asking = !dryRun && !write.json && !write.yes && context.confirm !== undefined;
  if (dryRun || asking) {
    const preview = {
      files: previewFiles(box, saved.files, { ...write, diff: write.diff || dryRun }),
      backupSet: undefined,
    };
    if (write.json) printJson(io, filesJson(preview));
    else show(io, listFiles(io, preview, dryRun ? 'dry-run' : 'asking', write.diff || dryRun));
    if (dryRun) return EXIT.ok;
    const said = await confirmWrite(context, preview, write.force || write.trust.length > 0);
    if (said !== 'yes') return said === 'stopped' ? EXIT.interrupted : EXIT.ok;
  }
  const { report, code } = await writeFiles(box, saved.files, config.backupDir, write);
  if (write.json) printJson(io, filesJson(report));
  else show(io, listFiles(io, report, 'written', write.diff && !asking));
  return code;
}
