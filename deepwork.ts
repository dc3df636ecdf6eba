// The command line: argv to wiring. The only place that prints to the console or sets the exit code. Each command
// loads what it needs when it runs: `--version` and `--help` load nothing else, a question loads no pult.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DeepworkError, errnoOf, messageOf } from './common/errors.ts';
import { formatCount } from './common/text.ts';
import type { Config } from './app/config.ts';
import type { Bridge } from './protocol/loop.ts';
import type { Proposal } from './protocol/parse.ts';
import type { Turn } from './protocol/conversation.ts';
import type { Sandbox, SandboxOptions } from './reading/sandbox.ts';
import type { ApplyReport } from './writing/apply.ts';
import { forPeople, type Io } from './console/output.ts';

const USAGE = `Usage:
  deepwork "question" [--files a.js,b.js] [--apply] [--steps N] [--host URL] [--model NAME] [--config PATH] [--json]
                 [--api ollama|openai]  how the bridge is spoken to: Ollama's /api/chat, or OpenAI's chat completions
                 [--context-tokens N]   the model's window in tokens (else asked of the bridge, else 64,000)
                 [--continue, -c]       continue this folder's last conversation: its questions, answers, results
  git diff | deepwork "review this"     what is piped in is sent with the question
  deepwork --demo "question"     the same loop with an offline demo bridge (not a model)
  deepwork apply [--force]       write the last run's proposed files without asking the model again
  deepwork undo [--list]         put back the files of the last applied set (--list: show the sets)
  deepwork ui [--port 8787] [--no-open]   the pult: a local web page for this folder
  --diff shows a unified diff per proposed file; --force writes files held back for looking elided.
  deepwork --check [--json]      is the bridge up, and its model?
  deepwork --selftest            built-in checks; sends nothing anywhere
  deepwork --version             the version

Runs in the current folder: the model reads files there, and proposed files are written there with --apply.`;

const EXIT = { ok: 0, failure: 1, usage: 2, idle: 3, interrupted: 130 } as const;

