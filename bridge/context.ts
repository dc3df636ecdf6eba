// The context window of an Ollama model. Ollama reads a prompt into a window of `num_ctx` tokens, 4,096 by default
// below 24 GiB of VRAM (ollama/ollama docs/context-length), and a longer prompt silently loses its beginning — the
// instructions and the tree. So deepwork asks the model's length (`/api/show`), sends `num_ctx` with every chat, big
// enough for the prompt and the reply, and notices when the server read less than it was sent.

import { isRecord } from '../common/unknown.ts';
import { formatCount } from '../common/text.ts';

// The sizes num_ctx is picked from: each change makes Ollama reload the model, so a run moves up through a few
// sizes, never down.
const SIZES = [4_096, 8_192, 16_384, 32_768, 65_536, 131_072, 262_144, 524_288, 1_048_576];

// The smallest size that holds the prompt and the reply room, within the window, never below the last one sent.
export function numCtxFor(tokens: number, window: number, previous: number): number {
  const reply = Math.min(8_192, Math.floor(window / 4));
  const needed = Math.min(window, tokens + reply);
  const size = SIZES.find((s) => s >= needed) ?? window;
  return Math.max(previous, Math.min(size, window));
}

// The window `/api/show` gives: a `num_ctx` set in the model's parameters (its Modelfile) first, else the length the
// model was trained for (`model_info["<architecture>.context_length"]`).
export function windowFromShow(value: unknown): number | undefined {
  if (!isRecord(value)) return undefined;
  if (typeof value.parameters === 'string') {
    const set = /^\s*num_ctx\s+(\d+)\s*$/m.exec(value.parameters);
    if (set !== null) return Number(set[1]);
  }
  const info = value.model_info;
  if (!isRecord(info)) return undefined;
  const arch = info['general.architecture'];
  const length = typeof arch === 'string' ? info[`${arch}.context_length`] : undefined;
  return typeof length === 'number' && Number.isInteger(length) && length > 0 ? length : undefined;
}

// What to tell the user when the server read the prompt into a full window smaller than the prompt: its beginning
// was cut. `evaluated` is the server's prompt_eval_count.
export function truncationNote(evaluated: number | undefined, numCtx: number, estimate: number): string | undefined {
  if (evaluated === undefined || evaluated < numCtx - 64 || estimate <= numCtx) return undefined;
  return `the model read ${formatCount(evaluated)} tokens of a message of about ${formatCount(estimate)}: its window (num_ctx ${formatCount(numCtx)}) cut the beginning, where the instructions are. Set contextTokens in config.json (or --context-tokens) to the model's real window, or use a model with a longer one (Ollama: OLLAMA_CONTEXT_LENGTH).`;
}
