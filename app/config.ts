// config.json: read, validated key by key, never silently replaced by defaults. No file means the defaults.

import { CHAT_SITES, isChatSiteName, type ChatSiteName } from '../bridge/chat-sites.ts';
import fs from 'node:fs';
import path from 'node:path';
import { DeepworkError, errnoOf } from '../common/errors.ts';
import { INSTALL_DIR } from '../common/install.ts';
import { createRequire } from 'node:module';
import { formatCount } from '../common/text.ts';

export type Config = {
  // How the bridge is spoken to: Ollama's /api/chat (the DeepSeek bridge, Ollama) or OpenAI's chat completions
  // (DeepSeek's API, llama.cpp, vLLM, LM Studio, OpenRouter).
  api: Api;
  // The bridge: the DeepSeek bridge by default. For "openai", the API's base URL with its /v1.
  deepseekHost: string;
  deepseekModel: string;
  // The name of the environment variable holding the API key (never the key itself), for "openai".
  apiKeyEnv?: string;
  // The most tokens a reply may take (OpenAI's max_tokens); unset: the server's own limit.
  maxReplyTokens?: number;
  // Bridge calls per question.
  steps: number;
  // How long one answer may take.
  timeoutMinutes: number;
  // The pult's port on 127.0.0.1.
  port: number;
  // Where previous versions of replaced files go; relative paths are taken from deepwork's own folder.
  backupDir: string;
  // Where deepwork keeps its runs (the last proposals per project); relative paths are taken from deepwork's folder.
  stateDir: string;
  // File name patterns never sent, on top of the built-in list (picomatch; a pattern without "/" matches a name in
  // any folder).
  secretNames: string[];
  // The longest reply taken from the bridge, in characters: far above any model's output, it stops a bridge that
  // loops or streams without end before it fills the memory.
  maxReplyChars: number;
  // The model's whole window in tokens; unset: asked of the bridge (Ollama's /api/show), else 64,000.
  contextTokens?: number;
  // The web chat a person pastes into, for the copy-and-paste bridge: its limits (bridge/chat-sites.ts).
  pasteSite: ChatSiteName;
  // What that chat takes in one pasted message (messages are fitted under it, and a larger one is warned about), and
  // what a whole chat holds (deepwork proposes a new chat before it is passed); unset: the site's figures.
  pasteMaxChars?: number;
  pasteChatChars?: number;
  // The browser extension presses the chat's Send itself (automatic), rather than leaving it to the person (assisted).
  extensionAutomatic: boolean;
};

const APIS = ['ollama', 'openai'] as const;
export type Api = (typeof APIS)[number];

export function isApi(value: unknown): value is Api {
  return APIS.some((api) => api === value);
}

// Bridge calls per question, from the command line, the config and the pult alike.
export const STEPS = { min: 1, max: 50 } as const;

export const defaultConfig: Config = {
  api: 'ollama',
  deepseekHost: 'http://localhost:11500',
  deepseekModel: 'deepseek:think',
  steps: 8,
  timeoutMinutes: 15,
  port: 8787,
  backupDir: 'backup',
  stateDir: 'state',
  secretNames: [],
  maxReplyChars: 8_000_000,
  pasteSite: 'deepseek',
  extensionAutomatic: false,
};

type Check = (value: unknown) => string | undefined;

const wholeIn =
  (min: number, max: number, what = 'a whole number', show = formatCount): Check =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
      ? undefined
      : `${what} from ${show(min)} to ${show(max)}`;
const text: Check = (v) => (typeof v === 'string' && v.trim() !== '' ? undefined : 'a non-empty string');

// A day: longer is no answer, and Node's timers cannot wait past 24.8 days at all (a longer one fires at once).
const MAX_TIMEOUT_MINUTES = 1440;

const checks: Record<keyof Config, Check> = {
  api: (v) => (isApi(v) ? undefined : `one of ${APIS.map((a) => `"${a}"`).join(', ')}`),
  deepseekHost: text,
  deepseekModel: text,
  apiKeyEnv: (v) =>
    typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(v)
      ? undefined
      : 'the name of an environment variable',
  maxReplyTokens: wholeIn(16, 10_000_000),
  steps: wholeIn(STEPS.min, STEPS.max),
  timeoutMinutes: (v) =>
    typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= MAX_TIMEOUT_MINUTES
      ? undefined
      : `a number of minutes above 0, at most ${formatCount(MAX_TIMEOUT_MINUTES)} (a day)`,
  port: wholeIn(1, 65535, 'a port number', String),
  backupDir: text,
  stateDir: text,
  secretNames: secretPatterns,
  maxReplyChars: wholeIn(10_000, 1_000_000_000),
  contextTokens: wholeIn(2_048, 10_000_000),
  pasteSite: (v) =>
    isChatSiteName(v)
      ? undefined
      : `one of ${Object.keys(CHAT_SITES)
          .map((s) => `"${s}"`)
          .join(', ')}`,
  pasteMaxChars: wholeIn(10_000, 10_000_000),
  pasteChatChars: wholeIn(20_000, 100_000_000),
  extensionAutomatic: (v) => (typeof v === 'boolean' ? undefined : 'true or false'),
};