const options = {
  files: { type: 'string' },
  apply: { type: 'boolean' },
  force: { type: 'boolean' },
  diff: { type: 'boolean' },
  list: { type: 'boolean' },
  port: { type: 'string' },
  'no-open': { type: 'boolean' },
  steps: { type: 'string' },
  'context-tokens': { type: 'string' },
  host: { type: 'string' },
  api: { type: 'string' },
  model: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  demo: { type: 'boolean' },
  continue: { type: 'boolean', short: 'c' },
  check: { type: 'boolean' },
  selftest: { type: 'boolean' },
  version: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = ReturnType<typeof parseArgs<{ args: string[]; options: typeof options; allowPositionals: true }>>['values'];

// `stdin`: what was piped in, read when a question needs it (undefined when nothing is piped).
export async function main(argv: string[], raw: Io, cwd = process.cwd(), stdin: () => Promise<Buffer | undefined> = () => Promise.resolve(undefined)): Promise<number> {
  const io = forPeople(raw);
  let args: ReturnType<typeof parseArgs<{ args: string[]; options: typeof options; allowPositionals: true }>>;
  try {
    args = parseArgs({ args: argv, options, allowPositionals: true });
  } catch (error) {
    return usage(io, messageOf(error));
  }
  const flags = args.values;
  if (flags.help === true) {
    io.out(USAGE);
    return EXIT.ok;
  }
  if (flags.version === true) {
    io.out(`deepwork ${version()}`);
    return EXIT.ok;
  }

  try {
    if (flags.selftest === true) {
      const { runSelftest } = await import('./app/selftest.ts');
      return (await runSelftest((line) => io.out(line))) ? EXIT.ok : EXIT.failure;
    }
    const { configPathOf, loadConfig, STEPS, isApi } = await import('./app/config.ts');
    const configPath = configPathOf(flags.config, cwd);
    const config = withFlags(loadConfig(configPath.file, configPath.explicit), flags, STEPS, isApi);
    const box = sandboxOf(config, configPath.file);
    if (flags.check === true) return await check(config, flags.json === true, io);
    const write = { force: flags.force === true, diff: flags.diff === true, json: flags.json === true };
    const [command, ...rest] = args.positionals;
    if (command === 'apply' && rest.length === 0) return await applyLastRun(config, box, write, cwd, io);
    if (command === 'undo' && rest.length === 0) return await undo(config, box, flags.list === true, cwd, io);
    if (command === 'ui' && rest.length === 0) return await ui(config, box, flags, cwd, io);

    const question = args.positionals.join(' ').trim();
    if (question === '') return usage(io, 'No question given.');
    const files = flags.files === undefined ? [] : flags.files.split(',').map((f) => f.trim()).filter((f) => f !== '');
    const piped = pipedText(await stdin());
    const bridge = await bridgeOf(config, flags.demo === true);
    return await ask({ bridge, config, box, question, files, piped, continues: flags.continue === true, apply: flags.apply === true, write, cwd }, io);
  } catch (error) {
    if (error instanceof DeepworkError) {
      if (error.code === 'USAGE') return usage(io, error.message);
      io.err(`deepwork: ${error.message}`);
      return error.code === 'ABORTED' ? EXIT.interrupted : EXIT.failure;
    }
    throw error;
  }
}

// The version in package.json, read when asked (no JSON import: it would load for every command).
function version(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    try {
      const value: unknown = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (typeof value === 'object' && value !== null && 'name' in value && value.name === 'deepwork' && 'version' in value && typeof value.version === 'string') return value.version;
    } catch {
      // Not here: one folder up.
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}

async function bridgeOf(config: Config, demo: boolean): Promise<Bridge> {
  if (demo) return (await import('./bridge/demo.ts')).createDemoBridge();
  return (await import('./bridge/choose.ts')).createBridge(config);
}

// The sandbox's settings: deepwork's own places, which the model may neither read nor write even when the project
// is deepwork's own folder, and the secret names.
function sandboxOf(config: Config, configFile: string): SandboxOptions {
  return {
    backupDir: config.backupDir,
    guard: [{ path: config.stateDir, what: "deepwork's state folder" }, { path: configFile, what: "deepwork's config file" }],
    secretNames: config.secretNames,
  };
}

function withFlags(config: Config, flags: Flags, steps: { min: number; max: number }, isApi: (v: unknown) => v is Config['api']): Config {
  const result = { ...config };
  if (flags.api !== undefined) {
    if (!isApi(flags.api)) throw new DeepworkError('USAGE', `--api must be ollama (Ollama's /api/chat: the DeepSeek bridge, Ollama) or openai (chat completions: DeepSeek's API, llama.cpp, vLLM, LM Studio, OpenRouter), not "${flags.api}".`);
    result.api = flags.api;
  }
  if (flags.steps !== undefined) result.steps = wholeNumber('--steps', flags.steps, steps.min, steps.max);
  if (flags.host !== undefined) result.deepseekHost = flags.host;
  if (flags.model !== undefined) result.deepseekModel = flags.model;
  if (flags.port !== undefined) result.port = wholeNumber('--port', flags.port, 0, 65535, ' (0: any free one)');
  if (flags['context-tokens'] !== undefined) result.contextTokens = wholeNumber('--context-tokens', flags['context-tokens'], 2_048, 9_999_999);
  return result;
}

// A flag's number: decimal digits only (`1e9`, `0x10` and ` 4` are refused), within its range.
function wholeNumber(flag: string, text: string, min: number, max: number, note = ''): number {
  const value = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) throw new DeepworkError('USAGE', `${flag} must be a whole number from ${min}${note} to ${max}, not "${text}".`);
  return value;
}

function usage(io: Io, problem: string): number {
  io.err(`deepwork: ${problem}\n\n${USAGE}`);
  return EXIT.usage;
}

async function check(config: Config, json: boolean, io: Io): Promise<number> {
  const [{ checkConfigured }, { printJson }] = await Promise.all([import('./bridge/choose.ts'), import('./console/output.ts')]);
  const report = await checkConfigured(config);
  if (json) printJson(io, { state: report.state, host: report.host, model: report.model, message: report.message });
  else io.out(`${report.state}: ${report.message}`);
  return report.state === 'ready' ? EXIT.ok : report.state === 'idle' ? EXIT.idle : EXIT.failure;
}

type Write = { force: boolean; diff: boolean; json: boolean };
type Ask = {
  bridge: Bridge; config: Config; box: SandboxOptions; question: string; files: string[]; piped: string | undefined; continues: boolean;
  apply: boolean; write: Write; cwd: string;
};

// What is piped in is sent as it is, up to this many characters; more is refused rather than cut.
const PIPED_CHARS = 200_000;

function pipedText(bytes: Buffer | undefined): string | undefined {
  if (bytes === undefined || bytes.length === 0) return undefined;
  if (bytes.subarray(0, 8000).indexOf(0) !== -1) throw new DeepworkError('USAGE', 'What is piped in is binary (it holds NUL bytes); pipe text, or name files with --files.');
  const text = bytes.toString('utf8');
  if (text.length > PIPED_CHARS) {
    throw new DeepworkError('USAGE', `What is piped in holds ${text.length >= PIPED_CHARS * 2 ? 'over ' : ''}${formatCount(Math.min(text.length, PIPED_CHARS * 2))} characters; at most ${formatCount(PIPED_CHARS)} are sent. Pipe less (git diff -- one/path), or let the model ask for files itself.`);
  }
  return text.trim() === '' ? undefined : text;
}

async function ask(a: Ask, io: Io): Promise<number> {
  const [{ createExecutor }, { runQuestion }, output] = await Promise.all([
    import('./reading/execute.ts'), import('./app/question.ts'), import('./console/output.ts'),
  ]);
  const executor = createExecutor(a.cwd, a.box);
  const { earlier, conversationId } = a.continues ? await earlierTurns(a.config.stateDir, executor.box.root) : { earlier: [], conversationId: (await import('./writing/conversations.ts')).newConversationId() };
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  const log = output.stepLog(io, a.config.steps);
  io.err(`deepwork: ${a.bridge.label}; folder ${executor.box.root}; at most ${a.config.steps} step${a.config.steps === 1 ? '' : 's'}`);
  let result: Awaited<ReturnType<typeof runQuestion>>;
  try {
    result = await runQuestion({
      bridge: a.bridge, executor, question: a.question, files: a.files, piped: a.piped, steps: a.config.steps, contextTokens: a.config.contextTokens,
      stateDir: a.config.stateDir, earlier, conversationId, signal: controller.signal, onEvent: log.event,
    });
  } finally {
    log.stop();
    process.off('SIGINT', onSigint);
    await executor.close();
  }
  const { outcome, saveError } = result;
  if (saveError !== undefined) {
    io.err(`deepwork: the run's proposals could not be kept in ${a.config.stateDir} (${errnoOf(saveError) ?? messageOf(saveError)}); \`deepwork apply\` will not find them. Check stateDir in config.json.`);
  }
  let report: ApplyReport;
  let code: number = EXIT.ok;
  if (a.apply) {
    ({ report, code } = await writeFiles(executor.box, outcome.proposals, a.config, a.write));
  } else if (outcome.proposals.length === 0) {
    report = { files: [], backupSet: undefined };
  } else {
    const { previewFiles } = await import('./writing/apply.ts');
    report = { files: previewFiles(executor.box, outcome.proposals, a.write), backupSet: undefined };
  }
  if (a.write.json) {
    output.printJson(io, { answer: outcome.answer, stop: outcome.stop, steps: outcome.steps, sent: outcome.sent, ...output.filesJson(report) });
  } else {
    // The note is the loop's, not the model's: it stays out of the last block a reply cut off.
    const reply = outcome.note === undefined ? outcome.answer : outcome.answer.slice(0, -outcome.note.length).trimEnd();
    io.out(`${output.answerProse(reply, report).trimEnd()}${outcome.note === undefined ? '' : `\n\n${outcome.note}`}`);
    if (report.files.length > 0) io.out(`\n${output.listFiles(report, a.apply, a.write.diff)}`);
  }
  return code;
}

// The conversation `--continue` continues: the folder's last run's.
async function earlierTurns(stateDir: string, root: string): Promise<{ earlier: Turn[]; conversationId: string }> {
  const [{ loadRun }, { newConversationId }] = await Promise.all([import('./writing/runs.ts'), import('./writing/conversations.ts')]);
  const run = loadRun(stateDir, root);
  if (run === undefined) throw new DeepworkError('USAGE', 'There is no earlier conversation in this folder to continue: ask without --continue.');
  if (run.conversation === undefined || run.conversation.length === 0) {
    throw new DeepworkError('USAGE', 'The last run in this folder was kept by an older deepwork, without its conversation: ask without --continue.');
  }
  return { earlier: run.conversation, conversationId: run.conversationId ?? newConversationId() };
}

// Writes proposals. Ctrl-C meanwhile finishes the file being written, records it in the set and stops (exit 130);
// a file that could not be written makes the exit code 1.
async function writeFiles(box: Sandbox, files: readonly Proposal[], config: Config, write: Write): Promise<{ report: ApplyReport; code: number }> {
  if (files.length === 0) return { report: { files: [], backupSet: undefined }, code: EXIT.ok };
  const { applyFiles } = await import('./writing/apply.ts');
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const report = await applyFiles(box, files, { backupDir: config.backupDir, force: write.force, diff: write.diff, signal: controller.signal });
    const code = controller.signal.aborted ? EXIT.interrupted : report.files.some((f) => f.status === 'failed') ? EXIT.failure : EXIT.ok;
    return { report, code };
  } finally {
    process.off('SIGINT', onSigint);
  }
}

