// A question: `deepwork "question" [--files a,b] [--apply] [-c] [--demo | --paste]`. The step log goes to stderr,
// the answer to stdout; with --apply the proposals are written.

import path from 'node:path';
import { DeepworkError, errnoOf, messageOf } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';
import type { Bridge } from '../protocol/contract.ts';
import type { Turn } from '../protocol/conversation.ts';
import { createExecutor } from '../reading/executor.ts';
import { runQuestion } from '../app/question.ts';
import type { ApplyReport } from '../writing/apply.ts';
import { loadRun } from '../saved/runs.ts';
import { newConversationId } from '../saved/conversations.ts';
import { mapStore } from '../saved/map-cache.ts';
import { walkStore } from '../saved/walk-cache.ts';
import { answerParts, filesJson, printAnswer, printJson } from '../console/output.ts';
import { listFiles, show } from '../console/lists.ts';
import { stepLog } from '../console/steps.ts';
import { consoleTexts } from '../common/strings/console.js';
import { stepTexts } from '../common/strings/steps.js';
import { textsIn, type Lang } from '../common/strings/language.js';
import { usageTexts } from '../common/strings/usage.js';
import { PIPED_CHARS } from '../console/stdin.ts';
import { createBridge } from '../bridge/choose.ts';
import { createDemoBridge } from '../bridge/demo.ts';
import { chatLimits } from '../bridge/chat-sites.ts';
import { EXIT, projectFolder, settingsOf, type Context, type Settings } from './context.ts';
import { confirmWrite, writeFiles, writeOf, type Write } from './write.ts';
import { filesAndQuestion, readAttached } from './files.ts';

export async function run(context: Context): Promise<number> {
  const { flags, io } = context;
  const settings = settingsOf(context);
  const folder = projectFolder(context.cwd, flags['any-folder'] === true);
  const named = filesAndQuestion(context);
  const question = {
    text: named.question,
    files: named.files,
    continues: flags.continue === true,
    apply: flags.apply === true,
    write: writeOf(flags),
    folder,
  };
  if (flags.paste === true && flags.demo === true)
    throw new DeepworkError('USAGE', usageTexts.pasteAndDemo[context.lang]);
  if (flags.paste === true) {
    // The terminal is where the replies come in, so nothing piped is read as text with the question. Loaded only
    // here: it brings readline and child_process (the clipboard), which a run with a bridge never uses.
    const { createConsolePaste } = await import('../console/paste.ts');
    const paste = createConsolePaste({
      io,
      folder: path.join(settings.config.stateDir, 'paste'),
      project: folder,
      limits: chatLimits(settings.config.pasteSite, settings.config.pasteMaxChars, settings.config.pasteChatChars),
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
      ? createDemoBridge()
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
  context: Context,
): Promise<number> {
  const { io, flags, lang } = context;
  const t = textsIn(consoleTexts, lang);
  const executor = createExecutor(q.folder, {
    ...box,
    mapStore: (root) => mapStore(config.stateDir, root),
    walkStore: (root) => walkStore(config.stateDir, root),
    onLargeFolder: (entries) => io.err(t.largeFolder(entries)),
  });
  const attached = q.files.length > 0 ? await readAttached(executor, q.files, lang) : undefined;
  const { earlier, conversationId } = q.continues
    ? earlierTurns(config.stateDir, executor.box.root, lang)
    : { earlier: [], conversationId: newConversationId() };
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  // With --paste the person types replies on the terminal while a step waits: nothing may be redrawn over them. The
  // reply streams on stderr only where the answer is not printed on the same terminal after it (issue 29.7).
  const log = stepLog(io, config.steps, {
    typing: flags.paste === true,
    stream: flags['no-stream'] !== true && io.outTTY !== true,
  });
  io.err(t.started(bridge.label, executor.box.root, config.steps));
  let result: Awaited<ReturnType<typeof runQuestion>>;
  try {
    result = await runQuestion({
      bridge,
      executor,
      question: q.text,
      files: attached?.paths ?? [],
      ...(attached === undefined ? {} : { attached: attached.results }),
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
  const { outcome, saveError, edits } = result;
  const steps = textsIn(stepTexts, lang);
  if (edits !== undefined) io.err(`deepwork: ${steps.edits(edits)}`);
  if (saveError !== undefined)
    io.err(
      `deepwork: ${steps.notSaved({ where: config.stateDir, reason: errnoOf(saveError) ?? messageOf(saveError) })}`,
    );
  let report: ApplyReport;
  let code: number = EXIT.ok;
  // On a terminal the answer and its list come first, then the question whether to write (--yes: no question).
  const asking =
    q.apply && outcome.proposals.length > 0 && !q.write.json && !q.write.yes && context.confirm !== undefined;
  if (q.apply && !asking) {
    ({ report, code } = await writeFiles(executor.box, outcome.proposals, config.backupDir, q.write));
  } else if (outcome.proposals.length === 0) {
    report = { files: [], backupSet: undefined };
  } else {
    const { previewFiles } = await import('../writing/apply.ts');
    report = { files: previewFiles(executor.box, outcome.proposals, q.write), backupSet: undefined };
  }
  if (q.write.json) {
    printJson(io, {
      answer: outcome.reply,
      ...(outcome.note === undefined ? {} : { note: outcome.note }),
      ...(outcome.miscited.length === 0 ? {} : { miscited: outcome.miscited }),
      ...(edits === undefined ? {} : { edits }),
      stop: outcome.stop,
      steps: outcome.steps,
      sent: outcome.sent,
      ...filesJson(report),
    });
  } else {
    // The note is the loop's, not the model's: it is printed after the answer, as deepwork's own line.
    const after = [
      ...(outcome.note === undefined ? [] : [outcome.note]),
      ...(outcome.miscited.length === 0 ? [] : [steps.miscitedNote(outcome.miscited)]),
      ...(report.files.length > 0
        ? [listFiles(io, report, asking ? 'asking' : q.apply ? 'written' : 'proposed', q.write.diff)]
        : []),
    ];
    printAnswer(io, answerParts(outcome.reply, report, outcome.leftOutFrom, lang), after);
  }
  if (asking) {
    const said = await confirmWrite(context, report, q.write.force || q.write.trust.length > 0);
    if (said !== 'yes') return said === 'stopped' ? EXIT.interrupted : code;
    ({ report, code } = await writeFiles(executor.box, outcome.proposals, config.backupDir, q.write));
    io.out('');
    show(io, listFiles(io, report, 'written', false));
  }
  return code;
}

// The conversation `--continue` continues: the folder's last run's.
function earlierTurns(stateDir: string, root: string, lang: Lang): { earlier: Turn[]; conversationId: string } {
  const saved = loadRun(stateDir, root);
  if (saved === undefined) throw new DeepworkError('USAGE', usageTexts.noEarlier[lang]);
  if (saved.conversation === undefined || saved.conversation.length === 0)
    throw new DeepworkError('USAGE', usageTexts.olderRun[lang]);
  return { earlier: saved.conversation, conversationId: saved.conversationId ?? newConversationId() };
}
