// Writing a run's proposals from the console, for a question with --apply and for `deepwork apply`. Ctrl-C meanwhile
// finishes the file being written, records it in the set and stops (exit 130); a file that could not be written makes
// the exit code 1.

import type { ApplyReport } from '../writing/apply.ts';
import type { Proposal } from '../protocol/parse.ts';
import type { Sandbox } from '../reading/sandbox.ts';
import type { Flags } from '../console/args.ts';
import { consoleTexts } from '../common/strings/console.js';
import { EXIT, listOf, type Context } from './context.ts';

// What the flags say about writing: --force, --trust, --diff, --json, --yes (write without asking).
export type Write = { force: boolean; trust: string[]; diff: boolean; json: boolean; yes: boolean };

export function writeOf(flags: Flags): Write {
  return {
    force: flags.force === true,
    trust: listOf(flags.trust),
    diff: flags.diff === true,
    json: flags.json === true,
    yes: flags.yes === true,
  };
}

// On a terminal, before writing: the list has been shown; asks whether to write the files it would write. `no`, said
// why, when there is nothing to write or the person says no (anything but y, yes, д, да; Ctrl-D); `stopped`: Ctrl-C.
// `held`: the held back files are written too (--force, --trust).
export async function confirmWrite(
  context: Pick<Context, 'io' | 'lang' | 'confirm'>,
  report: ApplyReport,
  held: boolean,
): Promise<'yes' | 'no' | 'stopped'> {
  const { io, lang, confirm } = context;
  const writable = report.files.filter(
    (f) => f.status === 'new' || f.status === 'changed' || (held && f.status === 'held back'),
  ).length;
  if (writable === 0) {
    io.err(consoleTexts.nothingToWrite[lang]);
    return 'no';
  }
  const answer = await confirm?.(`\n${consoleTexts.confirm[lang](writable)}`);
  if (answer !== undefined && /^\s*(?:y|yes|д|да)\s*$/iu.test(answer)) return 'yes';
  io.err(consoleTexts.declined[lang]);
  return answer === undefined ? 'stopped' : 'no';
}

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
    // The writer (and jsdiff with it) loads only when there is something to write: a question without proposals
    // starts without it.
    const { applyFiles } = await import('../writing/apply.ts');
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
