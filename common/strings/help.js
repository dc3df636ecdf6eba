// `deepwork --help` in both languages: what each flag does (console/args.ts holds what each flag takes, and checks that
// every flag has its text here), the commands, the environment, where deepwork keeps its files, the exit codes.

import { both } from './language.js';

export const flagTexts = {
  files: both(
    'send these files with the question: paths or masks ("src/*.js"), comma- or space-separated (each must exist and be readable)',
    'отправить эти файлы с вопросом: пути или маски ("src/*.js") через запятую или пробел (каждый должен существовать и читаться)',
  ),
  apply: both(
    'write the proposed files (the old versions go to a backup set first)',
    'записать предложенные файлы (прежние версии сначала уходят в набор резервных копий)',
  ),
  diff: both(
    'show a unified diff of each proposed file (coloured on a terminal; NO_COLOR, FORCE_COLOR)',
    'показать diff каждого предложенного файла (в цвете на терминале; NO_COLOR, FORCE_COLOR)',
  ),
  'dry-run': both(
    'list and diff what apply would write; write nothing',
    'показать список и diff того, что запишет apply; ничего не записывать',
  ),
  yes: both(
    'write without asking first (on a terminal, --apply and apply show the list and ask)',
    'записывать без вопроса (на терминале --apply и apply показывают список и спрашивают)',
  ),
  force: both(
    'also write files held back for looking elided ("rest unchanged")',
    'записать и файлы, задержанные как сокращённые («остальное без изменений»)',
  ),
  trust: both(
    'also write these files, held back because tools run them by themselves (git hooks, CI, editor tasks); read their diffs first',
    'записать и эти файлы, задержанные потому, что их сами запускают инструменты (хуки git, CI, задачи редактора); сначала прочтите их diff',
  ),
  continue: both("continue this folder's last conversation", 'продолжить последнюю беседу в этой папке'),
  steps: both(
    'bridge calls per question, 1 to 50 (config: steps)',
    'обращений к мосту на вопрос, от 1 до 50 (config: steps)',
  ),
  'context-tokens': both(
    "the model's window in tokens (config: contextTokens; else asked of the bridge)",
    'окно модели в токенах (config: contextTokens; иначе спрашивается у моста)',
  ),
  api: both(
    "how the bridge is spoken to: Ollama's /api/chat or OpenAI's chat completions (config: api)",
    'как говорить с мостом: /api/chat Ollama или chat completions OpenAI (config: api)',
  ),
  host: both(
    'the bridge, like http://localhost:11434 or localhost:11434 (config: deepseekHost; env DEEPWORK_HOST)',
    'мост, например http://localhost:11434 или localhost:11434 (config: deepseekHost; env DEEPWORK_HOST)',
  ),
  model: both(
    'the model to ask for (config: deepseekModel; env DEEPWORK_MODEL)',
    'какую модель просить (config: deepseekModel; env DEEPWORK_MODEL)',
  ),
  'no-stream': both(
    'do not show the reply as it arrives, only the waiting line (it streams on stderr when stdout is not a terminal)',
    'не показывать ответ по мере прихода, только строку ожидания (он идёт в stderr, когда stdout не терминал)',
  ),
  demo: both(
    'an offline demo bridge instead of a model, to see the loop',
    'демо-мост без сети вместо модели, чтобы посмотреть цикл',
  ),
  paste: both(
    'be the bridge yourself: each message goes to the clipboard and a file for any web chat, and its reply comes back here',
    'быть мостом самому: каждое сообщение идёт в буфер обмена и в файл для любого веб-чата, а ответ возвращается сюда',
  ),
  json: both(
    'print one JSON object on stdout, also for a failure ({"error": {"code", "message"}})',
    'вывести один объект JSON в stdout, и при ошибке тоже ({"error": {"code", "message"}})',
  ),
  list: both(
    'list the backup sets of this folder instead of undoing',
    'показать наборы резервных копий этой папки вместо отмены',
  ),
  port: both(
    "the pult's port on 127.0.0.1, 0 for any free one (config: port; the next free one when it is taken)",
    'порт пульта на 127.0.0.1, 0 — любой свободный (config: port; если занят — следующий свободный)',
  ),
  'no-open': both('do not open the browser; the URL is printed', 'не открывать браузер; адрес печатается'),
  'any-folder': both(
    'run even in a filesystem root or the home folder itself',
    'работать даже в корне диска или в самой домашней папке',
  ),
  config: both('the config file (env DEEPWORK_CONFIG)', 'файл настроек (env DEEPWORK_CONFIG)'),
  check: both(
    'is the bridge up, and its model? exit 0 ready, 3 idle, 1 down',
    'работает ли мост и его модель? выход 0 — готов, 3 — ждёт, 1 — недоступен',
  ),
  selftest: both('built-in checks; sends nothing anywhere', 'встроенные проверки; ничего никуда не отправляют'),
  lang: both(
    "the language deepwork speaks to you (else the locale: LC_ALL, LC_MESSAGES, LANG; on Windows the system's)",
    'язык, на котором deepwork говорит с вами (иначе по локали: LC_ALL, LC_MESSAGES, LANG; в Windows — системной)',
  ),
  version: both('the version', 'версия'),
  help: both('this help', 'эта справка'),
};

