import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createFinder, type SearchFile } from '../reading/search/finder.ts';
import { readReply, readToWorker } from '../reading/search/messages.ts';
import { newLimits, newOwners } from '../reading/search/plan.ts';
import { BY_PATH, folderPath, filePath, poolOf, ROOT } from '../reading/search/places.ts';
import { tempFolder } from './helpers.ts';

// 2,600 files: enough for the worker to take a share.
const root = tempFolder({}, 'deepwork-workers-', true);
const files: SearchFile[] = [];
for (let f = 0; f < 2_600; f++) {
  const rel = `f${f}.js`;
  fs.writeFileSync(
    path.join(root, rel),
    `${f % 7 === 0 ? 'common();\n' : '// nothing\n'}${f === 2_599 ? 'needle_rare();\n' : ''}`,
  );
  files.push({ rel });
}
const options = { maxHits: 100, lineChars: 200 };
const texts = ['common()', 'needle_rare', 'nowhere'];
const alone = createFinder(root, { workers: 0 });
after(() => alone.close());

// Worker modules written for a test, beside each other in one temp folder. `claiming`: a worker that, given the run's
// files, claims every chunk before the main thread can reach one, so that the search is left to it; it then tells the
// test so. `onSearch` is the body of what it does when asked to search (`message` in scope).
const modules = tempFolder({}, 'deepwork-worker-modules-');
const realWorker = new URL('../reading/search/worker.js', import.meta.url).href;
function workerModule(name: string, lines: readonly string[]): URL {
  const file = path.join(modules, `${name}.mjs`);
  fs.writeFileSync(file, `import { parentPort } from 'node:worker_threads';\n${lines.join('\n')}\n`);
  return pathToFileURL(file);
}
function claiming(name: string, onSearch: string, real = false): URL {
  return workerModule(name, [
    ...(real ? [`import ${JSON.stringify(realWorker)};`] : []),
    "parentPort.on('message', (message) => {",
    "  if (message.kind === 'assign') {",
    '    const owner = new Int8Array(message.owners);',
    '    for (let c = 0; c < owner.length; c++) Atomics.store(owner, c, 1);',
    "    parentPort.postMessage({ kind: 'claimed' });",
    "  } else if (message.kind === 'search') {",
    `    ${onSearch}`,
    '  }',
    '});',
  ]);
}

// The next worker thread this process starts (Node tells `process` of each one).
function nextWorker(): Promise<Worker> {
  return new Promise((resolve) => process.once('worker', resolve));
}
function said(worker: Worker, kind: string): Promise<void> {
  return new Promise((resolve) => {
    const hear = (message: unknown) => {
      if (typeof message === 'object' && message !== null && 'kind' in message && message.kind === kind) {
        worker.off('message', hear);
        resolve();
      }
    };
    worker.on('message', hear);
  });
}
// The finder unrefs its idle worker: the test holds the process open while it waits for the worker to end.
function exited(worker: Worker): Promise<void> {
  worker.ref();
  return new Promise((resolve) => worker.once('exit', () => resolve()));
}

