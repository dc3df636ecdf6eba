// The command line's words: one table of flags, which says what each flag takes and which commands take it (what it
// does, in both languages, is common/strings/help.js, which console/help.ts holds to this table). Parsing, the errors
// for a mistyped or misplaced flag, and --help all come from that table, so they cannot drift.

import { parseArgs } from 'node:util';
import { DeepworkError, messageOf } from '../common/errors.ts';
import { editDistance } from '../common/text.ts';
import { commandNames, usageTexts } from '../common/strings/usage.js';
import { textsIn, type Lang } from '../common/strings/language.js';

export type Command = 'ask' | 'apply' | 'undo' | 'ui' | 'check' | 'selftest' | 'help' | 'version';

type Spec = { type: 'string' | 'boolean'; short?: string; value?: string; for: readonly Command[] };

const EVERY: readonly Command[] = ['ask', 'apply', 'undo', 'ui', 'check', 'selftest', 'help', 'version'];

export const FLAGS = {
  files: { type: 'string', short: 'f', value: 'a.js,b.js', for: ['ask'] },
  apply: { type: 'boolean', for: ['ask'] },
  diff: { type: 'boolean', for: ['ask', 'apply'] },
  'dry-run': { type: 'boolean', for: ['apply'] },
  yes: { type: 'boolean', short: 'y', for: ['ask', 'apply'] },
  force: { type: 'boolean', for: ['ask', 'apply'] },
  trust: { type: 'string', value: 'a,b', for: ['ask', 'apply'] },
  continue: { type: 'boolean', short: 'c', for: ['ask'] },
  steps: { type: 'string', value: 'N', for: ['ask', 'ui'] },
  'context-tokens': { type: 'string', value: 'N', for: ['ask', 'ui'] },
  api: { type: 'string', value: 'ollama|openai', for: ['ask', 'ui', 'check'] },
  host: { type: 'string', value: 'URL', for: ['ask', 'ui', 'check'] },
  model: { type: 'string', value: 'NAME', for: ['ask', 'ui', 'check'] },
  'no-stream': { type: 'boolean', for: ['ask'] },
  demo: { type: 'boolean', for: ['ask'] },
  paste: { type: 'boolean', for: ['ask'] },
  json: { type: 'boolean', for: ['ask', 'apply', 'undo', 'check'] },
  list: { type: 'boolean', for: ['undo'] },
  port: { type: 'string', value: 'N', for: ['ui'] },
  'no-open': { type: 'boolean', for: ['ui'] },
  'any-folder': { type: 'boolean', for: ['ask', 'ui'] },
  config: { type: 'string', value: 'PATH', for: ['ask', 'apply', 'undo', 'ui', 'check', 'selftest'] },
  check: { type: 'boolean', for: ['check'] },
  selftest: { type: 'boolean', for: ['selftest'] },
  lang: { type: 'string', value: 'en|ru', for: EVERY },
  version: { type: 'boolean', short: 'v', for: EVERY },
  help: { type: 'boolean', short: 'h', for: EVERY },
} as const satisfies Record<string, Spec>;

export type FlagName = keyof typeof FLAGS;
export type Flags = { [K in FlagName]?: (typeof FLAGS)[K]['type'] extends 'string' ? string : boolean };

// The words that name a command; any other first word starts a question.
const COMMAND_WORDS = {
  apply: 'apply',
  undo: 'undo',
  ui: 'ui',
  help: 'help',
  version: 'version',
} as const satisfies Record<string, Command>;

// `words`: the question's words; `afterFiles`: the indexes of those that came right after --files' value, which may be
// more files (`--files a.js b.js`: the shell split them), for the question to tell (commands/files.ts).
export type Parsed = { command: Command; flags: Flags; question: string; words: string[]; afterFiles: number[] };

