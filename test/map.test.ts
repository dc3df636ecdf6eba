// The map of the code in the first message (reading/map/, protocol/code-map.ts): files ranked by a graph of who uses
// what, personalised by the question and the attached files; made from a cache when the files are unchanged; waited
// for about a second, else sent with the next step's results; never at the cost of the instructions or the question.

import { after, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createExecutor, type Executor } from '../reading/executor.ts';
import { finished, rankFiles, rankingOf, type MapSource } from '../reading/map/graph.ts';
import { readCache } from '../reading/map/cache.ts';
import { readTies, tiesBytes, tiesKey, tying } from '../reading/map/ties.ts';
import { mapStore, TIES_KEPT } from '../saved/map-cache.ts';
import { folderKey } from '../saved/folder-key.ts';
import { createBackground } from '../reading/map/background.ts';
import type { MapStore } from '../reading/map/cache.ts';
import { mapBudget, mapLines } from '../protocol/code-map.ts';
import { runLoop, windowOf } from '../protocol/loop.ts';
import { loadTexts } from '../protocol/transcript.ts';
import type { Bridge, MapFile, Reader } from '../protocol/contract.ts';
import { scriptedBridge, tempFolder } from './helpers.ts';
import { createMapper } from '../reading/map/mapper.ts';
import { candidates, MAX_FILES } from '../reading/map/candidates.ts';
import { createSandbox } from '../reading/sandbox.ts';
import { walk } from '../reading/walk.ts';
import type { Folder } from '../reading/answer/step.ts';
import type { Finder } from '../reading/search/finder.ts';
import type { ParseOutcome } from '../reading/outline/parsers.ts';

function source(rel: string, defs: string[], uses: Record<string, number>): MapSource {
  return {
    rel,
    defs: defs.map((name, i) => ({ name, first: i * 10 + 1, last: i * 10 + 5, depth: 0 })),
    refs: Object.entries(uses)
      .map(([word, count]) => `${word} ${count}`)
      .join(' '),
  };
}

// A parse that defines nothing; and a folder of `box`'s walk whose parser is `parse` and whose finder is held and
// released as `finder` says (the map's own parts, without the executor's).
const PARSED: ParseOutcome = {
  kind: 'parsed',
  lines: 1,
  defs: [],
  errors: false,
  gaveUp: undefined,
  capped: false,
  refs: [],
};

function fakeFolder(
  box: ReturnType<typeof createSandbox>,
  parse: (language: string, text: string) => Promise<ParseOutcome>,
  finder: Pick<Finder, 'hold' | 'release'> = { hold: () => {}, release: () => {} },
): Folder {
  const { entries } = walk(box);
  return {
    entries: () => entries,
    files: () => entries.filter((e) => e.kind === 'file'),
    searchable: () => [],
    searchableHead: () => undefined,
    paths: () => {
      throw new Error('not used');
    },
    finder: {
      find: () => Promise.resolve([]),
      warm: () => {},
      reset: () => {},
      close: () => Promise.resolve(),
      ...finder,
    },
    parsers: () => ({ parse, expect: () => () => {}, close: () => Promise.resolve() }),
  };
}

// A known graph: the app uses the server and the store; the server uses the store and the logger; the logger and the
// mailer use nothing; the report uses the mailer.
const GRAPH = [
  source('src/app.ts', ['startApp'], { startServer: 2, openStore: 1 }),
  source('src/server.ts', ['startServer', 'handleRequest'], { openStore: 3, logLine: 4 }),
  source('src/store.ts', ['openStore', 'readRecord'], { logLine: 1 }),
  source('src/logger.ts', ['logLine'], {}),
  source('src/mailer.ts', ['sendMail', 'renderTemplate'], {}),
  source('src/report.ts', ['buildReport'], { sendMail: 5, renderTemplate: 2 }),
];

