// What an OpenAI-compatible server says of its models: `GET {base}/models` (for --check and the model's window), and
// llama.cpp's `/props`.

import { DeepworkError } from '../common/errors.ts';
import { isRecord } from '../common/unknown.ts';
import { readAll, request } from './http.ts';
import { notOpenAi, parseJson, quoteOf } from './openai-errors.ts';
import type { OpenAiOptions } from './openai.ts';

// The one header the key goes into.
export function authHeaders(key: OpenAiOptions['key']): Record<string, string> {
  return key === undefined ? {} : { authorization: `Bearer ${key.value}` };
}

export type ListedModel = { id: string; window?: number; llamaCpp: boolean };

// `GET {base}/models`: the models the server offers. A failure is an error that says what the server answered. The
// ids are scrubbed too: messages list them.
export async function modelList(
  base: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
  timeoutMs: number,
  scrub: (text: string) => string,
): Promise<ListedModel[]> {
  const url = new URL('models', base);
  const res = await request(url, { method: 'GET', headers, signal, timeoutMs });
  const text = await readAll(res.body, 16 << 20);
  const said = () => quoteOf(text, scrub);
  if (res.status === 401 || res.status === 403)
    throw new DeepworkError(
      'BRIDGE_AUTH',
      `GET ${url.pathname} at ${base.origin} answered HTTP ${res.status}: "${said()}".`,
      { status: res.status },
    );
  if (res.status < 200 || res.status > 299)
    throw new DeepworkError(
      'BRIDGE_HTTP',
      `GET ${url.pathname} at ${base.origin} answered HTTP ${res.status}${said() === '' ? '' : `: "${said()}"`}.`,
      { status: res.status },
    );
  const value = parseJson(text, `${base.origin}${base.pathname}`, scrub);
  if (!isRecord(value) || !Array.isArray(value.data)) throw notOpenAi(`${base.origin}${base.pathname}`, text, scrub);
  return value.data.flatMap((m: unknown): ListedModel[] => {
    if (!isRecord(m) || typeof m.id !== 'string') return [];
    const window = [m.max_model_len, m.context_length, m.context_window].find(
      (n) => typeof n === 'number' && Number.isInteger(n) && n > 0,
    );
    return [
      { id: scrub(m.id), ...(typeof window === 'number' ? { window } : {}), llamaCpp: m.owned_by === 'llamacpp' },
    ];
  });
}

// llama.cpp's server serves one model and names the context it was started with (-c) in `/props`, at its root.
export async function llamaCppWindow(
  base: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<number | undefined> {
  const res = await request(new URL('/props', base), { method: 'GET', headers, signal, timeoutMs: 10_000 });
  const text = await readAll(res.body, 16 << 20);
  if (res.status !== 200) return undefined;
  const value: unknown = JSON.parse(text);
  const settings =
    isRecord(value) && isRecord(value.default_generation_settings) ? value.default_generation_settings : undefined;
  const n = settings?.n_ctx;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}
