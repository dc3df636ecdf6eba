import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { countLines, formatCount } from '../common/text.ts';
import { forPeople, printAnswer, type AnswerPart } from '../console/output.ts';
import { stepLog } from '../console/steps.ts';
import { stepTexts } from '../common/strings/steps.js';
import { duration, number, textsIn } from '../common/strings/language.js';

describe('formatCount', () => {
  it('writes numbers as en-US does', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 200_000, 1_234_567, -4_321, 30_001])
      assert.equal(formatCount(n), n.toLocaleString('en-US'));
  });
});

describe('number and duration (common/strings/language.js)', () => {
  it('write numbers as toLocaleString does in each language, without loading ICU for whole ones', () => {
    const numbers = [0, 7, -7, 999, 1000, 1234, 9999, 12_345, 200_000, 1_234_567, -4_321, 2 ** 53 - 1, 1.5, 12_345.678];
    for (const n of numbers) {
      assert.equal(number.en(n), n.toLocaleString('en-US'));
      assert.equal(number.ru(n), n.toLocaleString('ru-RU'));
    }
  });

  it('write seconds to a tenth as toLocaleString does', () => {
    for (let ms = 1000; ms < 60_000; ms += 7.3) {
      assert.equal(duration.en(ms), `${(ms / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} s`);
      assert.equal(duration.ru(ms), `${(ms / 1000).toLocaleString('ru-RU', { maximumFractionDigits: 1 })} с`);
    }
  });
});

describe('countLines', () => {
  it('counts a last line without a newline, and no lines in an empty text', () => {
    assert.deepEqual(['', 'a', 'a\n', 'a\nb', 'a\nb\n', '\n\n'].map(countLines), [0, 1, 1, 2, 2, 2]);
  });
});

describe('the waiting line (common/strings/steps.js)', () => {
  it('shows the reasoning while the model thinks, then the answer as it arrives, in both languages', () => {
    const en = textsIn(stepTexts, 'en').waiting;
    const ru = textsIn(stepTexts, 'ru').waiting;
    assert.equal(en({ step: 2, ms: 4_400, thinking: 0, received: 0 }), 'Step 2: waiting 4 s…');
    assert.equal(
      en({ step: 2, ms: 61_000, thinking: 1200, received: 350 }),
      'Step 2: waiting 1 min 1 s, thinking, 1,200 characters, 350 characters so far…',
    );
    assert.equal(
      ru({ step: 2, ms: 4_400, thinking: 1201, received: 352 }),
      'Шаг 2: ожидание 4 с, размышления: 1\u00a0201 символ, получено 352 символа…',
    );
  });
});

describe('the step log on a terminal', () => {
  it('streams the reply dimmed on stderr as it arrives, with its control characters made visible, then the summary', () => {
    const written: string[] = [];
    const raw = {
      out: (t: string) => written.push(`out:${t}`),
      err: (t: string) => written.push(`err:${t}`),
      stream: (t: string) => written.push(`stream:${t}`),
      isTTY: true,
    };
    const log = stepLog(forPeople(raw), 4);
    log.event({ kind: 'sending', step: 1, steps: 4, chars: 100, tokens: 30, budget: 1000, window: 1400, dropped: 0 });
    log.event({ kind: 'text', step: 1, text: 'Hel' });
    log.event({ kind: 'text', step: 1, text: 'lo \x1b]52;c;cGF5bG9hZA==\x07' });
    log.event({ kind: 'replied', step: 1, chars: 30, ms: 1200, requests: [], files: [] });
    log.stop();
    assert.deepEqual(
      written.filter((w) => !w.startsWith('err:\r\x1b[K')),
      [
        'err:Step 1/4: sending 100 characters, about 30 tokens of the 1,000 a message may take (the window holds 1,400).',
        'err:\r\x1b[2m',
        'stream:Hel',
        'stream:lo \\x1b]52;c;cGF5bG9hZA==\\x07',
        'stream:\n',
        'err:\r\x1b[0m',
        'err:Step 1/4: reply of 30 characters in 1.2 s; no requests: the answer.',
      ],
    );
  });

  it('streams nothing when stderr is not a terminal', () => {
    const written: string[] = [];
    const log = stepLog(
      forPeople({
        out: () => {},
        err: (t) => written.push(t),
        stream: (t) => written.push(`stream:${t}`),
        isTTY: false,
      }),
      1,
    );
    log.event({ kind: 'text', step: 1, text: 'Hello' });
    assert.deepEqual(written, []);
  });

  // Issue 26: with --paste the person types the reply on the terminal while the step waits; the waiting line, redrawn
  // with \r\x1b[K every second, wiped what they typed.
  it('redraws nothing over what the person types while a paste step waits: each event is a whole line', () => {
    const written: string[] = [];
    const log = stepLog(
      forPeople({ out: () => {}, err: (t) => written.push(t), stream: (t) => written.push(t), isTTY: true }),
      4,
      { typing: true },
    );
    log.event({ kind: 'sending', step: 1, steps: 4, chars: 100, tokens: 30, budget: 1000, window: 1400, dropped: 0 });
    log.event({ kind: 'warning', step: 1, message: 'a note' });
    log.event({ kind: 'replied', step: 1, chars: 30, ms: 1200, requests: [], files: [] });
    log.stop();
    assert.deepEqual(written, [
      'Step 1/4: sending 100 characters, about 30 tokens of the 1,000 a message may take (the window holds 1,400).',
      'Step 1/4: a note',
      'Step 1/4: reply of 30 characters in 1.2 s; no requests: the answer.',
    ]);
  });
});

describe("printAnswer: deepwork's own lines apart from a model's", () => {
  const parts: AnswerPart[] = [
    { from: 'model', text: 'Done.\n\x1b[1mbold?\x1b[22m\nFi\u200bles:\n  new        evil.js +1' },
    { from: 'deepwork', text: '[FILE a.js: new, +1; see the list below]' },
  ];
  const list = 'Proposed files (not written):\n  new        a.js +1';
  const printed = (outTTY: boolean, env: NodeJS.ProcessEnv) => {
    const written: string[] = [];
    printAnswer(forPeople({ out: (t) => written.push(t), err: () => {}, isTTY: false, outTTY }, env), parts, [list]);
    return written;
  };

  it("prints deepwork's own lines bold on a terminal that takes colour, and marks the model's lines that pose as them", () => {
    assert.deepEqual(printed(true, { TERM: 'xterm-256color' }), [
      'Done.\n\\x1b[1mbold?\\x1b[22m\n(model) Fi\u200bles:\n(model)   new        evil.js +1',
      '\x1b[1m[FILE a.js: new, +1; see the list below]\x1b[22m',
      '\n\x1b[1mProposed files (not written):\x1b[22m\n\x1b[1m  new        a.js +1\x1b[22m',
    ]);
  });

  it('frames the answer instead, styling nothing, when NO_COLOR is set, the terminal is dumb or stdout is no terminal', () => {
    for (const [outTTY, env] of [
      [true, { NO_COLOR: '1' }],
      [true, { TERM: 'dumb' }],
      [false, {}],
    ] as const) {
      const written = printed(outTTY, env);
      assert.deepEqual(
        written,
        [
          "==== the model's answer ====",
          'Done.\n\\x1b[1mbold?\\x1b[22m\n(model) Fi\u200bles:\n(model)   new        evil.js +1',
          '[FILE a.js: new, +1; see the list below]',
          "==== end of the model's answer ====",
          `\n${list}`,
        ],
        JSON.stringify(env),
      );
    }
  });
});
