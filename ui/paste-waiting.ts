// What the page shows of a copy-and-paste step that waits: the message's size against the web chat's limits, and what
// the chat holds (the session's runs carry it as RunView.waiting.paste).

import { chatWarning, sizeWarning, type PasteStep } from '../bridge/paste.ts';
import type { PasteWaiting } from './contract.ts';

// The step's view: its message's size and warning, the standalone message's, and the chat's state.
export function pasteView(step: PasteStep): PasteWaiting {
  const warning = sizeWarning(step.message.length, step.limits.messageChars);
  const standaloneWarning =
    step.standalone === undefined ? undefined : sizeWarning(step.standalone.message.length, step.limits.messageChars);
  const fullWarning = chatWarning(step);
  return {
    chars: step.message.length,
    tokens: step.tokens,
    ...(warning === undefined ? {} : { warning }),
    ...(step.standalone === undefined
      ? {}
      : {
          standalone: {
            chars: step.standalone.message.length,
            tokens: step.standalone.tokens,
            ...(standaloneWarning === undefined ? {} : { warning: standaloneWarning }),
          },
        }),
    chat: {
      site: step.limits.name,
      chars: step.chat.chars,
      messages: step.chat.messages,
      chatChars: step.limits.chatChars,
      messageChars: step.limits.messageChars,
    },
    full: step.full,
    ...(fullWarning === undefined ? {} : { fullWarning }),
  };
}
