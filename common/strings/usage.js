// The console's usage errors in both languages: a flag mistyped, misplaced or without its value, a command given
// words it does not take, no question, a number or a host that is not one. Each says what was wrong, the value, and
// what to write instead.

import { both, number } from './language.js';

// A command's name as the errors say it (`a question` for a question).
export const commandNames = {
  en: {
    ask: 'a question',
    apply: 'deepwork apply',
    undo: 'deepwork undo',
    ui: 'deepwork ui',
    check: 'deepwork --check',
    selftest: 'deepwork --selftest',
    help: 'deepwork --help',
    version: 'deepwork version',
  },
  ru: {
    ask: 'вопрос',
    apply: 'deepwork apply',
    undo: 'deepwork undo',
    ui: 'deepwork ui',
    check: 'deepwork --check',
    selftest: 'deepwork --selftest',
    help: 'deepwork --help',
    version: 'deepwork version',
  },
};

export const usageTexts = {
  noOption: both(
    (/** @type {string} */ typed, /** @type {string | undefined} */ guess) =>
      `There is no option ${typed}.${guess === undefined ? '' : ` Did you mean --${guess}?`} A question that starts with "-" goes after --: deepwork -- "${typed} …".`,
    (typed, guess) =>
      `Флага ${typed} нет.${guess === undefined ? '' : ` Может быть, --${guess}?`} Вопрос, начинающийся с "-", ставится после --: deepwork -- "${typed} …".`,
  ),
  needsValue: both(
    (/** @type {string} */ name, /** @type {string} */ value) => `--${name} needs a value: --${name} ${value}.`,
    (name, value) => `--${name} нужно значение: --${name} ${value}.`,
  ),
  takesNoValue: both(
    (/** @type {string} */ name) => `--${name} takes no value; write just --${name}.`,
    (name) => `--${name} не принимает значения; пишите просто --${name}.`,
  ),
  twoModes: both(
    (/** @type {string} */ a, /** @type {string} */ b) => `--${a} and --${b} are separate commands; give one of them.`,
    (a, b) => `--${a} и --${b} — разные команды; дайте одну из них.`,
  ),
  modeNoWords: both(
    (/** @type {string} */ mode, /** @type {string} */ word) =>
      `deepwork --${mode} takes no words, but got "${word}". Ask a question without --${mode}.`,
    (mode, word) => `deepwork --${mode} не принимает слов, а получил "${word}". Задайте вопрос без --${mode}.`,
  ),
  undoList: both(' For the list of backup sets: deepwork undo --list.', ' Список наборов копий: deepwork undo --list.'),
  uiPort: both(
    (/** @type {string} */ port) => ` For a port: deepwork ui --port ${port}.`,
    (port) => ` Порт задаётся так: deepwork ui --port ${port}.`,
  ),
  commandNoWords: both(
    (
      /** @type {string} */ command,
      /** @type {string} */ extra,
      /** @type {string} */ hint,
      /** @type {string} */ first,
    ) =>
      `${command} takes no more words, but got "${extra}".${hint} To ask a question that starts with the word "${first}", put it after --: deepwork -- "${first} ${extra}".`,
    (command, extra, hint, first) =>
      `${command} не принимает больше слов, а получил "${extra}".${hint} Чтобы задать вопрос, начинающийся со слова "${first}", поставьте его после --: deepwork -- "${first} ${extra}".`,
  ),
  noQuestion: both(
    'No question given. Ask like this: deepwork "where is the login checked?"',
    'Вопрос не задан. Спросите так: deepwork "где проверяется вход?"',
  ),
  notFor: both(
    (/** @type {string} */ flag, /** @type {readonly string[]} */ takers, /** @type {string} */ command) =>
      `${flag} is for ${takers.join(' and ')}; ${command} does not take it.`,
    (flag, takers, command) => `${flag} — для: ${takers.join(', ')}; ${command} его не принимает.`,
  ),
  wholeNumber: both(
    (
      /** @type {string} */ flag,
      /** @type {number} */ min,
      /** @type {string} */ note,
      /** @type {number} */ max,
      /** @type {string} */ text,
    ) => `${flag} must be a whole number from ${min}${note} to ${max}, not "${text}".`,
    (flag, min, note, max, text) => `${flag} должен быть целым числом от ${min}${note} до ${max}, а не "${text}".`,
  ),
  anyFreePort: both(' (0: any free one)', ' (0 — любой свободный)'),
  pasteAndDemo: both(
    '--paste and --demo are two bridges; give one of them.',
    '--paste и --demo — два разных моста; дайте один.',
  ),
  notAFile: both(
    (/** @type {string} */ word) =>
      `"${word}" follows --files, but there is no such file, so it is not known whether it is a file or part of the question. Name files with commas (--files a.js,b.js) and put the question in quotes.`,
    (word) =>
      `"${word}" стоит после --files, но такого файла нет, и непонятно, файл это или часть вопроса. Перечислите файлы через запятую (--files a.js,b.js), а вопрос возьмите в кавычки.`,
  ),
  maskTooWide: both(
    (/** @type {string} */ mask, /** @type {number} */ total, /** @type {number} */ most) =>
      `--files ${mask} matches ${number.en(total)} files; at most ${most} go from one mask. Narrow it, or let the model ask for files itself.`,
    (mask, total, most) =>
      `--files ${mask} подходит к ${number.ru(total)} файлам; из одной маски уходит не больше ${most}. Сузьте её или дайте модели самой попросить файлы.`,
  ),
  noEarlier: both(
    'There is no earlier conversation in this folder to continue: ask without --continue.',
    'В этой папке нет беседы, которую можно продолжить: спросите без --continue.',
  ),
  olderRun: both(
    'The last run in this folder was kept by an older deepwork, without its conversation: ask without --continue.',
    'Последний запуск в этой папке сохранён старой версией deepwork, без беседы: спросите без --continue.',
  ),
};
