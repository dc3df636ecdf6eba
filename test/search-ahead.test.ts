import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readAhead, type Hold } from '../reading/search/ahead.ts';
import { createFinder, type SearchFile } from '../reading/search/finder.ts';
import { createKeeper, type Keeper } from '../reading/search/keeper.ts';
import { CHUNK_FILES, closeOwners, newOwners } from '../reading/search/plan.ts';
import { placesOf } from '../reading/search/places.ts';
import { tempFolder } from './helpers.ts';

// Three chunks and a bit of small files, each holding its own name and a version.
function folderOf(count: number, size = 0): { root: string; files: SearchFile[] } {
  const root = tempFolder({}, 'deepwork-ahead-', true);
  const files: SearchFile[] = [];
  for (let f = 0; f < count; f++) {
    const rel = `f${f}.js`;
    fs.writeFileSync(path.join(root, rel), `${rel} v1\n${'x'.repeat(size)}`);
    files.push({ rel });
  }
  return { root, files };
}

// Writes every file again with a new version: a file kept before answers with its old one.
function rewrite(root: string, files: readonly SearchFile[], version: string): void {
  for (const f of files) fs.writeFileSync(path.join(root, f.rel), `${f.rel} ${version}\n`);
}

// The version of file i as the keeper gives it: kept, or read now.
function versionOf(keeper: Keeper, i: number): string {
  const bytes = keeper.bytesOf(i);
  return Buffer.isBuffer(bytes) ? (bytes.toString().split('\n')[0]?.split(' ')[1] ?? '') : String(bytes);
}

const noHold = (): Hold => new Int32Array(new SharedArrayBuffer(4));

function keeperOf(root: string, files: readonly SearchFile[], budget = 4 << 20): Keeper {
  const keeper = createKeeper(budget);
  keeper.reset(placesOf(root, files));
  return keeper;
}

