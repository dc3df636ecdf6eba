// Copy and paste: a person is the bridge. Each message is handed out to be pasted into any web chat (DeepSeek,
// ChatGPT, Claude, a chat at work where no API is allowed), and the chat's reply comes back as pasted text. A web chat
// keeps its history, so after the first message of a chat each message carries only what is new; the message that
// stands on its own is offered beside it, for a new chat — which the person may start at any time, and which deepwork
// proposes when the chat would pass what it holds (bridge/chat-sites.ts).

import { DeepworkError, stopped } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';
import type { Bridge, ChatOptions, ChatReply } from '../protocol/contract.ts';
import { limitNotice, type ChatSite } from './chat-sites.ts';

// What web chats usually take in one message before they refuse it, cut it, or turn it into an attachment the model
// may only skim: a conservative figure (config `pasteMaxChars`).
export const DEFAULT_PASTE_MAX_CHARS = 60_000;

// Characters per token for the window the messages are fitted to: code and English run at about 3.5.
const CHARS_PER_TOKEN = 3.5;

// What the chat holds, as deepwork counts it: the characters of the messages pasted into it and of the replies it
// gave, since the chat began. Kept by whoever runs the questions of one chat (the pult's conversation, a console run).
export type ChatState = { chars: number; messages: number };

export function newChat(): ChatState {
  return { chars: 0, messages: 0 };
}

// A step waiting for its reply: the message to copy and, in a chat that holds what came before, the message that
// stands on its own for a new chat; whether the chat would pass what it holds with this message (`full`); how to hand
// the reply back (`newChat`: it came from a new chat, sent the standalone message), or end the step with an error.
// `signal` is the run's, aborted when it is stopped.
export type PasteStep = {
  message: string;
  tokens: number;
  standalone: { message: string; tokens: number } | undefined;
  chat: ChatState;
  limits: ChatSite;
  full: boolean;
  signal: AbortSignal;
  supply: (reply: string, newChat?: boolean) => void;
  fail: (error: unknown) => void;
};

export type PasteOptions = {
  limits: ChatSite;
  // The chat the messages go into; counted up as they do, and started afresh with a new chat.
  chat: ChatState;
  // Called when a message is ready to be copied; the step ends when `supply` is called with the reply, or the run is
  // stopped.
  onMessage: (step: PasteStep) => void;
};

export function createPasteBridge(options: PasteOptions): Bridge {
  const { chat, limits } = options;
  return {
    label: 'copy and paste (any web chat)',
    model: `${limits.name} web chat`,
    keepsChat: true,
    chat(message: string, { signal, tokens, standalone }: ChatOptions) {
      return new Promise<ChatReply>((resolve, reject) => {
        if (signal.aborted) return reject(stopped());
        const onAbort = () => reject(stopped());
        signal.addEventListener('abort', onAbort, { once: true });
        options.onMessage({
          message,
          tokens: tokens ?? Math.ceil(message.length / CHARS_PER_TOKEN),
          standalone,
          chat,
          limits,
          full: standalone !== undefined && chat.chars + message.length > limits.chatChars,
          signal,
          supply: (reply, fresh = false) => {
            signal.removeEventListener('abort', onAbort);
            // A message that stands on its own starts the chat: what it holds is that message and the reply.
            const started = fresh || standalone === undefined;
            const sent = fresh && standalone !== undefined ? standalone.message : message;
            chat.chars = (started ? 0 : chat.chars) + sent.length + reply.length;
            chat.messages = (started ? 0 : chat.messages) + 1;
            resolve({ text: reply, ...(fresh ? { newChat: true } : {}) });
          },
          fail: (error) => {
            signal.removeEventListener('abort', onAbort);
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        });
      });
    },
    // The window the messages are fitted to, so that each one stays under what the chat takes in one message: the
    // loop keeps a quarter of a window this size for the reply, and fits the message into the rest.
    window: () => Promise.resolve(windowFor(limits.messageChars)),
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

// The warning for a chat this message would take past what it holds, with the way out; undefined when it fits.
export function chatWarning(step: Pick<PasteStep, 'chat' | 'limits' | 'message' | 'full'>): string | undefined {
  if (!step.full) return undefined;
  return `This chat holds about ${formatCount(step.chat.chars)} characters; with this message it would pass the ${formatCount(step.limits.chatChars)} ${step.limits.name} holds (pasteChatChars in config.json), and it would stop answering or forget the start. Start a new chat and paste the message that stands on its own.`;
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
// A pasted reply refused, with why as a tag (the pult words it in its reader's language): the chat's notice that it
// took too much (`notice`: its words), or nothing pasted.
export class ReplyRefused extends DeepworkError {
  readonly kind: 'notice' | 'empty';
  readonly notice: string;
  constructor(kind: 'notice' | 'empty', notice: string, message: string) {
    super('BAD_REQUEST', message);
    this.kind = kind;
    this.notice = notice;
  }
}

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
  const notice = limitNotice(reply);
  if (notice !== undefined) {
    throw new ReplyRefused(
      'notice',
      notice,
      `That is the chat's notice that it took too much ("${notice}"), not the model's answer. Start a new chat, paste the message that stands on its own there, and paste its reply here; if a single message is refused, lower pasteMaxChars in config.json.`,
    );
  }
  if (reply === '') {
    throw new ReplyRefused(
      'empty',
      '',
      "The reply is empty: paste the model's whole reply (its Copy button copies it), then send it.",
    );
  }
  return reply;
}
