import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { countLines, formatCount } from '../common/text.ts';
import { receivedSoFar } from '../console/output.ts';

describe('formatCount', () => {
  it('writes numbers as en-US does', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 200_000, 1_234_567, -4_321, 30_001]) assert.equal(formatCount(n), n.toLocaleString('en-US'));
  });
});

describe('countLines', () => {
  it('counts a last line without a newline, and no lines in an empty text', () => {
    assert.deepEqual(['', 'a', 'a\n', 'a\nb', 'a\nb\n', '\n\n'].map(countLines), [0, 1, 1, 2, 2, 2]);
  });
});

describe('receivedSoFar (the waiting line)', () => {
  it('shows the reasoning while the model thinks, then the answer as it arrives', () => {
    assert.equal(receivedSoFar(0, 0), '');
    assert.equal(receivedSoFar(0, 1200), ', thinking, 1,200 characters');
    assert.equal(receivedSoFar(350, 1200), ', thinking, 1,200 characters, 350 characters so far');
    assert.equal(receivedSoFar(350, 0), ', 350 characters so far');
  });
});