describe('readAhead', () => {
  it('reads every chunk it claims into the keeper, from the first chunk on', async () => {
    const { root, files } = folderOf(3 * CHUNK_FILES + 10);
    const keeper = keeperOf(root, files);
    const owner = new Int8Array(newOwners(files.length));
    const ahead = readAhead(keeper, { count: files.length, owner, me: 0 }, noHold());
    assert.equal(await ahead.idle(), 'done');
    assert.deepEqual([...owner], [0, 0, 0, 0]);
    rewrite(root, files, 'v2');
    // Kept as they were when read ahead.
    assert.ok(files.every((_, i) => versionOf(keeper, i) === 'v1'));
    keeper.drop();
  });

  it('shares the chunks with another searcher: each chunk read once, by the one that claimed it', async () => {
    const { root, files } = folderOf(8 * CHUNK_FILES);
    const owner = new Int8Array(newOwners(files.length));
    const [zero, one] = [keeperOf(root, files), keeperOf(root, files)];
    const aheads = [zero, one].map((keeper, me) => readAhead(keeper, { count: files.length, owner, me }, noHold()));
    assert.deepEqual(await Promise.all(aheads.map((a) => a.idle())), ['done', 'done']);
    rewrite(root, files, 'v2');
    files.forEach((_, i) => {
      const me = owner[Math.floor(i / CHUNK_FILES)] ?? -1;
      assert.ok(me === 0 || me === 1, `chunk of file ${i} claimed`);
      // Its searcher kept it; the other reads it now.
      const [mine, other] = me === 0 ? [zero, one] : [one, zero];
      assert.equal(versionOf(mine, i), 'v1', `file ${i} kept by ${me}`);
      assert.equal(versionOf(other, i), 'v2', `file ${i} not kept by ${1 - me}`);
    });
    zero.drop();
    one.drop();
  });

  it('reads nothing while a step is held, and goes on when resumed', async () => {
    const { root, files } = folderOf(2 * CHUNK_FILES);
    const keeper = keeperOf(root, files);
    const owner = new Int8Array(newOwners(files.length));
    const hold = noHold();
    Atomics.store(hold, 0, 1);
    const ahead = readAhead(keeper, { count: files.length, owner, me: 0 }, hold);
    assert.equal(await ahead.idle(), 'paused');
    assert.deepEqual([...owner], [-1, -1]);
    rewrite(root, files, 'v2');
    // Resumed while still held: it pauses again at once.
    ahead.resume();
    assert.equal(await ahead.idle(), 'paused');
    Atomics.store(hold, 0, 0);
    ahead.resume();
    assert.equal(await ahead.idle(), 'done');
    assert.deepEqual([...owner], [0, 0]);
    rewrite(root, files, 'v3');
    assert.ok(files.every((_, i) => versionOf(keeper, i) === 'v2'));
    keeper.drop();
  });

  it('makes ready the memory it keeps files in as it goes, not the whole budget', async () => {
    // 2 MB of files under a budget of 32 MB: what is touched follows what is kept, a little ahead of it.
    const { root, files } = folderOf(2 * CHUNK_FILES, 4 << 10);
    const kept = files.reduce((n, f) => n + fs.statSync(path.join(root, f.rel)).size, 0);
    const keeper = keeperOf(root, files, 32 << 20);
    const owner = new Int8Array(newOwners(files.length));
    const ahead = readAhead(keeper, { count: files.length, owner, me: 0 }, noHold());
    assert.equal(await ahead.idle(), 'done');
    rewrite(root, files, 'v2');
    assert.ok(
      files.every((_, i) => versionOf(keeper, i) === 'v1'),
      'every file kept',
    );
    assert.ok(keeper.made() >= kept, `made ${keeper.made()} of ${kept} kept`);
    assert.ok(keeper.made() <= kept + (4 << 20), `made ${keeper.made()} for ${kept} kept`);
    assert.equal(keeper.room(), (32 << 20) - kept);
    keeper.drop();
  });

  it('stops when its memory is spent, leaving the chunks after it to whoever comes', async () => {
    // 4 KB files in 32 KB: a few fit, then the room left is too small to go on.
    const { root, files } = folderOf(3 * CHUNK_FILES, 4 << 10);
    const keeper = keeperOf(root, files, 32 << 10);
    const owner = new Int8Array(newOwners(files.length));
    const ahead = readAhead(keeper, { count: files.length, owner, me: 0 }, noHold());
    assert.equal(await ahead.idle(), 'done');
    assert.deepEqual([...owner], [0, -1, -1]);
    assert.ok(keeper.room() < 16 << 10, `room left ${keeper.room()}`);
    rewrite(root, files, 'v2');
    assert.equal(versionOf(keeper, 0), 'v1');
    assert.equal(versionOf(keeper, CHUNK_FILES - 1), 'v2');
    keeper.drop();
  });

  it("reads nothing once stopped, not even the keeper's next files", async () => {
    const { root, files } = folderOf(CHUNK_FILES);
    const keeper = keeperOf(root, files);
    const owner = new Int8Array(newOwners(files.length));
    const ahead = readAhead(keeper, { count: files.length, owner, me: 0 }, noHold());
    // Stopped before its memory is ready, then the keeper is given another run's files.
    ahead.stop();
    keeper.reset(placesOf(root, files));
    await keeper.prepare();
    assert.equal(await ahead.idle(), 'done');
    assert.deepEqual([...owner], [-1]);
    rewrite(root, files, 'v2');
    assert.ok(files.every((_, i) => versionOf(keeper, i) === 'v2'));
    keeper.drop();
  });

  it('claims nothing of a run that is over', async () => {
    const { root, files } = folderOf(2 * CHUNK_FILES);
    const keeper = keeperOf(root, files);
    const owners = newOwners(files.length);
    closeOwners(owners);
    const ahead = readAhead(keeper, { count: files.length, owner: new Int8Array(owners), me: 1 }, noHold());
    assert.equal(await ahead.idle(), 'done');
    rewrite(root, files, 'v2');
    assert.ok(files.every((_, i) => versionOf(keeper, i) === 'v2'));
    keeper.drop();
  });
});

describe('a finder reading ahead', () => {
  // Enough files for the worker; a common text in every seventh, a rare one in the last.
  const root = tempFolder({}, 'deepwork-ahead-finder-', true);
  const files: SearchFile[] = [];
  for (let f = 0; f < 5_000; f++) {
    const rel = `d${f % 50}/f${f}.js`;
    fs.mkdirSync(path.join(root, `d${f % 50}`), { recursive: true });
    fs.writeFileSync(
      path.join(root, rel),
      `${f % 7 === 0 ? 'common();\n' : '// nothing\n'}${f === 4_999 ? 'rare();\n' : ''}`,
    );
    files.push({ rel });
  }
  const options = { maxHits: 100, lineChars: 200 };
  const texts = ['common()', 'rare()', 'nowhere'];

  it('finds what a finder without a worker or read ahead finds, held or not, warmed or not', async () => {
    const alone = createFinder(root, { workers: 0 });
    const finder = createFinder(root, { workers: 1 });
    try {
      const expected = await alone.find(files, texts, options);
      // Warmed, then asked at once and held, as a step after a reply at once: the read ahead has barely begun.
      finder.warm(files);
      finder.hold();
      assert.deepEqual(await finder.find(files, texts, options), expected);
      finder.release();
      // Released twice: the count stays at zero, and a later hold still holds.
      finder.release();
      finder.hold();
      assert.deepEqual(await finder.find(files, texts.slice(0, 1), options), expected.slice(0, 1));
      finder.release();
      assert.deepEqual(await finder.find(files, texts, options), expected);
      // A new run of the same files: read afresh.
      finder.reset();
      finder.warm(files);
      assert.deepEqual(await finder.find(files, texts, options), expected);
    } finally {
      await Promise.all([finder.close(), alone.close()]);
    }
  });
});
