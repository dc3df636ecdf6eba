// The client of an OpenAI-compatible server: `POST {base}/chat/completions` for answers, `GET {base}/models` for
// --check and the model's window. DeepSeek's API, llama.cpp's llama-server, vLLM, LM Studio, OpenRouter and Ollama's
// own /v1 all speak it. Answers come streamed as server-sent events, or as one JSON body from a server that does not
// stream.
//
// The API key is read from the environment by the caller and lives only in this closure: it goes into the
// Authorization header and nowhere else, and any text the server sends back is scrubbed of it before it is quoted.

import { DeepworkError, messageOf, stopped } from '../common/errors.ts';
import { formatCount, formatDuration } from '../common/text.ts';
import { isRecord } from '../common/unknown.ts';
import type { Bridge } from '../protocol/contract.ts';
import { baseUrl, quoteBody, readAll, request, type Response } from './http.ts';
import { gathered, lines } from './lines.ts';
import { collectReply } from './reply.ts';

export type OpenAiOptions = {
  host: string;
  model: string;
  // The key, and the name of the environment variable it came from (for messages; never the value).
  key: { value: string; variable: string } | undefined;
  timeoutMs: number;
  maxReplyChars?: number;
  // Sent as max_tokens; undefined: the server's own limit (or the model's preset).
  maxReplyTokens?: number | undefined;
  // The wait before the one retry of a 429 or 5xx that gives no Retry-After.
  retryDelayMs?: number;
};

const DEFAULT_MAX_REPLY_CHARS = 8_000_000;
const DEFAULT_RETRY_DELAY_MS = 2_000;
// A server that asks for a longer pause than this is not waited for: the user is told how long it asked.
const MAX_RETRY_WAIT_MS = 60_000;

// What is known of models whose servers do not say: DeepSeek's API lists no window, and sends at most 4,096 tokens of
// deepseek-chat's answer unless max_tokens asks for more (its limit is 8,192). api-docs.deepseek.com, models & pricing.
const PRESETS: Record<string, { window: number; maxReplyTokens?: number }> = {
  'deepseek-chat': { window: 128_000, maxReplyTokens: 8_192 },
  'deepseek-reasoner': { window: 128_000 },
};

export function createOpenAiBridge(options: OpenAiOptions): Bridge {
  const base = baseUrl(options.host);
  const headers = authHeaders(options.key);
  const scrub = scrubberOf(options.key?.value);
  const maxReplyTokens = options.maxReplyTokens ?? PRESETS[options.model]?.maxReplyTokens;
  const where = `${base.origin}${base.pathname.replace(/\/$/, '')}`;
  return {
    label: `${options.model} at ${where} (OpenAI-compatible)`,
    async chat(message, { signal, onProgress, onText }) {
      const body = JSON.stringify({
        model: options.model,
        messages: [{ role: 'user', content: message }],
        stream: true,
        stream_options: { include_usage: true },
        ...(maxReplyTokens === undefined ? {} : { max_tokens: maxReplyTokens }),
      });
      const url = new URL('chat/completions', base);
      const send = () => request(url, { method: 'POST', body, headers, signal, timeoutMs: options.timeoutMs });
      const res = await withOneRetry(send, signal, options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS);
      if (res.status < 200 || res.status > 299) throw await httpError(res, url, options, scrub, signal);
      const reply = await readCompletion(res, where, options.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS, scrub, onProgress, onText);
      const cut = reply.finish === 'length' ? cutNote(reply.completionTokens, maxReplyTokens) : undefined;
      return {
        text: reply.content,
        ...(reply.promptTokens === undefined ? {} : { promptTokens: reply.promptTokens }),
        ...(cut === undefined ? {} : { cut }),
      };
    },
    // The model's window: what the server's model list says (vLLM's max_model_len, OpenRouter's context_length),
    // llama.cpp's n_ctx from /props, else the preset for a known model name.
    async window(signal) {
      const preset = PRESETS[options.model]?.window;
      const listed = await modelList(base, headers, signal, 10_000, scrub).catch(() => undefined);
      const entry = listed?.find((m) => m.id === options.model) ?? (listed?.length === 1 && listed[0]?.llamaCpp === true ? listed[0] : undefined);
      if (entry?.window !== undefined) return entry.window;
      if (entry?.llamaCpp === true) return (await llamaCppWindow(base, headers, signal).catch(() => undefined)) ?? preset;
      return preset;
    },
  };
}

