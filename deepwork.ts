// The command line: argv to wiring. The only place that prints to the console or sets the exit code. Each command
// loads what it needs when it runs: `--version` and `--help` load nothing else, a question loads no pult.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { DeepworkError, errnoOf, messageOf } from './common/errors.ts';
import { formatCount } from './common/text.ts';
import type { Config } from './app/config.ts';
import type { Bridge } from './protocol/loop.ts';
import type { Proposal } from './protocol/parse.ts';
import type { Turn } from './protocol/conversation.ts';
import type { Sandbox, SandboxOptions } from './reading/sandbox.ts';
import type { Executor } from './reading/execute.ts';
import type { Result } from './protocol/results.ts';
import type { ApplyReport } from './writing/apply.ts';
import { forPeople, type Io } from './console/output.ts';
import { helpText, parseCommandLine, type Flags } from './console/args.ts';

const EXIT = { ok: 0, failure: 1, usage: 2, idle: 3, interrupted: 130 } as const;

// `stdin`: what was piped in, read when a question needs it (undefined when nothing is piped). `env`: the
// environment (DEEPWORK_HOST, DEEPWORK_MODEL, DEEPWORK_CONFIG, DEEPWORK_HOME, an API key's variable).
export async function main(argv: string[], raw: Io, cwd = process.cwd(), stdin: () => Promise<Buffer | undefined> = () => Promise.resolve(undefined), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const io = forPeople(raw, env);
  // Before the flags are understood, a failure is still printed as JSON when --json was asked for.
  let json = argv.includes('--json');
  try {
    const { command, flags, question } = parseCommandLine(argv);
    json = flags.json === true;
    if (command === 'version') {
      io.out(`deepwork ${version()}`);
      return EXIT.ok;
    }
    if (command === 'selftest') {
      const { runSelftest } = await import('./app/selftest.ts');
      return (await runSelftest((line) => io.out(line))) ? EXIT.ok : EXIT.failure;
    }
    const configModule = await import('./app/config.ts');
    const { configPathOf, loadConfig, homeOf } = configModule;
    const configPath = configPathOf(flags.config, cwd, env);
    if (command === 'help') return help(io, () => loadConfig(configPath.file, configPath.explicit, homeOf(env)), configPath.file);
    const config = withFlags(loadConfig(configPath.file, configPath.explicit, homeOf(env)), flags, env, configModule);
    const box = sandboxOf(config, configPath.file);
    if (command === 'check') return await check(config, json, io);
    const write = { force: flags.force === true, trust: listOf(flags.trust), diff: flags.diff === true, json };
    if (command === 'apply') return await applyLastRun(config, box, write, cwd, io);
    if (command === 'undo') return await undo(config, box, flags.list === true, json, cwd, io);
    if (command !== 'ui' && command !== 'ask') throw new DeepworkError('USAGE', `Unknown command ${command}.`);
    const folder = projectFolder(cwd, flags['any-folder'] === true);
    if (command === 'ui') return await ui(config, box, flags, folder, io);

    const files = listOf(flags.files);
    if (flags.paste === true && flags.demo === true) throw new DeepworkError('USAGE', '--paste and --demo are two bridges; give one of them.');
    if (flags.paste === true) {
      // The terminal is where the replies come in, so nothing piped is read as text with the question.
      const { createConsolePaste } = await import('./console/paste.ts');
      const paste = createConsolePaste({ io, folder: path.join(config.stateDir, 'paste'), project: folder, maxChars: config.pasteMaxChars, env, input: process.stdin });
      try {
        return await ask({ bridge: paste.bridge, config, box, question, files, piped: undefined, continues: flags.continue === true, apply: flags.apply === true, write, cwd: folder }, io);
      } finally {
        paste.close();
      }
    }
    const piped = pipedText(await stdin());
    const bridge = await bridgeOf(config, flags.demo === true);
    return await ask({ bridge, config, box, question, files, piped, continues: flags.continue === true, apply: flags.apply === true, write, cwd: folder }, io);
  } catch (error) {
    if (error instanceof DeepworkError) {
      const code = error.code === 'USAGE' ? EXIT.usage : error.code === 'ABORTED' ? EXIT.interrupted : EXIT.failure;
      if (json) {
        const { printJson } = await import('./console/output.ts');
        printJson(io, { error: { code: error.code, message: error.message } });
      }
      io.err(`deepwork: ${error.message}${error.code === 'USAGE' ? '\nRun deepwork --help for the commands and flags.' : ''}`);
      return code;
    }
    throw error;
  }
}

