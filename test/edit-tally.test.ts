import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addToTally, loadTally } from '../saved/edit-tally.ts';
import { createExecutor } from '../reading/executor.ts';
import { runLoop } from '../protocol/loop.ts';
import type { Bridge } from '../protocol/contract.ts';
import { loadTexts } from '../protocol/transcript.ts';
import { runQuestion } from '../app/question.ts';
import { tempFolder } from './helpers.ts';

function scripted(replies: string[], model?: string): Bridge & { seen: string[] } {
  const seen: string[] = [];
  return {
    label: 'scripted',
    ...(model === undefined ? {} : { model }),
    seen,
    chat: (message) => {
      seen.push(message);
      return Promise.resolve({ text: replies[seen.length - 1] ?? 'Done.' });
    },
  };
}

const edit = (path: string, search: string, replace: string) =>
  `=== EDIT: ${path} ===\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n=== END ===`;

const small = Array.from({ length: 30 }, (_, i) => `const v${i + 1} = ${i + 1};`).join('\n');
const big = Array.from({ length: 400 }, (_, i) => `export const value${i + 1} = compute(${i + 1});`).join('\n');
const root = tempFolder({ 'small.js': `${small}\n`, 'big.js': `${big}\n` });

function loop(replies: string[]) {
  const bridge = scripted(replies);
  const executor = createExecutor(root);
  const run = runLoop({ bridge, executor, texts: loadTexts(executor.limits), question: 'Change it.', steps: 5 });
  return { bridge, run };
}

describe('EDITs of one file that do not apply twice', () => {
  it('tell the model at the first miss to fix the SEARCH, and at the second to send a short file whole', async () => {
    const { bridge, run } = loop([
      edit('small.js', 'const v15 = 16;', 'const v15 = 0;'),
      edit('small.js', 'const v15 = 17;', 'const v15 = 0;'),
      'Sent.',
    ]);
    const outcome = await run;
    assert.match(bridge.seen[1] ?? '', /Send it again with the SEARCH fixed/);
    assert.doesNotMatch(bridge.seen[1] ?? '', /did not apply twice/);
    const second = bridge.seen[2] ?? '';
    assert.match(
      second,
      /EDITs of small\.js did not apply twice in this run\. It is short \(30 lines\): send it whole as a FILE block instead/,
    );
    // The closest lines (13 to 17 at the first miss) and ten more either side, numbered as the file is.
    assert.match(bridge.seen[1] ?? '', /now:\n13 \| const v13 = 13;\n[\s\S]*\n17 \| const v17 = 17;\nNothing/);
    assert.match(
      second,
      /now:\n3 \| const v3 = 3;\n[\s\S]*\n15 \| const v15 = 15;\n[\s\S]*\n27 \| const v27 = 27;\nNothing/,
    );
    assert.deepEqual(outcome.edits, { applied: 0, missed: 2 });
  });

  it('stop the run when the very same EDIT comes back after it did not apply: the model is stuck', async () => {
    const same = edit('small.js', 'const v15 = 16;', 'const v15 = 0;');
    const { bridge, run } = loop([same, same, 'never sent']);
    const outcome = await run;
    assert.equal(outcome.stop, 'repeat');
    assert.equal(bridge.seen.length, 2);
  });

  it('point a long file to its numbered lines and to NEED the range again, and count what applied', async () => {
    const { bridge, run } = loop([
      edit('big.js', 'export const value200 = compute(201);', 'x'),
      [
        edit('big.js', 'export const value200 = compute(202);', 'x'),
        edit('small.js', 'const v1 = 1;', 'const v1 = 0;'),
      ].join('\n'),
      'Sent.',
    ]);
    const outcome = await run;
    const second = bridge.seen[2] ?? '';
    assert.match(
      second,
      /EDITs of big\.js did not apply twice in this run\. Copy each SEARCH from the numbered lines above, without their numbers, one pair at a time; or NEED big\.js:188-212 again first\./,
    );
    assert.doesNotMatch(second, /send it whole/);
    assert.deepEqual(outcome.edits, { applied: 1, missed: 2 });
  });
});

describe('the EDIT tally per model', () => {
  it('adds each run to its model, keeps models apart, and writes nothing for a run without EDITs', () => {
    const state = tempFolder();
    assert.deepEqual(addToTally(state, 'm1', { applied: 3, missed: 1 }), { applied: 3, missed: 1 });
    const file = path.join(state, 'edit-tally.json');
    const written = fs.readFileSync(file, 'utf8');
    assert.deepEqual(addToTally(state, 'm1', { applied: 0, missed: 0 }), { applied: 3, missed: 1 });
    assert.equal(fs.readFileSync(file, 'utf8'), written);
    assert.deepEqual(addToTally(state, 'm1', { applied: 1, missed: 1 }), { applied: 4, missed: 2 });
    addToTally(state, 'm2', { applied: 0, missed: 5 });
    const tally = loadTally(state);
    assert.deepEqual([...tally].map(([m, t]) => [m, t.applied, t.missed]).sort(), [
      ['m1', 4, 2],
      ['m2', 0, 5],
    ]);
    assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
  });

  it('starts afresh over a file it did not write, and keeps the 50 models used last', () => {
    const state = tempFolder({ 'edit-tally.json': '{"models": {"m": {"applied": -1, "missed": "x"}}' });
    assert.deepEqual(loadTally(state).size, 0);
    for (let i = 0; i < 55; i++)
      addToTally(state, `m${i}`, { applied: i, missed: 0 }, new Date(Date.UTC(2026, 0, 1, 0, i)));
    const tally = loadTally(state);
    assert.equal(tally.size, 50);
    assert.ok(!tally.has('m4') && tally.has('m5') && tally.has('m54'));
  });

  it('is kept by a question whose bridge names its model, and reported with the run', async () => {
    const state = tempFolder();
    const ask = async () => {
      const executor = createExecutor(root);
      try {
        return await runQuestion({
          bridge: scripted([edit('small.js', 'const v2 = 9;', 'x'), edit('small.js', 'const v2 = 2;', 'y')], 'm'),
          executor,
          question: 'Change it.',
          steps: 3,
          stateDir: state,
          backupDir: tempFolder(),
          earlier: [],
          conversationId: 'c1',
        });
      } finally {
        await executor.close();
      }
    };
    const first = await ask();
    assert.deepEqual(first.edits, { model: 'm', run: { applied: 1, missed: 1 }, all: { applied: 1, missed: 1 } });
    const second = await ask();
    assert.deepEqual(second.edits?.all, { applied: 2, missed: 2 });
  });
});
