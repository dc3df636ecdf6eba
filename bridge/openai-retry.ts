// One more try of a request a server refused for now (429, 5xx), after the wait it asks for.

import { stopped } from '../common/errors.ts';
import { formatDuration } from '../common/text.ts';
import { readAll, type Response } from './http.ts';

// A server that asks for a longer pause than this is not waited for: the user is told how long it asked.
export const MAX_RETRY_WAIT_MS = 60_000;

// Sends; a 429 or 5xx is sent once more after the wait the server asks for (Retry-After, in seconds or as a date),
// or a short default. A wait past a minute is not made: the answer stands, and its message says how long.
export async function withOneRetry(
  send: () => Promise<Response>,
  signal: AbortSignal,
  delayMs: number,
): Promise<Response> {
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
export function retryAfterMs(res: Response): number | undefined {
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

export function retriedNote(res: Response): string {
  const wait = retryAfterMs(res);
  return wait !== undefined && wait > MAX_RETRY_WAIT_MS
    ? `; it asks to wait ${formatDuration(wait)}, so it was not asked again`
    : ', also when asked again';
}