// --help, with where this deepwork keeps its config, state and backups (a config that does not load is named as such).
function help(io: Io, load: () => Config, configFile: string): number {
  let places: { config: string; state: string; backups: string; note?: string };
  try {
    const config = load();
    places = { config: configFile, state: config.stateDir, backups: config.backupDir, ...(fs.existsSync(configFile) ? {} : { note: 'not there: the defaults apply' }) };
  } catch (error) {
    places = { config: configFile, state: '?', backups: '?', note: `it does not load: ${messageOf(error)}` };
  }
  io.out(helpText(places));
  return EXIT.ok;
}

// The folder to work in. A filesystem root or the home folder itself is refused: walking it reads the whole disk or
// every project at once, and sends /etc or ~/.config to the model.
function projectFolder(cwd: string, anyFolder: boolean): string {
  if (anyFolder) return cwd;
  let real: string;
  try {
    real = fs.realpathSync(cwd);
  } catch {
    real = path.resolve(cwd);
  }
  const isRoot = path.parse(real).root === real;
  const home = os.homedir();
  if (isRoot || (home !== '' && path.resolve(home) === real)) {
    throw new DeepworkError('USAGE', `${real} is ${isRoot ? 'the root of a disk' : 'your home folder itself'}, not a project folder: deepwork would walk ${isRoot ? 'the whole disk' : 'every folder in it'} and could send any file in it to the model. cd into the project folder first, or add --any-folder if you mean it.`);
  }
  return cwd;
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

// The config, then the environment, then the flags: each later one wins.
function withFlags(config: Config, flags: Flags, env: NodeJS.ProcessEnv, rules: Pick<typeof import('./app/config.ts'), 'STEPS' | 'isApi' | 'normalizeHost'>): Config {
  const { STEPS: steps, isApi } = rules;
  const result = { ...config };
  const fromEnv = (name: string) => (env[name]?.trim() === '' ? undefined : env[name]?.trim());
  if (flags.api !== undefined) {
    if (!isApi(flags.api)) throw new DeepworkError('USAGE', `--api must be ollama (Ollama's /api/chat: the DeepSeek bridge, Ollama) or openai (chat completions: DeepSeek's API, llama.cpp, vLLM, LM Studio, OpenRouter), not "${flags.api}".`);
    result.api = flags.api;
  }
  if (flags.steps !== undefined) result.steps = wholeNumber('--steps', flags.steps, steps.min, steps.max);
  const host = flags.host ?? fromEnv('DEEPWORK_HOST');
  if (host !== undefined) result.deepseekHost = hostOf(host, flags.host !== undefined ? '--host' : 'DEEPWORK_HOST', rules.normalizeHost);
  const model = flags.model ?? fromEnv('DEEPWORK_MODEL');
  if (model !== undefined) result.deepseekModel = model;
  if (flags.port !== undefined) result.port = wholeNumber('--port', flags.port, 0, 65535, ' (0: any free one)');
  if (flags['context-tokens'] !== undefined) result.contextTokens = wholeNumber('--context-tokens', flags['context-tokens'], 2_048, 9_999_999);
  return result;
}

function hostOf(text: string, source: string, normalizeHost: typeof import('./app/config.ts').normalizeHost): string {
  const host = normalizeHost(text);
  if ('problem' in host) throw new DeepworkError('USAGE', `${source} "${text}" ${host.problem}. Write it like http://localhost:11434, or localhost:11434.`);
  return host.url;
}

// A flag's number: decimal digits only (`1e9`, `0x10` and ` 4` are refused), within its range.
function wholeNumber(flag: string, text: string, min: number, max: number, note = ''): number {
  const value = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) throw new DeepworkError('USAGE', `${flag} must be a whole number from ${min}${note} to ${max}, not "${text}".`);
  return value;
}

async function check(config: Config, json: boolean, io: Io): Promise<number> {
  const [{ checkConfigured }, { printJson }] = await Promise.all([import('./bridge/choose.ts'), import('./console/output.ts')]);
  const report = await checkConfigured(config);
  if (json) printJson(io, { state: report.state, host: report.host, model: report.model, message: report.message });
  else io.out(`${report.state}: ${report.message}`);
  return report.state === 'ready' ? EXIT.ok : report.state === 'idle' ? EXIT.idle : EXIT.failure;
}

