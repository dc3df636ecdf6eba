// The reader's language, and the page's numbers, sizes and durations written in it: what each table of strings
// (strings.js, paste-strings.js) words its numbers with.

/** @typedef {'en' | 'ru'} Lang */
/** @type {Lang} */
let lang = 'en';

export function language() {
  return lang;
}

/** @param {Lang} value */
export function setLanguage(value) {
  lang = value;
}

// The locale numbers and dates are written in.
export function locale() {
  return lang === 'ru' ? 'ru-RU' : 'en-US';
}

/** @param {number} n */
export function fmt(n) {
  return n.toLocaleString(locale());
}

// The Russian noun form for `n`, kept with the texts the page shares with the console.
export { ruPlural } from '../../common/strings/language.js';

/** @param {number} ms */
export function duration(ms) {
  const unit = lang === 'ru' ? { ms: 'мс', s: 'с', min: 'мин' } : { ms: 'ms', s: 's', min: 'min' };
  if (ms < 1000) return `${Math.round(ms)} ${unit.ms}`;
  if (ms < 60_000) return `${(ms / 1000).toLocaleString(locale(), { maximumFractionDigits: 1 })} ${unit.s}`;
  return `${Math.floor(ms / 60_000)} ${unit.min} ${Math.round((ms % 60_000) / 1000)} ${unit.s}`;
}

/** @param {number} bytes */
export function size(bytes) {
  const [b, kb, mb] = lang === 'ru' ? ['Б', 'КБ', 'МБ'] : ['B', 'KB', 'MB'];
  return bytes < 1024
    ? `${bytes} ${b}`
    : bytes < 1024 * 1024
      ? `${fmt(Math.round(bytes / 1024))} ${kb}`
      : `${(bytes / 1048576).toLocaleString(locale(), { maximumFractionDigits: 1 })} ${mb}`;
}