// `deepwork ui`: serves the pult until Ctrl-C; the URL with its token goes to stdout.
async function ui(config: Config, box: SandboxOptions, flags: Flags, cwd: string, io: Io): Promise<number> {
  const [{ createExecutor }, { launchPult, openInBrowser }, { createBridge, checkConfigured }, { createDemoBridge }] = await Promise.all([
    import('./reading/execute.ts'), import('./ui/launch.ts'), import('./bridge/choose.ts'), import('./bridge/demo.ts'),
  ]);
  const executor = createExecutor(cwd, box);
  const bridge = await createBridge(config);
  const launched = await launchPult({
    executor, bridge, demo: createDemoBridge, check: () => checkConfigured(config),
    host: config.deepseekHost, model: config.deepseekModel, steps: config.steps, contextTokens: config.contextTokens, backupDir: config.backupDir, stateDir: config.stateDir, port: config.port,
  });
  io.out(launched.url);
  if (launched.reused) io.err('deepwork: a pult for this folder is already running there; opening it.');
  if (flags['no-open'] !== true && !(await openInBrowser(launched.url))) io.err('deepwork: could not start the default browser; open the URL above.');
  if (launched.pult === undefined) return EXIT.ok;
  io.err(`deepwork: the pult serves ${executor.box.root}; Ctrl-C stops it.`);
  const pult = launched.pult;
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void pult.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return EXIT.ok;
}

