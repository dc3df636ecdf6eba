// A question: `deepwork "question" [--files a,b] [--apply] [-c] [--demo | --paste]`. The step log goes to stderr,
// the answer to stdout; with --apply the proposals are written.

import path from 'node:path';
import { DeepworkError, errnoOf, messageOf } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';
import type { Bridge } from '../protocol/contract.ts';
import type { Turn } from '../protocol/conversation.ts';
import type { Result } from '../protocol/results.ts';
import { createExecutor, type Executor } from '../reading/executor.ts';
import { runQuestion } from '../app/question.ts';
import type { ApplyReport } from '../writing/apply.ts';
import { loadRun } from '../state/runs.ts';
import { newConversationId } from '../state/conversations.ts';
import { answerParts, filesJson, listFiles, printAnswer, printJson, stepLog } from '../console/output.ts';
import { PIPED_CHARS } from '../console/stdin.ts';
import { createBridge } from '../bridge/choose.ts';
import {
  EXIT,
  listOf,
  projectFolder,
  settingsOf,
  writeOf,
  type Context,
  type Settings,
  type Write,
} from './context.ts';

export async function run(context: Context): Promise<number> {
  const { flags, io } = context;
  const settings = settingsOf(context);
  const folder = projectFolder(context.cwd, flags['any-folder'] === true);
  const question = {
    text: context.question,
    files: listOf(flags.files),
    continues: flags.continue === true,
    apply: flags.apply === true,
    write: writeOf(flags),
    folder,
  };
  if (flags.paste === true && flags.demo === true)
    throw new DeepworkError('USAGE', '--paste and --demo are two bridges; give one of them.');
  if (flags.paste === true) {
    // The terminal is where the replies come in, so nothing piped is read as text with the question.
    const { createConsolePaste } = await import('../console/paste.ts');
    const paste = createConsolePaste({
      io,
      folder: path.join(settings.config.stateDir, 'paste'),
      project: folder,
      maxChars: settings.config.pasteMaxChars,
      env: context.env,
      input: process.stdin,
    });
    try {
      return await ask(paste.bridge, settings, question, undefined, context);
    } finally {
      paste.close();
    }
  }
  const piped = pipedText(await context.stdin());
  const bridge =
    flags.demo === true
      ? (await import('../bridge/demo.ts')).createDemoBridge()
      : await createBridge({ ...settings.config, configFile: settings.configFile });
  return ask(bridge, settings, question, piped, context);
}

type Question = { text: string; files: string[]; continues: boolean; apply: boolean; write: Write; folder: string };

function pipedText(bytes: Buffer | undefined): string | undefined {
  if (bytes === undefined || bytes.length === 0) return undefined;
  if (bytes.subarray(0, 8000).indexOf(0) !== -1)
    throw new DeepworkError(
      'USAGE',
      'What is piped in is binary (it holds NUL bytes); pipe text, or name files with --files.',
    );
  const text = bytes.toString('utf8');
  if (text.length > PIPED_CHARS) {
    throw new DeepworkError(
      'USAGE',
      `What is piped in holds ${text.length >= PIPED_CHARS * 2 ? 'over ' : ''}${formatCount(Math.min(text.length, PIPED_CHARS * 2))} characters; at most ${formatCount(PIPED_CHARS)} are sent. Pipe less (git diff -- one/path), or let the model ask for files itself.`,
    );
  }
  return text.trim() === '' ? undefined : text;
}