// The key as the environment holds it, or an error before anything is sent: a variable named but empty is a mistake
// the user should hear of at once, not as a 401 from the far end.
export function keyFrom(variable: string | undefined, env: NodeJS.ProcessEnv): OpenAiOptions['key'] {
  if (variable === undefined) return undefined;
  const value = env[variable]?.trim() ?? '';
  if (value === '') {
    throw new DeepworkError('BRIDGE_AUTH', `No API key: the environment variable ${variable} (apiKeyEnv in config.json) is not set. Set it to your key before starting deepwork — cmd: set ${variable}=your-key; PowerShell: $env:${variable}="your-key"; sh: export ${variable}=your-key — or remove apiKeyEnv for a server that needs no key.`);
  }
  return { value, variable };
}

// Replaces every spelling of the key in a text the server sent, so no message ever shows it: the key as it is, and
// the key with any of its characters written as a JSON escape (`\/`, `\u0073`, `\u002F`), which is how a server's
// JSON encoder may echo it and what JSON.parse turns back into the key. Callers scrub the text as it will be shown:
// after it is decoded, before it is cut to a quote.
export function scrubberOf(key: string | undefined): (text: string) => string {
  if (key === undefined || key.length < 4) return (text) => text;
  const spelled = new RegExp(Array.from({ length: key.length }, (_, i) => spellingsOf(key.charCodeAt(i))).join(''), 'g');
  return (text) => text.replace(spelled, '[the API key]');
}

// JSON's short escapes (RFC 8259, section 7), as regular expressions for what follows the backslash.
const SHORT_ESCAPES: Record<number, string> = { 0x22: '"', 0x5c: '\\\\', 0x2f: '\\/', 0x08: 'b', 0x0c: 'f', 0x0a: 'n', 0x0d: 'r', 0x09: 't' };

// A regular expression for one UTF-16 code unit and each way JSON can write it: itself, `\uXXXX` with hex digits in
// either case, and its short escape if it has one.
function spellingsOf(unit: number): string {
  const hex = unit.toString(16).padStart(4, '0');
  const anyCase = hex.replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
  const short = SHORT_ESCAPES[unit];
  const ways = [`\\u${hex}`, `\\\\u${anyCase}`, ...(short === undefined ? [] : [`\\\\${short}`])];
  return `(?:${ways.join('|')})`;
}

// Sends; a 429 or 5xx is sent once more after the wait the server asks for (Retry-After, in seconds or as a date),
// or a short default. A wait past a minute is not made: the answer stands, and its message says how long.
async function withOneRetry(send: () => Promise<Response>, signal: AbortSignal, delayMs: number): Promise<Response> {
  const first = await send();
  if (!retryable(first.status)) return first;
  const wait = retryAfterMs(first) ?? delayMs;
  if (wait > MAX_RETRY_WAIT_MS) return first;
  await readAll(first.body, 1 << 20).catch(() => '');
  await pause(wait, signal);
  return send();
}

