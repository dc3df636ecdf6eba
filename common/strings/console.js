// What the console says to the person in its own words: the run's first line, the proposals and their fates, the
// question before writing, apply's and undo's reports, the problems with --files. The step log is steps.js (the page
// prints it too). Reasons made elsewhere (a refusal's why, a bridge's error) come in as they are.

import { both, counted, number, ruPlural } from './language.js';

/** @typedef {'new' | 'changed' | 'unchanged' | 'incomplete' | 'held back' | 'refused' | 'failed' | 'stopped'} Status */
/** @typedef {'restored' | 'removed' | 'left' | 'failed'} UndoAction */

// A proposal's status as the list shows it, one column wide in both languages.
export const STATUS = {
  en: /** @type {Record<Status, string>} */ ({
    new: 'new',
    changed: 'changed',
    unchanged: 'unchanged',
    incomplete: 'incomplete',
    'held back': 'held back',
    refused: 'refused',
    failed: 'failed',
    stopped: 'stopped',
  }),
  ru: /** @type {Record<Status, string>} */ ({
    new: 'новый',
    changed: 'изменён',
    unchanged: 'без изменений',
    incomplete: 'неполный',
    'held back': 'задержан',
    refused: 'отказ',
    failed: 'ошибка',
    stopped: 'остановлен',
  }),
};

export const UNDO_ACTION = {
  en: /** @type {Record<UndoAction, string>} */ ({
    restored: 'restored',
    removed: 'removed',
    left: 'left',
    failed: 'failed',
  }),
  ru: /** @type {Record<UndoAction, string>} */ ({
    restored: 'вернул',
    removed: 'удалил',
    left: 'оставил',
    failed: 'ошибка',
  }),
};