export const helpTexts = {
  intro: both(
    "deepwork: a chat model reads this folder's code and proposes changes; you decide what is written.",
    'deepwork: чат-модель читает код этой папки и предлагает изменения; что записать, решаете вы.',
  ),
  commands: both(
    [
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
    ].join('\n'),
    [
      'Команды (запускайте их в папке проекта):',
      '  deepwork "вопрос" [флаги]       спросить; журнал шагов идёт в stderr, ответ в stdout',
      '  git diff | deepwork "вопрос"    то, что подано на вход, уходит вместе с вопросом',
      '  deepwork apply                  записать предложения последнего запуска, не спрашивая модель снова',
      '  deepwork apply --dry-run        что запишет apply, с diff; ничего не записывает',
      '  deepwork undo                   вернуть файлы последнего записанного набора',
      '  deepwork ui                     пульт: то же в локальной веб-странице',
      '  deepwork --check                работает ли мост и его модель?',
      '  deepwork version                версия (или --version)',
      '  deepwork --selftest             встроенные проверки',
      '  deepwork -- "undo the change"   вопрос, начинающийся со слова команды или с "-", ставится после --',
    ].join('\n'),
  ),
  flags: both('Flags:', 'Флаги:'),
  environment: both(
    "Environment: DEEPWORK_HOST, DEEPWORK_MODEL and DEEPWORK_CONFIG stand in for --host, --model and --config (flags win); DEEPWORK_HOME moves config.json, state and backups out of deepwork's folder; the variable named by apiKeyEnv holds an API key.",
    'Окружение: DEEPWORK_HOST, DEEPWORK_MODEL и DEEPWORK_CONFIG заменяют --host, --model и --config (флаги важнее); DEEPWORK_HOME переносит config.json, состояние и резервные копии из папки deepwork; переменная, названная в apiKeyEnv, хранит ключ API.',
  ),
  config: both(
    (/** @type {string} */ file, /** @type {string | undefined} */ note) =>
      `Config:  ${file}${note === undefined ? '' : ` (${note})`}`,
    (file, note) => `Настройки: ${file}${note === undefined ? '' : ` (${note})`}`,
  ),
  state: both(
    (/** @type {string} */ dir) => `State:   ${dir}   (the last runs and conversations)`,
    (dir) => `Состояние: ${dir}   (последние запуски и беседы)`,
  ),
  backups: both(
    (/** @type {string} */ dir) => `Backups: ${dir}   (what deepwork undo puts back)`,
    (dir) => `Копии:   ${dir}   (то, что возвращает deepwork undo)`,
  ),
  notThere: both('not there: the defaults apply', 'его нет: действуют значения по умолчанию'),
  doesNotLoad: both(
    (/** @type {string} */ why) => `it does not load: ${why}`,
    (why) => `не загружается: ${why}`,
  ),
  exitCodes: both(
    [
      'Exit codes:',
      '  0    done (--check: ready)',
      '  1    a failure: the bridge, the config, a file not written (--check: down)',
      '  2    a usage error',
      '  3    --check: the bridge answers but the model is not up yet',
      '  130  stopped with Ctrl-C',
    ].join('\n'),
    [
      'Коды выхода:',
      '  0    готово (--check: готов)',
      '  1    сбой: мост, настройки, файл не записан (--check: недоступен)',
      '  2    ошибка в команде',
      '  3    --check: мост отвечает, но модель ещё не запущена',
      '  130  остановлено Ctrl-C',
    ].join('\n'),
  ),
};
