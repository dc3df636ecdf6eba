// --check: is the bridge there, and is its model up? Three states, each with what to do.

import { DeepworkError, messageOf } from '../common/errors.ts';
import { baseUrl } from './http.ts';
import { formatDuration } from '../common/text.ts';
import { listModels, runningModels } from './ollama.ts';

export type BridgeState = 'ready' | 'idle' | 'down';
// `cause`: the error behind a 'down', for callers that decide on its code (the pult words it in the reader's language).
export type CheckReport = { state: BridgeState; host: string; model: string; message: string; cause?: unknown };

export async function checkBridge(host: string, model: string, timeoutMs = 5_000): Promise<CheckReport> {
  const report = (state: BridgeState, message: string, cause?: unknown): CheckReport =>
    cause === undefined ? { state, host, model, message } : { state, host, model, message, cause };
  const signal = new AbortController().signal;
  let base: URL;
  try {
    base = baseUrl(host);
  } catch (error) {
    return report('down', messageOf(error));
  }

  let models: string[];
  try {
    models = await listModels(base, signal, timeoutMs);
  } catch (error) {
    return report('down', checkFailure(error, base, timeoutMs), error);
  }
  if (models.length > 0 && !models.some((name) => sameModel(name, model))) {
    return report(
      'down',
      `The bridge at ${base.origin} answers, but does not know the model "${model}". It has: ${models.join(', ')}. Set deepseekModel in config.json or pass --model.`,
    );
  }

  let running: string[];
  try {
    running = await runningModels(base, signal, timeoutMs);
  } catch (error) {
    if (error instanceof DeepworkError && error.code === 'BRIDGE_HTTP') {
      return report(
        'idle',
        `The bridge at ${base.origin} answers; it does not say whether "${model}" is up (no /api/ps). It starts on the first question.`,
      );
    }
    return report('down', messageOf(error));
  }
  if (running.some((name) => sameModel(name, model))) {
    return report('ready', `The bridge at ${base.origin} answers and "${model}" is up.`);
  }
  return report(
    'idle',
    `The bridge at ${base.origin} answers, but "${model}" is not up yet; it starts on the first question (for the DeepSeek bridge: its browser tab opens then).`,
  );
}

// Why the bridge is down, in the words of --check: its wait is fixed, and a 404 means the host is some other server.
function checkFailure(error: unknown, base: URL, timeoutMs: number): string {
  if (error instanceof DeepworkError && error.code === 'BRIDGE_TIMEOUT') {
    return `The host ${base.origin} took the connection but did not answer GET /api/tags within ${formatDuration(timeoutMs)}: it is busy, stuck, or not an Ollama-style API. Check its log; a question waits longer (timeoutMinutes in config.json).`;
  }
  if (error instanceof DeepworkError && error.code === 'BRIDGE_HTTP' && error.status === 404) {
    return `The host ${base.origin} answers, but not as an Ollama-style API (GET /api/tags: HTTP 404). For an OpenAI-compatible server set "api": "openai" (or --api openai) and its /v1 URL; the DeepSeek bridge listens on http://localhost:11500, Ollama on http://localhost:11434.`;
  }
  return messageOf(error);
}

// Ollama names a model `llama3:latest` when asked for `llama3`.
function sameModel(listed: string, wanted: string): boolean {
  return listed === wanted || listed === `${wanted}:latest` || `${listed}:latest` === wanted;
}

// --check for an OpenAI-compatible server: `GET /models`. Ready when the model is listed (llama.cpp serves its one
// model whatever name is asked for); down otherwise, with the reason. There is no idle: such servers load on demand or
// not at all.
export async function checkOpenAi(
  host: string,
  model: string,
  key: { value: string; variable: string } | undefined,
  timeoutMs = 5_000,
): Promise<CheckReport> {
  const report = (state: BridgeState, message: string, cause?: unknown): CheckReport =>
    cause === undefined ? { state, host, model, message } : { state, host, model, message, cause };
  let base: URL;
  try {
    base = baseUrl(host);
  } catch (error) {
    return report('down', messageOf(error));
  }
  const { authHeaders, modelList, scrubberOf } = await import('./openai.ts');
  const headers = authHeaders(key);
  const scrub = scrubberOf(key?.value);
  let models: Awaited<ReturnType<typeof modelList>>;
  try {
    models = await modelList(base, headers, new AbortController().signal, timeoutMs, scrub);
  } catch (error) {
    if (error instanceof DeepworkError && error.code === 'BRIDGE_AUTH') {
      const fix =
        key === undefined
          ? 'It wants an API key: put it in an environment variable and name that variable in config.json, like "apiKeyEnv": "DEEPSEEK_API_KEY".'
          : `It refused the key in ${key.variable}: check the key in that variable.`;
      return report('down', `${error.message} ${fix}`);
    }
    if (error instanceof DeepworkError && error.code === 'BRIDGE_HTTP' && error.status === 404) {
      return report(
        'down',
        `${error.message} deepseekHost must be the API's base URL with its /v1, like https://api.deepseek.com/v1 or http://localhost:8080/v1.`,
      );
    }
    return report('down', messageOf(error), error);
  }
  const where = `${base.origin}${base.pathname.replace(/\/$/, '')}`;
  if (models.some((m) => m.id === model))
    return report('ready', `The server at ${where} answers and offers "${model}".`);
  const only = models.length === 1 ? models[0] : undefined;
  if (only?.llamaCpp === true)
    return report(
      'ready',
      `The server at ${where} answers; it is llama.cpp and serves one model, "${only.id}", whatever name is asked for.`,
    );
  const offered = models.length === 0 ? 'It lists no models.' : `It offers: ${models.map((m) => m.id).join(', ')}.`;
  return report(
    'down',
    `The server at ${where} answers, but does not offer the model "${model}". ${offered} Set deepseekModel in config.json or pass --model.`,
  );
}
