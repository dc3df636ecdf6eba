// The command line's words: one table of flags, which says what each flag takes, what it does and which commands take
// it. Parsing, the errors for a mistyped or misplaced flag, and --help all come from that table, so they cannot drift.

import { parseArgs } from 'node:util';
import { DeepworkError, messageOf } from '../common/errors.ts';
import { editDistance } from '../common/text.ts';

export type Command = 'ask' | 'apply' | 'undo' | 'ui' | 'check' | 'selftest' | 'help' | 'version';

type Spec = { type: 'string' | 'boolean'; short?: string; value?: string; what: string; for: readonly Command[] };

const EVERY: readonly Command[] = ['ask', 'apply', 'undo', 'ui', 'check', 'selftest', 'help', 'version'];

export const FLAGS = {
  files: {
    type: 'string',
    short: 'f',
    value: 'a.js,b.js',
    what: 'send these files with the question: paths or masks ("src/*.js"), comma- or space-separated (each must exist and be readable)',
    for: ['ask'],
  },
  apply: {
    type: 'boolean',
    what: 'write the proposed files (the old versions go to a backup set first)',
    for: ['ask'],
  },
  diff: {
    type: 'boolean',
    what: 'show a unified diff of each proposed file (coloured on a terminal; NO_COLOR, FORCE_COLOR)',
    for: ['ask', 'apply'],
  },
  'dry-run': { type: 'boolean', what: 'list and diff what apply would write; write nothing', for: ['apply'] },
  yes: {
    type: 'boolean',
    short: 'y',
    what: 'write without asking first (on a terminal, --apply and apply show the list and ask)',
    for: ['ask', 'apply'],
  },
  force: {
    type: 'boolean',
    what: 'also write files held back for looking elided ("rest unchanged")',
    for: ['ask', 'apply'],
  },
  trust: {
    type: 'string',
    value: 'a,b',
    what: 'also write these files, held back because tools run them by themselves (git hooks, CI, editor tasks); read their diffs first',
    for: ['ask', 'apply'],
  },
  continue: { type: 'boolean', short: 'c', what: "continue this folder's last conversation", for: ['ask'] },
  steps: { type: 'string', value: 'N', what: 'bridge calls per question, 1 to 50 (config: steps)', for: ['ask', 'ui'] },
  'context-tokens': {
    type: 'string',
    value: 'N',
    what: "the model's window in tokens (config: contextTokens; else asked of the bridge)",
    for: ['ask', 'ui'],
  },
  api: {
    type: 'string',
    value: 'ollama|openai',
    what: "how the bridge is spoken to: Ollama's /api/chat or OpenAI's chat completions (config: api)",
    for: ['ask', 'ui', 'check'],
  },
  host: {
    type: 'string',
    value: 'URL',
    what: 'the bridge, like http://localhost:11434 or localhost:11434 (config: deepseekHost; env DEEPWORK_HOST)',
    for: ['ask', 'ui', 'check'],
  },
  model: {
    type: 'string',
    value: 'NAME',
    what: 'the model to ask for (config: deepseekModel; env DEEPWORK_MODEL)',
    for: ['ask', 'ui', 'check'],
  },
  'no-stream': {
    type: 'boolean',
    what: 'do not show the reply as it arrives, only the waiting line (it streams on stderr when stdout is not a terminal)',
    for: ['ask'],
  },
  demo: { type: 'boolean', what: 'an offline demo bridge instead of a model, to see the loop', for: ['ask'] },
  paste: {
    type: 'boolean',
    what: 'be the bridge yourself: each message goes to the clipboard and a file for any web chat, and its reply comes back here',
    for: ['ask'],
  },
  json: {
    type: 'boolean',
    what: 'print one JSON object on stdout, also for a failure ({"error": {"code", "message"}})',
    for: ['ask', 'apply', 'undo', 'check'],
  },
  list: { type: 'boolean', what: 'list the backup sets of this folder instead of undoing', for: ['undo'] },
  port: {
    type: 'string',
    value: 'N',
    what: "the pult's port on 127.0.0.1, 0 for any free one (config: port; the next free one when it is taken)",
    for: ['ui'],
  },
  'no-open': { type: 'boolean', what: 'do not open the browser; the URL is printed', for: ['ui'] },
  'any-folder': {
    type: 'boolean',
    what: 'run even in a filesystem root or the home folder itself',
    for: ['ask', 'ui'],
  },
  config: {
    type: 'string',
    value: 'PATH',
    what: 'the config file (env DEEPWORK_CONFIG)',
    for: ['ask', 'apply', 'undo', 'ui', 'check', 'selftest'],
  },
  check: { type: 'boolean', what: 'is the bridge up, and its model? exit 0 ready, 3 idle, 1 down', for: ['check'] },
  selftest: { type: 'boolean', what: 'built-in checks; sends nothing anywhere', for: ['selftest'] },
  lang: {
    type: 'string',
    value: 'en|ru',
    what: "the language deepwork speaks to you (else the locale: LC_ALL, LC_MESSAGES, LANG; on Windows the system's)",
    for: EVERY,
  },
  version: { type: 'boolean', short: 'v', what: 'the version', for: EVERY },
  help: { type: 'boolean', short: 'h', what: 'this help', for: EVERY },
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

const NAMES: Record<Command, string> = {
  ask: 'a question',
  apply: 'deepwork apply',
  undo: 'deepwork undo',
  ui: 'deepwork ui',
  check: 'deepwork --check',
  selftest: 'deepwork --selftest',
  help: 'deepwork --help',
  version: 'deepwork version',
};

// `words`: the question's words; `afterFiles`: the indexes of those that came right after --files' value, which may be
// more files (`--files a.js b.js`: the shell split them), for the question to tell (commands/files.ts).
export type Parsed = { command: Command; flags: Flags; question: string; words: string[]; afterFiles: number[] };

// The command, its flags and the question. Every mistake is a USAGE error that names the word and the fix.
export function parseCommandLine(argv: readonly string[]): Parsed {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof FLAGS; allowPositionals: true; tokens: true }>
  >;
  try {
    parsed = parseArgs({ args: [...argv], options: FLAGS, allowPositionals: true, tokens: true });
  } catch (error) {
    throw new DeepworkError('USAGE', flagProblem(error));
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
  else if (modes.length > 1)
    throw new DeepworkError('USAGE', `--${modes[0]} and --${modes[1]} are separate commands; give one of them.`);
  else if (modes[0] !== undefined) {
    command = modes[0];
    if (first !== undefined)
      throw new DeepworkError(
        'USAGE',
        `deepwork --${command} takes no words, but got "${first.value}". Ask a question without --${command}.`,
      );
  } else if (first !== undefined && !first.quoted && Object.hasOwn(COMMAND_WORDS, first.value)) {
    command = COMMAND_WORDS[first.value as keyof typeof COMMAND_WORDS];
    const extra = words[1];
    if (extra !== undefined) {
      const hint =
        command === 'undo' && extra.value === 'list'
          ? ' For the list of backup sets: deepwork undo --list.'
          : command === 'ui' && /^\d+$/.test(extra.value)
            ? ` For a port: deepwork ui --port ${extra.value}.`
            : '';
      throw new DeepworkError(
        'USAGE',
        `${NAMES[command]} takes no more words, but got "${extra.value}".${hint} To ask a question that starts with the word "${first.value}", put it after --: deepwork -- "${first.value} ${extra.value}".`,
      );
    }
  } else {
    command = 'ask';
    question = words
      .map((w) => w.value)
      .join(' ')
      .trim();
    if (question === '')
      throw new DeepworkError('USAGE', 'No question given. Ask like this: deepwork "where is the login checked?"');
  }

  if (command !== 'help' && command !== 'version') {
    for (const token of parsed.tokens) {
      if (token.kind !== 'option') continue;
      const spec: Spec = FLAGS[token.name as FlagName];
      if (!spec.for.includes(command)) {
        const takers = spec.for.filter((c) => c !== 'help' && c !== 'version').map((c) => NAMES[c]);
        throw new DeepworkError(
          'USAGE',
          `${token.rawName} is for ${takers.join(' and ')}; ${NAMES[command]} does not take it.`,
        );
      }
    }
  }
  return { command, flags, question, words: command === 'ask' ? words.map((w) => w.value) : [], afterFiles };
}

// Node's parseArgs errors in deepwork's words: an unknown flag with the closest known one, a flag that needs a value.
function flagProblem(error: unknown): string {
  const message = messageOf(error);
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  const named = /'(-{1,2}[^'\s]+)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const guess = closestFlag(named.replace(/^-+/, '').split('=')[0] ?? '');
    return `There is no option ${named.split('=')[0]}.${guess === undefined ? '' : ` Did you mean --${guess}?`} A question that starts with "-" goes after --: deepwork -- "${named} …".`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const name = named.replace(/^-+/, '').split(/[ =]/)[0] ?? '';
    const spec = Object.hasOwn(FLAGS, name) ? FLAGS[name as FlagName] : undefined;
    if (spec !== undefined && spec.type === 'string')
      return `--${name} needs a value: --${name} ${'value' in spec ? spec.value : 'VALUE'}.`;
    if (spec !== undefined) return `--${name} takes no value; write just --${name}.`;
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