type Write = { force: boolean; trust: string[]; diff: boolean; json: boolean };
type Ask = {
  bridge: Bridge; config: Config; box: SandboxOptions; question: string; files: string[]; piped: string | undefined; continues: boolean;
  apply: boolean; write: Write; cwd: string;
};

// A flag's comma-separated paths (--files, --trust).
function listOf(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(',').map((f) => f.trim()).filter((f) => f !== '');
}

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
  const executor = createExecutor(a.cwd, { ...a.box, onLargeFolder: (entries) => io.err(`deepwork: this folder holds more than ${formatCount(entries)} files and folders (not counting .gitignore'd ones), so walking it takes a while. Is it the project folder? Ctrl-C stops.`) });
  const attached = a.files.length > 0 ? await checkAttached(executor, a.files) : undefined;
  const { earlier, conversationId } = a.continues ? await earlierTurns(a.config.stateDir, executor.box.root) : { earlier: [], conversationId: (await import('./writing/conversations.ts')).newConversationId() };
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  const log = output.stepLog(io, a.config.steps);
  io.err(`deepwork: ${a.bridge.label}; folder ${executor.box.root}; at most ${a.config.steps} step${a.config.steps === 1 ? '' : 's'}`);
  let result: Awaited<ReturnType<typeof runQuestion>>;
  try {
    result = await runQuestion({
      bridge: a.bridge, executor, question: a.question, files: a.files, ...(attached === undefined ? {} : { attached }), piped: a.piped, steps: a.config.steps, contextTokens: a.config.contextTokens,
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
    // The note is the loop's, not the model's: it stays out of the last block a reply cut off, and out of the answer.
    const reply = outcome.note === undefined ? outcome.answer : outcome.answer.slice(0, -outcome.note.length).trimEnd();
    const after = [...(outcome.note === undefined ? [] : [outcome.note]), ...(report.files.length > 0 ? [output.listFiles(report, a.apply, a.write.diff)] : [])];
    output.printAnswer(io, output.answerParts(reply, report, outcome.leftOutFrom), after);
  }
  return code;
}

// The files named with --files, read: each readable text inside the folder, or a usage error that says which are not
// and why, before anything is sent (with a web chat every wasted run costs minutes). What was read is what is sent.
async function checkAttached(executor: Executor, files: readonly string[]): Promise<Result[]> {
  const results = await executor.answer([{ kind: 'need', paths: [...files], line: 0 }]);
  const problems = results.flatMap((r): string[] => {
    switch (r.kind) {
      case 'missing': return [`  ${r.path}: no such file${r.closest.length > 0 ? ` (did you mean ${r.closest.slice(0, 3).join(', ')}?)` : ''}`];
      case 'refused': return [`  ${r.path}: ${r.reason}`];
      case 'withheld': return [`  ${r.path}: withheld, ${r.reason}`];
      case 'binary': return [`  ${r.path}: binary (${r.what}); --files sends text`];
      default: return [];
    }
  });
  if (problems.length > 0) {
    throw new DeepworkError('USAGE', `--files names ${problems.length === 1 ? 'a file' : 'files'} that cannot be sent, so nothing was sent:\n${problems.join('\n')}`);
  }
  return results;
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
    const report = await applyFiles(box, files, { backupDir: config.backupDir, force: write.force, trust: write.trust, diff: write.diff, signal: controller.signal });
    const code = controller.signal.aborted ? EXIT.interrupted : report.files.some((f) => f.status === 'failed') ? EXIT.failure : EXIT.ok;
    return { report, code };
  } finally {
    process.off('SIGINT', onSigint);
  }
}

