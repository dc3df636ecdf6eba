// Copy and paste: a person is the bridge. Each message is handed out to be pasted into any web chat (DeepSeek,
// ChatGPT, Claude, a chat at work where no API is allowed), and the chat's reply comes back as pasted text. The
// protocol needs nothing more: every message carries the whole conversation, so the chat may be new or the same one.

import { DeepworkError, stopped } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';
import type { Bridge, ChatOptions, ChatReply } from '../protocol/contract.ts';

// What web chats usually take in one message before they refuse it, cut it, or turn it into an attachment the model
// may only skim: a conservative figure (config `pasteMaxChars`).
export const DEFAULT_PASTE_MAX_CHARS = 60_000;

// Characters per token for the window the messages are fitted to: code and English run at about 3.5.
const CHARS_PER_TOKEN = 3.5;

// A step waiting for its reply: the message to copy, and how to hand the reply back (or end the step with an error);
// `signal` is the run's, aborted when it is stopped.
export type PasteStep = {
  message: string;
  tokens: number;
  signal: AbortSignal;
  supply: (reply: string) => void;
  fail: (error: unknown) => void;
};

export type PasteOptions = {
  maxChars: number;
  // Called when a message is ready to be copied; the step ends when `supply` is called with the reply, or the run is
  // stopped.
  onMessage: (step: PasteStep) => void;
};

export function createPasteBridge(options: PasteOptions): Bridge {
  return {
    label: 'copy and paste (any web chat)',
    chat(message: string, { signal, tokens }: ChatOptions) {
      return new Promise<ChatReply>((resolve, reject) => {
        if (signal.aborted) return reject(stopped());
        const onAbort = () => reject(stopped());
        signal.addEventListener('abort', onAbort, { once: true });
        options.onMessage({
          message,
          tokens: tokens ?? Math.ceil(message.length / CHARS_PER_TOKEN),
          signal,
          supply: (reply) => {
            signal.removeEventListener('abort', onAbort);
            resolve({ text: reply });
          },
          fail: (error) => {
            signal.removeEventListener('abort', onAbort);
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        });
      });
    },
    // The window the messages are fitted to, so that each one stays under what a web chat takes: the loop keeps a
    // quarter of a window this size for the reply, and fits the message into the rest.
    window: () => Promise.resolve(windowFor(options.maxChars)),
  };
}

export function windowFor(maxChars: number): number {
  return Math.max(4_096, Math.floor(maxChars / CHARS_PER_TOKEN / 0.75));
}

// The warning for a message larger than web chats usually take, with the way out; undefined when it fits.
export function sizeWarning(chars: number, maxChars: number): string | undefined {
  if (chars <= maxChars) return undefined;
  return `This message is ${formatCount(chars)} characters; web chats often refuse, cut or attach messages over ${formatCount(maxChars)} (pasteMaxChars in config.json). Tick fewer files, or lower contextTokens in config.json, so that each message is smaller.`;
}

// Lines a chat's page adds around a reply when it is copied by selecting it rather than with its Copy button: the
// thinking header, the buttons under a code block or the reply, the speaker's name.
const DECORATION = [
  /^(thought|thinking|reasoned|думал|размышлял|рассуждал)(\s+(for|about|около|в течение))?\s*[\d.,]*\s*(seconds?|secs?|s|минут\w*|секунд\w*|сек\.?|с)?\s*\.?$/i,
  /^(copy|copy code|copied!?|edit|regenerate|retry|share|копировать|копировать код|скопировано|изменить|повторить|поделиться)$/i,
  /^(chatgpt|deepseek|claude|gemini|copilot|assistant|ассистент)( said)?:?$/i,
];

// A reply as pasted, made what the model wrote: CRLF to LF; decoration lines dropped at its start and end and
// around code fences (a fence's language label alone on a line, a "Copy code" under it); one markdown fence around
// the whole reply taken off. An empty reply is an error that says what to paste.
export function cleanReply(pasted: string): string {
  let lines = pasted.replace(/\r\n?/g, '\n').split('\n');
  const isDecoration = (line: string) => DECORATION.some((re) => re.test(line.trim()));
  while (lines.length > 0 && (lines[0]?.trim() === '' || isDecoration(lines[0] ?? ''))) lines.shift();
  while (lines.length > 0 && (lines.at(-1)?.trim() === '' || isDecoration(lines.at(-1) ?? ''))) lines.pop();
  // "Copy code" lines left inside (under a code block's label when the page was selected) go too.
  lines = lines.filter((line) => !/^(copy code|копировать код)$/i.test(line.trim()));
  // The whole reply in one fence (some chats show a reply that way, and a Copy button copies it with the fence).
  const first = lines[0]?.trim() ?? '';
  const last = lines.at(-1)?.trim() ?? '';
  const fence = /^(`{3,}|~{3,})[\w-]*$/.exec(first);
  if (
    fence !== null &&
    lines.length >= 2 &&
    last === fence[1] &&
    !lines.slice(1, -1).some((l) => l.trim() === fence[1])
  ) {
    lines = lines.slice(1, -1);
  }
  const reply = lines.join('\n').trim();
  if (reply === '') {
    throw new DeepworkError(
      'BAD_REQUEST',
      "The reply is empty: paste the model's whole reply (its Copy button copies it), then send it.",
    );
  }
  return reply;
}
