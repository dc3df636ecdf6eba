// The command line: argv to wiring. The only place that prints to the console or sets the exit code.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DeepworkError, errnoOf, messageOf } from './protocol/errors.ts';
import { defaultConfigPath, loadConfig, STEPS, type Config } from './protocol/config.ts';
import { createExecutor } from './protocol/execute.ts';
import { createSandbox, type Sandbox } from './protocol/sandbox.ts';
import { loadTexts } from './protocol/transcript.ts';
import { runLoop, type Bridge, type LoopEvent, type LoopOutcome } from './protocol/loop.ts';
import { applyFiles, previewFiles, type ApplyReport } from './protocol/apply.ts';
import { undoLast } from './protocol/undo.ts';
import { setsOf } from './protocol/backup.ts';
import { loadRun, saveRun } from './protocol/runs.ts';
import type { FileBlock } from './protocol/parse.ts';
import { createOllamaBridge } from './bridge/ollama.ts';
import { createDemoBridge } from './bridge/demo.ts';
import { checkBridge } from './bridge/check.ts';
import { formatDuration } from './bridge/http.ts';
import { escapeControls, formatCount } from './protocol/text.ts';
import { runSelftest } from './protocol/selftest.ts';
import { launchPult, openInBrowser } from './ui/launch.ts';

const USAGE = `Usage:
  deepwork "question" [--files a.js,b.js] [--apply] [--steps N] [--host URL] [--model NAME] [--config PATH] [--json]
  deepwork --demo "question"     the same loop with an offline demo bridge (not a model)
  deepwork apply [--force]       write the last run's proposed files without asking the model again
  deepwork undo [--list]         put back the files of the last applied set (--list: show the sets)
  deepwork ui [--port 8787] [--no-open]   the pult: a local web page for this folder
  --diff shows a unified diff per proposed file; --force writes files held back for looking elided.
  deepwork --check [--json]      is the bridge up, and its model?
  deepwork --selftest            built-in checks; sends nothing anywhere

Runs in the current folder: the model reads files there, and proposed files are written there with --apply.`;

const EXIT = { ok: 0, failure: 1, usage: 2, idle: 3, interrupted: 130 } as const;

// `json` prints a JSON value's text as it is; `status` a terminal status line with its own cursor controls.
type Io = { out: (text: string) => void; err: (text: string) => void; isTTY: boolean; json?: (text: string) => void; status?: (text: string) => void };

const options = {
  files: { type: 'string' },
  apply: { type: 'boolean' },
  force: { type: 'boolean' },
  diff: { type: 'boolean' },
  list: { type: 'boolean' },
  port: { type: 'string' },
  'no-open': { type: 'boolean' },
  steps: { type: 'string' },
  host: { type: 'string' },
  model: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  demo: { type: 'boolean' },
  check: { type: 'boolean' },
  selftest: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[], raw: Io, cwd = process.cwd()): Promise<number> {
  // Everything printed for people has control characters made visible: a model's answer, paths and messages can
  // carry terminal escapes. JSON is printed through `raw` with its own escaping.
  const io: Io = { out: (text) => raw.out(escapeControls(text)), err: (text) => raw.err(escapeControls(text)), isTTY: raw.isTTY, json: raw.out, status: raw.err };
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

  try {
    if (flags.selftest === true) return (await runSelftest((line) => io.out(line))) ? EXIT.ok : EXIT.failure;
    const configPath = flags.config === undefined ? defaultConfigPath : path.resolve(cwd, flags.config);
    const config = withFlags(flags.config === undefined ? loadConfig() : loadConfig(configPath, true), flags);
    const guard = guardOf(config, configPath);
    if (flags.check === true) return await check(config, flags.json === true, io);
    const write = { force: flags.force === true, diff: flags.diff === true, json: flags.json === true };
    if (args.positionals[0] === 'apply' && args.positionals.length === 1) return await applyLastRun(config, guard, write, cwd, io);
    if (args.positionals[0] === 'undo' && args.positionals.length === 1) return undo(config, guard, flags.list === true, cwd, io);
    if (args.positionals[0] === 'ui' && args.positionals.length === 1) return await ui(config, guard, flags, cwd, io);

    const question = args.positionals.join(' ').trim();
    if (question === '') return usage(io, 'No question given.');
    const bridge = flags.demo === true
      ? createDemoBridge()
      : createOllamaBridge({ host: config.deepseekHost, model: config.deepseekModel, timeoutMs: config.timeoutMinutes * 60_000, maxReplyChars: config.maxReplyChars });
    const files = flags.files === undefined ? [] : flags.files.split(',').map((f) => f.trim()).filter((f) => f !== '');
    return await ask({ bridge, config, guard, question, files, apply: flags.apply === true, write, cwd }, io);
  } catch (error) {
    if (error instanceof DeepworkError) {
      if (error.code === 'USAGE') return usage(io, error.message);
      io.err(`deepwork: ${error.message}`);
      return error.code === 'ABORTED' ? EXIT.interrupted : EXIT.failure;
    }
    throw error;
  }
}