describe('a finder whose worker fails', () => {
  // A guard, not a measure: a finder waiting for ever on a dead worker fails here instead of holding up the suite.
  const guard = { timeout: 60_000 };

  const answers: Array<[string, string]> = [
    ['exits when asked', 'process.exit(1);'],
    ['answers with an error', "parentPort.postMessage({ kind: 'error', message: 'out of luck' });"],
    [
      'answers with hits that are not hits',
      "parentPort.postMessage({ kind: 'result', id: message.id, hits: [[0, 0, 'one', 'made up']] });",
    ],
    ['answers with something that is not a reply', "parentPort.postMessage('made up');"],
  ];
  for (const [what, onSearch] of answers) {
    it(
      `gives the main thread's hits when the worker that holds every chunk ${what}, and later searches still work`,
      guard,
      async () => {
        const finder = createFinder(root, { workers: 1, workerModule: claiming(what.replaceAll(' ', '-'), onSearch) });
        try {
          const started = nextWorker();
          finder.warm(files);
          await said(await started, 'claimed');
          assert.deepEqual(await finder.find(files, texts, options), await alone.find(files, texts, options));
          assert.deepEqual(
            await finder.find(files, ['needle_rare'], options),
            await alone.find(files, ['needle_rare'], options),
          );
        } finally {
          await finder.close();
        }
      },
    );
  }

  const starts: Array<[string, URL]> = [
    ['throws as it loads', workerModule('throws', ["throw new Error('cannot start');"])],
    ['is not there', pathToFileURL(path.join(modules, 'missing.mjs'))],
  ];
  for (const [what, workerModuleUrl] of starts) {
    it(`survives a warmed worker that ${what}, and searches on the main thread alone`, guard, async () => {
      const finder = createFinder(root, { workers: 1, workerModule: workerModuleUrl });
      try {
        const started = nextWorker();
        finder.warm(files);
        // Its 'error' comes with no search out to hear it: it used to end the process.
        await exited(await started);
        assert.deepEqual(await finder.find(files, texts, options), await alone.find(files, texts, options));
        assert.deepEqual(
          await finder.find(files, ['needle_rare'], options),
          await alone.find(files, ['needle_rare'], options),
        );
      } finally {
        await finder.close();
      }
    });
  }

  it('searches afresh when the worker that holds the kept chunks was terminated between searches', guard, async () => {
    // A real worker that claims every chunk: it answers the first search alone, and keeps its chunks for the next.
    const finder = createFinder(root, { workers: 1, workerModule: claiming('real', '', true) });
    try {
      const started = nextWorker();
      finder.warm(files);
      const worker = await started;
      await said(worker, 'claimed');
      assert.deepEqual(await finder.find(files, texts, options), await alone.find(files, texts, options));
      // Gone before the next search is asked of it: that search used to wait for an answer that could never come.
      worker.ref();
      await worker.terminate();
      assert.deepEqual(await finder.find(files, texts, options), await alone.find(files, texts, options));
      assert.deepEqual(
        await finder.find(files, ['needle_rare'], options),
        await alone.find(files, ['needle_rare'], options),
      );
    } finally {
      await finder.close();
    }
  });
});

describe("a finder's warm-up", () => {
  // Whether the process started a worker thread while watched.
  function watchWorkers(): { started: () => boolean; stop: () => void } {
    let started = false;
    const note = () => {
      started = true;
    };
    process.on('worker', note);
    return { started: () => started, stop: () => process.off('worker', note) };
  }
  // Enough turns of the loop for the warm-up's tasks to have run, had they not waited.
  async function turns(count: number): Promise<void> {
    for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
  }

  it('waits while the finder is held (a first message waiting for the map), and starts once it is released', async () => {
    const finder = createFinder(root, { workers: 1, workerModule: claiming('held', '', true) });
    const watch = watchWorkers();
    try {
      finder.hold();
      finder.warm(files);
      await turns(20);
      watch.stop();
      assert.equal(watch.started(), false, 'no worker started while held');
      const started = nextWorker();
      finder.release();
      await said(await started, 'claimed');
    } finally {
      watch.stop();
      await finder.close();
    }
  });

  it('starts nothing once closed, when the hold it waited behind is released after', async () => {
    const finder = createFinder(root, { workers: 1, workerModule: claiming('held-closed', '', true) });
    const watch = watchWorkers();
    try {
      finder.hold();
      finder.warm(files);
      await turns(5);
      await finder.close();
      finder.release();
      await turns(20);
      assert.equal(watch.started(), false);
    } finally {
      watch.stop();
    }
  });
});

describe('readReply', () => {
  it('takes the hits of the search that waits, and passes over the late result of an earlier one', () => {
    assert.deepEqual(readReply({ kind: 'result', id: 7, hits: [[0, 3, 12, 'a line']] }, 7), {
      kind: 'hits',
      hits: [[0, 3, 12, 'a line']],
    });
    assert.deepEqual(readReply({ kind: 'result', id: 6, hits: [] }, 7), { kind: 'earlier' });
  });

  it("refuses a reply it cannot read, and passes on the worker's own error", () => {
    const cases: Array<[unknown, string]> = [
      [{ kind: 'result', id: 7, hits: [[0, 3, '12', 'a line']] }, 'a malformed result'],
      [{ kind: 'result', id: 7, hits: [[0, 3, 12]] }, 'a malformed result'],
      [{ kind: 'result', id: 7, hits: 'none' }, 'a malformed result'],
      [{ kind: 'result', id: '7', hits: [] }, 'a malformed reply'],
      [{ kind: 'results', id: 7, hits: [] }, 'a malformed reply'],
      [{ type: 'result', id: 7, hits: [] }, 'a malformed reply'],
      ['result', 'a malformed reply'],
      [null, 'a malformed reply'],
      [{ kind: 'error', message: 'unknown message' }, 'unknown message'],
    ];
    for (const [reply, message] of cases)
      assert.deepEqual(readReply(reply, 7), { kind: 'failed', message }, JSON.stringify(reply));
  });
});

