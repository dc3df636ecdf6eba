// `deepwork undo`: put back the folder's last applied set; `--list`: the folder's sets.

import { DeepworkError } from '../common/errors.ts';
import { createSandbox } from '../reading/sandbox.ts';
import { undoLast } from '../writing/undo.ts';
import { setsOf } from '../writing/backup-sets.ts';
import { printJson } from '../console/output.ts';
import { listSets, undoneReport } from '../console/lists.ts';
import { consoleTexts } from '../common/strings/console.js';
import { EXIT, settingsOf, type Context } from './context.ts';

export async function run(context: Context): Promise<number> {
  const { io, flags, lang } = context;
  const { config, box: options } = settingsOf(context);
  const json = flags.json === true;
  const box = createSandbox(context.cwd, options);
  if (flags.list === true) {
    const sets = setsOf(config.backupDir, box.root);
    if (json) {
      printJson(io, {
        backupDir: config.backupDir,
        sets: sets.map((set) => ({
          name: set.name,
          undone: set.manifest.undone,
          files: set.manifest.files.filter((f) => f.written).map((f) => f.path),
        })),
      });
    } else {
      io.out(`${consoleTexts.setsHead[lang](box.root, config.backupDir)}\n${listSets(io, sets)}`);
    }
    return EXIT.ok;
  }
  const report = undoLast(box, config.backupDir);
  if (report.set === undefined) throw new DeepworkError('NOT_FOUND', consoleTexts.noUndo[lang](config.backupDir));
  if (json)
    printJson(io, {
      set: report.set.name,
      files: report.files.map((f) => ({
        path: f.path,
        action: f.action,
        ...(f.reason === undefined ? {} : { reason: f.reason }),
      })),
      ...(report.later.length > 0 ? { later: report.later } : {}),
    });
  else io.out(undoneReport(io, { ...report, set: report.set }));
  return report.later.length > 0 || report.files.some((f) => f.action === 'failed') ? EXIT.failure : EXIT.ok;
}
