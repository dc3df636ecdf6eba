// The step log on stderr, in the words the pult's page uses too (common/strings/steps.js). On a terminal a waiting line
// counts the time, the model's thinking and the reply's characters while a step waits. The reply itself is shown as it
// arrives only where it is not printed again: when stdout is not the terminal (`stream`), dimmed on stderr.

import type { LoopEvent } from '../protocol/loop.ts';
import { stepTexts } from '../common/strings/steps.js';
import { textsIn } from '../common/strings/language.js';
import type { Io } from './output.ts';

// `typing`: the person types on the terminal while a step waits (copy and paste): then every event is a whole line,
// and nothing is redrawn over what they type (issue 26). `stream`: show the reply as it arrives.
export type StepLogOptions = { typing?: boolean; stream?: boolean };

export function stepLog(
  io: Io,
  steps: number,
  { typing = false, stream = true }: StepLogOptions = {},
): { event: (e: LoopEvent) => void; stop: () => void } {
  const t = textsIn(stepTexts, io.lang ?? 'en');
  const live = io.isTTY && !typing;
  let timer: NodeJS.Timeout | undefined;
  let started = 0;
  let received = 0;
  let thought = 0;
  let waitingStep = 0;
  let streaming = false;
  let endsLine = true;
  // The status line's own cursor controls go out as they are; nothing in it comes from the model.
  const status = io.status ?? io.err;
  const clear = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    if (live) status('\r\x1b[K');
  };
  const endStream = () => {
    if (!streaming) return;
    streaming = false;
    if (!endsLine) io.stream?.('\n');
    status('\r\x1b[0m');
  };
  const tick = () => {
    status(
      `\r\x1b[K${t.waiting({ step: waitingStep, ms: Date.now() - started, thinking: thought, received }).replace(/…$/, '')}`,
    );
  };
  return {
    event(e) {
      if (e.kind === 'sending') {
        io.err(t.sending({ ...e, steps }));
        started = Date.now();
        received = 0;
        thought = 0;
        waitingStep = e.step;
        if (live) timer = setInterval(tick, 1000);
      } else if (e.kind === 'receiving') {
        received = e.chars;
        thought = e.thinking;
      } else if (e.kind === 'text') {
        if (!live || !stream || io.stream === undefined) return;
        if (!streaming) {
          clear();
          streaming = true;
          status('\r\x1b[2m');
        }
        io.stream(e.text);
        if (e.text !== '') endsLine = e.text.endsWith('\n');
      } else if (e.kind === 'warning') {
        endStream();
        clear();
        io.err(t.warning({ ...e, steps }));
      } else if (e.kind === 'miscited') {
        io.err(t.miscited({ ...e, steps }));
      } else if (e.kind === 'replied') {
        endStream();
        clear();
        io.err(t.replied({ ...e, steps }));
      } else if (e.kind === 'answered-requests') {
        io.err(t.answered({ ...e, steps }));
      }
    },
    stop: () => {
      endStream();
      clear();
    },
  };
}