// Each pattern non-empty and one picomatch can compile; at most 1,000 of them.
function secretPatterns(v: unknown): string | undefined {
  const shape = 'a list of at most 1,000 file name patterns (non-empty strings, like "*.secret")';
  if (!Array.isArray(v) || v.length > 1000) return shape;
  for (const pattern of v) {
    if (typeof pattern !== 'string' || pattern.trim() === '') return `${shape}; ${JSON.stringify(pattern)} is not one`;
    try {
      // Loaded only for a config that adds names: most runs never need picomatch before a LIST.
      const picomatch: typeof import('picomatch') = createRequire(import.meta.url)('picomatch');
      picomatch.makeRe(pattern);
    } catch {
      return `${shape}; ${JSON.stringify(pattern)} is not a valid pattern`;
    }
  }
  return undefined;
}

// Where config.json, state/ and backup/ live (never in the user's project): deepwork's own folder, or DEEPWORK_HOME.
export function homeOf(env: NodeJS.ProcessEnv): string {
  const home = env.DEEPWORK_HOME?.trim();
  return home === undefined || home === '' ? INSTALL_DIR : path.resolve(home);
}

// The config file to read: the one named with --config or DEEPWORK_CONFIG (relative to the folder deepwork runs in),
// or config.json in deepwork's home.
export function configPathOf(
  flag: string | undefined,
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): { file: string; explicit: boolean } {
  const named = flag ?? (env.DEEPWORK_CONFIG?.trim() === '' ? undefined : env.DEEPWORK_CONFIG);
  return named === undefined
    ? { file: path.join(homeOf(env), 'config.json'), explicit: false }
    : { file: path.resolve(cwd, named), explicit: true };
}

// A bridge host as a URL: also the bare `host:port` form OLLAMA_HOST takes (`localhost:11434` is
// http://localhost:11434; 0.0.0.0, a listening address, is reached as 127.0.0.1). A problem is a sentence, else the
// URL's text.
export function normalizeHost(text: string): { url: string } | { problem: string } {
  let candidate = text.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(candidate)) {
    // Without a scheme only the bare form is taken: a host, an optional port, an optional path.
    if (!/^([A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?(\/\S*)?$/.test(candidate)) return { problem: 'is not a URL' };
    candidate = `http://${candidate.replace(/^:/, '127.0.0.1:')}`;
  }
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return { problem: 'is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: `is a ${url.protocol.slice(0, -1)}: URL, not http:// or https://` };
  if (url.hostname === '') return { problem: 'names no host' };
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  return { url: url.href.replace(/\/$/, '') };
}

// Reads a config file. A missing file at the default place gives the defaults; a missing file named with --config,
// broken JSON, an unknown key or a wrong type is an error naming the file and the key.
export function loadConfig(file = path.join(INSTALL_DIR, 'config.json'), explicit = false, home = INSTALL_DIR): Config {
  let source: string;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' && !explicit) return resolveDirs({ ...defaultConfig }, home);
    throw new DeepworkError(
      'CONFIG_READ',
      `The config file ${file} cannot be read (${errnoOf(error) ?? 'error'}). Check the path, or copy config.example.json to config.json.`,
      { cause: error },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(source.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new DeepworkError(
      'CONFIG_INVALID',
      `The config file ${file} is not valid JSON: ${whereBroken(source, error)}. Fix it, or compare with config.example.json.`,
      { cause: error },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DeepworkError(
      'CONFIG_INVALID',
      `The config file ${file} must hold one JSON object, like config.example.json.`,
    );
  }
  const config: Config = { ...defaultConfig };
  for (const [key, v] of Object.entries(value)) {
    if (!isKey(key)) {
      throw new DeepworkError(
        'CONFIG_INVALID',
        `The config file ${file} has an unknown key "${key}". Known keys: ${Object.keys(checks).join(', ')}.`,
      );
    }
    const problem = checks[key](v);
    if (problem !== undefined && key === 'apiKeyEnv') {
      // The value may be the key itself, pasted in the wrong place: it is not repeated.
      throw new DeepworkError(
        'CONFIG_INVALID',
        `The config file ${file}: "apiKeyEnv" must be the name of an environment variable that holds the key (letters, digits and _, like "DEEPSEEK_API_KEY"), not the key itself; its value is not shown here. Keep the key out of config.json: set the variable, and name it here.`,
      );
    }
    if (problem !== undefined) {
      throw new DeepworkError(
        'CONFIG_INVALID',
        `The config file ${file}: "${key}" must be ${problem}, not ${JSON.stringify(v)}.`,
      );
    }
    Object.assign(config, { [key]: v });
  }
  const host = normalizeHost(config.deepseekHost);
  if ('problem' in host)
    throw new DeepworkError(
      'CONFIG_INVALID',
      `The config file ${file}: "deepseekHost" ${JSON.stringify(config.deepseekHost)} ${host.problem}. Write it like "http://localhost:11500".`,
    );
  return resolveDirs({ ...config, deepseekHost: host.url }, home);
}

function resolveDirs(config: Config, home: string): Config {
  return { ...config, backupDir: path.resolve(home, config.backupDir), stateDir: path.resolve(home, config.stateDir) };
}

function isKey(key: string): key is keyof Config {
  return Object.hasOwn(checks, key);
}

// "line 3, column 14 (Unexpected token ...)" from a JSON.parse error, which only gives a position.
function whereBroken(source: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const at = /position (\d+)/.exec(message);
  if (at === null) return message;
  const position = Number(at[1]);
  const before = source.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column} (${message.replace(/\s*in JSON at position \d+.*$/, '')})`;
}
