// The model's reply as both clients collect it, piece by piece: the answer's text and the characters of its reasoning,
// each held to `maxChars` as it arrives (a bridge that loops would otherwise fill the memory, or never end), each piece
// shown as it comes (`onText`) and counted (`onProgress`).

import { gathered } from './lines.ts';

export type ReplyOptions = {
  maxChars: number;
  // The errors for an answer, and for a reasoning, past maxChars.
  tooLong: () => Error;
  tooLongThinking: () => Error;
  onProgress?: ((chars: number, thinking: number) => void) | undefined;
  onText?: ((text: string) => void) | undefined;
};

export type Reply = {
  // One piece: answer text and characters of reasoning (either may be empty).
  add(text: string, thinking: number): void;
  // The answer so far, taken once at the end.
  text(): string;
  // Characters of the answer, and of reasoning, so far.
  readonly chars: number;
  readonly thinking: number;
};

export function collectReply(options: ReplyOptions): Reply {
  const content = gathered(options.maxChars, options.tooLong);
  let thinking = 0;
  return {
    add(text, thought) {
      if (text !== '') {
        content.add(text);
        options.onText?.(text);
      }
      thinking += thought;
      if (thinking > options.maxChars) throw options.tooLongThinking();
      if (text !== '' || thought > 0) options.onProgress?.(content.length, thinking);
    },
    text: () => content.take(),
    get chars() {
      return content.length;
    },
    get thinking() {
      return thinking;
    },
  };
}