export const consoleTexts = {
  // The run's first line on stderr.
  started: both(
    (/** @type {string} */ bridge, /** @type {string} */ folder, /** @type {number} */ steps) =>
      `deepwork: ${bridge}; folder ${folder}; at most ${counted.en(steps, 'step')}`,
    (bridge, folder, steps) =>
      `deepwork: ${bridge}; папка ${folder}; не больше ${counted.ru(steps, 'шага', 'шагов', 'шагов')}`,
  ),
  largeFolder: both(
    (/** @type {number} */ entries) =>
      `deepwork: this folder holds more than ${number.en(entries)} files and folders (not counting .gitignore'd ones), so walking it takes a while. Is it the project folder? Ctrl-C stops.`,
    (entries) =>
      `deepwork: в этой папке больше ${number.ru(entries)} файлов и папок (не считая исключённых .gitignore), обход займёт время. Это папка проекта? Ctrl-C останавливает.`,
  ),
  usagePointer: both('Run deepwork --help for the commands and flags.', 'Команды и флаги: deepwork --help.'),
  // In place of a FILE or EDIT block in the printed answer.
  block: both(
    (/** @type {string} */ kind, /** @type {string} */ path, /** @type {string} */ what) =>
      `[${kind} ${path}: ${what}; see the list below]`,
    (kind, path, what) => `[${kind} ${path}: ${what}; см. список ниже]`,
  ),
  blockLeftOut: both('left out: past what one reply may propose', 'пропущен: больше, чем может предложить один ответ'),
  blockIncomplete: both('incomplete: the reply ended before its END line', 'неполный: ответ оборвался до строки END'),
  blockReplaced: both('replaced by a later proposal', 'заменён более поздним предложением'),
  blockFailed: both(
    (/** @type {string} */ reason) => `not applied: ${reason}`,
    (reason) => `не применён: ${reason}`,
  ),
  // Where stdout takes no colour, the model's text is framed by these two lines.
  frameOpen: both("==== the model's answer ====", '==== ответ модели ===='),
  frameClose: both("==== end of the model's answer ====", '==== конец ответа модели ===='),
  proposedHead: both(
    'Proposed files (not written; --apply writes them, or `deepwork apply` now):',
    'Предложенные файлы (не записаны; их запишет --apply или `deepwork apply` сейчас):',
  ),
  askingHead: both(
    'Proposed files (written if you say so below):',
    'Предложенные файлы (запишутся, если вы согласитесь ниже):',
  ),
  dryRunHead: both(
    'Would write (a dry run: nothing is written; deepwork apply writes them):',
    'Было бы записано (пробный прогон: ничего не записано; запишет deepwork apply):',
  ),
  writtenHead: both('Files:', 'Файлы:'),
  // Under a list shown without its diffs: the answer's blocks point to it, and it gives only counts.
  diffHint: both(
    /** @type {(proposed: boolean) => string} */
    (proposed) =>
      proposed ? '  (deepwork apply --dry-run shows their diffs)' : "  (--diff shows each file's diff here)",
    (proposed) =>
      proposed ? '  (deepwork apply --dry-run покажет их diff)' : '  (--diff показывает здесь diff каждого файла)',
  ),
  written: both('written', 'записан'),
  notWritten: both('not written', 'не записан'),
  stoppedRest: both(
    (/** @type {number} */ n) =>
      `${counted.en(n, 'more file')} not written: Ctrl-C stopped the apply before them; they are as they were`,
    (n) =>
      `ещё ${counted.ru(n, 'файл не записан', 'файла не записаны', 'файлов не записаны')}: Ctrl-C остановил запись до них; они как были`,
  ),
  backupSaved: both(
    (/** @type {string} */ set) => `Previous versions saved in ${set} (deepwork undo puts them back).`,
    (set) => `Прежние версии сохранены в ${set} (deepwork undo вернёт их).`,
  ),
  // Before writing on a terminal: the list was shown above.
  confirm: both(
    (/** @type {number} */ n) => `Write ${n === 1 ? 'this file' : `these ${number.en(n)} files`}? [y/N] `,
    (n) =>
      `Записать ${n === 1 ? 'этот файл' : `эти ${number.ru(n)} ${ruPlural(n, 'файл', 'файла', 'файлов')}`}? [y/N] `,
  ),
  declined: both(
    'Nothing written. deepwork apply asks again; --yes writes without asking.',
    'Ничего не записано. deepwork apply спросит снова; --yes записывает без вопроса.',
  ),
  nothingToWrite: both(
    'Nothing to write: no proposal can be written as it is (see the list above).',
    'Записывать нечего: ни одно предложение нельзя записать как есть (см. список выше).',
  ),
  noRun: both(
    'deepwork: no run of deepwork in this folder yet; nothing to apply. Ask a question first.',
    'deepwork: в этой папке deepwork ещё не запускали; применять нечего. Сначала задайте вопрос.',
  ),
  noProposals: both(
    'deepwork: the last run proposed no files; nothing to apply. Ask a question first.',
    'deepwork: последний запуск не предложил файлов; применять нечего. Сначала задайте вопрос.',
  ),
  setsHead: both(
    (/** @type {string} */ root, /** @type {string} */ dir) => `Backup sets of ${root}, kept in ${dir}:`,
    (root, dir) => `Наборы резервных копий ${root}, хранятся в ${dir}:`,
  ),
  noSets: both('No applied sets for this folder.', 'Для этой папки записанных наборов нет.'),
  setUndone: both('undone', 'отменён'),
  setCut: both(
    (/** @type {number} */ written, /** @type {number} */ all) =>
      `cut short: ${number.en(written)} of ${counted.en(all, 'file')} written`,
    (written, all) => `прерван: записано ${number.ru(written)} из ${counted.ru(all, 'файла', 'файлов', 'файлов')}`,
  ),
  undoing: both(
    (/** @type {string} */ set) => `Undoing ${set}:`,
    (set) => `Отмена ${set}:`,
  ),
  undoNothing: both(
    'nothing to put back: no file of the set was written',
    'возвращать нечего: ни один файл набора не был записан',
  ),
  undoLater: both(
    (/** @type {string} */ set, /** @type {string} */ later) =>
      `Not undoing ${set}: ${later}. Undoing it would throw that later write away; undo the later set first, then this one. Nothing was changed.`,
    (set, later) =>
      `${set} не отменён: ${later}. Отмена выбросила бы ту более позднюю запись; сначала отмените более поздний набор, потом этот. Ничего не изменено.`,
  ),
  noUndo: both(
    (/** @type {string} */ dir) => `No applied set of this folder to undo (backups are kept in ${dir}).`,
    (dir) => `Для этой папки нет записанного набора, который можно отменить (копии хранятся в ${dir}).`,
  ),
  // --files: what cannot be sent, one line each, under one head; nothing is sent then.
  filesHead: both(
    (/** @type {number} */ n) =>
      `--files names ${n === 1 ? 'a file' : 'files'} that cannot be sent, so nothing was sent:`,
    (n) =>
      `--files называет ${n === 1 ? 'файл, который нельзя' : 'файлы, которые нельзя'} отправить, поэтому ничего не отправлено:`,
  ),
  fileMissing: both(
    (/** @type {string} */ path, /** @type {readonly string[]} */ closest) =>
      `${path}: no such file${closest.length > 0 ? ` (did you mean ${closest.join(', ')}?)` : ''}`,
    (path, closest) => `${path}: такого файла нет${closest.length > 0 ? ` (может быть, ${closest.join(', ')}?)` : ''}`,
  ),
  fileNoMatch: both(
    (/** @type {string} */ mask) => `${mask}: no file matches it (a mask is matched against the folder's files)`,
    (mask) => `${mask}: ни один файл не подходит (маска сравнивается с файлами папки)`,
  ),
  fileRefused: both(
    (/** @type {string} */ path, /** @type {string} */ reason) => `${path}: ${reason}`,
    (path, reason) => `${path}: ${reason}`,
  ),
  fileWithheld: both(
    (/** @type {string} */ path, /** @type {string} */ reason) => `${path}: withheld, ${reason}`,
    (path, reason) => `${path}: не отправлен, ${reason}`,
  ),
  fileBinary: both(
    (/** @type {string} */ path, /** @type {string} */ what) => `${path}: binary (${what}); --files sends text`,
    (path, what) => `${path}: двоичный (${what}); --files отправляет текст`,
  ),
};