function retryable(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

// Retry-After as seconds or an HTTP date; also the retry-after-ms some servers send (OpenAI's own client reads it).
function retryAfterMs(res: Response): number | undefined {
  const ms = Number(res.header('retry-after-ms'));
  if (res.header('retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = res.header('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(stopped());
    const onAbort = () => {
      clearTimeout(timer);
      reject(stopped());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

// An answer, or one streamed piece of it: its text, the characters of reasoning, why it ended, and the token counts.
type Completion = { content: string; thinking: number; finish: string | undefined; promptTokens?: number; completionTokens?: number };

// Reads an answer: server-sent events (`data:` lines, `:` comments, `[DONE]`), or one JSON body from a server that
// does not stream. An error event ends it with the server's message; a stream that stops before its end is not an
// answer. Whatever is held is counted against `maxChars` as it arrives, and past it the call ends with an error: the
// answer and the reasoning in characters, an event's data lines and a whole body in characters of JSON (escapes can
// make a character six). Nothing else is kept, so the memory stays within a few times the cap however the server
// sends: endless data lines with no blank line to end the event, millions of tiny events, or a reasoning that never
// ends.
async function readCompletion(res: Response, where: string, maxChars: number, scrub: (text: string) => string, onProgress?: (chars: number, thinking: number) => void, onText?: (text: string) => void): Promise<Completion> {
  const maxBytes = maxChars * 6 + (1 << 20);
  const tooMuch = () => tooLong(where, maxChars);
  const reply = collectReply({ maxChars, tooLong: tooMuch, tooLongThinking: () => tooLongThinking(where, maxChars), onProgress, onText });
  const result: Completion = { content: '', thinking: 0, finish: undefined };
  let ended = false;
  let events = 0;
  let mode: 'events' | 'body' | undefined = res.contentType.includes('text/event-stream') ? 'events' : undefined;
  // The body of a non-streamed answer, and the data lines of the event being read.
  const body = gathered(maxBytes, tooMuch);
  let data = gathered(maxBytes, tooMuch);

  const take = (chunk: Completion) => {
    reply.add(chunk.content, chunk.thinking);
    result.thinking = reply.thinking;
    if (chunk.finish !== undefined) result.finish = chunk.finish;
    if (chunk.promptTokens !== undefined) result.promptTokens = chunk.promptTokens;
    if (chunk.completionTokens !== undefined) result.completionTokens = chunk.completionTokens;
  };
  const dispatch = () => {
    if (data.pieces === 0) return;
    const payload = data.take();
    data = gathered(maxBytes, tooMuch);
    if (payload.trim() === '[DONE]') {
      ended = true;
      return;
    }
    events++;
    take(chunkOf(parseJson(payload, where, scrub), where, scrub, 'delta'));
  };

  for await (const raw of lines(res.body, maxBytes, `The server at ${where}`)) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (mode === undefined) {
      if (line.trim() === '') continue;
      mode = /^(data|event|id|retry):|^:/.test(line) ? 'events' : 'body';
    }
    if (mode === 'body') {
      body.add(body.pieces === 0 ? line : `\n${line}`);
      continue;
    }
    if (line === '') dispatch();
    else if (line.startsWith('data:')) {
      const value = line.slice(line.startsWith('data: ') ? 6 : 5);
      data.add(data.pieces === 0 ? value : `\n${value}`);
    }
    // `:` comments (keep-alives), event names, ids and retry hints carry nothing for us; an error arrives as data.
  }
  dispatch();

  if (mode === 'body') {
    take(chunkOf(parseJson(body.take(), where, scrub), where, scrub, 'message'));
    return { ...result, content: reply.text() };
  }
  if (events === 0) throw notOpenAi(where, '', scrub);
  if (!ended && result.finish === undefined) {
    throw new DeepworkError('BRIDGE_PROTOCOL', `The answer from ${where} ended before its end (${formatCount(reply.chars)} characters arrived, no finish_reason, no [DONE]): the server stopped mid-answer. Ask again, or check the server's log.`);
  }
  return { ...result, content: reply.text() };
}

// One streamed chunk (`choices[0].delta`) or a whole answer (`choices[0].message`); an `error` object ends the call.
// DeepSeek sends its reasoning as `reasoning_content`, vLLM and OpenRouter as `reasoning`: counted, never answer.
function chunkOf(value: unknown, where: string, scrub: (text: string) => string, part: 'delta' | 'message'): Completion {
  if (!isRecord(value)) throw notOpenAi(where, JSON.stringify(value), scrub);
  // vLLM's older streams send `{"object": "error", "message"}` instead of an `error` object.
  const error = value.error ?? (value.object === 'error' ? value : undefined);
  if (error !== undefined && error !== null) {
    throw new DeepworkError('BRIDGE_ERROR', `The server at ${where} answered with an error: "${scrub(errorText(error)).slice(0, MAX_QUOTE)}". Ask again, or check the server's log.`);
  }
  const usage = isRecord(value.usage) ? value.usage : undefined;
  const tokens = {
    ...(typeof usage?.prompt_tokens === 'number' ? { promptTokens: usage.prompt_tokens } : {}),
    ...(typeof usage?.completion_tokens === 'number' ? { completionTokens: usage.completion_tokens } : {}),
  };
  if (!Array.isArray(value.choices)) throw notOpenAi(where, JSON.stringify(value), scrub);
  const choice: unknown = value.choices[0];
  // The last chunk of a stream with include_usage has no choices, only usage.
  if (choice === undefined) return { content: '', thinking: 0, finish: undefined, ...tokens };
  if (!isRecord(choice)) throw notOpenAi(where, JSON.stringify(value), scrub);
  const message = isRecord(choice[part]) ? choice[part] : {};
  const content = typeof message.content === 'string' ? message.content : '';
  const reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : typeof message.reasoning === 'string' ? message.reasoning : '';
  const finish = typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
  return { content, thinking: reasoning.length, finish, ...tokens };
}

// An error as servers send it: `{"message": ...}` (OpenAI, DeepSeek, vLLM, llama.cpp) or a bare string.
function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  return JSON.stringify(error);
}

function cutNote(tokens: number | undefined, limit: number | undefined): string {
  const count = tokens === undefined ? '' : ` after ${formatCount(tokens)} tokens`;
  const raise = limit === undefined
    ? 'if the server allows longer replies, set maxReplyTokens in config.json (llama.cpp: its --n-predict)'
    : `maxReplyTokens (now ${formatCount(limit)}) can be raised in config.json if the server allows more`;
  return `the server cut the reply at its output limit${count} (finish_reason "length"): the end of the answer is missing, and a FILE or EDIT block it cut is not written. Ask for smaller changes (EDIT blocks change part of a file); ${raise}.`;
}

async function httpError(res: Response, url: URL, options: OpenAiOptions, scrub: (text: string) => string, signal: AbortSignal): Promise<DeepworkError> {
  const where = url.origin;
  const raw = await readAll(res.body, 1 << 20).catch((error: unknown) => messageOf(error));
  const said = quoteOf(raw, scrub);
  const status = `HTTP ${res.status}${said === '' ? '' : `: "${said}"`}`;
  if (res.status === 401 || res.status === 403) {
    if (options.key === undefined) {
      return new DeepworkError('BRIDGE_AUTH', `The server at ${where} wants an API key (${status}). Put the key in an environment variable and name that variable in config.json, like "apiKeyEnv": "DEEPSEEK_API_KEY".`);
    }
    return new DeepworkError('BRIDGE_AUTH', `The server at ${where} refused the API key in ${options.key.variable} (${status}). Check the key in that variable: it may be mistyped, revoked, or for another service.`);
  }
  if (res.status === 404) {
    if (/model/i.test(said)) {
      const models = await modelList(baseUrl(options.host), authHeaders(options.key), signal, 10_000, scrub).catch(() => undefined);
      const known = models === undefined ? '' : models.length === 0 ? ' It lists no models.' : ` It has: ${models.map((m) => m.id).join(', ')}.`;
      return new DeepworkError('BRIDGE_MODEL', `The server at ${where} does not know the model "${options.model}" (${status}).${known} Set deepseekModel in config.json or pass --model.`);
    }
    return new DeepworkError('BRIDGE_HTTP', `There is no chat completions API at ${url.href} (${status}). deepseekHost must be the API's base URL with its /v1, like https://api.deepseek.com/v1 or http://localhost:8080/v1.`);
  }
  if (res.status === 429) {
    const later = (retryAfterMs(res) ?? 0) > MAX_RETRY_WAIT_MS ? 'Ask again after that' : 'Wait a little and ask again';
    return new DeepworkError('BRIDGE_HTTP', `The server at ${where} is limiting requests (${status})${retriedNote(res)}. ${later}; a paid plan or another key may have a higher limit.`);
  }
  if (res.status >= 500) {
    return new DeepworkError('BRIDGE_HTTP', `The server at ${where} failed (${status})${retriedNote(res)}. Ask again later, or check the server's log or status page.`);
  }
  if (res.status === 400 && /context|too long|too many tokens|maximum.*tokens|exceeds/i.test(said)) {
    return new DeepworkError('BRIDGE_HTTP', `The server at ${where} refused the message as too long for the model (${status}). Set contextTokens in config.json (or --context-tokens) to the server's real context size, so deepwork sends less.`);
  }
  return new DeepworkError('BRIDGE_HTTP', `The server at ${where} answered ${status}. Check deepseekModel and maxReplyTokens in config.json, and the server's log.`);
}

function retriedNote(res: Response): string {
  const wait = retryAfterMs(res);
  return wait !== undefined && wait > MAX_RETRY_WAIT_MS
    ? `; it asks to wait ${formatDuration(wait)}, so it was not asked again`
    : ', also when asked again';
}

// The message of an error body: `{"error": {"message"}}`, `{"error": "..."}`, `{"message"}`, or the text itself
// (an HTML error page is reduced to its text). Scrubbed once decoded, before it is cut.
function quoteOf(raw: string, scrub: (text: string) => string): string {
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
const MAX_QUOTE = 500;

// The one header the key goes into.
export function authHeaders(key: OpenAiOptions['key']): Record<string, string> {
  return key === undefined ? {} : { authorization: `Bearer ${key.value}` };
}

export type ListedModel = { id: string; window?: number; llamaCpp: boolean };

// `GET {base}/models`: the models the server offers. A failure is an error that says what the server answered. The
// ids are scrubbed too: messages list them.
export async function modelList(base: URL, headers: Record<string, string>, signal: AbortSignal, timeoutMs: number, scrub: (text: string) => string): Promise<ListedModel[]> {
  const url = new URL('models', base);
  const res = await request(url, { method: 'GET', headers, signal, timeoutMs });
  const text = await readAll(res.body, 16 << 20);
  const said = () => quoteOf(text, scrub);
  if (res.status === 401 || res.status === 403) throw new DeepworkError('BRIDGE_AUTH', `GET ${url.pathname} at ${base.origin} answered HTTP ${res.status}: "${said()}".`, { status: res.status });
  if (res.status < 200 || res.status > 299) throw new DeepworkError('BRIDGE_HTTP', `GET ${url.pathname} at ${base.origin} answered HTTP ${res.status}${said() === '' ? '' : `: "${said()}"`}.`, { status: res.status });
  const value = parseJson(text, `${base.origin}${base.pathname}`, scrub);
  if (!isRecord(value) || !Array.isArray(value.data)) throw notOpenAi(`${base.origin}${base.pathname}`, text, scrub);
  return value.data.flatMap((m: unknown): ListedModel[] => {
    if (!isRecord(m) || typeof m.id !== 'string') return [];
    const window = [m.max_model_len, m.context_length, m.context_window].find((n) => typeof n === 'number' && Number.isInteger(n) && n > 0);
    return [{ id: scrub(m.id), ...(typeof window === 'number' ? { window } : {}), llamaCpp: m.owned_by === 'llamacpp' }];
  });
}

// llama.cpp's server serves one model and names the context it was started with (-c) in `/props`, at its root.
async function llamaCppWindow(base: URL, headers: Record<string, string>, signal: AbortSignal): Promise<number | undefined> {
  const res = await request(new URL('/props', base), { method: 'GET', headers, signal, timeoutMs: 10_000 });
  const text = await readAll(res.body, 16 << 20);
  if (res.status !== 200) return undefined;
  const value: unknown = JSON.parse(text);
  const settings = isRecord(value) && isRecord(value.default_generation_settings) ? value.default_generation_settings : undefined;
  const n = settings?.n_ctx;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}

function parseJson(text: string, where: string, scrub: (text: string) => string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw notOpenAi(where, text, scrub);
  }
}

function tooLong(where: string, maxChars: number): DeepworkError {
  return new DeepworkError('BRIDGE_PROTOCOL', `The answer from ${where} passed ${formatCount(maxChars)} characters (maxReplyChars in config.json); no model writes that much, so the server is looping or broken. Check its log, or raise maxReplyChars if the answer was real.`);
}

// The reasoning is not kept, only counted; a server that reasons on forever is stopped by the same cap as the answer.
function tooLongThinking(where: string, maxChars: number): DeepworkError {
  return new DeepworkError('BRIDGE_PROTOCOL', `The reasoning from ${where} passed ${formatCount(maxChars)} characters (maxReplyChars in config.json) before the answer ended; no model thinks that long, so the server is looping or broken. Check its log, or raise maxReplyChars if the reasoning was real.`);
}

function notOpenAi(where: string, text: string, scrub: (text: string) => string): DeepworkError {
  const start = quoteBody(text, 120, scrub);
  return new DeepworkError('BRIDGE_PROTOCOL', `The host ${where} answers, but not as an OpenAI-compatible API (it sent: ${start === '' ? 'an empty body' : `"${start}"`}). Check deepseekHost: it is the API's base URL with its /v1, like http://localhost:8080/v1; for an Ollama-style bridge set "api": "ollama".`);
}
