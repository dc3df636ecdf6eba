// Writing a run's proposals from the console, for a question with --apply and for `deepwork apply`. Ctrl-C meanwhile
// finishes the file being written, records it in the set and stops (exit 130); a file that could not be written makes
// the exit code 1.

import { applyFiles, type ApplyReport } from '../writing/apply.ts';
import type { Proposal } from '../protocol/parse.ts';
import type { Sandbox } from '../reading/sandbox.ts';
import { EXIT, type Write } from './context.ts';

export async function writeFiles(
  box: Sandbox,
  files: readonly Proposal[],
  backupDir: string,
  write: Write,
): Promise<{ report: ApplyReport; code: number }> {
  if (files.length === 0) return { report: { files: [], backupSet: undefined }, code: EXIT.ok };
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const report = await applyFiles(box, files, {
      backupDir,
      force: write.force,
      trust: write.trust,
      diff: write.diff,
      signal: controller.signal,
    });
    const code = controller.signal.aborted
      ? EXIT.interrupted
      : report.files.some((f) => f.status === 'failed')
        ? EXIT.failure
        : EXIT.ok;
    return { report, code };
  } finally {
    process.off('SIGINT', onSigint);
  }
}