async function ask(
  bridge: Bridge,
  { config, box }: Settings,
  q: Question,
  piped: string | undefined,
  { io }: Context,
): Promise<number> {
  const executor = createExecutor(q.folder, {
    ...box,
    onLargeFolder: (entries) =>
      io.err(
        `deepwork: this folder holds more than ${formatCount(entries)} files and folders (not counting .gitignore'd ones), so walking it takes a while. Is it the project folder? Ctrl-C stops.`,
      ),
  });
  const attached = q.files.length > 0 ? await checkAttached(executor, q.files) : undefined;
  const { earlier, conversationId } = q.continues
    ? earlierTurns(config.stateDir, executor.box.root)
    : { earlier: [], conversationId: newConversationId() };
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  const log = stepLog(io, config.steps);
  io.err(
    `deepwork: ${bridge.label}; folder ${executor.box.root}; at most ${config.steps} step${config.steps === 1 ? '' : 's'}`,
  );
  let result: Awaited<ReturnType<typeof runQuestion>>;
  try {
    result = await runQuestion({
      bridge,
      executor,
      question: q.text,
      files: q.files,
      ...(attached === undefined ? {} : { attached }),
      piped,
      steps: config.steps,
      contextTokens: config.contextTokens,
      backupDir: config.backupDir,
      stateDir: config.stateDir,
      earlier,
      conversationId,
      signal: controller.signal,
      onEvent: log.event,
    });
  } finally {
    log.stop();
    process.off('SIGINT', onSigint);
    await executor.close();
  }
  const { outcome, saveError } = result;
  if (saveError !== undefined) {
    io.err(
      `deepwork: the run's proposals could not be kept in ${config.stateDir} (${errnoOf(saveError) ?? messageOf(saveError)}); \`deepwork apply\` will not find them. Check stateDir in config.json.`,
    );
  }
  let report: ApplyReport;
  let code: number = EXIT.ok;
  // What writes and previews files (and their diffs) is loaded only when there are proposals.
  if (outcome.proposals.length === 0 && !q.apply) {
    report = { files: [], backupSet: undefined };
  } else if (q.apply) {
    const { writeFiles } = await import('./write.ts');
    ({ report, code } = await writeFiles(executor.box, outcome.proposals, config.backupDir, q.write));
  } else {
    const { previewFiles } = await import('../writing/apply.ts');
    report = { files: previewFiles(executor.box, outcome.proposals, q.write), backupSet: undefined };
  }
  if (q.write.json) {
    printJson(io, {
      answer: outcome.reply,
      ...(outcome.note === undefined ? {} : { note: outcome.note }),
      stop: outcome.stop,
      steps: outcome.steps,
      sent: outcome.sent,
      ...filesJson(report),
    });
  } else {
    // The note is the loop's, not the model's: it is printed after the answer, as deepwork's own line.
    const after = [
      ...(outcome.note === undefined ? [] : [outcome.note]),
      ...(report.files.length > 0 ? [listFiles(report, q.apply, q.write.diff)] : []),
    ];
    printAnswer(io, answerParts(outcome.reply, report, outcome.leftOutFrom), after);
  }
  return code;
}

// The files named with --files, read: each readable text inside the folder, or a usage error that says which are not
// and why, before anything is sent (with a web chat every wasted run costs minutes). What was read is what is sent.
async function checkAttached(executor: Executor, files: readonly string[]): Promise<Result[]> {
  const results = await executor.answer([{ kind: 'need', paths: [...files], line: 0 }]);
  const problems = results.flatMap((r): string[] => {
    switch (r.kind) {
      case 'missing':
        return [
          `  ${r.path}: no such file${r.closest.length > 0 ? ` (did you mean ${r.closest.slice(0, 3).join(', ')}?)` : ''}`,
        ];
      case 'refused':
        return [`  ${r.path}: ${r.reason}`];
      case 'withheld':
        return [`  ${r.path}: withheld, ${r.reason}`];
      case 'binary':
        return [`  ${r.path}: binary (${r.what}); --files sends text`];
      default:
        return [];
    }
  });
  if (problems.length > 0) {
    throw new DeepworkError(
      'USAGE',
      `--files names ${problems.length === 1 ? 'a file' : 'files'} that cannot be sent, so nothing was sent:\n${problems.join('\n')}`,
    );
  }
  return results;
}

// The conversation `--continue` continues: the folder's last run's.
function earlierTurns(stateDir: string, root: string): { earlier: Turn[]; conversationId: string } {
  const saved = loadRun(stateDir, root);
  if (saved === undefined)
    throw new DeepworkError(
      'USAGE',
      'There is no earlier conversation in this folder to continue: ask without --continue.',
    );
  if (saved.conversation === undefined || saved.conversation.length === 0) {
    throw new DeepworkError(
      'USAGE',
      'The last run in this folder was kept by an older deepwork, without its conversation: ask without --continue.',
    );
  }
  return { earlier: saved.conversation, conversationId: saved.conversationId ?? newConversationId() };
}
