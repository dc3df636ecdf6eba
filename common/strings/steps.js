// The step log, as the console and the pult's page both print it: what each step sent, how the model replied, what
// was answered, what went wrong, and how the run's EDITs went. Each line from the loop's events (protocol/loop.ts) with
// the run's number of steps; the page gets the same as LogEntry (ui/contract.ts).

import { both, counted, duration, number, ruPlural } from './language.js';

/** @typedef {{ step: number; steps: number; chars: number; tokens: number; budget: number; window: number; dropped: number }} Sending */
/** @typedef {{ step: number; steps: number; chars: number; ms: number; requests: readonly string[]; files: readonly string[] }} Replied */
/** @typedef {{ step: number; steps: number; requests: number; chars: number }} Answered */
/** @typedef {{ step: number; steps: number; message: string }} Warning */
/**
 * A place the answer cites that does not match the files (protocol/citations.ts).
 * @typedef {{ cited: string; path: string; line: number; end?: number; name?: string } & (
 *   | { problem: 'no-file' }
 *   | { problem: 'past-end'; lines: number }
 *   | { problem: 'name-elsewhere'; at: number; more?: number[] }
 *   | { problem: 'name-absent' }
 * )} Miscitation
 */
/** @typedef {{ step: number; steps: number; citations: readonly Miscitation[]; retry: boolean }} Miscited */
/** @typedef {{ model: string; run: { applied: number; missed: number }; all: { applied: number; missed: number } }} Edits */
/** @typedef {{ steps: number; stop: 'answered' | 'steps' | 'repeat' }} Done */
/** @typedef {{ where: string; reason: string }} NotSaved */
// `ms`: how long the step has waited; `thinking` and `received`: characters of reasoning and of the reply so far.
/** @typedef {{ step: number; ms: number; thinking: number; received: number }} Waiting */

/** @param {{ applied: number; missed: number }} n */
const share = (n) => Math.round((100 * n.applied) / Math.max(1, n.applied + n.missed));

