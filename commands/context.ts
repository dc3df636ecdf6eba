// What every command is given, and what most of them need first: the config with the environment and the flags
// applied, the sandbox's settings, the project folder. The exit codes are here, in one table.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeepworkError } from '../common/errors.ts';
import { configPathOf, homeOf, isApi, loadConfig, normalizeHost, STEPS, type Config } from '../app/config.ts';
import type { SandboxOptions } from '../reading/sandbox.ts';
import type { Io } from '../console/output.ts';
import type { Flags } from '../console/args.ts';
import type { Lang } from '../console/language.ts';
import { usageTexts } from '../common/strings/usage.js';

export const EXIT = { ok: 0, failure: 1, usage: 2, idle: 3, interrupted: 130 } as const;

// A command's run: the console, the flags and the question as parsed, the folder deepwork runs in, what is piped in
// (read when a question needs it), and the environment (DEEPWORK_HOST, DEEPWORK_MODEL, DEEPWORK_CONFIG, DEEPWORK_HOME,
// an API key's variable). `words`, `afterFiles`: the question's words, and which followed --files (console/args.ts);
// `lang`: the language the person is spoken to in. `confirm`: asks the person on the terminal and gives the line they
// typed, undefined for Ctrl-C (the function is undefined when stdin or stderr is not a terminal: nothing is asked).
export type Context = {
  io: Io;
  flags: Flags;
  question: string;
  words: readonly string[];
  afterFiles: readonly number[];
  lang: Lang;
  confirm?: (prompt: string) => Promise<string | undefined>;
  cwd: string;
  stdin: () => Promise<Buffer | undefined>;
  env: NodeJS.ProcessEnv;
};

export type Command = { run(context: Context): Promise<number> };

// The config in use: the file (`--config`, DEEPWORK_CONFIG or deepwork's home), then the environment, then the flags.
export type Settings = { config: Config; configFile: string; box: SandboxOptions };

export function settingsOf(context: Context): Settings {
  const where = configPathOf(context.flags.config, context.cwd, context.env);
  const config = withFlags(
    loadConfig(where.file, where.explicit, homeOf(context.env)),
    context.flags,
    context.env,
    context.lang,
  );
  return { config, configFile: where.file, box: sandboxOf(config, where.file) };
}

// The sandbox's settings: deepwork's own places, which the model may neither read nor write even when the project
// is deepwork's own folder, and the secret names.
function sandboxOf(config: Config, configFile: string): SandboxOptions {
  return {
    backupDir: config.backupDir,
    guard: [
      { path: config.stateDir, what: "deepwork's state folder" },
      { path: configFile, what: "deepwork's config file" },
    ],
    secretNames: config.secretNames,
  };
}

// The config, then the environment, then the flags: each later one wins.
function withFlags(config: Config, flags: Flags, env: NodeJS.ProcessEnv, lang: Lang): Config {
  const result = { ...config };
  const fromEnv = (name: string) => (env[name]?.trim() === '' ? undefined : env[name]?.trim());
  if (flags.api !== undefined) {
    if (!isApi(flags.api))
      throw new DeepworkError(
        'USAGE',
        `--api must be ollama (Ollama's /api/chat: the DeepSeek bridge, Ollama) or openai (chat completions: DeepSeek's API, llama.cpp, vLLM, LM Studio, OpenRouter), not "${flags.api}".`,
      );
    result.api = flags.api;
  }
  const wholeNumber = numberIn(lang);
  if (flags.steps !== undefined) result.steps = wholeNumber('--steps', flags.steps, STEPS.min, STEPS.max);
  const host = flags.host ?? fromEnv('DEEPWORK_HOST');
  if (host !== undefined) result.deepseekHost = hostOf(host, flags.host !== undefined ? '--host' : 'DEEPWORK_HOST');
  const model = flags.model ?? fromEnv('DEEPWORK_MODEL');
  if (model !== undefined) result.deepseekModel = model;
  if (flags.port !== undefined) result.port = wholeNumber('--port', flags.port, 0, 65535, usageTexts.anyFreePort[lang]);
  if (flags['context-tokens'] !== undefined)
    result.contextTokens = wholeNumber('--context-tokens', flags['context-tokens'], 2_048, 9_999_999);
  return result;
}

function hostOf(text: string, source: string): string {
  const host = normalizeHost(text);
  if ('problem' in host)
    throw new DeepworkError(
      'USAGE',
      `${source} "${text}" ${host.problem}. Write it like http://localhost:11434, or localhost:11434.`,
    );
  return host.url;
}

// A flag's number: decimal digits only (`1e9`, `0x10` and ` 4` are refused), within its range.
function numberIn(lang: Lang) {
  return (flag: string, text: string, min: number, max: number, note = ''): number => {
    const value = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= min && value <= max))
      throw new DeepworkError('USAGE', usageTexts.wholeNumber[lang](flag, min, note, max, text));
    return value;
  };
}

// The folder to work in. A filesystem root or the home folder itself is refused: walking it reads the whole disk or
// every project at once, and sends /etc or ~/.config to the model.
export function projectFolder(cwd: string, anyFolder: boolean): string {
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
    throw new DeepworkError(
      'USAGE',
      `${real} is ${isRoot ? 'the root of a disk' : 'your home folder itself'}, not a project folder: deepwork would walk ${isRoot ? 'the whole disk' : 'every folder in it'} and could send any file in it to the model. cd into the project folder first, or add --any-folder if you mean it.`,
    );
  }
  return cwd;
}

// A flag's comma-separated paths (--files, --trust).
export function listOf(value: string | undefined): string[] {
  return value === undefined
    ? []
    : value
        .split(',')
        .map((f) => f.trim())
        .filter((f) => f !== '');
}
