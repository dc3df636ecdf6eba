// The command line: argv to wiring. The only place that prints to the console or sets the exit code.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DeepworkError, messageOf } from './protocol/errors.ts';
import { loadConfig, type Config } from './protocol/config.ts';
import { createExecutor } from './protocol/execute.ts';
import { loadTexts } from './protocol/transcript.ts';
import { runLoop, type Bridge, type LoopEvent, type LoopOutcome } from './protocol/loop.ts';
import { describeProposal, type Proposal } from './protocol/proposals.ts';
import { createOllamaBridge } from './bridge/ollama.ts';
import { createDemoBridge } from './bridge/demo.ts';
import { checkBridge } from './bridge/check.ts';
import { formatDuration } from './bridge/http.ts';
import { runSelftest } from './protocol/selftest.ts';

const USAGE = `Usage:
  deepwork "question" [--files a.js,b.js] [--apply] [--steps N] [--host URL] [--model NAME] [--config PATH] [--json]
  deepwork --demo "question"     the same loop with an offline demo bridge (not a model)
  deepwork --check [--json]      is the bridge up, and its model?
  deepwork --selftest            built-in checks; sends nothing anywhere

Runs in the current folder: the model reads files there, and proposed files are written there with --apply.`;

const EXIT = { ok: 0, failure: 1, usage: 2, idle: 3, interrupted: 130 } as const;

type Io = { out: (text: string) => void; err: (text: string) => void; isTTY: boolean };

const options = {
  files: { type: 'string' },
  apply: { type: 'boolean' },
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

export async function main(argv: string[], io: Io, cwd = process.cwd()): Promise<number> {
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
    const config = withFlags(flags.config === undefined ? loadConfig() : loadConfig(flags.config, true), flags);
    if (flags.check === true) return await check(config, flags.json === true, io);

    const question = args.positionals.join(' ').trim();
    if (question === '') return usage(io, 'No question given.');
    const bridge = flags.demo === true
      ? createDemoBridge()
      : createOllamaBridge({ host: config.deepseekHost, model: config.deepseekModel, timeoutMs: config.timeoutMinutes * 60_000 });
    const files = flags.files === undefined ? [] : flags.files.split(',').map((f) => f.trim()).filter((f) => f !== '');
    return await ask({ bridge, config, question, files, json: flags.json === true, cwd }, io);
  } catch (error) {
    if (error instanceof DeepworkError) {
      if (error.code === 'USAGE') return usage(io, error.message);
      io.err(`deepwork: ${error.message}`);
      return error.code === 'ABORTED' ? EXIT.interrupted : EXIT.failure;
    }
    throw error;
  }
}

type Flags = { steps?: string | undefined; host?: string | undefined; model?: string | undefined };

function withFlags(config: Config, flags: Flags): Config {
  const result = { ...config };
  if (flags.steps !== undefined) {
    const steps = Number(flags.steps);
    if (!Number.isInteger(steps) || steps < 1) throw new DeepworkError('USAGE', `--steps must be a whole number above 0, not "${flags.steps}".`);
    result.steps = steps;
  }
  if (flags.host !== undefined) result.deepseekHost = flags.host;
  if (flags.model !== undefined) result.deepseekModel = flags.model;
  return result;
}

function usage(io: Io, problem: string): number {
  io.err(`deepwork: ${problem}\n\n${USAGE}`);
  return EXIT.usage;
}

async function check(config: Config, json: boolean, io: Io): Promise<number> {
  const report = await checkBridge(config.deepseekHost, config.deepseekModel);
  if (json) io.out(JSON.stringify({ state: report.state, host: report.host, model: report.model, message: report.message }));
  else io.out(`${report.state}: ${report.message}`);
  return report.state === 'ready' ? EXIT.ok : report.state === 'idle' ? EXIT.idle : EXIT.failure;
}

type Ask = { bridge: Bridge; config: Config; question: string; files: string[]; json: boolean; cwd: string };

async function ask(a: Ask, io: Io): Promise<number> {
  const executor = createExecutor(a.cwd, { backupDir: a.config.backupDir, secretNames: a.config.secretNames });
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
  }
  const proposals = outcome.files.map((f) => describeProposal(executor.box, f));
  if (a.json) {
    io.out(JSON.stringify({
      answer: outcome.answer, stop: outcome.stop, steps: outcome.steps, sent: outcome.sent,
      files: proposals.map((p) => ({ path: p.path, status: p.status, applied: false })),
    }));
  } else {
    io.out(outcome.answer);
    if (proposals.length > 0) io.out(`\n${listProposals(proposals)}`);
  }
  return EXIT.ok;
}

export function listProposals(proposals: readonly Proposal[]): string {
  const lines = proposals.map((p) => {
    const counts = p.status === 'changed' ? ` +${p.added} -${p.removed}` : p.status === 'new' ? ` +${p.added}` : '';
    const reason = p.reason === undefined ? '' : ` (${p.reason})`;
    return `  ${p.status.padEnd(10)} ${p.path}${counts}${reason}`;
  });
  return `Proposed files (not written; run with --apply to write them):\n${lines.join('\n')}`;
}

// The step log on stderr; on a terminal, an elapsed-time line while the model is thinking.
function stepLog(io: Io, steps: number): { event: (e: LoopEvent) => void; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let started = 0;
  let received = 0;
  let waitingStep = 0;
  const clear = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    if (io.isTTY) io.err('\r\x1b[K');
  };
  const tick = () => {
    const so = received > 0 ? `, ${received.toLocaleString('en-US')} characters so far` : '';
    io.err(`\r\x1b[Kstep ${waitingStep}: waiting ${formatDuration(Date.now() - started)}${so}`);
  };
  return {
    event(e) {
      if (e.kind === 'sending') {
        io.err(`step ${e.step}/${steps}: sending ${e.chars.toLocaleString('en-US')} characters`);
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
        io.err(`step ${e.step}/${steps}: reply of ${e.chars.toLocaleString('en-US')} characters in ${formatDuration(e.ms)}; ${asks}${files}`);
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