// Copy and paste at the terminal (--paste): where each message is, what to do with it, what came back.
export const pasteTexts = {
  where: both(
    (/** @type {string | undefined} */ clipboard, /** @type {string | undefined} */ file) =>
      [clipboard === undefined ? '' : `on ${clipboard}`, file === undefined ? '' : `in ${file}`]
        .filter((w) => w !== '')
        .join(' and '),
    (clipboard, file) =>
      [clipboard === undefined ? '' : `в буфере обмена (${clipboard})`, file === undefined ? '' : `в файле ${file}`]
        .filter((w) => w !== '')
        .join(' и '),
  ),
  nowhere: both('nowhere: it could not be written', 'нигде: его не удалось записать'),
  unwritable: both(
    (/** @type {number} */ n, /** @type {string} */ where) =>
      `Message ${n} could not be written to ${where}, and there is no clipboard to put it on. Check stateDir in config.json.`,
    (n, where) =>
      `Сообщение ${n} не удалось записать в ${where}, а буфера обмена, куда его положить, нет. Проверьте stateDir в config.json.`,
  ),
  pasteHere: both(
    'paste the reply here and end it with a line holding only a dot.',
    'вставьте ответ сюда и завершите его строкой, в которой только точка.',
  ),
  copyOrPaste: both(
    (/** @type {string} */ tool) =>
      `copy the chat's whole reply with its Copy button: ${tool} is watched, and the reply is taken from it as soon as it is there. Or paste the reply here and end it with a line holding only a dot.`,
    (tool) =>
      `скопируйте весь ответ чата его кнопкой «Копировать»: deepwork следит за ${tool} и возьмёт ответ, как только он там появится. Или вставьте ответ сюда и завершите его строкой, в которой только точка.`,
  ),
  anyChat: both('any web chat', 'любой веб-чат'),
  sameChat: both(
    'the same chat (it holds what came before; type new on a line of its own for a message that stands on its own, for a new chat)',
    'тот же чат (он помнит предыдущее; наберите new отдельной строкой, чтобы получить сообщение для нового чата)',
  ),
  message: both(
    (
      /** @type {number} */ n,
      /** @type {number} */ chars,
      /** @type {string} */ where,
      /** @type {string} */ into,
      /** @type {string} */ how,
    ) => `deepwork: message ${n} (${counted.en(chars, 'character')}) is ${where}. Paste it into ${into}; then ${how}`,
    (n, chars, where, into, how) =>
      `deepwork: сообщение ${n} (${counted.ru(chars, 'символ', 'символа', 'символов')}) — ${where}. Вставьте его в ${into}; затем ${how}`,
  ),
  standalone: both(
    (/** @type {number} */ chars, /** @type {string} */ where, /** @type {string} */ how) =>
      `deepwork: the message that stands on its own (${counted.en(chars, 'character')}) is ${where}. Paste it into a new chat; then ${how}`,
    (chars, where, how) =>
      `deepwork: отдельное сообщение (${counted.ru(chars, 'символ', 'символа', 'символов')}) — ${where}. Вставьте его в новый чат; затем ${how}`,
  ),
  took: both(
    (/** @type {number} */ chars, /** @type {string | undefined} */ from, /** @type {number} */ typed) =>
      `deepwork: took a reply of ${counted.en(chars, 'character')}${from === undefined ? '' : ` from ${from}`}${typed === 0 ? '' : `; the ${typed === 1 ? 'line' : `${number.en(typed)} lines`} typed here before it ${typed === 1 ? 'is' : 'are'} left out`}.`,
    (chars, from, typed) =>
      `deepwork: ответ принят, ${counted.ru(chars, 'символ', 'символа', 'символов')}${from === undefined ? '' : ` из ${from}`}${typed === 0 ? '' : `; набранное здесь до него (${counted.ru(typed, 'строка', 'строки', 'строк')}) не вошло`}.`,
  ),
  notAReply: both(
    (/** @type {'whole' | 'piece'} */ part, /** @type {number} */ chars) =>
      `deepwork: the clipboard holds ${part === 'whole' ? 'the message deepwork put there' : `a piece of the message deepwork put there (${counted.en(chars, 'character')})`}, not the chat's reply: left alone. Copy the chat's whole reply with its Copy button, or paste it here and end it with a line holding only a dot.`,
    (part, chars) =>
      `deepwork: в буфере обмена ${part === 'whole' ? 'сообщение, которое туда положил deepwork' : `часть сообщения, которое туда положил deepwork (${counted.ru(chars, 'символ', 'символа', 'символов')})`}, а не ответ чата: не трогаю. Скопируйте весь ответ чата его кнопкой «Копировать» или вставьте его сюда и завершите строкой, в которой только точка.`,
  ),
  noClipboard: both(
    'deepwork: there is no clipboard tool here; paste the reply and end it with a line holding only a dot.',
    'deepwork: здесь нет программы для буфера обмена; вставьте ответ и завершите его строкой, в которой только точка.',
  ),
  inputEnded: both(
    (/** @type {number} */ n) =>
      `Standard input ended before the reply to message ${n} came: with --paste, replies are read from the terminal. Run it in a terminal, or pipe each reply ended by a line holding only a dot.`,
    (n) =>
      `Стандартный ввод кончился раньше, чем пришёл ответ на сообщение ${n}: с --paste ответы читаются с терминала. Запустите в терминале или подайте на вход каждый ответ, завершённый строкой, в которой только точка.`,
  ),
  echo: both(
    (/** @type {number} */ n) =>
      `deepwork: what was pasted here is the reply already taken from the clipboard: left out. The reply to message ${n} is awaited.`,
    (n) => `deepwork: вставленное здесь — ответ, уже взятый из буфера обмена: пропущен. Ждём ответ на сообщение ${n}.`,
  ),
};