describe('rankFiles', () => {
  it('ranks first the file that defines a name the question holds, with that name first', () => {
    const [top] = rankFiles(GRAPH, { words: new Set(['why', 'renderTemplate', 'blank']), attached: new Set() });
    assert.equal(top?.rel, 'src/mailer.ts');
    assert.equal(top?.defs[0]?.name, 'renderTemplate');
  });

  it("ranks an attached file's neighbours high, and leaves the attached file out", () => {
    const ranked = rankFiles(GRAPH, { words: new Set(), attached: new Set(['src/report.ts']) });
    assert.equal(ranked[0]?.rel, 'src/mailer.ts');
    assert.ok(!ranked.some((f) => f.rel === 'src/report.ts'));
    const unrelated = rankFiles(GRAPH, { words: new Set(), attached: new Set(['src/app.ts']) }).map((f) => f.rel);
    assert.ok(unrelated.indexOf('src/server.ts') < unrelated.indexOf('src/mailer.ts'), unrelated.join());
    assert.ok(unrelated.indexOf('src/store.ts') < unrelated.indexOf('src/report.ts'), unrelated.join());
  });

  it('puts first the definitions the question says a word of, in the singular or the plural', () => {
    const files = [
      source('src/mailer.ts', ['sendMail', 'queueMails', 'renderTemplates'], {}),
      source('src/report.ts', ['buildReport'], { sendMail: 5, queueMails: 4, renderTemplates: 1 }),
      source('src/app.ts', ['startApp'], { buildReport: 1 }),
    ];
    const [top] = rankFiles(files, { words: new Set(['why', 'template', 'blank']), attached: new Set() });
    assert.equal(top?.rel, 'src/mailer.ts');
    assert.deepEqual(
      top?.defs.map((d) => d.name),
      ['renderTemplates', 'sendMail', 'queueMails'],
    );
  });

  it("puts first the definitions the question says a verb of, without its ending: 'detected' says detect", () => {
    // walkdir: "where the loop is detected" put sym_self_loop_no_error before sym_loop_detect.
    const files = [
      source('src/recursive.rs', ['sym_self_loop_no_error', 'sym_loop_detect', 'parse_tree', 'load_all'], {}),
      source('src/lib.rs', ['walk'], { sym_loop_detect: 1 }),
    ];
    const order = (words: string[]) =>
      rankFiles(files, { words: new Set(words), attached: new Set() })
        .find((f) => f.rel === 'src/recursive.rs')
        ?.defs.map((d) => d.name);
    assert.deepEqual(order(['loop', 'detected']), [
      'sym_loop_detect',
      'sym_self_loop_no_error',
      'parse_tree',
      'load_all',
    ]);
    assert.deepEqual(order(['parsed', 'loading']), [
      'parse_tree',
      'load_all',
      'sym_self_loop_no_error',
      'sym_loop_detect',
    ]);
  });

  it('shares the point of a word that names several files among them', () => {
    // Linux's "where does fork() copy the file descriptor table of the parent process": one fork.c, many process.c.
    const arches = ['alpha', 'arm', 'mips', 'riscv'].map((arch) =>
      source(`arch/${arch}/kernel/process.c`, ['copy_thread'], { schedule: 1 }),
    );
    const files = [
      ...arches,
      source('kernel/fork.c', ['copy_files'], { schedule: 1 }),
      source('kernel/sched.c', ['schedule'], {}),
    ];
    const ranked = rankFiles(files, { words: new Set(['fork', 'process']), attached: new Set() }).map((f) => f.rel);
    assert.equal(ranked[0], 'kernel/fork.c');
  });

  it('ranks what the question lifts above the hub every file uses', () => {
    const hubbed = [
      source('src/nodes.ts', ['Node', 'Expression'], {}),
      source('src/checker.ts', ['checkReturn'], { Node: 9, Expression: 9, formatError: 1 }),
      source('src/parser.ts', ['parse'], { Node: 9, Expression: 9 }),
      source('src/binder.ts', ['bind'], { Node: 9, Expression: 9 }),
      source('src/emitter.ts', ['emit'], { Node: 9, Expression: 9 }),
      source('src/messages.ts', ['formatError', 'incompatibleReturn'], { Node: 1 }),
    ];
    const ranked = rankFiles(hubbed, { words: new Set(['incompatible', 'return']), attached: new Set() }).map(
      (f) => f.rel,
    );
    assert.equal(ranked[0], 'src/messages.ts', ranked.join());
    const none = rankFiles(hubbed, { words: new Set(), attached: new Set() }).map((f) => f.rel);
    assert.equal(none[0], 'src/nodes.ts', none.join());
  });

  it("weighs the question's words by how rare they are among the names: the name saying most of it first", () => {
    // Every name of the types module holds `type`; one name of the registry holds all four words of the message.
    const typeNames = ['TypeInfo', 'TypeAlias', 'TypeVar', 'type_map', 'named_type', 'TypeList', 'is_type', 'TypeOf'];
    const files = [
      source('pkg/types.py', typeNames, {}),
      source('pkg/registry.py', ['NO_RETURN_VALUE', 'MISSING_RETURN', 'INCOMPATIBLE_RETURN_VALUE_TYPE'], {}),
      source('pkg/checker.py', ['check_return'], {
        TypeInfo: 2,
        INCOMPATIBLE_RETURN_VALUE_TYPE: 1,
        NO_RETURN_VALUE: 1,
      }),
      source('pkg/binder.py', ['bind'], { TypeInfo: 3, TypeAlias: 2 }),
    ];
    const words = new Set(['Incompatible', 'return', 'value', 'type', 'report', 'error']);
    const ranked = rankFiles(files, { words, attached: new Set() });
    const order = ranked.map((f) => f.rel);
    assert.ok(order.indexOf('pkg/registry.py') < order.indexOf('pkg/types.py'), order.join());
    assert.equal(ranked.find((f) => f.rel === 'pkg/registry.py')?.defs[0]?.name, 'INCOMPATIBLE_RETURN_VALUE_TYPE');
  });

  it('takes stubs, declarations and test data at a fraction of their rank, unless the question is about them', () => {
    // Every module uses what the stubs declare; the stubs would otherwise lead any map.
    const stubbed = [
      source('typeshed/stdlib/builtins.pyi', ['Any', 'Sequence'], {}),
      source('types/index.d.ts', ['Options'], {}),
      source('test-data/fixtures/list.py', ['makeList'], { Any: 3 }),
      source('pkg/checker.py', ['check_return'], { Any: 5, Sequence: 3, Options: 2, format_error: 2 }),
      source('pkg/messages.py', ['format_error'], { Any: 4, Options: 1 }),
      source('pkg/main.py', ['run_main'], { check_return: 1, Sequence: 2, Options: 3 }),
    ];
    const plain = rankFiles(stubbed, { words: new Set(), attached: new Set() }).map((f) => f.rel);
    assert.deepEqual(plain.slice(0, 2).sort(), ['pkg/checker.py', 'pkg/messages.py'], plain.join());
    for (const rel of ['typeshed/stdlib/builtins.pyi', 'types/index.d.ts', 'test-data/fixtures/list.py'])
      assert.ok(plain.indexOf(rel) > plain.indexOf('pkg/main.py'), plain.join());
    const asked = rankFiles(stubbed, { words: new Set(['stub', 'Any']), attached: new Set() }).map((f) => f.rel);
    assert.equal(asked[0], 'typeshed/stdlib/builtins.pyi', asked.join());
  });

  it('starts from the files where the texts the question quotes were found, and shows them', () => {
    const found = rankFiles(GRAPH, { words: new Set(), attached: new Set(), found: new Set(['src/report.ts']) });
    assert.equal(found[0]?.rel, 'src/report.ts', found.map((f) => f.rel).join());
    assert.equal(found[1]?.rel, 'src/mailer.ts', 'and what it uses next');
  });

  it('takes a file by the name saying most of the question, not by how many names say a little of it', () => {
    // Two modules of fifteen names each saying a word of the question, beside the one name saying two of its words.
    const many = (prefix: string) => Array.from({ length: 15 }, (_, i) => `${prefix}${i}`);
    const files = [
      source('pkg/checker.py', many('strict_opt'), {}),
      source('pkg/semanal.py', many('made_turn'), {}),
      source('pkg/list_ops.c', many('CPyList_Op'), {}),
      source('pkg/options.py', ['strict_list'], {}),
      source('pkg/main.py', ['run_main'], { CPyList_Op1: 1 }),
      source('pkg/build.py', ['build'], { CPyList_Op2: 1 }),
    ];
    const words = new Set(['Which', 'flags', 'does', 'strict', 'turn', 'on', 'where', 'is', 'that', 'list', 'made']);
    const order = rankFiles(files, { words, attached: new Set() }).map((f) => f.rel);
    assert.equal(order[0], 'pkg/options.py', order.join());
  });

  it('ranks by what is used most when nothing is in play, and takes a name in a path as a pointer', () => {
    assert.equal(rankFiles(GRAPH, { words: new Set(), attached: new Set() })[0]?.rel, 'src/logger.ts');
    assert.equal(rankFiles(GRAPH, { words: new Set(['report']), attached: new Set() })[0]?.rel, 'src/report.ts');
    // A part of a dotted name, as express names its files (`res.redirect.js`) and many their tests (`login.test.ts`).
    const dotted = GRAPH.map((s) => ({ ...s, rel: s.rel.replace('src/mailer.ts', 'lib/res.mailer.js') }));
    assert.equal(rankFiles(dotted, { words: new Set(['mailer']), attached: new Set() })[0]?.rel, 'lib/res.mailer.js');
  });

  it('takes a folder the question names as a pointer only when it is not most of the project', () => {
    // "Where does mypy report …": mypy/ holds most of mypy, and every file of it came before the one the quoted text is
    // found in.
    const found = { attached: new Set<string>(), found: new Set(['src/mailer.ts']) };
    const order = (words: string[]) => rankFiles(GRAPH, { ...found, words: new Set(words) }).map((f) => f.rel);
    assert.deepEqual(order(['src']), order([]));
    assert.equal(order([])[0], 'src/mailer.ts');
    // A folder of few of the files still points at them.
    const mail = [
      ...GRAPH.slice(0, 4),
      ...GRAPH.slice(4).map((s) => ({ ...s, rel: s.rel.replace('src/', 'src/mail/') })),
    ];
    assert.equal(
      rankFiles(mail, { words: new Set(['mail']), attached: new Set() })[0]?.rel.startsWith('src/mail/'),
      true,
    );
  });

  it('ranks a part at a time: a few files, a few hundred names or a round of PageRank each, then the same files', () => {
    const focus = { words: new Set(['renderTemplate']), attached: new Set<string>() };
    const ranking = rankingOf(GRAPH, focus);
    let parts = 0;
    let part = ranking.next();
    for (; !part.done; part = ranking.next()) parts++;
    // Two passes over the files, then rounds of PageRank for the question and for no question.
    assert.ok(parts >= 2 + 4, `${parts} parts`);
    assert.deepEqual(part.value, rankFiles(GRAPH, focus));
  });

  it('ranks a question that says no defined name from the rank kept for no question, one that does from its own', () => {
    const plainQuestion = { words: new Set(['mail']), attached: new Set<string>() };
    const namedQuestion = { words: new Set(['renderTemplate']), attached: new Set<string>() };
    const ties = finished(tying(GRAPH));
    assert.equal(ties.plain === undefined, true);
    // The first ranking works out what no question changes and keeps it with the ties; the ranks are as without.
    assert.deepEqual(rankFiles(GRAPH, plainQuestion, Infinity, ties), rankFiles(GRAPH, plainQuestion));
    const plain = ties.plain;
    assert.ok(plain !== undefined);
    assert.deepEqual(rankFiles(GRAPH, plainQuestion, Infinity, ties), rankFiles(GRAPH, plainQuestion));
    assert.deepEqual(rankFiles(GRAPH, namedQuestion, Infinity, ties), rankFiles(GRAPH, namedQuestion));
    // Kept ranks said otherwise: the first question follows them, the second does not read them.
    const turned = {
      ...ties,
      plain: { ...plain, rank: plain.rank.map((_, i) => plain.rank[plain.rank.length - 1 - i] ?? 0) },
    };
    assert.notDeepEqual(rankFiles(GRAPH, plainQuestion, Infinity, turned), rankFiles(GRAPH, plainQuestion));
    assert.deepEqual(rankFiles(GRAPH, namedQuestion, Infinity, turned), rankFiles(GRAPH, namedQuestion));
  });

  it('ranks the same from ties made before as from the files, and makes them again for other files', () => {
    const focus = { words: new Set(['renderTemplate']), attached: new Set<string>() };
    const ties = finished(tying(GRAPH));
    assert.deepEqual(rankFiles(GRAPH, focus, Infinity, ties), rankFiles(GRAPH, focus));
    // Ties of fewer files are not theirs: the ranking ties the files again.
    const fewer = finished(tying(GRAPH.slice(0, 4)));
    assert.deepEqual(rankFiles(GRAPH, focus, Infinity, fewer), rankFiles(GRAPH, focus));
    // A file's definitions are read for the ties and for the files shown only.
    const read = new Set<string>();
    const watched = GRAPH.map((s) => ({
      rel: s.rel,
      refs: s.refs,
      get defs() {
        read.add(s.rel);
        return s.defs;
      },
    }));
    const shown = rankFiles(watched, focus, 2, ties).map((f) => f.rel);
    assert.equal(shown.length, 2);
    assert.deepEqual([...read].sort(), shown.sort());
  });
});