type Flags = { steps?: string | undefined; host?: string | undefined; model?: string | undefined; port?: string | undefined };

// deepwork's own places, which the model may neither read nor write even when the project is deepwork's own folder.
type Guard = ReadonlyArray<{ path: string; what: string }>;

function guardOf(config: Config, configPath: string): Guard {
  return [
    { path: config.stateDir, what: "deepwork's state folder" },
    { path: configPath, what: "deepwork's config file" },
  ];
}

function sandboxOf(config: Config, guard: Guard): { backupDir: string; guard: Guard; secretNames: string[] } {
  return { backupDir: config.backupDir, guard, secretNames: config.secretNames };
}

function withFlags(config: Config, flags: Flags): Config {
  const result = { ...config };
  if (flags.steps !== undefined) result.steps = wholeNumber('--steps', flags.steps, STEPS.min, STEPS.max);
  if (flags.host !== undefined) result.deepseekHost = flags.host;
  if (flags.model !== undefined) result.deepseekModel = flags.model;
  if (flags.port !== undefined) result.port = wholeNumber('--port', flags.port, 0, 65535, ' (0: any free one)');
  return result;
}

// A flag's number: decimal digits only (`1e9`, `0x10` and ` 4` are refused), within its range.
function wholeNumber(flag: string, text: string, min: number, max: number, note = ''): number {
  const value = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) throw new DeepworkError('USAGE', `${flag} must be a whole number from ${min}${note} to ${max}, not "${text}".`);
  return value;
}

function usage(io: Io, problem: string): number {
  io.err(`deepwork: ${problem}\n\n${USAGE}`);
  return EXIT.usage;
}

async function check(config: Config, json: boolean, io: Io): Promise<number> {
  const report = await checkBridge(config.deepseekHost, config.deepseekModel);
  if (json) printJson(io, { state: report.state, host: report.host, model: report.model, message: report.message });
  else io.out(`${report.state}: ${report.message}`);
  return report.state === 'ready' ? EXIT.ok : report.state === 'idle' ? EXIT.idle : EXIT.failure;
}