// The command, its flags and the question. Every mistake is a USAGE error that names the word and the fix, in `lang`.
export function parseCommandLine(argv: readonly string[], lang: Lang = 'en'): Parsed {
  const t = textsIn(usageTexts, lang);
  const NAMES: Record<Command, string> = commandNames[lang];
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof FLAGS; allowPositionals: true; tokens: true }>
  >;
  try {
    parsed = parseArgs({ args: [...argv], options: FLAGS, allowPositionals: true, tokens: true });
  } catch (error) {
    throw new DeepworkError('USAGE', flagProblem(error, lang));
  }
  const flags: Flags = parsed.values;
  const modes = (['help', 'version', 'check', 'selftest'] as const).filter((m) => flags[m] === true);
  const terminator = parsed.tokens.findIndex((t) => t.kind === 'option-terminator');
  const words = parsed.tokens.flatMap((t, i) =>
    t.kind === 'positional' ? [{ value: t.value, quoted: terminator !== -1 && i > terminator }] : [],
  );
  const first = words[0];
  // The question's words that follow --files and its value with nothing between.
  const afterFiles: number[] = [];
  let following = false;
  let positional = 0;
  for (const [i, token] of parsed.tokens.entries()) {
    if (token.kind === 'option') following = token.name === 'files' && token.value !== undefined;
    else if (token.kind === 'positional') {
      if (following && (terminator === -1 || i < terminator)) afterFiles.push(positional);
      positional++;
    } else following = false;
  }

  let command: Command;
  let question = '';
  if (modes.includes('help')) command = 'help';
  else if (modes.includes('version')) command = 'version';
  else if (modes.length > 1) throw new DeepworkError('USAGE', t.twoModes(modes[0] ?? '', modes[1] ?? ''));
  else if (modes[0] !== undefined) {
    command = modes[0];
    if (first !== undefined) throw new DeepworkError('USAGE', t.modeNoWords(command, first.value));
  } else if (first !== undefined && !first.quoted && Object.hasOwn(COMMAND_WORDS, first.value)) {
    command = COMMAND_WORDS[first.value as keyof typeof COMMAND_WORDS];
    const extra = words[1];
    if (extra !== undefined) {
      const hint =
        command === 'undo' && extra.value === 'list'
          ? t.undoList
          : command === 'ui' && /^\d+$/.test(extra.value)
            ? t.uiPort(extra.value)
            : '';
      throw new DeepworkError('USAGE', t.commandNoWords(NAMES[command], extra.value, hint, first.value));
    }
  } else {
    command = 'ask';
    question = words
      .map((w) => w.value)
      .join(' ')
      .trim();
    if (question === '') throw new DeepworkError('USAGE', t.noQuestion);
  }

  if (command !== 'help' && command !== 'version') {
    for (const token of parsed.tokens) {
      if (token.kind !== 'option') continue;
      const spec: Spec = FLAGS[token.name as FlagName];
      if (!spec.for.includes(command)) {
        const takers = spec.for.filter((c) => c !== 'help' && c !== 'version').map((c) => NAMES[c]);
        throw new DeepworkError('USAGE', t.notFor(token.rawName, takers, NAMES[command]));
      }
    }
  }
  return { command, flags, question, words: command === 'ask' ? words.map((w) => w.value) : [], afterFiles };
}

// Node's parseArgs errors in deepwork's words: an unknown flag with the closest known one, a flag that needs a value.
function flagProblem(error: unknown, lang: Lang): string {
  const t = textsIn(usageTexts, lang);
  const message = messageOf(error);
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  const named = /'(-{1,2}[^'\s]+)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const guess = closestFlag(named.replace(/^-+/, '').split('=')[0] ?? '');
    return t.noOption(named.split('=')[0] ?? named, guess);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const name = named.replace(/^-+/, '').split(/[ =]/)[0] ?? '';
    const spec = Object.hasOwn(FLAGS, name) ? FLAGS[name as FlagName] : undefined;
    if (spec !== undefined && spec.type === 'string') return t.needsValue(name, 'value' in spec ? spec.value : 'VALUE');
    if (spec !== undefined) return t.takesNoValue(name);
  }
  return message;
}

// The known flag nearest to what was typed, by edit distance, when it is near enough to be a typo.
function closestFlag(typed: string): string | undefined {
  const allowed = Math.max(1, Math.floor(typed.length / 3));
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const name of Object.keys(FLAGS)) {
    const d = editDistance(typed.toLowerCase(), name, allowed);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}
