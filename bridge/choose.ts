// The bridge the config names: the Ollama-style client or the OpenAI-compatible one, and --check for it. Each client
// is loaded only when chosen. The API key is read from the environment here, at the last moment, and handed to the
// client alone.

import { messageOf } from '../common/errors.ts';
import type { Bridge } from '../protocol/contract.ts';
import type { CheckReport } from './check.ts';

// What of the config a bridge needs (app/config.ts has the whole config, checked; a bridge depends on nothing above it).
export type BridgeSettings = {
  api: 'ollama' | 'openai';
  deepseekHost: string;
  deepseekModel: string;
  apiKeyEnv?: string;
  maxReplyTokens?: number;
  timeoutMinutes: number;
  maxReplyChars: number;
  // The config file these came from, for messages that say where to change them.
  configFile?: string;
};

export async function createBridge(config: BridgeSettings, env: NodeJS.ProcessEnv = process.env): Promise<Bridge> {
  const common = {
    host: config.deepseekHost,
    model: config.deepseekModel,
    timeoutMs: config.timeoutMinutes * 60_000,
    maxReplyChars: config.maxReplyChars,
  };
  if (config.api === 'openai') {
    const { createOpenAiBridge, keyFrom } = await import('./openai.ts');
    return createOpenAiBridge({
      ...common,
      key: keyFrom(config.apiKeyEnv, env, config.configFile),
      maxReplyTokens: config.maxReplyTokens,
    });
  }
  const { createOllamaBridge } = await import('./ollama.ts');
  return createOllamaBridge(common);
}

export async function checkConfigured(
  config: BridgeSettings,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CheckReport> {
  const { checkBridge, checkOpenAi } = await import('./check.ts');
  if (config.api !== 'openai') return checkBridge(config.deepseekHost, config.deepseekModel);
  const { keyFrom } = await import('./openai.ts');
  let key: ReturnType<typeof keyFrom>;
  try {
    key = keyFrom(config.apiKeyEnv, env, config.configFile);
  } catch (error) {
    return { state: 'down', host: config.deepseekHost, model: config.deepseekModel, message: messageOf(error) };
  }
  return checkOpenAi(config.deepseekHost, config.deepseekModel, key);
}
