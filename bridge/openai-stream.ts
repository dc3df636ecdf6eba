// Reading an OpenAI-compatible answer: server-sent events or one JSON body, held within the reply cap as it arrives.

import { DeepworkError } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';
import { isRecord } from '../common/unknown.ts';
import type { Response } from './http.ts';
import { gathered, lines } from './lines.ts';
import { collectReply } from './reply.ts';
import { errorText, MAX_QUOTE, notOpenAi, parseJson, tooLong, tooLongThinking } from './openai-errors.ts';

// An answer, or one streamed piece of it: its text, the characters of reasoning, why it ended, and the token counts.
export type Completion = {
  content: string;
  thinking: number;
  finish: string | undefined;
  promptTokens?: number;
  completionTokens?: number;
};

// Reads an answer: server-sent events (`data:` lines, `:` comments, `[DONE]`), or one JSON body from a server that
// does not stream. An error event ends it with the server's message; a stream that stops before its end is not an
// answer. Whatever is held is counted against `maxChars` as it arrives, and past it the call ends with an error: the
// answer and the reasoning in characters, an event's data lines and a whole body in characters of JSON (escapes can
// make a character six). Nothing else is kept, so the memory stays within a few times the cap however the server
// sends: endless data lines with no blank line to end the event, millions of tiny events, or a reasoning that never
// ends.
export async function readCompletion(
  res: Response,
  where: string,
  maxChars: number,
  scrub: (text: string) => string,
  onProgress?: (chars: number, thinking: number) => void,
  onText?: (text: string) => void,
): Promise<Completion> {
  const maxBytes = maxChars * 6 + (1 << 20);
  const tooMuch = () => tooLong(where, maxChars);
  const reply = collectReply({
    maxChars,
    tooLong: tooMuch,
    tooLongThinking: () => tooLongThinking(where, maxChars),
    onProgress,
    onText,
  });
  const result: Completion = { content: '', thinking: 0, finish: undefined };
  let ended = false;
  let events = 0;
  let mode: 'events' | 'body' | undefined = res.contentType.includes('text/event-stream') ? 'events' : undefined;
  // The body of a non-streamed answer, and the data lines of the event being read.
  const body = gathered(maxBytes, tooMuch);
  let data = gathered(maxBytes, tooMuch);

  const take = (chunk: Completion) => {
    reply.add(chunk.content, chunk.thinking);
    result.thinking = reply.thinking;
    if (chunk.finish !== undefined) result.finish = chunk.finish;
    if (chunk.promptTokens !== undefined) result.promptTokens = chunk.promptTokens;
    if (chunk.completionTokens !== undefined) result.completionTokens = chunk.completionTokens;
  };
  const dispatch = () => {
    if (data.pieces === 0) return;
    const payload = data.take();
    data = gathered(maxBytes, tooMuch);
    if (payload.trim() === '[DONE]') {
      ended = true;
      return;
    }
    events++;
    take(chunkOf(parseJson(payload, where, scrub), where, scrub, 'delta'));
  };

  for await (const raw of lines(res.body, maxBytes, `The server at ${where}`)) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (mode === undefined) {
      if (line.trim() === '') continue;
      mode = /^(data|event|id|retry):|^:/.test(line) ? 'events' : 'body';
    }
    if (mode === 'body') {
      body.add(body.pieces === 0 ? line : `\n${line}`);
      continue;
    }
    if (line === '') dispatch();
    else if (line.startsWith('data:')) {
      const value = line.slice(line.startsWith('data: ') ? 6 : 5);
      data.add(data.pieces === 0 ? value : `\n${value}`);
    }
    // `:` comments (keep-alives), event names, ids and retry hints carry nothing for us; an error arrives as data.
  }
  dispatch();

  if (mode === 'body') {
    take(chunkOf(parseJson(body.take(), where, scrub), where, scrub, 'message'));
    return { ...result, content: reply.text() };
  }
  if (events === 0) throw notOpenAi(where, '', scrub);
  if (!ended && result.finish === undefined) {
    throw new DeepworkError(
      'BRIDGE_PROTOCOL',
      `The answer from ${where} ended before its end (${formatCount(reply.chars)} characters arrived, no finish_reason, no [DONE]): the server stopped mid-answer. Ask again, or check the server's log.`,
    );
  }
  return { ...result, content: reply.text() };
}

// One streamed chunk (`choices[0].delta`) or a whole answer (`choices[0].message`); an `error` object ends the call.
// DeepSeek sends its reasoning as `reasoning_content`, vLLM and OpenRouter as `reasoning`: counted, never answer.
function chunkOf(
  value: unknown,
  where: string,
  scrub: (text: string) => string,
  part: 'delta' | 'message',
): Completion {
  if (!isRecord(value)) throw notOpenAi(where, JSON.stringify(value), scrub);
  // vLLM's older streams send `{"object": "error", "message"}` instead of an `error` object.
  const error = value.error ?? (value.object === 'error' ? value : undefined);
  if (error !== undefined && error !== null) {
    throw new DeepworkError(
      'BRIDGE_ERROR',
      `The server at ${where} answered with an error: "${scrub(errorText(error)).slice(0, MAX_QUOTE)}". Ask again, or check the server's log.`,
    );
  }
  const usage = isRecord(value.usage) ? value.usage : undefined;
  const tokens = {
    ...(typeof usage?.prompt_tokens === 'number' ? { promptTokens: usage.prompt_tokens } : {}),
    ...(typeof usage?.completion_tokens === 'number' ? { completionTokens: usage.completion_tokens } : {}),
  };
  if (!Array.isArray(value.choices)) throw notOpenAi(where, JSON.stringify(value), scrub);
  const choice: unknown = value.choices[0];
  // The last chunk of a stream with include_usage has no choices, only usage.
  if (choice === undefined) return { content: '', thinking: 0, finish: undefined, ...tokens };
  if (!isRecord(choice)) throw notOpenAi(where, JSON.stringify(value), scrub);
  const message = isRecord(choice[part]) ? choice[part] : {};
  const content = typeof message.content === 'string' ? message.content : '';
  const reasoning =
    typeof message.reasoning_content === 'string'
      ? message.reasoning_content
      : typeof message.reasoning === 'string'
        ? message.reasoning
        : '';
  const finish = typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
  return { content, thinking: reasoning.length, finish, ...tokens };
}
