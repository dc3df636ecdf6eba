// The client of an Ollama-style bridge: `POST /api/chat` for answers, `GET /api/tags` and `GET /api/ps` for --check.
// Works with Ollama itself and with the deepseek-api bridge, streamed (NDJSON) or as one JSON body.

import { DeepworkError, messageOf } from '../common/errors.ts';
import type { Bridge } from '../protocol/contract.ts';
import { baseUrl, quoteBody, readAll, request, type Response } from './http.ts';
import { gathered, lines, type Gathered } from './lines.ts';
import { collectReply } from './reply.ts';
import { numCtxFor, truncationNote, windowFromShow } from './context.ts';
import { formatCount } from '../common/text.ts';
import { isRecord } from '../common/unknown.ts';

// `maxReplyChars`: the longest answer taken, in characters (config `maxReplyChars`).
export type OllamaOptions = { host: string; model: string; timeoutMs: number; maxReplyChars?: number };

const DEFAULT_MAX_REPLY_CHARS = 8_000_000;

export function createOllamaBridge(options: OllamaOptions): Bridge {
  const base = baseUrl(options.host);
  // The largest num_ctx sent so far: it only grows, so the model is not reloaded back and forth.
  let numCtx = 0;
  return {
    label: `${options.model} at ${base.origin}`,
    model: options.model,
    async chat(message, { signal, onProgress, onText, tokens, window }) {
      if (tokens !== undefined && window !== undefined) numCtx = numCtxFor(tokens, window, numCtx);
      const body = JSON.stringify({
        model: options.model,
        messages: [{ role: 'user', content: message }],
        stream: true,
        ...(numCtx > 0 ? { options: { num_ctx: numCtx } } : {}),
      });
      const res = await request(new URL('api/chat', base), {
        method: 'POST',
        body,
        signal,
        timeoutMs: options.timeoutMs,
      });
      if (res.status < 200 || res.status > 299) throw await httpError(res, base, options, signal);
      const reply = await readChat(res, base, options.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS, onProgress, onText);
      const truncated =
        tokens === undefined || numCtx === 0 ? undefined : truncationNote(reply.promptTokens, numCtx, tokens);
      return {
        text: reply.content,
        ...(reply.promptTokens === undefined ? {} : { promptTokens: reply.promptTokens }),
        ...(truncated === undefined ? {} : { truncated }),
      };
    },
    // The model's window from `POST /api/show`; undefined when the bridge has no such route (the DeepSeek bridge).
    async window(signal) {
      const res = await request(new URL('api/show', base), {
        method: 'POST',
        body: JSON.stringify({ model: options.model, name: options.model }),
        signal,
        timeoutMs: Math.min(options.timeoutMs, 10_000),
      });
      const text = await readAll(res.body, 16 << 20);
      if (res.status < 200 || res.status > 299) return undefined;
      try {
        return windowFromShow(JSON.parse(text));
      } catch {
        return undefined;
      }
    },
  };
}

// Reads an answer, streamed as NDJSON lines or sent as one JSON body. An `{"error": ...}` anywhere ends it with that
// error; a stream that stops before `done` is not an answer; an answer or a thinking past `maxChars` characters ends
// with an error (a bridge that loops would otherwise fill the memory, or never end). What is held is counted as it
// arrives, so the memory stays within a few times the cap however the bridge sends it (one huge line, millions of
// tiny lines).
async function readChat(
  res: Response,
  base: URL,
  maxChars: number,
  onProgress?: (chars: number, thinking: number) => void,
  onText?: (text: string) => void,
): Promise<{ content: string; promptTokens?: number }> {
  // JSON escapes can make a character six bytes on the wire; a line may carry the whole answer.
  const maxBytes = maxChars * 6 + (1 << 20);
  const tooMuch = () => tooLong(base, maxChars);
  const reply = collectReply({
    maxChars,
    tooLong: tooMuch,
    tooLongThinking: () => tooLongThinking(base, maxChars),
    onProgress,
    onText,
  });
  let done = false;
  let count = 0;
  let promptTokens: number | undefined;
  // Set once a line is not JSON: the body is one (pretty-printed) JSON value, kept to parse whole.
  let whole: Gathered | undefined;
  for await (const line of lines(res.body, maxBytes, `The bridge at ${base.origin}`)) {
    if (whole !== undefined) {
      whole.add(`\n${line}`);
      continue;
    }
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      whole = gathered(maxBytes, tooMuch);
      whole.add(line);
      continue;
    }
    count++;
    const part = chatPart(value, base);
    reply.add(part.content, part.thinking);
    if (part.done) done = true;
    if (part.promptTokens !== undefined) promptTokens = part.promptTokens;
  }

  if (whole !== undefined) {
    // Not one JSON value per line: a single (pretty-printed) JSON body, with any lines read before it.
    const raw = whole.take();
    const part = chatPart(parseJson(raw, base), base);
    if (!part.done && part.content === '') throw notOllama(base, raw);
    if (part.content.length > maxChars) throw tooLong(base, maxChars);
    return { content: part.content, ...(part.promptTokens === undefined ? {} : { promptTokens: part.promptTokens }) };
  }
  const answer = reply.text();
  if (count === 0) throw notOllama(base, '');
  if (!done) {
    throw new DeepworkError(
      'BRIDGE_PROTOCOL',
      `The answer from ${base.origin} ended before "done" (${answer.length} characters arrived): the bridge stopped mid-answer. Ask again, or check the bridge's log.`,
    );
  }
  return { content: answer, ...(promptTokens === undefined ? {} : { promptTokens }) };
}

