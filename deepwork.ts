// The command line: argv to the command table to an exit code. The only place, with commands/, that prints to the
// console or sets the exit code. Each command is loaded when it runs (the lazy boundary is the command): `--version`
// loads nothing else, a question loads no pult.

import fs from 'node:fs';
import path from 'node:path';
import tty from 'node:tty';
import { fileURLToPath } from 'node:url';
import { DeepworkError, messageOf } from './common/errors.ts';
import { forPeople, printJson, type Io } from './console/output.ts';
import { parseCommandLine, type Command as CommandName } from './console/args.ts';
import { readPiped } from './console/stdin.ts';
import { HERE, langFlagIn, languageOf, type Lang } from './console/language.ts';
import { consoleTexts } from './common/strings/console.js';
import { EXIT, type Command, type Context } from './commands/context.ts';

// Every command but --version, each its own module.
const COMMANDS: { [C in Exclude<CommandName, 'version'>]: () => Promise<Command> } = {
  ask: () => import('./commands/ask.ts'),
  apply: () => import('./commands/apply.ts'),
  undo: () => import('./commands/undo.ts'),
  ui: () => import('./commands/ui.ts'),
  check: () => import('./commands/check.ts'),
  selftest: () => import('./commands/selftest.ts'),
  help: () => import('./commands/help.ts'),
};

// `stdin`: what was piped in, read when a question needs it (undefined when nothing is piped). `env`: the
// environment (DEEPWORK_HOST, DEEPWORK_MODEL, DEEPWORK_CONFIG, DEEPWORK_HOME, an API key's variable).
export async function main(
  argv: string[],
  raw: Io,
  cwd = process.cwd(),
  stdin: () => Promise<Buffer | undefined> = () => Promise.resolve(undefined),
  env: NodeJS.ProcessEnv = process.env,
  where: Omit<Parameters<typeof languageOf>[1], 'env'> = HERE,
  confirm?: (prompt: string) => Promise<string | undefined>,
): Promise<number> {
  // Before the flags are understood, a failure is still printed as JSON when --json was asked for, and in the
  // language asked for (a wrong --lang is told in English).
  let lang: Lang = 'en';
  let io = forPeople(raw, env, lang);
  let json = argv.includes('--json');
  try {
    lang = languageOf(langFlagIn(argv), { ...where, env });
    io = forPeople(raw, env, lang);
    const { command, flags, question, words, afterFiles } = parseCommandLine(argv, lang);
    json = flags.json === true;
    if (command === 'version') {
      io.out(`deepwork ${version()}`);
      return EXIT.ok;
    }
    const context: Context = {
      io,
      flags,
      question,
      words,
      afterFiles,
      cwd,
      stdin,
      env,
      lang,
      ...(confirm === undefined ? {} : { confirm }),
    };
    return await (await COMMANDS[command]()).run(context);
  } catch (error) {
    if (error instanceof DeepworkError) {
      const code = error.code === 'USAGE' ? EXIT.usage : error.code === 'ABORTED' ? EXIT.interrupted : EXIT.failure;
      if (json) printJson(io, { error: { code: error.code, message: error.message } });
      io.err(`deepwork: ${error.message}${error.code === 'USAGE' ? `\n${consoleTexts.usagePointer[lang]}` : ''}`);
      return code;
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
      if (
        typeof value === 'object' &&
        value !== null &&
        'name' in value &&
        value.name === 'deepwork' &&
        'version' in value &&
        typeof value.version === 'string'
      )
        return value.version;
    } catch {
      // Not here: one folder up.
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
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
  // A question is asked only where a person can answer it: stdin and stderr both a terminal. Standard input is looked
  // at without process.stdin, whose stream costs a run that never reads it 2-3 ms to make.
  const confirm = process.stderr.isTTY === true && tty.isatty(0) ? askOnTerminal : undefined;
  new Promise<number>((resolve) => resolve(main(argv, io, process.cwd(), readPiped, process.env, HERE, confirm))).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      unexpected(error);
      process.exitCode = EXIT.failure;
    },
  );
}

// One line typed on the terminal, the prompt on stderr; Ctrl-D gives the empty answer (no), Ctrl-C undefined.
async function askOnTerminal(prompt: string): Promise<string | undefined> {
  const readline = await import('node:readline');
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  return new Promise((resolve) => {
    let answered = false;
    rl.on('SIGINT', () => {
      answered = true;
      process.stderr.write('\n');
      resolve(undefined);
      rl.close();
    });
    rl.once('close', () => {
      if (!answered) process.stderr.write('\n');
      resolve('');
    });
    rl.question(prompt, (line) => {
      answered = true;
      resolve(line);
      rl.close();
    });
  });
}

function unexpectedFailure(error: unknown, env: NodeJS.ProcessEnv): string {
  const debug = env.DEEPWORK_DEBUG !== undefined && env.DEEPWORK_DEBUG !== '' && env.DEEPWORK_DEBUG !== '0';
  if (debug && error instanceof Error && error.stack !== undefined)
    return `deepwork: unexpected failure: ${error.stack}`;
  const message = messageOf(error);
  return `deepwork: unexpected failure: ${message.length > 500 ? `${message.slice(0, 500)}…` : message}\nThis is not a failure deepwork knows how to explain. If it happens again, please report it with the command you ran and this message; run it with DEEPWORK_DEBUG=1 set to add where in deepwork it happened (the stack trace).`;
}
