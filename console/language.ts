// The language the console speaks to the person: --lang, else the locale the environment names (LC_ALL, LC_MESSAGES,
// LANG, the first one set, as POSIX orders them), else on Windows, where those are seldom set, the locale Node's ICU
// takes from the system, else English. What the model is sent stays English, and so do --json's keys.

import { DeepworkError } from '../common/errors.ts';
import { isLang, type Lang } from '../common/strings/language.js';

export type { Lang };

export type Where = { env: NodeJS.ProcessEnv; platform: NodeJS.Platform; systemLocale: () => string };

export const HERE: Omit<Where, 'env'> = {
  platform: process.platform,
  systemLocale: () => Intl.DateTimeFormat().resolvedOptions().locale,
};

// `flag`: --lang's value, when given.
export function languageOf(flag: string | undefined, { env, platform, systemLocale }: Where): Lang {
  if (flag !== undefined) {
    const lang = flag.trim().toLowerCase();
    if (!isLang(lang))
      throw new DeepworkError('USAGE', `--lang must be en or ru, not "${flag}". Without it the locale decides (LANG).`);
    return lang;
  }
  for (const name of ['LC_ALL', 'LC_MESSAGES', 'LANG']) {
    const value = env[name];
    // A variable set to the empty string counts as not set; C and POSIX are set, and English.
    if (value !== undefined && value !== '') return localeLang(value);
  }
  return platform === 'win32' ? localeLang(systemLocale()) : 'en';
}

// ru_RU.UTF-8, ru-RU, ru, Russian_Russia.1251 (how Windows' C runtime writes it) are Russian; the rest English.
function localeLang(locale: string): Lang {
  return /^ru(?:$|[-_.@])|^russian/i.test(locale) ? 'ru' : 'en';
}

// --lang's value as written anywhere in argv (--lang ru, --lang=ru), read before the flags are parsed, so that a
// mistake in them is told in the person's language too.
export function langFlagIn(argv: readonly string[]): string | undefined {
  for (const [i, word] of argv.entries()) {
    if (word === '--') return undefined;
    if (word === '--lang') return argv[i + 1];
    if (word.startsWith('--lang=')) return word.slice('--lang='.length);
  }
  return undefined;
}