describe("the map's work in the background", () => {
  // Resolved after the tasks already queued and `count` more: what a slice of background work would let in.
  const tasks = async (count: number) => {
    for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  // A long piece of work, a part at a time, noting which parts ran.
  function* work(ran: number[], parts: number): Generator<void, string> {
    for (let i = 0; i < parts; i++) {
      ran.push(i);
      yield;
    }
    return 'done';
  }

  it('runs nothing while a step is being answered, and goes on once it ends', async () => {
    const background = createBackground(1);
    const done: string[] = [];
    background.stepStarted();
    const one = background.run(() => done.push('work'));
    const ran: number[] = [];
    const result = background.inSlices(work(ran, 3), () => false);
    await tasks(5);
    assert.deepEqual([done, ran], [[], []]);
    background.stepEnded();
    assert.equal(await result, 'done');
    await one;
    assert.deepEqual([done, ran], [['work'], [0, 1, 2]]);
  });

  it('looks for a step again as it runs: one begun as the last ended is waited for too', async () => {
    const background = createBackground(1);
    const done: string[] = [];
    background.stepStarted();
    const asked = background.run(() => done.push('work'));
    background.stepEnded();
    background.stepStarted();
    await tasks(2);
    assert.deepEqual(done, []);
    background.stepEnded();
    await asked;
    assert.deepEqual(done, ['work']);
  });

  it('runs its slices each in a task of its own, and stops when the work has ended', async () => {
    // Each part queues a task and notes how many of those queued before it have run.
    const slices = async (sliceMs: number) => {
      let run = 0;
      const seen: number[] = [];
      function* parts(): Generator<void, number[]> {
        for (let i = 0; i < 3; i++) {
          seen.push(run);
          setImmediate(() => run++);
          yield;
        }
        return seen;
      }
      return await createBackground(sliceMs).inSlices(parts(), () => false);
    };
    assert.deepEqual(await slices(0), [0, 1, 2], 'a part a slice: the task each queued ran before the next');
    assert.deepEqual(await slices(60_000), [0, 0, 0], 'all in one slice');
    let ended = false;
    const ran: number[] = [];
    const stopped = createBackground(0).inSlices(work(ran, 1_000), () => ended);
    await tasks(2);
    ended = true;
    assert.equal(await stopped, undefined);
    assert.ok(ran.length > 0 && ran.length < 1_000, `${ran.length} parts ran`);
  });

  it('ends its waits, for a step and for a pause, when closed', async () => {
    const background = createBackground(1);
    background.stepStarted();
    const waits = Promise.all([background.run(() => 'ran'), background.pause(60_000)]).then(() => 'ended');
    background.close();
    assert.equal(await Promise.race([waits, tasks(1).then(() => 'still waiting')]), 'ended');
    assert.equal(await background.inSlices(work([], 3), () => background.closed()), undefined);
  });
});

describe('the map in the message', () => {
  it("gives the map a small share of the window, less with files attached, and none when it would crowd what's fixed", () => {
    const window = windowOf(64_000);
    assert.equal(mapBudget(window, 6_000, false, 0), 8_000);
    assert.equal(mapBudget(window, 6_000, true, 0), 4_000);
    assert.equal(mapBudget(window, 6_000, false, 1_500), 9_500);
    assert.equal(mapBudget(window, 55_500, false, 0), 0);
    assert.equal(mapBudget(windowOf(4_000), 2_700, false, 0), 0);
  });

  it('lists files and definitions with their lines within its characters, a name once with its widest lines', () => {
    const files: MapFile[] = [
      {
        path: 'src/a.ts',
        rank: 1,
        defs: [
          { name: 'run', first: 3, last: 9 },
          { name: 'run', first: 11, last: 12 },
          { name: 'LIMIT', first: 1, last: 1 },
          // An interface's signature of a method, then the method: the name where it came first, the body's lines.
          { name: 'fetch', first: 20, last: 20 },
          { name: 'fetch', first: 40, last: 60 },
        ],
        names: 3,
      },
      { path: 'src/b.ts', rank: 0.5, defs: [{ name: 'other', first: 5, last: 7 }], names: 1 },
    ];
    const text = mapLines(files, 1_000) ?? '';
    assert.ok(text.endsWith('\nsrc/a.ts: run 3-9, LIMIT 1, fetch 40-60\nsrc/b.ts: other 5-7'), text);
    assert.ok(!(mapLines(files, text.length - 5) ?? '').includes('src/b.ts'));
    assert.equal(mapLines(files, 50), undefined);
  });

  it('names fewer definitions past the leading files, and leaves out the tail ranked far below the first', () => {
    const defs = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'].map((name, i) => ({
      name,
      first: i * 10 + 1,
      last: i * 10 + 5,
    }));
    const ranks = [1, 0.9, 0.5, 0.3, 0.2, 0.05, 0.3, 0.01];
    const files: MapFile[] = ranks.map((rank, i) => ({ path: `src/f${i}.py`, rank, defs, names: 30 }));
    const lines = (mapLines(files, 10_000) ?? '').split('\n').slice(1);
    // Five files at least, whatever their rank; past them, the first file ranked below the tail's share ends the map.
    assert.deepEqual(
      lines.map((l) => l.split(':')[0]),
      ['src/f0.py', 'src/f1.py', 'src/f2.py', 'src/f3.py', 'src/f4.py'],
    );
    // The names not shown are counted, those the map was not given too: the line is not taken for the file's last.
    assert.equal(lines[0], 'src/f0.py: one 1-5, two 11-15, three 21-25, four 31-35, five 41-45, six 51-55 and 24 more');
    assert.equal(lines[3], 'src/f3.py: one 1-5, two 11-15, three 21-25 and 27 more');
    const low = ranks.map((_, i) => ({ path: `src/g${i}.py`, rank: 0.01, defs, names: 7 }));
    const top = { path: 'src/top.py', rank: 1, defs, names: 7 };
    assert.equal((mapLines([top, ...low], 10_000) ?? '').split('\n').length - 1, 5);
  });
});

// A folder of the GRAPH's shape as real TypeScript files, and two more that define little, to pass the map's minimum;
// `said` adds a line to a file's end.
function graphFolder(said: Record<string, string> = {}): string {
  const files: Record<string, string> = {
    'README.md': '# a project\n',
    'src/util.ts': 'export const unused = 1;\n',
    'src/config.ts': 'export const port = 8080;\n',
  };
  for (const s of GRAPH) {
    const defs = s.defs.map((d) => `export function ${d.name}() {\n  return 1;\n}\n`).join('\n');
    const uses = [...s.refs.matchAll(/(\w+) (\d+)/g)]
      .map(([, word, count]) => `${Array.from({ length: Number(count) }, () => `${word}();`).join(' ')}\n`)
      .join('');
    files[s.rel] = `${defs}\nexport function main_${s.rel.slice(4, -3)}() {\n${uses}}\n${said[s.rel] ?? ''}`;
  }
  return tempFolder(files);
}

// A store in memory, counting what it was asked.
function memoryStore(): MapStore & {
  data: Uint8Array | undefined;
  saves: number;
  ties: Map<string, Uint8Array>;
  tiesSaves: number;
} {
  const store = {
    data: undefined as Uint8Array | undefined,
    saves: 0,
    ties: new Map<string, Uint8Array>(),
    tiesSaves: 0,
    load: () => store.data,
    save: (bytes: Uint8Array) => {
      store.data = Uint8Array.from(bytes);
      store.saves++;
    },
    loadTies: (key: string) => store.ties.get(key),
    saveTies: (key: string, bytes: Uint8Array) => {
      store.ties.set(key, Uint8Array.from(bytes));
      store.tiesSaves++;
    },
  };
  return store;
}

async function firstMessage(executor: Reader, question: string, files: string[] = []): Promise<string> {
  const bridge = scriptedBridge(['The answer.']);
  await runLoop({ bridge, executor, texts: loadTexts(executor.limits), question, steps: 2, files, mapWait: 120_000 });
  return bridge.seen[0] ?? '';
}

function mapOf(message: string): string[] {
  const at = message.indexOf('=== MAP OF THE CODE ===\n');
  if (at === -1) return [];
  return (
    message
      .slice(at)
      .split('\n\n')[0]
      ?.split('\n')
      .slice(2)
      .map((line) => line.slice(0, line.indexOf(':'))) ?? []
  );
}

