// protocol/requests.ts and protocol/kinds/: the table of request kinds, and everything that derives from it — the
// markers, the parser's look for markup, the instructions, the fix for a line not understood, the step log's name.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeRequest, kindOf, requestForms, requestKinds, requestLine, synonyms } from '../protocol/requests.ts';
import { parseReply } from '../protocol/parse.ts';
import { loadTexts } from '../protocol/transcript.ts';
import { renderResult } from '../protocol/results.ts';
import { defaultLimits } from '../protocol/contract.ts';

describe('the request kinds', () => {
  const texts = loadTexts(defaultLimits);

  it('are taught in the instructions, each with its example, and named in both reminders and the last step', () => {
    for (const kind of requestKinds) {
      const { keyword, teach } = kindOf(kind);
      assert.ok(texts.instructions.includes(teach), `${keyword}'s lines are in the instructions`);
      assert.ok(texts.reminder.includes(`=== ${keyword}: ${kindOf(kind).form} ===`), `${keyword} is in the reminder`);
      assert.ok(
        texts.sameChat.includes(`=== ${keyword}: ${kindOf(kind).form} ===`),
        `${keyword} is in the same chat's`,
      );
      assert.ok(texts.lastStep.includes(keyword), `${keyword} is in the last step's notice`);
    }
    assert.doesNotMatch(
      `${texts.instructions}${texts.reminder}${texts.lastStep}${texts.sameChat}`,
      /\{(requests|forms|keywords|\w+Chars|\w+Paths|\w+Hits)\}/,
    );
  });

  it('read their own example requests back, as written and bare, and name them as the model writes them', () => {
    for (const kind of requestKinds) {
      const example = kindOf(kind).teach.split('\n')[0] ?? '';
      const [request] = parseReply(example).requests;
      assert.equal(request?.kind, kind, example);
      if (request !== undefined)
        assert.equal(requestLine(request), `=== ${describeRequest(request).replace(' ', ': ')} ===`);
      // `NEED: a.js` without markers is read as an attempt, and its fix is the request as it should be written.
      const bare = example.replace(/^=== /, '').replace(/ ===$/, '');
      const [unclear] = parseReply(bare).unclear;
      assert.equal(unclear?.fix, example, bare);
    }
  });

  it('answer a synonym with the keyword to use, and every synonym means one kind', () => {
    for (const [word, kind] of synonyms) {
      const [unclear] = parseReply(`=== ${word.toUpperCase()}: x ===`).unclear;
      assert.match(
        unclear?.problem ?? '',
        new RegExp(`there is no ${word.toUpperCase()} request; ${kindOf(kind).keyword} does that`),
      );
    }
  });

  it('are all offered in the fix for a line that means a request and says too little', () => {
    const text = renderResult({
      kind: 'unclear',
      request: 'line 1',
      line: 1,
      text: '=== ===',
      problem: 'it names no request',
      fix: undefined,
    });
    for (const form of requestForms()) assert.ok(text.includes(form), form);
  });
});