function tooLong(base: URL, maxChars: number): DeepworkError {
  return new DeepworkError(
    'BRIDGE_PROTOCOL',
    `The answer from ${base.origin} passed ${formatCount(maxChars)} characters (maxReplyChars in config.json); no model writes that much, so the bridge is looping or broken. Check its log, or raise maxReplyChars if the answer was real.`,
  );
}

// The thinking is not kept, only counted; a bridge that thinks on forever is stopped by the same cap as the answer.
function tooLongThinking(base: URL, maxChars: number): DeepworkError {
  return new DeepworkError(
    'BRIDGE_PROTOCOL',
    `The thinking from ${base.origin} passed ${formatCount(maxChars)} characters (maxReplyChars in config.json) before the answer ended; no model thinks that long, so the bridge is looping or broken. Check its log, or raise maxReplyChars if the thinking was real.`,
  );
}

// One NDJSON line or a whole body: `{ message: { content, thinking }, done }`, or `{ error }`.
// `thinking`: characters of a thinking model's reasoning, counted, never part of the answer. `promptTokens`: the final
// line's prompt_eval_count, how many tokens of the prompt the server read.
function chatPart(
  value: unknown,
  base: URL,
): { content: string; thinking: number; done: boolean; promptTokens?: number } {
  if (!isRecord(value)) throw notOllama(base, JSON.stringify(value));
  if (typeof value.error === 'string')
    throw new DeepworkError(
      'BRIDGE_ERROR',
      `The bridge at ${base.origin} answered with an error: "${value.error.slice(0, 500)}".`,
    );
  const message = value.message;
  const content = isRecord(message) && typeof message.content === 'string' ? message.content : undefined;
  if (content === undefined && value.done !== true && !(isRecord(message) && typeof message.thinking === 'string'))
    throw notOllama(base, JSON.stringify(value));
  const evaluated = value.prompt_eval_count;
  const thinking = isRecord(message) && typeof message.thinking === 'string' ? message.thinking.length : 0;
  return {
    content: content ?? '',
    thinking,
    done: value.done === true,
    ...(typeof evaluated === 'number' ? { promptTokens: evaluated } : {}),
  };
}

async function httpError(
  res: Response,
  base: URL,
  options: OllamaOptions,
  signal: AbortSignal,
): Promise<DeepworkError> {
  const text = await readAll(res.body, 1 << 20).catch((error: unknown) => messageOf(error));
  let quoted = quoteBody(text);
  try {
    const value: unknown = JSON.parse(text);
    if (isRecord(value) && typeof value.error === 'string') quoted = value.error.slice(0, 500);
  } catch {
    // Not JSON: quote the text as it came.
  }
  if (res.status === 404 && /^\s*</.test(text)) {
    return new DeepworkError(
      'BRIDGE_PROTOCOL',
      `The host ${base.origin} answers, but not as an Ollama-style API (POST /api/chat: HTTP 404, an HTML page${quoted === '' ? '' : `: "${quoted.slice(0, 120)}"`}). Check --host: the DeepSeek bridge listens on http://localhost:11500, Ollama on http://localhost:11434; for an OpenAI-compatible server set "api": "openai".`,
    );
  }
  if (res.status === 404 && /model/i.test(quoted)) {
    const models = await listModels(base, signal, Math.min(options.timeoutMs, 10_000)).catch(() => undefined);
    const known =
      models === undefined ? '' : models.length === 0 ? ' It has no models.' : ` It has: ${models.join(', ')}.`;
    return new DeepworkError(
      'BRIDGE_MODEL',
      `The bridge at ${base.origin} does not know the model "${options.model}" ("${quoted}").${known} Set deepseekModel in config.json or pass --model.`,
    );
  }
  return new DeepworkError(
    'BRIDGE_HTTP',
    `The bridge at ${base.origin} answered HTTP ${res.status}${quoted === '' ? '' : `: "${quoted}"`}. Check the bridge's log.`,
  );
}

// The model names the bridge offers (`GET /api/tags`).
export async function listModels(base: URL, signal: AbortSignal, timeoutMs: number): Promise<string[]> {
  return namesAt(base, 'api/tags', signal, timeoutMs);
}

// The model names that are up right now (`GET /api/ps`).
export async function runningModels(base: URL, signal: AbortSignal, timeoutMs: number): Promise<string[]> {
  return namesAt(base, 'api/ps', signal, timeoutMs);
}

async function namesAt(base: URL, route: string, signal: AbortSignal, timeoutMs: number): Promise<string[]> {
  const res = await request(new URL(route, base), { method: 'GET', signal, timeoutMs });
  const text = await readAll(res.body);
  if (res.status < 200 || res.status > 299)
    throw new DeepworkError('BRIDGE_HTTP', `GET ${route} at ${base.origin} answered HTTP ${res.status}.`, {
      status: res.status,
    });
  const value = parseJson(text, base);
  if (!isRecord(value) || !Array.isArray(value.models)) throw notOllama(base, text);
  return value.models.flatMap((m: unknown) =>
    isRecord(m) && typeof m.name === 'string' ? [m.name] : isRecord(m) && typeof m.model === 'string' ? [m.model] : [],
  );
}

function parseJson(text: string, base: URL): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw notOllama(base, text);
  }
}

function notOllama(base: URL, text: string): DeepworkError {
  const start = quoteBody(text, 120);
  return new DeepworkError(
    'BRIDGE_PROTOCOL',
    `The host ${base.origin} answers, but not as an Ollama-style API (it sent: ${start === '' ? 'an empty body' : `"${start}"`}). Check --host: the DeepSeek bridge listens on http://localhost:11500, Ollama on http://localhost:11434.`,
  );
}