// JSON on stdout with every character a terminal could act on escaped: JSON.stringify leaves DEL, C1 controls and
// bidirectional overrides as they are.
function printJson(io: Io, value: unknown): void {
  const text = JSON.stringify(value).replace(/[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  (io.json ?? io.out)(text);
}

type Write = { force: boolean; diff: boolean; json: boolean };
type Ask = { bridge: Bridge; config: Config; guard: Guard; question: string; files: string[]; apply: boolean; write: Write; cwd: string };

async function ask(a: Ask, io: Io): Promise<number> {
  const executor = createExecutor(a.cwd, sandboxOf(a.config, a.guard));
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  const log = stepLog(io, a.config.steps);
  io.err(`deepwork: ${a.bridge.label}; folder ${executor.box.root}; at most ${a.config.steps} step${a.config.steps === 1 ? '' : 's'}`);
  let outcome: LoopOutcome;
  try {
    outcome = await runLoop({
      bridge: a.bridge, executor, texts: loadTexts(executor.limits), question: a.question, files: a.files,
      steps: a.config.steps, signal: controller.signal, onEvent: log.event,
    });
  } finally {
    log.stop();
    process.off('SIGINT', onSigint);
    await executor.close();
  }
  try {
    saveRun(a.config.stateDir, { root: executor.box.root, question: a.question, time: new Date().toISOString(), files: outcome.files });
  } catch (error) {
    io.err(`deepwork: the run's proposals could not be kept in ${a.config.stateDir} (${errnoOf(error) ?? messageOf(error)}); \`deepwork apply\` will not find them. Check stateDir in config.json.`);
  }
  const written = a.apply ? await writeFiles(executor.box, outcome.files, a.config, a.write) : undefined;
  const report = written?.report ?? { files: previewFiles(executor.box, outcome.files, a.write), backupSet: undefined };
  if (a.write.json) {
    printJson(io, { answer: outcome.answer, stop: outcome.stop, steps: outcome.steps, sent: outcome.sent, ...filesJson(report) });
  } else {
    io.out(outcome.answer);
    if (report.files.length > 0) io.out(`\n${listFiles(report, a.apply, a.write.diff)}`);
  }
  return written === undefined ? EXIT.ok : written.code;
}

// Writes proposals. Ctrl-C meanwhile finishes the file being written, records it in the set and stops (exit 130);
// a file that could not be written makes the exit code 1.
async function writeFiles(box: Sandbox, files: readonly FileBlock[], config: Config, write: Write): Promise<{ report: ApplyReport; code: number }> {
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

function filesJson(report: ApplyReport): { files: Array<{ path: string; status: string; applied: boolean; reason?: string }>; backupSet: string | null } {
  return {
    files: report.files.map((f) => ({ path: f.path, status: f.status, applied: f.written, ...(f.reason === undefined ? {} : { reason: f.reason }) })),
    backupSet: report.backupSet ?? null,
  };
}

// `deepwork ui`: serves the pult until Ctrl-C; the URL with its token goes to stdout.
async function ui(config: Config, guard: Guard, flags: { 'no-open'?: boolean | undefined }, cwd: string, io: Io): Promise<number> {
  const executor = createExecutor(cwd, sandboxOf(config, guard));
  const bridge = createOllamaBridge({ host: config.deepseekHost, model: config.deepseekModel, timeoutMs: config.timeoutMinutes * 60_000, maxReplyChars: config.maxReplyChars });
  const launched = await launchPult(
    { executor, bridge, host: config.deepseekHost, model: config.deepseekModel, steps: config.steps, backupDir: config.backupDir, port: config.port },
    config.stateDir,
  );
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
async function applyLastRun(config: Config, guard: Guard, write: Write, cwd: string, io: Io): Promise<number> {
  const box = createSandbox(cwd, sandboxOf(config, guard));
  const run = loadRun(config.stateDir, box.root);
  if (run === undefined || run.files.length === 0) {
    io.err(`deepwork: ${run === undefined ? 'no run of deepwork in this folder yet' : 'the last run proposed no files'}; nothing to apply. Ask a question first.`);
    return EXIT.failure;
  }
  const { report, code } = await writeFiles(box, run.files, config, write);
  if (write.json) printJson(io, filesJson(report));
  else io.out(listFiles(report, true, write.diff));
  return code;
}

function undo(config: Config, guard: Guard, list: boolean, cwd: string, io: Io): number {
  const box = createSandbox(cwd, sandboxOf(config, guard));
  if (list) {
    const sets = setsOf(config.backupDir, box.root);
    if (sets.length === 0) io.out('No applied sets for this folder.');
    for (const set of sets) {
      const files = set.manifest.files.filter((f) => f.written).map((f) => `${f.existed ? '' : '+'}${f.path}`);
      const state = set.manifest.undone ? ' (undone)' : set.manifest.complete ? '' : ` (cut short: ${files.length} of ${set.manifest.files.length} files written)`;
      io.out(`${set.name}${state}: ${files.join(', ')}`);
    }
    return EXIT.ok;
  }
  const report = undoLast(box, config.backupDir);
  if (report.set === undefined) {
    io.err('deepwork: no applied set of this folder to undo.');
    return EXIT.failure;
  }
  io.out(`Undoing ${report.set.name}:`);
  if (report.files.length === 0) io.out('  nothing to put back: no file of the set was written');
  for (const f of report.files) io.out(`  ${f.action.padEnd(9)} ${f.path}${f.reason === undefined ? '' : ` (${f.reason})`}`);
  return report.files.some((f) => f.action === 'failed') ? EXIT.failure : EXIT.ok;
}

function listFiles(report: ApplyReport, applied: boolean, diff: boolean): string {
  // An apply stopped with Ctrl-C leaves many files unwritten for one reason: they are counted on one line.
  const stopped = report.files.filter((f) => f.status === 'stopped');
  const lines = report.files.filter((f) => !stopped.includes(f)).map((f) => {
    const counts = f.status === 'changed' || f.status === 'held back' ? ` +${f.added} -${f.removed}` : f.status === 'new' ? ` +${f.added}` : '';
    const state = !applied ? '' : f.written ? '  written' : f.reason?.startsWith('not written') === true ? '' : '  not written';
    const reason = f.reason === undefined ? '' : `${state === '' && applied ? '  ' : ': '}${f.reason}`;
    const text = `  ${f.status.padEnd(10)} ${f.path}${counts}${state}${reason}`;
    return diff && f.diff !== undefined ? `${text}\n${f.diff}` : text;
  });
  if (stopped.length > 0) lines.push(`  stopped    ${formatCount(stopped.length)} more file${stopped.length === 1 ? '' : 's'} not written: Ctrl-C stopped the apply before them; they are as they were`);
  const head = applied ? 'Files:' : 'Proposed files (not written; --apply writes them, or `deepwork apply` now):';
  const backup = report.backupSet === undefined ? '' : `\nPrevious versions saved in ${report.backupSet} (deepwork undo puts them back).`;
  return `${head}\n${lines.join('\n')}${backup}`;
}

// The step log on stderr; on a terminal, an elapsed-time line while the model is thinking.
function stepLog(io: Io, steps: number): { event: (e: LoopEvent) => void; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let started = 0;
  let received = 0;
  let waitingStep = 0;
  // The status line's own cursor controls go out as they are; nothing in it comes from the model.
  const status = io.status ?? io.err;
  const clear = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    if (io.isTTY) status('\r\x1b[K');
  };
  const tick = () => {
    const so = received > 0 ? `, ${formatCount(received)} characters so far` : '';
    status(`\r\x1b[Kstep ${waitingStep}: waiting ${formatDuration(Date.now() - started)}${so}`);
  };
  return {
    event(e) {
      if (e.kind === 'sending') {
        io.err(`step ${e.step}/${steps}: sending ${formatCount(e.chars)} characters`);
        started = Date.now();
        received = 0;
        waitingStep = e.step;
        if (io.isTTY) timer = setInterval(tick, 1000);
      } else if (e.kind === 'receiving') {
        received = e.chars;
      } else if (e.kind === 'replied') {
        clear();
        const asks = e.requests.length > 0 ? `asks ${e.requests.join('; ')}` : 'no requests: the answer';
        const files = e.files.length > 0 ? `; proposes ${e.files.join(', ')}` : '';
        io.err(`step ${e.step}/${steps}: reply of ${formatCount(e.chars)} characters in ${formatDuration(e.ms)}; ${asks}${files}`);
      }
    },
    stop: clear,
  };
}

// Runs the command line in this process: the entry point of bin/deepwork.js.
export function run(argv: string[]): void {
  const io: Io = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(text.startsWith('\r') ? text : `${text}\n`),
    isTTY: process.stderr.isTTY === true,
  };
  main(argv, io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`deepwork: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = EXIT.failure;
    },
  );
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) run(process.argv.slice(2));
