import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import {
  estimateTokens,
  estimateTokensUpTo,
  joinedTokens,
  WARM_AFTER_MS,
  warmSlices,
  warmWhileWaiting,
} from '../common/tokens.ts';
import { createConversation } from '../protocol/conversation.ts';
import type { Result } from '../protocol/results.ts';
import { INSTALL_DIR } from '../common/install.ts';
import * as samples from './token-samples.ts';

// The estimate against the real tokenizers (cl100k and o200k, a devDependency used only here): never below either.
function sources(): string {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'dist', '.git', 'corpus'].includes(entry.name)) continue;
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (/\.(ts|md)$/.test(entry.name)) out.push(fs.readFileSync(abs, 'utf8'));
    }
  };
  for (const dir of ['common', 'protocol', 'reading', 'writing', 'ui']) walk(path.join(INSTALL_DIR, dir));
  return out.join('\n');
}

describe('estimateTokens', () => {
  const texts: Array<[string, string]> = [
    ["deepwork's own sources", sources()],
    ['tab-indented C', samples.tabIndentedC],
    ['a C header of hex constants', samples.hexHeader],
    ['Go as gofmt writes it', samples.go],
    ['Python', samples.python],
    ['English prose', samples.englishProse],
    ['Russian prose', samples.russianProse],
    ['simplified Chinese', samples.simplifiedChinese],
    ['traditional Chinese', samples.traditionalChinese],
  ];
  for (const [name, text] of texts) {
    it(`comes out at or above cl100k and o200k on ${name}`, () => {
      const real = Math.max(cl100k(text).length, o200k(text).length);
      const estimate = estimateTokens(text);
      assert.ok(estimate >= real, `estimate ${estimate} is below the real ${real}`);
      // Above, but not so far that a budget built on it wastes half the window.
      assert.ok(estimate <= real * 1.5, `estimate ${estimate} is far above the real ${real}`);
    });
  }

  it('counts a character outside the basic plane once', () => {
    assert.equal(estimateTokens('😀'), estimateTokens('→'));
  });

  it('prices a text past what it may take no closer: at the rate of what it read, the same below it', () => {
    // Prose, then hex constants, which take far more tokens a character.
    const prose = samples.englishProse.repeat(20);
    const text = `${prose}\n${samples.hexHeader.repeat(20)}`;
    const whole = estimateTokens(text);
    assert.equal(estimateTokensUpTo(text, whole), whole, 'a text within it is priced whole');
    const most = Math.floor(estimateTokens(prose) / 2);
    const cut = estimateTokensUpTo(text, most);
    assert.ok(cut > most, `${cut} is not past ${most}`);
    // Read no further than the prose: the rest taken at its rate, well below the whole.
    assert.ok(cut < whole * 0.8, `${cut} against ${whole}`);
    assert.ok(cut >= Math.round((estimateTokens(prose) * text.length) / prose.length) * 0.9);
  });
});

describe('joinedTokens', () => {
  // Texts whose ends meet a line break in every way: words, digits, spaces, tabs, newlines, punctuation, nothing.
  const parts = [
    '',
    'word',
    'word ',
    ' word',
    '\tindented\n',
    '\n\n',
    '123',
    'x{',
    '}',
    '  ',
    '\t',
    'a\n',
    '\nb',
    '😀',
    'é',
  ];
  it('is never below the estimate of the parts joined by a line break or a blank line', () => {
    for (const a of parts)
      for (const b of parts)
        for (const c of parts)
          for (const join of ['\n', '\n\n']) {
            const whole = estimateTokens([a, b, c].join(join));
            const summed = joinedTokens([a, b, c].map(estimateTokens));
            assert.ok(summed >= whole, `${JSON.stringify([a, b, c, join])}: ${summed} < ${whole}`);
          }
  });

  it("is never below the estimate of a conversation's message, which is summed from its parts", () => {
    const conversation = createConversation({
      texts: {
        instructions: 'Ask with FIND.\n',
        reminder: 'Remember.',
        lastStep: 'Last step.',
        sameChat: 'Same chat.',
      },
      tree: 'src/\n  a.ts\n  b.ts',
      map: '=== MAP ===\nsrc/a.ts: a()',
      mapAfter: '',
      attached: [],
      question: 'Where is\ta defined?  ',
      window: { promptTokens: 20_000, windowTokens: 32_768 },
    });
    const results: Result[] = [
      { kind: 'list', request: 'LIST **/*.ts', mask: '**/*.ts', paths: ['src/a.ts', 'src/b.ts'], total: 2 },
      { kind: 'refused', request: 'NEED x', path: 'x', reason: 'it is outside the project folder' },
    ];
    for (let step = 1; step <= 3; step++) {
      const rendered = conversation.render(step, 3);
      assert.ok(rendered.tokens >= estimateTokens(rendered.message), `step ${step}`);
      conversation.add(step, `=== LIST: **/*.ts ===\n\t${samples.go.slice(0, 400)}`, results);
    }
  });
});

describe('warmWhileWaiting', () => {
  // The wait's start moved by the test (its timeout mocked); the slices after it are real turns of the event loop.
  const clock = () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    return { tick: (ms: number) => mock.timers.tick(ms), [Symbol.dispose]: () => mock.timers.reset() };
  };
  const turns = async (count: number) => {
    for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  };

  it('warms nothing for a reply that comes at once', async () => {
    using time = clock();
    const before = warmSlices();
    const stop = warmWhileWaiting();
    time.tick(WARM_AFTER_MS - 1);
    await turns(5);
    stop();
    time.tick(1000);
    await turns(5);
    assert.equal(warmSlices(), before);
  });

  it('prices a slice a turn while waiting, stops when told, goes on at the next wait, and is done once a process', async () => {
    using time = clock();
    const before = warmSlices();
    const stop = warmWhileWaiting();
    time.tick(WARM_AFTER_MS);
    await turns(2);
    const some = warmSlices();
    assert.ok(some > before, `${before} -> ${some}`);
    stop();
    await turns(5);
    assert.equal(warmSlices(), some, 'nothing after the reply came');
    // The next wait goes on until the slices are done; a wait after that warms nothing.
    warmWhileWaiting();
    time.tick(WARM_AFTER_MS);
    await turns(100);
    const done = warmSlices();
    assert.ok(done > some);
    warmWhileWaiting();
    time.tick(WARM_AFTER_MS);
    await turns(5);
    assert.equal(warmSlices(), done);
  });
});