// `deepwork apply`: the last run's proposals for this folder, written now.
async function applyLastRun(config: Config, options: SandboxOptions, write: Write, cwd: string, io: Io): Promise<number> {
  const [{ createSandbox }, { loadRun }, output] = await Promise.all([import('./reading/sandbox.ts'), import('./writing/runs.ts'), import('./console/output.ts')]);
  const box = createSandbox(cwd, options);
  const run = loadRun(config.stateDir, box.root);
  if (run === undefined || run.files.length === 0) {
    io.err(`deepwork: ${run === undefined ? 'no run of deepwork in this folder yet' : 'the last run proposed no files'}; nothing to apply. Ask a question first.`);
    return EXIT.failure;
  }
  const { report, code } = await writeFiles(box, run.files, config, write);
  if (write.json) output.printJson(io, output.filesJson(report));
  else io.out(output.listFiles(report, true, write.diff));
  return code;
}

async function undo(config: Config, options: SandboxOptions, list: boolean, cwd: string, io: Io): Promise<number> {
  const [{ createSandbox }, { undoLast }, { setsOf }, output] = await Promise.all([
    import('./reading/sandbox.ts'), import('./writing/undo.ts'), import('./writing/backup-sets.ts'), import('./console/output.ts'),
  ]);
  const box = createSandbox(cwd, options);
  if (list) {
    io.out(output.listSets(setsOf(config.backupDir, box.root)));
    return EXIT.ok;
  }
  const report = undoLast(box, config.backupDir);
  if (report.set === undefined) {
    io.err('deepwork: no applied set of this folder to undo.');
    return EXIT.failure;
  }
  io.out(output.undoneReport({ ...report, set: report.set }));
  return report.files.some((f) => f.action === 'failed') ? EXIT.failure : EXIT.ok;
}

// What is piped in (`git diff | deepwork "review"`) or redirected from a file; nothing when standard input is a
// terminal, /dev/null or a socket (a program that started deepwork and keeps its input open would hang the run).
// Read up to a little more than is ever sent, so an endless pipe cannot fill memory.
async function readPiped(): Promise<Buffer | undefined> {
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(0);
  } catch {
    return undefined;
  }
  if (!stat.isFIFO() && !stat.isFile()) return undefined;
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    if (!Buffer.isBuffer(chunk)) continue;
    parts.push(chunk);
    size += chunk.length;
    if (size > PIPED_CHARS * 4 + 4) break;
  }
  process.stdin.destroy();
  return Buffer.concat(parts);
}

// Runs the command line in this process: the entry point of bin/deepwork.js.
export function run(argv: string[]): void {
  const io: Io = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(text.startsWith('\r') ? text : `${text}\n`),
    isTTY: process.stderr.isTTY === true,
  };
  main(argv, io, process.cwd(), readPiped).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`deepwork: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = EXIT.failure;
    },
  );
}
