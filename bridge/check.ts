// --check: is the bridge there, and is its model up? Three states, each with what to do.

import { DeepworkError, messageOf } from '../common/errors.ts';
import { baseUrl, listModels, runningModels } from './ollama.ts';

export type BridgeState = 'ready' | 'idle' | 'down';
export type CheckReport = { state: BridgeState; host: string; model: string; message: string };

export async function checkBridge(host: string, model: string, timeoutMs = 5_000): Promise<CheckReport> {
  const report = (state: BridgeState, message: string): CheckReport => ({ state, host, model, message });
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
    return report('down', messageOf(error));
  }
  if (models.length > 0 && !models.some((name) => sameModel(name, model))) {
    return report('down', `The bridge at ${base.origin} answers, but does not know the model "${model}". It has: ${models.join(', ')}. Set deepseekModel in config.json or pass --model.`);
  }

  let running: string[];
  try {
    running = await runningModels(base, signal, timeoutMs);
  } catch (error) {
    if (error instanceof DeepworkError && error.code === 'BRIDGE_HTTP') {
      return report('idle', `The bridge at ${base.origin} answers; it does not say whether "${model}" is up (no /api/ps). It starts on the first question.`);
    }
    return report('down', messageOf(error));
  }
  if (running.some((name) => sameModel(name, model))) {
    return report('ready', `The bridge at ${base.origin} answers and "${model}" is up.`);
  }
  return report('idle', `The bridge at ${base.origin} answers, but "${model}" is not up yet; it starts on the first question (for the DeepSeek bridge: its browser tab opens then).`);
}

// Ollama names a model `llama3:latest` when asked for `llama3`.
function sameModel(listed: string, wanted: string): boolean {
  return listed === wanted || listed === `${wanted}:latest` || `${listed}:latest` === wanted;
}