// Help lines are at most this wide (a console window of 100 columns and more shows them whole), flags' texts from
// this column.
const HELP_WIDTH = 100;
const FLAG_COLUMN = 32;

// Text broken at spaces into lines of at most `width` characters (a longer word stands alone).
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  return [...lines, line];
}

// --help: the commands, every flag on a line of its own, where deepwork keeps its files, and the exit codes.
export function helpText(places: { config: string; state: string; backups: string; note?: string }): string {
  const flagLines = (Object.entries(FLAGS) as Array<[string, Spec]>).flatMap(([name, spec]) => {
    const short = spec.short === undefined ? '    ' : `-${spec.short}, `;
    const left = `  ${short}--${name}${spec.value === undefined ? '' : ` ${spec.value}`}`;
    return wrap(spec.what, HELP_WIDTH - FLAG_COLUMN).map(
      (line, i) => `${(i === 0 ? left : '').padEnd(FLAG_COLUMN)}${line}`,
    );
  });
  return [
    "deepwork: a chat model reads this folder's code and proposes changes; you decide what is written.",
    '',
    'Commands (run them in the project folder):',
    '  deepwork "question" [flags]     ask; the step log goes to stderr, the answer to stdout',
    '  git diff | deepwork "question"  what is piped in goes with the question',
    "  deepwork apply                  write the last run's proposals without asking the model again",
    '  deepwork apply --dry-run        what apply would write, with diffs; writes nothing',
    '  deepwork undo                   put back the files of the last applied set',
    '  deepwork ui                     the pult: the same in a local web page',
    '  deepwork --check                is the bridge up, and its model?',
    '  deepwork version                the version (also --version)',
    '  deepwork --selftest             built-in checks',
    '  deepwork -- "undo the change"   a question that starts with a command word or "-" goes after --',
    '',
    'Flags:',
    ...flagLines,
    '',
    ...wrap(
      "Environment: DEEPWORK_HOST, DEEPWORK_MODEL and DEEPWORK_CONFIG stand in for --host, --model and --config (flags win); DEEPWORK_HOME moves config.json, state and backups out of deepwork's folder; the variable named by apiKeyEnv holds an API key.",
      HELP_WIDTH,
    ),
    '',
    `Config:  ${places.config}${places.note === undefined ? '' : ` (${places.note})`}`,
    `State:   ${places.state}   (the last runs and conversations)`,
    `Backups: ${places.backups}   (what deepwork undo puts back)`,
    '',
    'Exit codes:',
    '  0    done (--check: ready)',
    '  1    a failure: the bridge, the config, a file not written (--check: down)',
    '  2    a usage error',
    '  3    --check: the bridge answers but the model is not up yet',
    '  130  stopped with Ctrl-C',
  ].join('\n');
}
