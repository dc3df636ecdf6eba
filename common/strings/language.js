// The two languages deepwork speaks to people, and how a table of texts is written: each text holds its English and
// its Russian side by side (`both`), so a text changed in one language shows the other beside it. The page loads these
// modules as they are (the pult serves this folder), and the console imports them: one table for both.
//
// Plain ES modules with JSDoc types, checked by tsc in both projects. What the model is sent is not here: it stays
// English, in protocol/.

/** @typedef {'en' | 'ru'} Lang */

/** @type {readonly Lang[]} */
export const LANGS = ['en', 'ru'];

/** @param {unknown} value @returns {value is Lang} */
export function isLang(value) {
  return value === 'en' || value === 'ru';
}

// One text in both languages. For a function, the Russian takes the English's parameters: they are typed once.
/** @template {string | ((...args: never[]) => string)} F @typedef {F extends string ? string : F} Text */
/**
 * @template {string | ((...args: never[]) => string)} F
 * @param {F} en
 * @param {NoInfer<Text<F>>} ru
 * @returns {{ en: Text<F>; ru: Text<F> }}
 */
export function both(en, ru) {
  return { en: /** @type {Text<F>} */ (en), ru };
}

// One language's texts of a table made with `both`.
/**
 * @template {Record<string, { en: unknown; ru: unknown }>} T
 * @param {T} table
 * @param {Lang} lang
 * @returns {{ [K in keyof T]: T[K]['en'] }}
 */
export function textsIn(table, lang) {
  const picked = Object.fromEntries(Object.entries(table).map(([key, text]) => [key, text[lang]]));
  return /** @type {{ [K in keyof T]: T[K]['en'] }} */ (/** @type {unknown} */ (picked));
}

// The Russian noun form for `n`: один файл, два файла, пять файлов (11–14 take the last).
/** @param {number} n @param {string} one @param {string} few @param {string} many */
export function ruPlural(n, one, few, many) {
  const ten = n % 10;
  const hundred = n % 100;
  if (ten === 1 && hundred !== 11) return one;
  if (ten >= 2 && ten <= 4 && (hundred < 12 || hundred > 14)) return few;
  return many;
}

// Numbers as each language writes them: 12,345 and 12 345 (a no-break space, so a number is never split by a wrap).
// Whole numbers are grouped here, as toLocaleString does: its first call in a process loads ICU's data for 20–60 ms,
// a fifth of a run that asks nothing (issue 30), and the run's first line holds a number.
export const number = {
  en: (/** @type {number} */ n) => grouped(n, ',', 'en-US'),
  ru: (/** @type {number} */ n) => grouped(n, '\u00a0', 'ru-RU'),
};

/** @param {number} n @param {string} separator @param {string} locale */
function grouped(n, separator, locale) {
  if (!Number.isSafeInteger(n)) return n.toLocaleString(locale);
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += separator + digits.slice(i, i + 3);
  return n < 0 ? `-${out}` : out;
}

// 850 ms, 4.2 s, 3 min 5 s; 850 мс, 4,2 с, 3 мин 5 с.
/** @param {Lang} lang */
function durationIn(lang) {
  const unit = lang === 'ru' ? { ms: 'мс', s: 'с', min: 'мин' } : { ms: 'ms', s: 's', min: 'min' };
  const point = lang === 'ru' ? ',' : '.';
  return (/** @type {number} */ ms) => {
    if (ms < 1000) return `${Math.round(ms)} ${unit.ms}`;
    if (ms < 60_000) {
      // Tenths of a second, as toLocaleString with one fraction digit gives them, without loading ICU.
      const tenths = Math.round(ms / 100);
      return `${Math.floor(tenths / 10)}${tenths % 10 === 0 ? '' : `${point}${tenths % 10}`} ${unit.s}`;
    }
    const seconds = Math.round((ms % 60_000) / 1000);
    return `${Math.floor(ms / 60_000)} ${unit.min}${seconds === 0 ? '' : ` ${seconds} ${unit.s}`}`;
  };
}

export const duration = { en: durationIn('en'), ru: durationIn('ru') };

// `1 file`, `2 files`; `1 файл`, `2 файла`, `5 файлов`: a count with its noun.
export const counted = {
  en: (/** @type {number} */ n, /** @type {string} */ one, /** @type {string} */ many = `${one}s`) =>
    `${number.en(n)} ${n === 1 ? one : many}`,
  ru: (/** @type {number} */ n, /** @type {string} */ one, /** @type {string} */ few, /** @type {string} */ many) =>
    `${number.ru(n)} ${ruPlural(n, one, few, many)}`,
};