// Whole seconds while a step waits (a tenth of a second changing under the eye reads as noise).
/** @param {'en' | 'ru'} lang @param {number} ms */
const waited = (lang, ms) => {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds} ${lang === 'ru' ? 'с' : 's'}` : duration[lang](seconds * 1000);
};

export const miscitation = both(
  (/** @type {Miscitation} */ m) => {
    const what = `${m.cited}${m.name === undefined ? '' : ` for ${m.name}`}`;
    if (m.problem === 'no-file') return `${what}: there is no ${m.path}`;
    if (m.problem === 'past-end') return `${what}: ${m.path} has ${counted.en(m.lines, 'line')}`;
    if (m.problem === 'name-elsewhere') return `${what}: it is at ${m.path}:${[m.at, ...(m.more ?? [])].join(', ')}`;
    return `${what}: ${m.name} is not in ${m.path}`;
  },
  (m) => {
    const what = `${m.cited}${m.name === undefined ? '' : ` для ${m.name}`}`;
    if (m.problem === 'no-file') return `${what}: файла ${m.path} нет`;
    if (m.problem === 'past-end') return `${what}: в ${m.path} ${counted.ru(m.lines, 'строка', 'строки', 'строк')}`;
    if (m.problem === 'name-elsewhere') return `${what}: это ${m.path}:${[m.at, ...(m.more ?? [])].join(', ')}`;
    return `${what}: ${m.name} в ${m.path} нет`;
  },
);

export const stepTexts = {
  sending: both(
    (/** @type {Sending} */ e) =>
      `Step ${e.step}/${e.steps}: sending ${number.en(e.chars)} characters, about ${number.en(e.tokens)} tokens of the ${number.en(e.budget)} a message may take (the window holds ${number.en(e.window)})${e.dropped > 0 ? `; ${counted.en(e.dropped, 'earlier result')} dropped to fit` : ''}.`,
    (e) =>
      `Шаг ${e.step}/${e.steps}: отправка ${number.ru(e.chars)} ${ruPlural(e.chars, 'символа', 'символов', 'символов')}, около ${number.ru(e.tokens)} ${ruPlural(e.tokens, 'токена', 'токенов', 'токенов')} из ${number.ru(e.budget)}, доступных сообщению (окно — ${number.ru(e.window)})${e.dropped > 0 ? `; убрано ранних результатов: ${number.ru(e.dropped)}` : ''}.`,
  ),
  replied: both(
    (/** @type {Replied} */ e) =>
      `Step ${e.step}/${e.steps}: reply of ${number.en(e.chars)} characters in ${duration.en(e.ms)}; ${e.requests.length > 0 ? `asks ${e.requests.join('; ')}` : 'no requests: the answer'}${e.files.length > 0 ? `; proposes ${e.files.join(', ')}` : ''}.`,
    (e) =>
      `Шаг ${e.step}/${e.steps}: ответ из ${number.ru(e.chars)} ${ruPlural(e.chars, 'символа', 'символов', 'символов')} за ${duration.ru(e.ms)}; ${e.requests.length > 0 ? `просит ${e.requests.join('; ')}` : 'запросов нет: это ответ'}${e.files.length > 0 ? `; предлагает ${e.files.join(', ')}` : ''}.`,
  ),
  answered: both(
    (/** @type {Answered} */ e) =>
      `Step ${e.step}/${e.steps}: answered ${counted.en(e.requests, 'request')} with ${number.en(e.chars)} characters.`,
    (e) =>
      `Шаг ${e.step}/${e.steps}: выполнено запросов: ${number.ru(e.requests)}, ${counted.ru(e.chars, 'символ', 'символа', 'символов')}.`,
  ),
  warning: both(
    (/** @type {Warning} */ e) => `Step ${e.step}/${e.steps}: ${e.message}`,
    (e) => `Шаг ${e.step}/${e.steps}: ${e.message}`,
  ),
  miscited: both(
    (/** @type {Miscited} */ e) =>
      `Step ${e.step}/${e.steps}: ${e.citations.length === 1 ? 'a place the answer cites does' : `${number.en(e.citations.length)} places the answer cites do`} not match the files${e.retry ? ' (the model is asked once to correct them)' : ''}: ${e.citations.map(miscitation.en).join('; ')}.`,
    (e) =>
      `Шаг ${e.step}/${e.steps}: ${e.citations.length === 1 ? 'ссылка ответа не совпадает' : `ссылки ответа (${number.ru(e.citations.length)}) не совпадают`} с файлами${e.retry ? ' (модель попросили один раз их исправить)' : ''}: ${e.citations.map(miscitation.ru).join('; ')}.`,
  ),
  // After the answer, for whoever reads only the answer: the places it cites that do not match the files.
  miscitedNote: both(
    (/** @type {readonly Miscitation[]} */ list) =>
      `[deepwork: ${list.length === 1 ? 'One place this answer cites does' : `${number.en(list.length)} places this answer cites do`} not match the files: ${list.map(miscitation.en).join('; ')}.]`,
    (list) =>
      `[deepwork: ${list.length === 1 ? 'ссылка этого ответа не совпадает' : `ссылки этого ответа (${number.ru(list.length)}) не совпадают`} с файлами: ${list.map(miscitation.ru).join('; ')}.]`,
  ),
  edits: both(
    (/** @type {Edits} */ e) =>
      `EDITs whose SEARCH matched the file: ${number.en(e.run.applied)} of ${number.en(e.run.applied + e.run.missed)} in this run, ${number.en(e.all.applied)} of ${number.en(e.all.applied + e.all.missed)} (${share(e.all)}%) in all runs with ${e.model}.`,
    (e) =>
      `EDIT, чей SEARCH совпал с файлом: ${number.ru(e.run.applied)} из ${number.ru(e.run.applied + e.run.missed)} в этом запуске, ${number.ru(e.all.applied)} из ${number.ru(e.all.applied + e.all.missed)} (${share(e.all)}%) во всех запусках с ${e.model}.`,
  ),
  done: both(
    (/** @type {Done} */ e) =>
      `Answer after ${counted.en(e.steps, 'step')}${e.stop === 'answered' ? '' : e.stop === 'steps' ? ': the steps ran out' : ': the model repeated its requests'}.`,
    (e) =>
      `Ответ за ${counted.ru(e.steps, 'шаг', 'шага', 'шагов')}${e.stop === 'answered' ? '' : e.stop === 'steps' ? ': шаги кончились' : ': модель повторила запросы'}.`,
  ),
  notSaved: both(
    (/** @type {NotSaved} */ e) =>
      `The run could not be kept in ${e.where} (${e.reason}); deepwork apply will not find it. Check stateDir in config.json.`,
    (e) =>
      `Запуск не сохранён в ${e.where} (${e.reason}); deepwork apply его не найдёт. Проверьте stateDir в config.json.`,
  ),
  waiting: both(
    (/** @type {Waiting} */ w) =>
      `Step ${w.step}: waiting ${waited('en', w.ms)}${w.thinking > 0 ? `, thinking, ${number.en(w.thinking)} characters` : ''}${w.received > 0 ? `, ${number.en(w.received)} characters so far` : ''}…`,
    (w) =>
      `Шаг ${w.step}: ожидание ${waited('ru', w.ms)}${w.thinking > 0 ? `, размышления: ${counted.ru(w.thinking, 'символ', 'символа', 'символов')}` : ''}${w.received > 0 ? `, получено ${counted.ru(w.received, 'символ', 'символа', 'символов')}` : ''}…`,
  ),
};