// deepwork ui at the terminal.
export const pultTexts = {
  link: both(
    (/** @type {number} */ minutes) =>
      `deepwork: the link above opens the pult in one page, once, within ${counted.en(minutes, 'minute')}; run deepwork ui again for another.`,
    (minutes) =>
      `deepwork: ссылка выше открывает пульт в одной странице, один раз, в течение ${counted.ru(minutes, 'минуты', 'минут', 'минут')}; за новой запустите deepwork ui снова.`,
  ),
  reused: both(
    'deepwork: a pult for this folder is already running there; opening it.',
    'deepwork: пульт этой папки там уже работает; открываю его.',
  ),
  moved: both(
    (/** @type {number} */ from, /** @type {string} */ to) =>
      `deepwork: port ${from} is taken by another program, so the pult is on ${to}.`,
    (from, to) => `deepwork: порт ${from} занят другой программой, поэтому пульт на порту ${to}.`,
  ),
  noBrowser: both(
    'deepwork: could not start the default browser; open the link above.',
    'deepwork: не удалось запустить браузер по умолчанию; откройте ссылку выше.',
  ),
  serving: both(
    (/** @type {string} */ folder) => `deepwork: the pult serves ${folder}; Ctrl-C stops it.`,
    (folder) => `deepwork: пульт работает с папкой ${folder}; Ctrl-C останавливает его.`,
  ),
};