describe('the map of the code', () => {
  const root = graphFolder();

  it('sends the map in the first message, the file defining what the question names first', async () => {
    const store = memoryStore();
    const executor = createExecutor(root, { mapStore: () => store });
    try {
      const first = await firstMessage(executor, 'Why does renderTemplate leave the mail blank?');
      assert.ok(first.indexOf('=== PROJECT FOLDER ===') < first.indexOf('=== MAP OF THE CODE ==='));
      assert.ok(first.indexOf('=== MAP OF THE CODE ===') < first.indexOf('=== QUESTION ==='));
      assert.match(first, /\nsrc\/mailer\.ts: renderTemplate 5-7, sendMail 1-3, /);
      assert.equal(mapOf(first)[0], 'src/mailer.ts');
    } finally {
      await executor.close();
    }
    // Written after the first message, which it would have held back, and by the run's end at the latest.
    assert.equal(store.saves, 1, 'what it read is kept');
  });

  it("takes no word of the question that is the project folder's name: it names the project", async () => {
    // actions/checkout: "How does checkout decide whether to fetch tags …" put its checkout() method first, and the
    // file that decides it out of the map.
    const files: Record<string, string> = {
      'checkout/src/manager.ts': [
        'export function checkout() {\n  return 1;\n}\n',
        'export function fetchTags() {\n  return 2;\n}\n',
      ].join('\n'),
    };
    for (let i = 0; i < 8; i++) files[`checkout/src/part${i}.ts`] = `export const part${i} = ${i};\n`;
    const root = path.join(tempFolder(files), 'checkout');
    const executor = createExecutor(root, { mapStore: () => memoryStore() });
    try {
      const first = await firstMessage(executor, 'How does checkout fetch tags?');
      const line = first.split('\n').find((l) => l.startsWith('src/manager.ts: ')) ?? first;
      assert.match(line, /^src\/manager\.ts: fetchTags 5-7, checkout 1-3/, line);
    } finally {
      await executor.close();
    }
  });

  it('takes no word of asking for an edit, nor a literal or type every file uses', async () => {
    // pydantic: "Add a keyword-only parameter validate: bool = False to model_copy …" put validate_bool, bool_schema and
    // BOOL_TRUE in the map; Linux's "what would I change" put audit_rule_change there; walkdir's `is_loop(&self)` the
    // names with `self` in them.
    const files: Record<string, string> = {
      'src/copy.ts': 'export function modelCopy() {\n  return 1;\n}\n',
      'src/bools.ts': [
        'export function bool() {\n  return true;\n}\n',
        'export function add() {\n  return 2;\n}\n',
        'export function change() {\n  return 3;\n}\n',
        'export function next() {\n  return 4;\n}\n',
        'export const TRUE = 1;\n',
        'export function selfCheck() {\n  return 5;\n}\n',
      ].join('\n'),
    };
    for (let i = 0; i < 8; i++) files[`src/part${i}.ts`] = `export const part${i} = ${i};\n`;
    const executor = createExecutor(tempFolder(files), { mapStore: () => memoryStore() });
    try {
      const first = await firstMessage(
        executor,
        'Add a bool parameter to modelCopy(&self) next to the existing one; what would I change? It is True or False.',
      );
      assert.equal(mapOf(first)[0], 'src/copy.ts', mapOf(first).join());
      // Taking those words, bools.ts's line led with them: bool, change, next, add, TRUE. Now in the file's order.
      const line = first.split('\n').find((l) => l.startsWith('src/bools.ts: ')) ?? first;
      assert.equal(line, 'src/bools.ts: bool 1-3, add 5-7, change 9-11, next 13-15, TRUE 17, selfCheck 19-21');
    } finally {
      await executor.close();
    }
  });

  it("shows a method with its body's lines, not its signature's in an interface before it", async () => {
    // actions/checkout's git-command-manager.ts: an interface of the methods, then the class that has them.
    const methods = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    const files: Record<string, string> = {
      'src/manager.ts': [
        'export interface IManager {',
        ...methods.map((m) => `  ${m}(): void`),
        '}',
        '',
        'export class Manager implements IManager {',
        ...methods.flatMap((m) => [`  ${m}(): void {`, `    console.log('${m}')`, '  }']),
        '}',
        '',
      ].join('\n'),
    };
    for (let i = 0; i < 8; i++)
      files[`src/part${i}.ts`] = `import { Manager } from './manager'\nexport const part${i} = new Manager()\n`;
    const executor = createExecutor(tempFolder(files), { mapStore: () => memoryStore() });
    try {
      const first = await firstMessage(executor, 'How is the manager made?');
      const line = first.split('\n').find((l) => l.startsWith('src/manager.ts: ')) ?? first;
      assert.match(line, /alpha 13-15/, line);
      assert.doesNotMatch(line, /alpha 2\b/, line);
    } finally {
      await executor.close();
    }
  });

  it("takes no word of a question's usual asking for a word of the code: cite, function, made, turn", async () => {
    // mypy's "Which flags does --strict turn on, and where is that list made? Cite the lines.": names that held the
    // asking's words ranked over main.py.
    const folder = graphFolder({
      'src/store.ts': 'export function citeFunctionMadeTurn() {\n  return 1;\n}\n',
      'src/report.ts': 'export function strictFlags() {\n  return 1;\n}\n',
    });
    const executor = createExecutor(folder, { mapStore: () => memoryStore() });
    try {
      const first = await firstMessage(
        executor,
        'Which strict flags does it turn on? Cite the function and the lines it is made in.',
      );
      assert.equal(mapOf(first)[0], 'src/report.ts', first);
    } finally {
      await executor.close();
    }
  });

  it('leaves minified and bundled JavaScript out of the map, and no other file for names like theirs', async () => {
    // Each file defines what the question names, so only being left out keeps one from the map.
    const define = 'export function renderTemplate() {\n  return 1;\n}\n';
    const folder = tempFolder({
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 2;\n',
      'src/c.ts': 'export const c = 3;\n',
      'src/d.ts': 'export const d = 4;\n',
      'public/app.min.js': define,
      'public/vendor-bundle.js': define,
      'public/lib.bundle.mjs': define,
      'public/App.MIN.CJS': define,
      'src/view.bundle.jsx': define,
      'src/min.js': define,
      'src/bundle.ts': define,
      'tools/build.min.ts': define,
    });
    const executor = createExecutor(folder, { mapStore: () => memoryStore() });
    try {
      const shown = mapOf(await firstMessage(executor, 'Where is renderTemplate defined?'));
      for (const rel of ['public/app.min.js', 'public/vendor-bundle.js', 'public/lib.bundle.mjs', 'public/App.MIN.CJS'])
        assert.ok(!shown.includes(rel), `${rel} in ${shown.join(', ')}`);
      for (const rel of ['src/view.bundle.jsx', 'src/min.js', 'src/bundle.ts', 'tools/build.min.ts'])
        assert.ok(shown.includes(rel), `${rel} not in ${shown.join(', ')}`);
    } finally {
      await executor.close();
    }
  });

  it('leaves out built output, a dist folder at any depth or a build folder beside src, unless it is all', async () => {
    // The built copies define what the question names, as their sources do, and sort before src/.
    const define = (name: string) => `export function ${name}() {\n  return 1;\n}\n`;
    const sources: Record<string, string> = {};
    for (const name of ['renderTemplate', 'sendMail', 'queue', 'retry', 'config', 'logger', 'headers', 'body'])
      sources[`src/${name}.ts`] = define(name);
    const built: Record<string, string> = {};
    for (const name of ['renderTemplate', 'sendMail', 'queue'])
      for (const copy of ['dist/esm', 'dist/cjs', 'packages/mail/Dist', 'build'])
        built[`${copy}/${name}.js`] = define(name);
    const shownIn = async (folder: string) => {
      const executor = createExecutor(folder, { mapStore: () => memoryStore() });
      try {
        return mapOf(await firstMessage(executor, 'Where is renderTemplate defined, and how is the mail sent?'));
      } finally {
        await executor.close();
      }
    };
    const both = await shownIn(
      tempFolder({ ...sources, ...built, 'distance/walk.ts': define('walk'), 'tools/build/mail.ts': define('mail') }),
    );
    assert.ok(both.includes('src/renderTemplate.ts'), both.join(', '));
    assert.ok(both.includes('distance/walk.ts'), `a folder only starting with dist: ${both.join(', ')}`);
    assert.ok(both.includes('tools/build/mail.ts'), `a build folder with no src beside it: ${both.join(', ')}`);
    assert.deepEqual(
      both.filter((rel) => /(^|\/)(dist|build)\//i.test(rel) && rel !== 'tools/build/mail.ts'),
      [],
    );
    // A package that ships only its built copy: the map reads that.
    const only = await shownIn(tempFolder(built));
    assert.ok(
      only.includes('dist/esm/renderTemplate.js') || only.includes('dist/cjs/renderTemplate.js'),
      only.join(', '),
    );
  });

  it('chooses, past a thousand source files, those the question and the attached files point at, then the shallowest', async () => {
    // 1,100 shallow files that define nothing the question says; deep down, one in a folder the question names, two
    // named by it (one in a part of a dotted name), and one beside an attached file. Only chosen files are read, so only they can be in the map.
    const files: Record<string, string> = {};
    for (let i = 0; i < 1_100; i++) files[`lib/f${i}.py`] = `def helper_${i}():\n    return ${i}\n`;
    files['deep/a/b/Login/handler.py'] = 'def handle():\n    return 1\n';
    files['deep/a/b/c/invoice.py'] = 'def total():\n    return 2\n';
    files['deep/a/b/c/res.refund.py'] = 'def back():\n    return 6\n';
    files['deep/a/b/d/e/attached.py'] = 'def mine():\n    return 3\n';
    files['deep/a/b/d/e/sibling.py'] = 'def theirs():\n    return 4\n';
    files['deep/a/b/d/f/stranger.py'] = 'def nobody():\n    return 5\n';
    const folder = tempFolder(files);
    const executor = createExecutor(folder, { mapStore: () => memoryStore() });
    try {
      const first = await firstMessage(executor, 'Where is the login checked, how is an invoice made, and a refund?', [
        'deep/a/b/d/e/attached.py',
      ]);
      const shown = mapOf(first);
      for (const rel of [
        'deep/a/b/Login/handler.py',
        'deep/a/b/c/invoice.py',
        'deep/a/b/c/res.refund.py',
        'deep/a/b/d/e/sibling.py',
      ])
        assert.ok(shown.includes(rel), `${rel} in ${shown.join(', ')}`);
      assert.ok(!shown.includes('deep/a/b/d/f/stranger.py'), shown.join(', '));
      assert.ok(!shown.includes('deep/a/b/d/e/attached.py'), 'an attached file is in the message whole');
    } finally {
      await executor.close();
    }
  });

  it('on a cold first question, waits for the files outside tests when the tests would take it past a second', async () => {
    // The source: a few small files; the tests: more than the parser reads in about a second.
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`src/part${i}.py`] = `def helper_${i}():\n    return ${i}\n`;
    files['src/session.py'] = 'def resolve_redirects(response):\n    return response\n';
    const body = Array.from(
      { length: 12_000 },
      (_, i) => `def test_case_${i}():\n    assert resolve_redirects(${i})\n`,
    );
    files['tests/test_session.py'] = body.join('');
    assert.ok(Buffer.byteLength(files['tests/test_session.py'] ?? '') > 600_000);
    const folder = tempFolder(files);
    for (const [question, waited] of [
      ['How are redirects resolved?', true],
      ['Which tests cover resolve_redirects?', false],
    ] as const) {
      const executor = createExecutor(folder, { mapStore: () => memoryStore() });
      try {
        const first = await firstMessage(executor, question);
        const shown = mapOf(first);
        if (waited) {
          assert.equal(shown[0], 'src/session.py', first);
          assert.ok(!shown.includes('tests/test_session.py'), shown.join(', '));
        } else {
          // A question about tests waits for them all: past a second, the map follows with a later step's results.
          assert.deepEqual(shown, [], first);
          assert.match(first, /=== MAP OF THE CODE ===\n\[The map of the code .* is being made/);
        }
      } finally {
        await executor.close();
      }
    }
  });

  it('starts from the file where the text the question quotes is made, the map read or in its cache', async () => {
    const said = graphFolder({ 'src/report.ts': 'export const FULL = "the disk is full";\n' });
    for (const [question, top] of [
      ['Why do I get "the disk is full"?', 'src/report.ts'],
      ['Why do I get the disk is full?', 'src/logger.ts'],
    ] as const) {
      // Asked twice in the folder: the second time the map's files are all in its cache and it is ready at once,
      // before the search for the quoted text ends, and ranked without it (mypy's "--strict" map after the first
      // question, which left out main.py).
      // The search is held back a moment here, as a search of a big folder takes one.
      const store = memoryStore();
      for (const time of ['first', 'again']) {
        const executor = createExecutor(said, { mapStore: () => store });
        const slow: Reader = {
          ...executor,
          answer: async (requests) => {
            await new Promise((resolve) => setTimeout(resolve, 100));
            return executor.answer(requests);
          },
        };
        try {
          assert.equal(mapOf(await firstMessage(slow, question))[0], top, `${question} (${time})`);
        } finally {
          await executor.close();
        }
      }
    }
  });

  it('names the definition each FIND hit lies in, in the files the map read and while they are unchanged', async () => {
    const folder = graphFolder();
    const executor = createExecutor(folder, { mapStore: () => memoryStore() });
    const scripted = scriptedBridge(['=== FIND: logLine(); ===', '=== FIND: logLine(); IN src/ ===', 'The answer.']);
    const bridge: Bridge = {
      ...scripted,
      chat: (...args: Parameters<Bridge['chat']>) => {
        // Between the two FINDs the store changes: its hit is no longer placed.
        if (scripted.seen.length === 1) fs.appendFileSync(path.join(folder, 'src/store.ts'), '// changed\n');
        return scripted.chat(...args);
      },
    };
    try {
      await runLoop({
        bridge,
        executor,
        texts: loadTexts(executor.limits),
        question: 'Why does logLine print nothing?',
        steps: 4,
        mapWait: 120_000,
      });
    } finally {
      await executor.close();
    }
    const first = scripted.seen[1] ?? '';
    // src/server.ts: startServer 1-3, handleRequest 5-7, then main_server 9-12 with its uses; src/store.ts likewise.
    assert.match(first, /\nsrc\/server\.ts:11 \(in main_server 9-12\): logLine\(\); logLine\(\);/, first);
    assert.match(first, /\nsrc\/store\.ts:10 \(in main_store 9-11\): logLine\(\);/, first);
    const second = (scripted.seen[2] ?? '').slice(
      (scripted.seen[2] ?? '').indexOf('=== RESULT FIND logLine(); IN src/'),
    );
    assert.match(second, /\nsrc\/server\.ts:11 \(in main_server 9-12\): /, second);
    assert.match(second, /\nsrc\/store\.ts:10: logLine\(\);/, second);
  });

  it('says which definitions the lines NEED sent lie in and cut through, in the files the map read', async () => {
    const folder = graphFolder();
    const executor = createExecutor(folder, { mapStore: () => memoryStore() });
    const bridge = scriptedBridge([
      '=== NEED: src/server.ts:10-11, src/store.ts:6-10, src/app.ts ===',
      '=== NEED: README.md:1-1, src/server.ts:1-6, src/store.ts:1-10 ===',
      'The answer.',
    ]);
    try {
      await runLoop({
        bridge,
        executor,
        texts: loadTexts(executor.limits),
        question: 'Where does the server log?',
        steps: 4,
        mapWait: 120_000,
      });
    } finally {
      await executor.close();
    }
    // src/server.ts: startServer 1-3, handleRequest 5-7, main_server 9-12; src/store.ts: openStore 1-3, readRecord 5-7,
    // main_store 9-11.
    const results = bridge.seen[1] ?? '';
    assert.match(
      results,
      /=== RESULT NEED src\/server\.ts:10-11: lines 10-11 of 12 \(in main_server 9-12\) ===/,
      results,
    );
    assert.match(
      results,
      /=== RESULT NEED src\/store\.ts:6-10: lines 6-10 of 11 \(only part of readRecord 5-7, main_store 9-11\) ===/,
      results,
    );
    // A whole file is said as before; a part of a Markdown file, which the map does not read, says its heading.
    assert.match(results, /=== RESULT NEED src\/app\.ts: \d+ lines ===/, results);
    const later = bridge.seen[2] ?? '';
    assert.match(later, /=== RESULT NEED README\.md:1-1: lines 1-1 of 1 \(in # a project 1-1\) ===/);
    // A part that cuts through a definition and lies in none says too what it holds whole.
    assert.match(
      later,
      /=== RESULT NEED src\/server\.ts:1-6: lines 1-6 of 12 \(holds startServer 1-3 whole; only part of handleRequest 5-7\) ===/,
      later,
    );
    assert.match(
      later,
      /=== RESULT NEED src\/store\.ts:1-10: lines 1-10 of 11 \(holds openStore 1-3, readRecord 5-7 whole; only part of main_store 9-11\) ===/,
      later,
    );
  });

  it('sends the map in the first message only: later messages carry a line in its place', async () => {
    const executor = createExecutor(root, { mapStore: () => memoryStore() });
    const bridge = scriptedBridge(['=== FIND: renderTemplate ===', 'The answer.']);
    try {
      await runLoop({
        bridge,
        executor,
        texts: loadTexts(executor.limits),
        question: 'Why does renderTemplate leave the mail blank?',
        steps: 3,
        mapWait: 120_000,
      });
    } finally {
      await executor.close();
    }
    assert.equal(mapOf(bridge.seen[0] ?? '')[0], 'src/mailer.ts');
    const second = bridge.seen[1] ?? '';
    assert.match(
      second,
      /=== MAP OF THE CODE ===\n\[The map of the code went with this question's first step only; it is left out now/,
    );
    assert.ok(!second.includes('src/mailer.ts: renderTemplate'), second);
    assert.ok(second.includes('=== RESULT FIND renderTemplate'), second);
  });

  it("ranks the attached file's neighbours first, and makes the map from the cache while files are unchanged", async () => {
    const store = memoryStore();
    const executor = createExecutor(root, { mapStore: () => store });
    try {
      await firstMessage(executor, 'Warm it up.');
    } finally {
      await executor.close();
    }
    const again = createExecutor(root, { mapStore: () => store });
    try {
      const job = again.map?.({ question: 'q', files: [] });
      assert.equal(job?.soon, true, 'all of it is in the cache');
      const first = await firstMessage(again, 'Why is the report empty?', ['src/report.ts']);
      assert.equal(mapOf(first)[0], 'src/mailer.ts');
      assert.ok(!mapOf(first).includes('src/report.ts'), 'the attached file is in the message already');
      assert.equal(store.saves, 1, 'nothing new to keep');
      fs.writeFileSync(
        path.join(root, 'src/logger.ts'),
        'export function logLine() {}\nexport function logError() {}\n',
      );
      const changed = again.map?.({ question: 'q', files: [] });
      assert.equal(changed?.soon, true);
      await changed?.files;
    } finally {
      await again.close();
    }
    assert.equal(store.saves, 2, 'the changed file was read again and kept');
    const kept = readCache(store.data).get('src/logger.ts');
    assert.deepEqual(
      kept?.defs.map((d) => d.name),
      ['logLine', 'logError'],
    );
  });

  it("ranks the next run's map of the same files from the ties kept, as made afresh; other files' are made again", async () => {
    const folder = graphFolder();
    const store = memoryStore();
    const mapAfter = async (question: string) => {
      const executor = createExecutor(folder, { mapStore: () => store });
      try {
        return mapOf(await firstMessage(executor, question));
      } finally {
        await executor.close();
      }
    };
    // A time that can be set back exactly (a file's own has more digits than utimes keeps).
    const app = path.join(folder, 'src/app.ts');
    fs.utimesSync(app, 1_700_000_000, 1_700_000_000);
    const question = 'Why does renderTemplate leave the mail blank?';
    const first = await mapAfter(question);
    assert.equal(first[0], 'src/mailer.ts');
    assert.equal(store.tiesSaves, 1, 'the ties made are kept');
    assert.deepEqual(await mapAfter(question), first);
    assert.equal(store.tiesSaves, 1, 'the same files: the ties kept are used, not made again');
    assert.equal((await mapAfter('Where is the report built?'))[0], 'src/report.ts', 'another question, the same ties');
    assert.equal(store.tiesSaves, 1);

    // Kept with what their first ranking worked out for no question; kept without it (a ranking cut short), they are
    // kept again with it, and the map is the same.
    const [key, bytes] = [...store.ties][0] ?? ['', new Uint8Array()];
    const read = readTies(bytes, key);
    assert.ok(read?.plain !== undefined, 'the ties are kept with the rank for no question');
    const bare = { ...read };
    delete bare.plain;
    store.ties.set(key, tiesBytes(key, bare));
    assert.deepEqual(await mapAfter(question), first);
    assert.equal(store.tiesSaves, 2);
    assert.deepEqual(readTies(store.ties.get(key), key), read);

    // Damaged ties are as none: made again, and the map is the same.
    store.ties.set(key, bytes.subarray(0, -3));
    assert.deepEqual(await mapAfter(question), first);
    assert.equal(store.tiesSaves, 3);

    // A file changed: its ties are made again, and the map follows what it uses now.
    const was = fs.readFileSync(app);
    fs.writeFileSync(app, 'export function startApp() {\n  renderTemplate();\n}\n');
    const changed = await mapAfter('Where does startApp go?');
    assert.equal(store.tiesSaves, 4);
    assert.deepEqual(changed, await mapAfter('Where does startApp go?'));
    assert.equal(store.tiesSaves, 4);
    // Back as it was: the ties kept for those files are still there, beside the others.
    fs.writeFileSync(app, was);
    fs.utimesSync(app, 1_700_000_000, 1_700_000_000);
    assert.deepEqual(await mapAfter(question), first);
    assert.equal(store.tiesSaves, 4, 'the first ties, kept beside the second');
    fs.writeFileSync(app, 'export function startApp() {\n  renderTemplate();\n}\n');
    const fresh = memoryStore();
    const executor = createExecutor(folder, { mapStore: () => fresh });
    try {
      assert.deepEqual(mapOf(await firstMessage(executor, 'Where does startApp go?')), changed, 'as made afresh');
    } finally {
      await executor.close();
    }
  });

  // A parser that says on a channel the test hears which file it was given: the map's (it counts words) or OUTLINE's.
  const heard = new BroadcastChannel('deepwork-test-parses');
  after(() => heard.close());
  const modules = tempFolder({}, 'deepwork-map-modules-');
  const telling = path.join(modules, 'telling.mjs');
  fs.writeFileSync(
    telling,
    [
      `import ${JSON.stringify(new URL('../reading/outline/parse-worker.js', import.meta.url).href)};`,
      "import { parentPort } from 'node:worker_threads';",
      "const told = new BroadcastChannel('deepwork-test-parses');",
      'told.unref();',
      "parentPort.on('message', (job) => told.postMessage(job.refs ? 'map' : 'outline'));",
    ].join('\n'),
  );
  // More than the first message waits for (560 KB of TypeScript, comments mostly, and two more languages), so the map
  // follows it.
  const threeLanguages = () =>
    tempFolder({
      ...Object.fromEntries(
        ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => [
          `src/${n}.ts`,
          `export function ${n}() {}\n${`// ${'x'.repeat(100)}\n`.repeat(900)}`,
        ]),
      ),
      'tools/run.py': 'def run():\n    pass\n',
      'cmd/main.go': 'package main\n\nfunc main() {}\n',
    });

  it("asks the parser for none of the map's files while a step is answered", async (t) => {
    t.after(() => mock.timers.reset());
    mock.timers.enable({ apis: ['setTimeout'] });
    const parses: string[] = [];
    let tell = () => {};
    const onParse = (event: Event) => {
      parses.push(event instanceof MessageEvent ? String(event.data) : '');
      tell();
    };
    heard.addEventListener('message', onParse);
    const executor = createExecutor(threeLanguages(), { parsers: { module: pathToFileURL(telling) } });
    try {
      const job = executor.map?.({ question: 'q', files: [] });
      mock.timers.tick(1_000);
      // A step begins as the map's parses do: an OUTLINE of six files, parsed one after another.
      await executor.answer([{ kind: 'outline', line: 0, targets: ['src/*.ts'] }]);
      assert.ok(((await job?.files) ?? []).length > 0);
      await new Promise<void>((resolve) => {
        tell = () => parses.length === 14 && resolve();
        tell();
      });
      const first = parses.indexOf('outline');
      assert.deepEqual(
        parses.slice(first, first + 6),
        Array.from({ length: 6 }, () => 'outline'),
        parses.join(),
      );
      assert.equal(parses.filter((p) => p === 'map').length, 8);
    } finally {
      heard.removeEventListener('message', onParse);
      await executor.close();
    }
  });

  it('starts parsing for a map the first message does not wait for only after a pause: a step at once comes first', async (t) => {
    t.after(() => mock.timers.reset());
    mock.timers.enable({ apis: ['setTimeout'] });
    const parses: string[] = [];
    let tell = () => {};
    const onParse = (event: Event) => {
      parses.push(event instanceof MessageEvent ? String(event.data) : '');
      tell();
    };
    heard.addEventListener('message', onParse);
    const executor = createExecutor(threeLanguages(), { parsers: { module: pathToFileURL(telling) } });
    try {
      const job = executor.map?.({ question: 'q', files: [] });
      assert.equal(job?.soon, false);
      // The first message goes out and the model's reply comes at once: its step, with an OUTLINE, is answered.
      await new Promise((resolve) => setImmediate(resolve));
      await executor.answer([{ kind: 'outline', line: 0, targets: ['src/a.ts'] }]);
      mock.timers.tick(1_000);
      const files = (await job?.files) ?? [];
      assert.ok(files.length > 0);
      // Each parse told: the OUTLINE's and one for each of the map's eight files.
      await new Promise<void>((resolve) => {
        tell = () => parses.length === 9 && resolve();
        tell();
      });
      assert.deepEqual(parses, ['outline', ...Array.from({ length: 8 }, () => 'map')]);
    } finally {
      heard.removeEventListener('message', onParse);
      await executor.close();
    }
  });

  it("ends the map's pause when the run ends: the run ends at once, its map left unmade", async (t) => {
    t.after(() => mock.timers.reset());
    mock.timers.enable({ apis: ['setTimeout'] });
    const store = memoryStore();
    const executor = createExecutor(threeLanguages(), { mapStore: () => store });
    const job = executor.map?.({ question: 'q', files: [] });
    assert.equal(job?.soon, false);
    await executor.close();
    const settled = await Promise.race([
      job?.files.then((files) => files),
      new Promise((resolve) => setImmediate(() => resolve('still waiting'))),
    ]);
    assert.deepEqual(settled, []);
    assert.equal(store.saves, 0, 'nothing was parsed');
  });

  it('reads a damaged cache as empty', () => {
    const made = readCache(undefined);
    made.set('a.ts', { size: 1, mtime: 1, defs: [], refs: '' });
    const good = Buffer.from(made.bytes(() => true, 10));
    const damaged = [
      undefined,
      Buffer.from('x'),
      Buffer.from('{"format":"other","index":[]}\n'),
      // The JSON text a cache was before: one line, no index.
      Buffer.from(JSON.stringify({ format: '1:0', files: { 'a.ts': [1, 1, [], ''] } })),
      // Cut short: its last part is not all there.
      good.subarray(0, good.length - 1),
      Buffer.from(good.toString().replace('"a.ts",1,1,', '"a.ts",1,1,-')),
    ];
    assert.equal(readCache(good).fresh('a.ts', 1, 1), true, 'the bytes unharmed are read');
    for (const bytes of damaged) assert.equal(readCache(bytes).fresh('a.ts', 1, 1), false, String(bytes));
  });

  it('checks each kept file when it is asked for: a damaged one is as none, the others stand, in the order kept', () => {
    const good = (size: number) => ({
      size,
      mtime: 1,
      // g's own line, past its decorators, kept with it.
      defs: [
        { name: 'f', first: 1, last: 2, depth: 1 },
        { name: 'g', first: 3, last: 6, depth: 0, own: 4 },
      ],
      refs: `g ${size}`,
    });
    const made = readCache(undefined);
    for (const rel of ['a.ts', 'b.ts', 'c.ts']) made.set(rel, good(rel.charCodeAt(0) - 96));
    // b.ts's part damaged where it lies, its length the same (its words a number, not a text): only its entry fails.
    const bytes = Buffer.from(
      made
        .bytes(() => true, 10)
        .toString()
        .replace('"g 2"', '12345'),
    );
    const cache = readCache(bytes);
    // Fresh by its size and time alone, no entry made; a file not kept, or changed, is not.
    assert.equal(cache.fresh('b.ts', 2, 1), true);
    assert.equal(cache.fresh('a.ts', 1, 2), false);
    assert.equal(cache.fresh('x.ts', 1, 1), false);
    assert.deepEqual(cache.get('c.ts'), good(3));
    assert.equal(cache.get('b.ts'), undefined);
    assert.equal(cache.fresh('b.ts', 2, 1), false, 'once found damaged, it is as none');
    assert.equal(cache.dropped(), true, 'to be written again without it');
    cache.set('e.ts', good(5));
    // Written again: a.ts as it was read (its entry never made), c.ts made, b.ts gone, e.ts last; `keep` and `max`
    // leave files out.
    const kept = readCache(cache.bytes((rel) => rel !== 'c.ts', 10));
    assert.deepEqual(kept.get('a.ts'), good(1));
    assert.deepEqual(kept.get('e.ts'), good(5));
    assert.equal(kept.has('c.ts'), false);
    assert.equal(kept.has('b.ts'), false);
    const latest = readCache(cache.bytes(() => true, 2));
    assert.deepEqual([latest.has('a.ts'), latest.has('c.ts'), latest.has('e.ts')], [false, true, true]);
    const all = readCache(cache.bytes(() => true, 10));
    assert.equal(cache.dropped(), false);
    assert.deepEqual(
      ['a.ts', 'b.ts', 'c.ts', 'e.ts'].map((rel) => all.get(rel)?.size),
      [1, undefined, 3, 5],
    );
  });

  it("leaves a file whose kept part is damaged out of that run's map, and reads it again in the next", async () => {
    const store = memoryStore();
    const question = 'Why does renderTemplate leave the mail blank?';
    const run = async () => {
      const executor = createExecutor(root, { mapStore: () => store });
      try {
        return mapOf(await firstMessage(executor, question));
      } finally {
        await executor.close();
      }
    };
    assert.equal((await run())[0], 'src/mailer.ts');
    // Its definition's record made unreadable, the length the same: only src/mailer.ts's part is damaged.
    const text = Buffer.from(store.data ?? []).toString();
    assert.equal(text.split('["renderTemplate",').length, 2);
    store.data = Buffer.from(text.replace('["renderTemplate",', '["renderTemplate" '));
    assert.ok(!(await run()).includes('src/mailer.ts'), 'damaged: not in this map');
    assert.ok(
      !Buffer.from(store.data ?? [])
        .toString()
        .includes('"src/mailer.ts"'),
      'and no longer kept',
    );
    assert.equal((await run())[0], 'src/mailer.ts', 'read again');
  });

  it('waits for a map of one language with up to 512 KB to parse, of two with up to 256 KB, and maps a third after', async () => {
    // TypeScript files of 30 KB and four small ones, and a Python file defining what the question names: a second
    // grammar to load.
    const typescript = (count: number) => {
      const files: Record<string, string> = {};
      for (let i = 0; i < count; i++) files[`src/part${i}.ts`] = `export const value${i} = 1;\n`.repeat(1_500);
      for (let i = 0; i < 4; i++) files[`src/small${i}.ts`] = `export const small${i} = 1;\n`;
      return files;
    };
    const python = { 'tools/run.py': 'def run_tool():\n    pass\n' };
    const mapped = async (files: Record<string, string>) => {
      const executor = createExecutor(tempFolder(files), { mapStore: () => memoryStore() });
      try {
        const soon = executor.map?.({ question: 'Where is run_tool defined?', files: [] })?.soon;
        return { soon, shown: mapOf(await firstMessage(executor, 'Where is run_tool defined?')) };
      } finally {
        await executor.close();
      }
    };
    // 150 KB and a second language: both waited for.
    const both = await mapped({ ...typescript(5), ...python });
    assert.equal(both.soon, true);
    assert.equal(both.shown[0], 'tools/run.py', both.shown.join(', '));
    // 300 KB: one language waited for; the second, past the budget, parsed after the first message.
    const one = await mapped({ ...typescript(10), ...python });
    assert.equal(one.soon, true);
    assert.ok(one.shown.includes('src/part0.ts'), one.shown.join(', '));
    assert.ok(!one.shown.includes('tools/run.py'), one.shown.join(', '));
    // A third language, however small, is parsed after (actions/checkout: TypeScript, its shell scripts and
    // eslint.config.mjs; the first message went without a map).
    const three = await mapped({ ...typescript(2), ...python, 'scripts/build.sh': 'build() {\n  echo go\n}\n' });
    assert.equal(three.soon, true);
    assert.ok(three.shown.includes('tools/run.py') && !three.shown.includes('scripts/build.sh'), three.shown.join());
  });

  it('on a first question, waits for no map of its main language when files past what is parsed soon were not looked at', async () => {
    // Linux's source: C files past 512 KB, a Python and a shell script among the first looked at. Its C files looked
    // at before the bytes ran past 512 KB are less: the map waited the whole second, for them and the rest.
    const files: Record<string, string> = {
      'tools/gen.py': `def gen():\n    pass\n${'# note\n'.repeat(14_000)}`,
      'scripts/run.sh': `run() {\n  echo go\n}\n${'# note\n'.repeat(14_000)}`,
    };
    for (let i = 0; i < 40; i++)
      files[`src/core/part${i}.c`] = `int part${i}(void) { return ${i}; }\n${'// note\n'.repeat(2_200)}`;
    const executor = createExecutor(tempFolder(files), { mapStore: () => memoryStore() });
    try {
      assert.equal(executor.map?.({ question: 'q', files: [] })?.soon, false);
    } finally {
      await executor.close();
    }
  });

  it("pauses FIND's reading ahead while the first message waits for the map, until the map is made", async () => {
    // Ten small files: a map expected soon. Their parses come when the test lets them.
    const files: Record<string, string> = {};
    for (let i = 0; i < 10; i++) files[`src/part${i}.ts`] = `export const value${i} = ${i};\n`;
    const box = createSandbox(tempFolder(files));
    let held = 0;
    const finder = {
      hold: () => {
        held++;
      },
      release: () => {
        held--;
      },
    };
    const waiting: Array<() => void> = [];
    const parse = () => new Promise<ParseOutcome>((resolve) => waiting.push(() => resolve(PARSED)));
    const mapper = createMapper(box, fakeFolder(box, parse, finder), undefined);
    try {
      const job = mapper.map({ question: 'q', files: [] });
      assert.equal(job?.soon, true);
      assert.equal(held, 1, 'held while the map is awaited');
      // Each parse is asked for after the one before it ends.
      for (let done = 0; done < 10; done++) {
        while (waiting.length === 0) await new Promise((resolve) => setImmediate(resolve));
        waiting.shift()?.();
        assert.equal(held, 1, `still held after ${done + 1} of 10 parses`);
      }
      assert.equal((await job?.files)?.length, 10);
      assert.equal(held, 0, 'released once the map is made');
    } finally {
      mapper.close();
    }
  });

  it('learns the definitions of files a step named that it does not know as they are, for the steps after', async () => {
    // Ten files, all mapped; then one changes, and the definitions kept of it no longer hold until it is learnt again.
    const files: Record<string, string> = {};
    for (let i = 0; i < 10; i++) files[`src/f${i}.ts`] = `export function f${i}() {}\n`;
    const root = tempFolder(files);
    const box = createSandbox(root);
    const parsed: string[] = [];
    const parse = (_language: string, text: string): Promise<ParseOutcome> => {
      const name = /function (\w+)/.exec(text)?.[1] ?? '?';
      parsed.push(name);
      const def = { name, kind: 'function' as const, depth: 0, local: false, first: 1, last: 3, header: '' };
      return Promise.resolve({ ...PARSED, lines: 3, defs: [def] });
    };
    const mapper = createMapper(box, fakeFolder(box, parse), undefined);
    try {
      await mapper.map({ question: 'q', files: [] })?.files;
      assert.equal(mapper.definitions('src/f1.ts')?.[0]?.name, 'f1');
      fs.writeFileSync(path.join(root, 'src', 'f1.ts'), 'export function renamed() {\n  return 1;\n}\n');
      assert.equal(mapper.definitions('src/f1.ts'), undefined);
      parsed.length = 0;
      // Known files as they are, paths that lead nowhere or outside, and files of no grammar are not parsed.
      await mapper.learn(['src/f1.ts', 'src/f2.ts', 'src/f1.ts', 'src/none.ts', '../outside.ts', 'README.md']);
      assert.deepEqual(parsed, ['renamed']);
      assert.equal(mapper.definitions('src/f1.ts')?.[0]?.name, 'renamed');
    } finally {
      mapper.close();
    }
  });

  it('on a first question, looks at only as many files as tell it the map is not soon, and maps them all after', async (t) => {
    // Forty files of 32 KB (1.25 MB): past the 512 KB the first message waits for by the seventeenth. The cache holds
    // nothing, so the rest are looked at once the message is out, and all forty are parsed.
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) {
      const head = `export const v${i} = 1;\n`;
      files[`src/part${String(i).padStart(2, '0')}.ts`] = `${head}${'/'.repeat((32 << 10) - head.length - 1)}\n`;
    }
    const root = tempFolder(files);
    const box = createSandbox(root);
    const parsed: string[] = [];
    const parse = (_language: string, text: string) => {
      parsed.push(/v(\d+)/.exec(text)?.[1] ?? '?');
      return Promise.resolve(PARSED);
    };
    const mapper = createMapper(box, fakeFolder(box, parse), undefined);
    const stats = t.mock.method(fs, 'statSync');
    const looked = () =>
      stats.mock.calls.filter((call) => String(call.arguments[0]).startsWith(path.join(box.root, 'src'))).length;
    try {
      const job = mapper.map({ question: 'q', files: [] });
      assert.equal(job?.soon, false);
      assert.equal(looked(), 17, 'the files looked at before the first message');
      await job?.files;
      assert.equal(looked(), 40);
      assert.deepEqual(
        parsed,
        Array.from({ length: 40 }, (_, i) => String(i)),
      );
    } finally {
      mapper.close();
    }
  });

  it('says in the first message that a map not ready follows, and sends it with the next results', async () => {
    let ready: (files: MapFile[]) => void = () => {};
    const pending = new Promise<MapFile[]>((resolve) => {
      ready = resolve;
    });
    const executor = createExecutor(root);
    const reader: Reader = { ...executor, map: () => ({ soon: false, big: false, files: pending }) };
    const bridge = scriptedBridge(['=== NEED: src/app.ts ===', '=== LIST: src/*.ts ===', 'The answer.']);
    bridge.onFirst = () =>
      ready([{ path: 'src/mailer.ts', rank: 1, defs: [{ name: 'sendMail', first: 1, last: 3 }], names: 1 }]);
    try {
      await runLoop({ bridge, executor: reader, texts: loadTexts(executor.limits), question: 'q', steps: 3 });
    } finally {
      await executor.close();
    }
    const [first, second, third = ''] = bridge.seen;
    assert.match(
      first ?? '',
      /=== MAP OF THE CODE ===\n\[The map of the code \(.*\) is being made; it comes with the results of whichever step it is ready by\. Do not wait for it: ask for what you need\.\]/,
    );
    assert.match(
      second ?? '',
      /=== RESULT MAP OF THE CODE: ready now ===\n.*\nsrc\/mailer\.ts: sendMail 1-3\n=== END RESULT ===/,
    );
    assert.ok(
      (second ?? '').indexOf('=== RESULT NEED src/app.ts') < (second ?? '').indexOf('=== RESULT MAP OF THE CODE'),
    );
    // The note that it is being made is the first message's: the second does not say so beside the map itself.
    assert.ok(!(second ?? '').includes('is being made'), second);
    // Read once, as the first message's map is: the message after carries a line in its place, and the NEED's result.
    assert.ok(!third.includes('src/mailer.ts: sendMail'), third);
    assert.match(
      third,
      /\[The map of the code came with the results of step 1; it is left out now to leave room for results\. OUTLINE a file for its definitions\.\]/,
    );
    assert.match(third, /=== RESULT NEED src\/app\.ts/);
  });

  it('says in each later message that the map is still being made until it comes, and then no more', async () => {
    let ready: (files: MapFile[]) => void = () => {};
    const pending = new Promise<MapFile[]>((resolve) => {
      ready = resolve;
    });
    const executor = createExecutor(root);
    const reader: Reader = { ...executor, map: () => ({ soon: false, big: false, files: pending }) };
    const scripted = scriptedBridge(['=== NEED: src/app.ts ===', '=== LIST: src/*.ts ===', 'The answer.']);
    // Ready while the model writes its second reply: it comes with the second step's results.
    const bridge = {
      ...scripted,
      chat: (message: string, options: Parameters<Bridge['chat']>[1]) => {
        if (scripted.seen.length === 1)
          ready([{ path: 'src/mailer.ts', rank: 1, defs: [{ name: 'send', first: 1, last: 3 }], names: 1 }]);
        return scripted.chat(message, options);
      },
    };
    try {
      await runLoop({ bridge, executor: reader, texts: loadTexts(executor.limits), question: 'q', steps: 4 });
    } finally {
      await executor.close();
    }
    const [, second = '', third = ''] = scripted.seen;
    assert.match(
      second,
      /=== MAP OF THE CODE ===\n\[The map of the code is still being made; it comes with the results/,
    );
    assert.ok(!second.includes('=== RESULT MAP OF THE CODE'), second);
    assert.match(third, /=== RESULT MAP OF THE CODE: ready now ===/);
    assert.ok(!third.includes('being made'), third);
  });

  it('sends no map for a folder with few source files, nor in a window too small for one', async () => {
    const small = tempFolder({ 'a.ts': 'export function a() {}\n', 'b.ts': 'export function b() {}\n' });
    const executor: Executor = createExecutor(small);
    try {
      assert.equal(executor.map?.({ question: 'q', files: [] }), undefined);
      assert.ok(!(await firstMessage(executor, 'q')).includes('MAP OF THE CODE'));
    } finally {
      await executor.close();
    }
    // A window the instructions, the tree and the question nearly fill: the map gives way, and the message fits. (The
    // window grows with the instructions: what they leave must stay under the map's least, MIN_MAP_CHARS.)
    const tight = createExecutor(root);
    const bridge = scriptedBridge(['The answer.']);
    const sent: Array<{ tokens: number; budget: number }> = [];
    try {
      const texts = loadTexts(tight.limits);
      await runLoop({
        bridge,
        executor: tight,
        texts,
        question: 'q',
        steps: 1,
        contextTokens: 2_200,
        mapWait: 120_000,
        onEvent: (e) => {
          if (e.kind === 'sending') sent.push({ tokens: e.tokens, budget: e.budget });
        },
      });
    } finally {
      await tight.close();
    }
    assert.ok((sent[0]?.tokens ?? Infinity) <= (sent[0]?.budget ?? 0), JSON.stringify(sent));
    assert.ok(!(bridge.seen[0] ?? '').includes('MAP OF THE CODE'));
  });
});

describe('the ties kept between runs', () => {
  const files = GRAPH.map((s, i) => ({ rel: s.rel, size: 100 + i, mtime: 1_700_000_000_000 + i }));
  const ties = finished(tying(GRAPH));
  const key = tiesKey(files);

  it('reads back the ties written, for the same files only', () => {
    assert.deepEqual(readTies(tiesBytes(key, ties), key), ties);
    assert.equal(readTies(tiesBytes(key, ties), tiesKey(files.slice(1))), undefined);
    const touched = files.map((f, i) => (i === 2 ? { ...f, mtime: f.mtime + 1 } : f));
    assert.notEqual(tiesKey(touched), key, 'a file changed since');
    assert.equal(readTies(undefined, key), undefined);
  });

  it('reads back with the ties what their first ranking worked out for no question, and reads it damaged as none', () => {
    const ranked = finished(tying(GRAPH));
    rankFiles(GRAPH, { words: new Set(), attached: new Set() }, Infinity, ranked);
    const plain = ranked.plain;
    assert.ok(plain !== undefined);
    const bytes = tiesBytes(key, ranked);
    assert.deepEqual(readTies(bytes, key), ranked);
    assert.equal(readTies(bytes.subarray(0, bytes.length - 8), key), undefined, 'cut short');
    const floats = bytes.length - 8 * (plain.share.length + 2 * GRAPH.length);
    for (const [what, at, value] of [
      ['a share that is not a number', floats, Number.NaN],
      ['a share above 1', floats, 1.5],
      ['a negative out', floats + 8 * plain.share.length, -1],
      ['an endless rank', bytes.length - 8, Number.POSITIVE_INFINITY],
    ] as const) {
      const damaged = Buffer.from(bytes);
      damaged.writeDoubleLE(value, at);
      assert.equal(readTies(damaged, key), undefined, what);
    }
    const head = bytes.indexOf(10);
    const without = bytes.subarray(0, head).toString().replace('"plain":true', '"plain":false');
    assert.equal(
      readTies(Buffer.concat([Buffer.from(without), bytes.subarray(head)]), key),
      undefined,
      'more bytes than said',
    );
  });

  it('reads damaged ties as none: cut short, an edge out of range, a header that does not hold', () => {
    const bytes = tiesBytes(key, ties);
    assert.ok(ties.from.length > 0);
    assert.equal(readTies(bytes.subarray(0, bytes.length - 1), key), undefined);
    const head = bytes.indexOf(10);
    const far = Buffer.from(bytes);
    far.writeInt32LE(GRAPH.length, head + 1 + 4 * ties.from.length);
    assert.equal(readTies(far, key), undefined, 'an edge to a file past the last');
    const named = Buffer.from(bytes);
    named.writeInt32LE(-1, head + 1 + 8 * ties.from.length);
    assert.equal(readTies(named, key), undefined, 'an edge through no name');
    const text = bytes.subarray(0, head).toString();
    for (const wrong of [
      text.replace('"files":6', '"files":2'),
      text.replace('"names":[', '"names":[1,'),
      text.replace('"edges":', '"edges":1'),
      '{"format":"ties-1"',
      text.replace('"plain":false', '"plain":"no"'),
      'null',
    ]) {
      assert.equal(readTies(Buffer.concat([Buffer.from(wrong), bytes.subarray(head)]), key), undefined, wrong);
    }
  });
});

describe("the map's cache in the state folder", () => {
  it('keeps the bytes per folder, reads a missing one as none, and removes the JSON text kept before', () => {
    const state = tempFolder({}, 'deepwork-map-state-');
    const root = tempFolder({ 'a.ts': 'export const a = 1;\n' });
    const store = mapStore(state, root);
    assert.equal(store.load(), undefined);
    const before = path.join(state, 'maps', `${folderKey(root)}.json`);
    fs.mkdirSync(path.dirname(before), { recursive: true });
    fs.writeFileSync(before, '{"format":"1:0","files":{}}');
    const bytes = Uint8Array.from([1, 2, 3, 10, 255]);
    store.save(bytes);
    assert.deepEqual(Uint8Array.from(store.load() ?? []), bytes);
    assert.equal(fs.existsSync(before), false);
    if (process.platform !== 'win32')
      assert.equal(fs.statSync(path.join(state, 'maps', `${folderKey(root)}.cache`)).mode & 0o777, 0o600);
    assert.equal(mapStore(state, tempFolder()).load(), undefined, "another folder's cache is its own");
  });

  it('keeps the ties of each set of files beside the cache, the latest used of them, by their key alone', () => {
    const state = tempFolder({}, 'deepwork-map-state-');
    const root = tempFolder({ 'a.ts': 'export const a = 1;\n' });
    const store = mapStore(state, root);
    const key = (n: number) => n.toString(16).padStart(64, '0');
    assert.equal(store.loadTies(key(1)), undefined);
    store.save(Uint8Array.from([1, 2, 10]));
    // Where a file of the folder's name was kept, it gives way.
    fs.writeFileSync(path.join(state, 'maps', `${folderKey(root)}.ties`), 'ties of one set');
    store.saveTies(key(1), Uint8Array.from([7, 8, 9]));
    assert.deepEqual(Uint8Array.from(store.loadTies(key(1)) ?? []), Uint8Array.from([7, 8, 9]));
    assert.deepEqual(Uint8Array.from(store.load() ?? []), Uint8Array.from([1, 2, 10]));
    const folder = path.join(state, 'maps', `${folderKey(root)}.ties`);
    if (process.platform !== 'win32') assert.equal(fs.statSync(path.join(folder, `${key(1)}.bin`)).mode & 0o777, 0o600);
    // Each set written after the one before, the first used again before the last is written: the first is kept, the
    // second (the least lately used) let go.
    const at = (file: string, seconds: number) => fs.utimesSync(file, seconds, seconds);
    at(path.join(folder, `${key(1)}.bin`), 1_000);
    for (let n = 2; n <= TIES_KEPT; n++) {
      store.saveTies(key(n), Uint8Array.from([n]));
      at(path.join(folder, `${key(n)}.bin`), 1_000 + n);
    }
    assert.ok(store.loadTies(key(1)) !== undefined);
    store.saveTies(key(99), Uint8Array.from([99]));
    assert.equal(fs.readdirSync(folder).length, TIES_KEPT);
    assert.equal(store.loadTies(key(2)), undefined);
    for (const n of [1, 3, TIES_KEPT, 99]) assert.ok(store.loadTies(key(n)) !== undefined, `set ${n}`);
    assert.throws(() => store.loadTies('../../escape'), /not a key of ties/);
  });
});

describe('the files the map reads in a folder with more than it reads', () => {
  it('chooses by a word naming few files, by the first part of a name, and not by a word naming half of them', () => {
    // "kernel" names 600 files, more than half of the 1,000 the map reads; "tcp" names two, by their first parts.
    const files: Record<string, string> = {};
    for (let i = 0; i < 600; i++) files[`kernel/k${i}.c`] = 'int k;\n';
    for (let i = 0; i < 500; i++) files[`lib/l${i}.c`] = 'int l;\n';
    files['net/ipv4/tcp_input.c'] = 'int tcp_init_cwnd;\n';
    files['net/ipv4/tcp-diag.c'] = 'int diag;\n';
    files['net/ipv4/route.c'] = 'int route;\n';
    const box = createSandbox(tempFolder(files));
    const folder = fakeFolder(box, () => Promise.resolve({ kind: 'ended' }));
    const chosen = (candidates(box, folder, new Set(['kernel', 'TCP']), new Set()) ?? []).map((c) => c.rel);
    assert.equal(chosen.length, MAX_FILES);
    // The named files first; then the shallowest in walk order, kernel's and lib's alike; net/ipv4's other file, deeper,
    // is left out.
    assert.deepEqual(chosen.slice(0, 2).sort(), ['net/ipv4/tcp-diag.c', 'net/ipv4/tcp_input.c']);
    assert.ok(!chosen.includes('net/ipv4/route.c'));
    assert.equal(chosen.filter((rel) => rel.startsWith('kernel/')).length, 600);
    assert.equal(chosen.filter((rel) => rel.startsWith('lib/')).length, MAX_FILES - 602);
  });
});
