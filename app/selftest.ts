// --selftest: built-in checks that send nothing anywhere. They run on a temp folder and an in-process fake bridge,
// so a fresh install can prove itself offline.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseReply } from '../protocol/parse.ts';
import { applyEdit } from '../protocol/edit.ts';
import { createExecutor } from '../reading/executor.ts';
import { resolvePath } from '../reading/sandbox.ts';
import { runLoop } from '../protocol/loop.ts';
import type { Bridge } from '../protocol/contract.ts';
import { loadTexts } from '../protocol/transcript.ts';
import { messageOf } from '../common/errors.ts';

type Check = { name: string; run: (root: string) => void | Promise<void> };

function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

function scripted(replies: string[], seen: string[]): Bridge {
  return {
    label: 'selftest bridge',
    chat: (message) => {
      seen.push(message);
      return Promise.resolve({ text: replies[Math.min(seen.length - 1, replies.length - 1)] ?? '' });
    },
  };
}

const checks: Check[] = [
  {
    name: 'parses NEED, LIST and FIND blocks, decorated as models write them',
    run: () => {
      const r = parseReply(
        '- **=== NEED: `./a.js`, b.js ===**\n```\n=== list: **/*.mjs ===\n```\n1. === FIND: waitForAnswer ===',
      );
      expect(r.requests.map((q) => q.kind).join() === 'need,list,find', `got ${r.requests.map((q) => q.kind).join()}`);
    },
  },
  {
    name: 'takes no request from inside a FILE block',
    run: () => {
      const r = parseReply('=== FILE: doc.md ===\n=== NEED: a.js ===\n=== END ===');
      expect(
        r.requests.length === 0 && r.files[0]?.content === '=== NEED: a.js ===\n',
        'a NEED inside a FILE block was taken',
      );
    },
  },
  {
    name: 'strips the fence and language tag around file content, keeping indentation',
    run: () => {
      const r = parseReply('=== FILE: a.py ===\n```python\ndef f():\n    return 1\n```\n=== END ===');
      expect(r.files[0]?.content === 'def f():\n    return 1\n', JSON.stringify(r.files[0]?.content));
    },
  },
  {
    name: 'applies an EDIT whose SEARCH lost its indentation, and refuses one found nowhere',
    run: () => {
      const edit = parseReply(
        '=== EDIT: a.js ===\n<<<<<<< SEARCH\nreturn 1;\n=======\nreturn 2;\n>>>>>>> REPLACE\n=== END ===',
      ).edits[0];
      const done = applyEdit('function f() {\n  return 1;\n}\n', edit?.pairs ?? []);
      expect(done.ok && done.text === 'function f() {\n  return 2;\n}\n', JSON.stringify(done));
      expect(!applyEdit('x\n', edit?.pairs ?? []).ok, 'a SEARCH found nowhere was applied');
    },
  },
  {
    name: 'refuses paths outside the folder',
    run: (root) => {
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-selftest-out-'));
      try {
        fs.writeFileSync(path.join(outside, 'secret.txt'), 'no');
        fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link'));
        const box = createExecutor(root).box;
        for (const p of ['../x', '/etc/passwd', 'C:\\Windows\\win.ini', 'link']) {
          expect(resolvePath(box, p).kind === 'refused', `${p} was not refused`);
        }
      } finally {
        fs.rmSync(path.join(root, 'link'), { force: true });
        fs.rmSync(outside, { recursive: true, force: true });
      }
    },
  },
  {
    name: 'matches * in one folder and ** at any depth',
    run: async (root) => {
      const [top, deep] = await createExecutor(root).answer(
        parseReply('=== LIST: *.js ===\n=== LIST: **/*.js ===').requests,
      );
      expect(top?.kind === 'list' && top.paths.join() === 'a.js', `*.js gave ${JSON.stringify(top)}`);
      expect(deep?.kind === 'list' && deep.paths.join() === 'a.js,src/b.js', `**/*.js gave ${JSON.stringify(deep)}`);
    },
  },
  {
    name: 'runs the whole loop against a fake bridge: NEED, results, final answer, a proposed file',
    run: async (root) => {
      const seen: string[] = [];
      const bridge = scripted(
        [
          '=== NEED: src/b.js, missing.js ===',
          'b exports 2.\n=== FILE: src/b.js ===\n```js\nexport const b = 3;\n```\n=== END ===',
        ],
        seen,
      );
      const executor = createExecutor(root);
      const outcome = await runLoop({
        bridge,
        executor,
        texts: loadTexts(executor.limits),
        question: 'What is b?',
        steps: 4,
      });
      expect(outcome.stop === 'answered' && outcome.steps === 2, `stopped with ${outcome.stop} after ${outcome.steps}`);
      expect(seen[1]?.includes('export const b = 2;') === true, 'the file did not reach the second message');
      expect(seen[1]?.includes('missing.js: no such file') === true, 'a missing file broke the loop');
      expect(
        outcome.proposals[0]?.kind === 'file' && outcome.proposals[0].content === 'export const b = 3;\n',
        'the proposed file was not collected',
      );
    },
  },
  {
    name: 'stops when the steps run out and marks the answer',
    run: async (root) => {
      const executor = createExecutor(root);
      const outcome = await runLoop({
        bridge: scripted(['=== FIND: b ==='], []),
        executor,
        texts: loadTexts(executor.limits),
        question: 'q',
        steps: 1,
      });
      expect(
        outcome.stop === 'steps' && (outcome.note ?? '').includes('steps ran out'),
        `stopped with ${outcome.stop}`,
      );
    },
  },
];

// Runs every check, printing one line each; true when all pass.
export async function runSelftest(print: (line: string) => void): Promise<boolean> {
  let failed = 0;
  for (const check of checks) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-selftest-'));
    try {
      fs.mkdirSync(path.join(root, 'src'));
      fs.writeFileSync(path.join(root, 'a.js'), 'export const a = 1;\n');
      fs.writeFileSync(path.join(root, 'src', 'b.js'), 'export const b = 2;\n');
      await check.run(root);
      print(`ok    ${check.name}`);
    } catch (error) {
      failed++;
      print(`FAIL  ${check.name}: ${messageOf(error)}`);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  print(failed === 0 ? `all ${checks.length} checks passed` : `${failed} of ${checks.length} checks failed`);
  return failed === 0;
}
