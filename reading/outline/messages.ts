// What the main thread and the parser's worker say to each other, and the checks that read it: each side takes the
// other's messages as unknown.

import { isRecord } from '../../common/unknown.ts';
import { isLanguage, type Language } from './languages.ts';
import type { Def, Parsed } from './symbols.ts';

// To the worker: parse `text` as `language` within `ms` (for the parse, and again for the query); `rows`: only the
// definitions on these zero-based lines (the last excluded) and around them; `refs`: also count the words it uses.
export type ParseJob = {
  kind: 'parse';
  id: number;
  language: Language;
  text: string;
  ms: number;
  rows: { from: number; to: number } | undefined;
  refs: boolean;
};

// From the worker: what the job found, or why it failed (a grammar that did not load, an error of the runtime).
export type FromWorker = ({ kind: 'parsed'; id: number } & Parsed) | { kind: 'failed'; id: number; message: string };

export function readJob(message: unknown): ParseJob | undefined {
  if (!isRecord(message) || message.kind !== 'parse') return undefined;
  const { id, language, text, ms, rows, refs } = message;
  if (typeof id !== 'number' || typeof text !== 'string' || typeof ms !== 'number' || typeof refs !== 'boolean')
    return undefined;
  if (typeof language !== 'string' || !isLanguage(language)) return undefined;
  if (rows === undefined) return { kind: 'parse', id, language, text, ms, rows, refs };
  if (!isRecord(rows) || typeof rows.from !== 'number' || typeof rows.to !== 'number') return undefined;
  return { kind: 'parse', id, language, text, ms, rows: { from: rows.from, to: rows.to }, refs };
}

// The worker's answer to job `id`, or undefined when it is not one (a late answer to a job given up on is not).
export function readAnswer(message: unknown, id: number): FromWorker | undefined {
  if (!isRecord(message) || message.id !== id) return undefined;
  if (message.kind === 'failed') return { kind: 'failed', id, message: String(message.message) };
  if (message.kind !== 'parsed') return undefined;
  const { lines, defs, errors, gaveUp, capped, refs } = message;
  if (typeof lines !== 'number' || typeof errors !== 'boolean' || typeof capped !== 'boolean')
    return { kind: 'failed', id, message: 'a malformed answer' };
  if (!Array.isArray(defs) || !defs.every(isDef)) return { kind: 'failed', id, message: 'a malformed answer' };
  if (gaveUp !== undefined && gaveUp !== 'parse' && gaveUp !== 'query')
    return { kind: 'failed', id, message: 'a malformed answer' };
  if (refs !== undefined && !(Array.isArray(refs) && refs.every(isRef)))
    return { kind: 'failed', id, message: 'a malformed answer' };
  return { kind: 'parsed', id, lines, defs, errors, gaveUp, capped, refs };
}

function isDef(value: unknown): value is Def {
  return (
    isRecord(value) &&
    typeof value.name === 'string' &&
    typeof value.kind === 'string' &&
    typeof value.depth === 'number' &&
    typeof value.local === 'boolean' &&
    typeof value.first === 'number' &&
    typeof value.last === 'number' &&
    typeof value.header === 'string' &&
    (value.own === undefined || typeof value.own === 'number')
  );
}

function isRef(value: unknown): value is [string, number] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number';
}