describe('readToWorker', () => {
  const owners = newOwners(10);
  const limits = newLimits(1);
  const job = { texts: ['a'], maxHits: 5, lineChars: 80, fold: [false] };

  const pool = poolOf('/p', [{ rel: 'a.js' }, { rel: 'src/b.js', target: '/p/q/b.js' }]).shared;
  const hold = new SharedArrayBuffer(4);

  it('reads the three messages a worker is sent', () => {
    const assign = { kind: 'assign', pool, owners, me: 1, hold };
    assert.deepEqual(readToWorker(assign), assign);
    const search = { kind: 'search', id: 1, me: 1, job, limits };
    assert.deepEqual(readToWorker(search), search);
    assert.deepEqual(readToWorker({ kind: 'resume' }), { kind: 'resume' });
  });

  it('refuses anything else', () => {
    const cases: unknown[] = [
      { kind: 'assign', pool: { ...pool, root: 2 }, owners, me: 1, hold },
      { kind: 'assign', pool: { ...pool, files: 3 }, owners, me: 1, hold },
      { kind: 'assign', pool: { ...pool, bytes: new ArrayBuffer(1) }, owners, me: 1, hold },
      { kind: 'assign', pool, owners: new ArrayBuffer(1), me: 1, hold },
      { kind: 'assign', pool, owners, hold },
      { kind: 'assign', pool, owners, me: 1 },
      { kind: 'assign', pool, owners, me: 1, hold: new SharedArrayBuffer(8) },
      { kind: 'resumed' },
      { kind: 'search', id: 1, me: 1, job: { ...job, fold: [1] }, limits },
      { kind: 'search', id: 1, me: 1, job: { ...job, texts: 'a' }, limits },
      { kind: 'search', id: 1, me: 1, job: { texts: ['a'], maxHits: 5, lineChars: 80 }, limits },
      { kind: 'search', id: 1, me: '1', job, limits },
      { kind: 'search', id: 1, me: 1, job, limits: new Int32Array(limits) },
      { type: 'search', id: 1, me: 1, job, limits },
      'search',
    ];
    for (const message of cases) assert.equal(readToWorker(message), undefined, String(JSON.stringify(message)));
  });
});

describe('the bundled search worker', () => {
  it('searches the chunks it claims and answers with their hits', async () => {
    const worker = new Worker(new URL('../bundle/worker.js', import.meta.url), { workerData: { cacheBytes: 1 << 20 } });
    try {
      const owners = newOwners(files.length);
      const hold = new SharedArrayBuffer(4);
      worker.postMessage({ kind: 'assign', pool: poolOf(root, files).shared, owners, me: 1, hold });
      const job = { texts: ['needle_rare'], maxHits: 5, lineChars: 200, fold: [false] };
      const reply = new Promise<unknown>((resolve) => worker.once('message', resolve));
      worker.postMessage({ kind: 'search', id: 1, me: 1, job, limits: newLimits(1) });
      assert.deepEqual(readReply(await reply, 1), { kind: 'hits', hits: [[0, 2_599, 2, 'needle_rare();']] });
      // Nobody else searched: every chunk is the worker's now.
      assert.ok(new Int8Array(owners).every((owner) => owner === 1));
    } finally {
      worker.ref();
      await worker.terminate();
    }
  });
});

describe('poolOf', () => {
  it('holds every path, files then folders, in batches and across names that are not ASCII', () => {
    const files: SearchFile[] = [];
    for (let i = 0; i < 9_000; i++) {
      const dir = i % 3 === 0 ? `ü${i % 7}/sub` : `d${i % 11}`;
      files.push({ rel: `${dir}/${i % 5 === 0 ? 'файл' : 'file'}${i}.js` });
    }
    files.push({ rel: 'link.js', target: '/elsewhere/ß.js' });
    const pool = poolOf('/p', files);
    files.forEach((f, i) => {
      const expected = f.target ?? path.join('/p', f.rel);
      assert.equal(filePath(pool, i).toString(), expected, `file ${i}`);
    });
    for (let f = 0; f < pool.folders; f++) {
      const folder = folderPath(pool, f).toString();
      assert.ok(folder.startsWith('/p/'), folder);
      const parent = pool.parentOf[f] ?? ROOT;
      assert.equal(path.dirname(folder), parent === ROOT ? '/p' : folderPath(pool, parent).toString());
    }
    assert.equal(pool.folderOf[files.length - 1], BY_PATH);
  });
});
