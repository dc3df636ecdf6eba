// What an OpenAI-compatible server says back, made safe to show: the API key scrubbed from it in every spelling JSON
// allows, an error body reduced to its message, and the errors for an answer that is too long or not the API's.

import { DeepworkError } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';
import { isRecord } from '../common/unknown.ts';
import { quoteBody } from './http.ts';

// Replaces every spelling of the key in a text the server sent, so no message ever shows it: the key as it is, and
// the key with any of its characters written as a JSON escape (`\/`, `\u0073`, `\u002F`), which is how a server's
// JSON encoder may echo it and what JSON.parse turns back into the key. Callers scrub the text as it will be shown:
// after it is decoded, before it is cut to a quote.
export function scrubberOf(key: string | undefined): (text: string) => string {
  if (key === undefined || key.length < 4) return (text) => text;
  const spelled = new RegExp(
    Array.from({ length: key.length }, (_, i) => spellingsOf(key.charCodeAt(i))).join(''),
    'g',
  );
  return (text) => text.replace(spelled, '[the API key]');
}

// JSON's short escapes (RFC 8259, section 7), as regular expressions for what follows the backslash.
const SHORT_ESCAPES: Record<number, string> = {
  34: '"',
  92: '\\\\',
  47: '\\/',
  8: 'b',
  12: 'f',
  10: 'n',
  13: 'r',
  9: 't',
};

// A regular expression for one UTF-16 code unit and each way JSON can write it: itself, `\uXXXX` with hex digits in
// either case, and its short escape if it has one.
function spellingsOf(unit: number): string {
  const hex = unit.toString(16).padStart(4, '0');
  const anyCase = hex.replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
  const short = SHORT_ESCAPES[unit];
  const ways = [`\\u${hex}`, `\\\\u${anyCase}`, ...(short === undefined ? [] : [`\\\\${short}`])];
  return `(?:${ways.join('|')})`;
}

// An error as servers send it: `{"message": ...}` (OpenAI, DeepSeek, vLLM, llama.cpp) or a bare string.
export function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  return JSON.stringify(error);
}

// The message of an error body: `{"error": {"message"}}`, `{"error": "..."}`, `{"message"}`, or the text itself
// (an HTML error page is reduced to its text). Scrubbed once decoded, before it is cut.
export function quoteOf(raw: string, scrub: (text: string) => string): string {
  try {
    const value: unknown = JSON.parse(raw);
    if (isRecord(value) && value.error !== undefined) return scrub(errorText(value.error)).slice(0, MAX_QUOTE);
    if (isRecord(value) && typeof value.message === 'string') return scrub(value.message).slice(0, MAX_QUOTE);
  } catch {
    // Not JSON: quoted as text below.
  }
  return quoteBody(raw, 300, scrub);
}

// The longest message of the server's own that a message quotes.
export const MAX_QUOTE = 500;

export function parseJson(text: string, where: string, scrub: (text: string) => string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw notOpenAi(where, text, scrub);
  }
}

export function tooLong(where: string, maxChars: number): DeepworkError {
  return new DeepworkError(
    'BRIDGE_PROTOCOL',
    `The answer from ${where} passed ${formatCount(maxChars)} characters (maxReplyChars in config.json); no model writes that much, so the server is looping or broken. Check its log, or raise maxReplyChars if the answer was real.`,
  );
}

// The reasoning is not kept, only counted; a server that reasons on forever is stopped by the same cap as the answer.
export function tooLongThinking(where: string, maxChars: number): DeepworkError {
  return new DeepworkError(
    'BRIDGE_PROTOCOL',
    `The reasoning from ${where} passed ${formatCount(maxChars)} characters (maxReplyChars in config.json) before the answer ended; no model thinks that long, so the server is looping or broken. Check its log, or raise maxReplyChars if the reasoning was real.`,
  );
}

export function notOpenAi(where: string, text: string, scrub: (text: string) => string): DeepworkError {
  const start = quoteBody(text, 120, scrub);
  return new DeepworkError(
    'BRIDGE_PROTOCOL',
    `The host ${where} answers, but not as an OpenAI-compatible API (it sent: ${start === '' ? 'an empty body' : `"${start}"`}). Check deepseekHost: it is the API's base URL with its /v1, like http://localhost:8080/v1; for an Ollama-style bridge set "api": "ollama".`,
  );
}