// `deepwork ui`: serves the pult until Ctrl-C. A link with a one-time code goes to stdout and another to the browser:
// never the token, which a command line would show to every user of the machine, and a screen to whoever sees it.
async function ui(config: Config, box: SandboxOptions, flags: Flags, cwd: string, io: Io): Promise<number> {
  const [{ createExecutor }, { launchPult, openInBrowser }, { CODE_LIFE_MS }, { createBridge, checkConfigured }, { createDemoBridge }] = await Promise.all([
    import('./reading/execute.ts'), import('./ui/launch.ts'), import('./ui/security.ts'), import('./bridge/choose.ts'), import('./bridge/demo.ts'),
  ]);
  const executor = createExecutor(cwd, box);
  const bridge = await createBridge(config);
  const launched = await launchPult({
    // A port from the config (not from --port) gives way to the next free one when another program holds it.
    nextPorts: flags.port === undefined ? 20 : 0,
    executor, bridge, demo: createDemoBridge, check: () => checkConfigured(config),
    host: config.deepseekHost, model: config.deepseekModel, steps: config.steps, contextTokens: config.contextTokens, backupDir: config.backupDir, stateDir: config.stateDir, port: config.port,
    pasteMaxChars: config.pasteMaxChars,
  });
  io.out(launched.oneTimeUrl());
  io.err(`deepwork: the link above opens the pult in one page, once, within ${CODE_LIFE_MS / 60_000} minutes; run deepwork ui again for another.`);
  if (launched.reused) io.err('deepwork: a pult for this folder is already running there; opening it.');
  if (launched.movedFrom !== undefined) io.err(`deepwork: port ${launched.movedFrom} is taken by another program, so the pult is on ${new URL(launched.url).port}.`);
  if (flags['no-open'] !== true && !(await openInBrowser(launched.oneTimeUrl()))) io.err('deepwork: could not start the default browser; open the link above.');
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

async function undo(config: Config, options: SandboxOptions, list: boolean, json: boolean, cwd: string, io: Io): Promise<number> {
  const [{ createSandbox }, { undoLast }, { setsOf }, output] = await Promise.all([
    import('./reading/sandbox.ts'), import('./writing/undo.ts'), import('./writing/backup-sets.ts'), import('./console/output.ts'),
  ]);
  const box = createSandbox(cwd, options);
  if (list) {
    const sets = setsOf(config.backupDir, box.root);
    if (json) {
      output.printJson(io, { backupDir: config.backupDir, sets: sets.map((set) => ({ name: set.name, undone: set.manifest.undone, files: set.manifest.files.filter((f) => f.written).map((f) => f.path) })) });
    } else {
      io.out(`Backup sets of ${box.root}, kept in ${config.backupDir}:\n${output.listSets(sets)}`);
    }
    return EXIT.ok;
  }
  const report = undoLast(box, config.backupDir);
  if (report.set === undefined) throw new DeepworkError('NOT_FOUND', `No applied set of this folder to undo (backups are kept in ${config.backupDir}).`);
  if (json) output.printJson(io, { set: report.set.name, files: report.files.map((f) => ({ path: f.path, action: f.action, ...(f.reason === undefined ? {} : { reason: f.reason }) })), ...(report.later.length > 0 ? { later: report.later } : {}) });
  else io.out(output.undoneReport({ ...report, set: report.set }));
  return report.later.length > 0 || report.files.some((f) => f.action === 'failed') ? EXIT.failure : EXIT.ok;
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

// Runs the command line in this process: the entry point of bin/deepwork.js. What fails outside deepwork's own errors
// (a bug, a case nobody foresaw, a throw from a stray callback) is told in a line and what to do, never as a stack
// trace; DEEPWORK_DEBUG=1 adds the stack, for a report.
export function run(argv: string[]): void {
  const io: Io = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(text.startsWith('\r') ? text : `${text}\n`),
    stream: (text) => process.stderr.write(text),
    isTTY: process.stderr.isTTY === true,
    outTTY: process.stdout.isTTY === true,
  };
  const unexpected = (error: unknown) => forPeople(io).err(unexpectedFailure(error, process.env));
  // After an uncaught throw nothing in the process can be trusted: say so, then end once stderr has taken the text.
  process.on('uncaughtException', (error) => {
    unexpected(error);
    process.stderr.write('', () => process.exit(EXIT.failure));
  });
  // Inside the promise, so that a throw before main() runs (process.cwd() in a deleted folder) is caught as well.
  new Promise<number>((resolve) => resolve(main(argv, io, process.cwd(), readPiped))).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      unexpected(error);
      process.exitCode = EXIT.failure;
    },
  );
}

function unexpectedFailure(error: unknown, env: NodeJS.ProcessEnv): string {
  const debug = env.DEEPWORK_DEBUG !== undefined && env.DEEPWORK_DEBUG !== '' && env.DEEPWORK_DEBUG !== '0';
  if (debug && error instanceof Error && error.stack !== undefined) return `deepwork: unexpected failure: ${error.stack}`;
  const message = messageOf(error);
  return `deepwork: unexpected failure: ${message.length > 500 ? `${message.slice(0, 500)}…` : message}\nThis is not a failure deepwork knows how to explain. If it happens again, please report it with the command you ran and this message; run it with DEEPWORK_DEBUG=1 set to add where in deepwork it happened (the stack trace).`;
}
