// The client of an OpenAI-compatible server: `POST {base}/chat/completions` for answers, `GET {base}/models` for
// --check and the model's window. DeepSeek's API, llama.cpp's llama-server, vLLM, LM Studio, OpenRouter and Ollama's
// own /v1 all speak it. Answers come streamed as server-sent events, or as one JSON body from a server that does not
// stream.
//
// The API key is read from the environment by the caller and lives only in this closure: it goes into the
// Authorization header and nowhere else, and any text the server sends back is scrubbed of it before it is quoted.

import { DeepworkError, messageOf } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';
import type { Bridge } from '../protocol/contract.ts';
import { baseUrl, readAll, request, type Response } from './http.ts';
import { quoteOf, scrubberOf } from './openai-errors.ts';
import { authHeaders, llamaCppWindow, modelList } from './openai-models.ts';
import { MAX_RETRY_WAIT_MS, retriedNote, retryAfterMs, withOneRetry } from './openai-retry.ts';
import { readCompletion } from './openai-stream.ts';

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
    model: options.model,
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
      const reply = await readCompletion(
        res,
        where,
        options.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS,
        scrub,
        onProgress,
        onText,
      );
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
      const entry =
        listed?.find((m) => m.id === options.model) ??
        (listed?.length === 1 && listed[0]?.llamaCpp === true ? listed[0] : undefined);
      if (entry?.window !== undefined) return entry.window;
      if (entry?.llamaCpp === true)
        return (await llamaCppWindow(base, headers, signal).catch(() => undefined)) ?? preset;
      return preset;
    },
  };
}

// The key as the environment holds it, or an error before anything is sent: a variable named but empty is a mistake
// the user should hear of at once, not as a 401 from the far end.
// `configFile`: the config that names the variable, to say where to change it.
export function keyFrom(
  variable: string | undefined,
  env: NodeJS.ProcessEnv,
  configFile = 'config.json',
): OpenAiOptions['key'] {
  if (variable === undefined) return undefined;
  const value = env[variable]?.trim() ?? '';
  if (value === '') {
    throw new DeepworkError(
      'BRIDGE_AUTH',
      `No API key: the environment variable ${variable} (apiKeyEnv in ${configFile}) is not set. Set it to your key before starting deepwork — cmd: set ${variable}=your-key; PowerShell: $env:${variable}="your-key"; sh: export ${variable}=your-key — or remove apiKeyEnv for a server that needs no key.`,
    );
  }
  return { value, variable };
}

function cutNote(tokens: number | undefined, limit: number | undefined): string {
  const count = tokens === undefined ? '' : ` after ${formatCount(tokens)} tokens`;
  const raise =
    limit === undefined
      ? 'if the server allows longer replies, set maxReplyTokens in config.json (llama.cpp: its --n-predict)'
      : `maxReplyTokens (now ${formatCount(limit)}) can be raised in config.json if the server allows more`;
  return `the server cut the reply at its output limit${count} (finish_reason "length"): the end of the answer is missing, and a FILE or EDIT block it cut is not written. Ask for smaller changes (EDIT blocks change part of a file); ${raise}.`;
}

async function httpError(
  res: Response,
  url: URL,
  options: OpenAiOptions,
  scrub: (text: string) => string,
  signal: AbortSignal,
): Promise<DeepworkError> {
  const where = url.origin;
  const raw = await readAll(res.body, 1 << 20).catch((error: unknown) => messageOf(error));
  const said = quoteOf(raw, scrub);
  const status = `HTTP ${res.status}${said === '' ? '' : `: "${said}"`}`;
  if (res.status === 401 || res.status === 403) {
    if (options.key === undefined) {
      return new DeepworkError(
        'BRIDGE_AUTH',
        `The server at ${where} wants an API key (${status}). Put the key in an environment variable and name that variable in config.json, like "apiKeyEnv": "DEEPSEEK_API_KEY".`,
      );
    }
    return new DeepworkError(
      'BRIDGE_AUTH',
      `The server at ${where} refused the API key in ${options.key.variable} (${status}). Check the key in that variable: it may be mistyped, revoked, or for another service.`,
    );
  }
  if (res.status === 404) {
    if (/model/i.test(said)) {
      const models = await modelList(baseUrl(options.host), authHeaders(options.key), signal, 10_000, scrub).catch(
        () => undefined,
      );
      const known =
        models === undefined
          ? ''
          : models.length === 0
            ? ' It lists no models.'
            : ` It has: ${models.map((m) => m.id).join(', ')}.`;
      return new DeepworkError(
        'BRIDGE_MODEL',
        `The server at ${where} does not know the model "${options.model}" (${status}).${known} Set deepseekModel in config.json or pass --model.`,
      );
    }
    return new DeepworkError(
      'BRIDGE_HTTP',
      `There is no chat completions API at ${url.href} (${status}). deepseekHost must be the API's base URL with its /v1, like https://api.deepseek.com/v1 or http://localhost:8080/v1.`,
    );
  }
  if (res.status === 429) {
    const later = (retryAfterMs(res) ?? 0) > MAX_RETRY_WAIT_MS ? 'Ask again after that' : 'Wait a little and ask again';
    return new DeepworkError(
      'BRIDGE_HTTP',
      `The server at ${where} is limiting requests (${status})${retriedNote(res)}. ${later}; a paid plan or another key may have a higher limit.`,
    );
  }
  if (res.status >= 500) {
    return new DeepworkError(
      'BRIDGE_HTTP',
      `The server at ${where} failed (${status})${retriedNote(res)}. Ask again later, or check the server's log or status page.`,
    );
  }
  if (res.status === 400 && /context|too long|too many tokens|maximum.*tokens|exceeds/i.test(said)) {
    return new DeepworkError(
      'BRIDGE_HTTP',
      `The server at ${where} refused the message as too long for the model (${status}). Set contextTokens in config.json (or --context-tokens) to the server's real context size, so deepwork sends less.`,
    );
  }
  return new DeepworkError(
    'BRIDGE_HTTP',
    `The server at ${where} answered ${status}. Check deepseekModel and maxReplyTokens in config.json, and the server's log.`,
  );
}

export { scrubberOf } from './openai-errors.ts';
export { authHeaders, modelList, type ListedModel } from './openai-models.ts';
