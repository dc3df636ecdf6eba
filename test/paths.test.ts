// protocol/paths.ts: the one reading of a path the model wrote, which the parser, the console, the JSON and the pult
// share, so that they name a proposal's file one way.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cleanPath, tidyPath } from '../protocol/paths.ts';
import { parseReply } from '../protocol/parse.ts';
import { previewFiles } from '../writing/apply.ts';
import { createSandbox } from '../reading/sandbox.ts';
import { answerParts as consoleParts, filesJson } from '../console/output.ts';
import { answerParts as pultParts } from '../ui/answer.ts';
import { tempFolder } from './helpers.ts';

describe('tidyPath', () => {
  it('reads a path as the path rule does: quotes, ./, doubled and back slashes', () => {
    assert.equal(tidyPath('`./src//b.js`'), 'src/b.js');
    assert.equal(tidyPath('src\\lib\\a.ts'), 'src/lib/a.ts');
    assert.equal(cleanPath('"./a.js"'), 'a.js');
  });

  it('leaves a path that can name no place inside as written, to be refused with its reason', () => {
    assert.equal(tidyPath('../etc/passwd'), '../etc/passwd');
    assert.equal(tidyPath('/etc/passwd'), '/etc/passwd');
  });
});

describe('a proposal whose path is written untidily', () => {
  it('is named one way by the parser, the console, the JSON and the pult', () => {
    const root = tempFolder({ 'src/a.js': 'a\n' });
    const reply =
      'Here.\n=== FILE: ./src//b.js ===\nb\n=== END ===\n=== EDIT: src\\a.js ===\n<<<<<<< SEARCH\na\n=======\nA\n>>>>>>> REPLACE\n=== END ===';
    const parsed = parseReply(reply);
    assert.deepEqual(
      parsed.proposals.map((p) => p.path),
      ['src/b.js', 'src/a.js'],
    );
    const report = { files: previewFiles(createSandbox(root), parsed.proposals), backupSet: undefined };
    assert.deepEqual(
      filesJson(report).files.map((f) => [f.path, f.status]),
      [
        ['src/b.js', 'new'],
        ['src/a.js', 'changed'],
      ],
    );
    const lines = consoleParts(reply, report)
      .filter((p) => p.from === 'deepwork')
      .map((p) => p.text);
    assert.deepEqual(lines, [
      '[FILE src/b.js: new, +1; see the list below]',
      '[EDIT src/a.js: changed, +1 -1; see the list below]',
    ]);
    const cards = pultParts(reply).flatMap((p) => (p.kind === 'proposal' ? [p.path] : []));
    assert.deepEqual(cards, ['src/b.js', 'src/a.js']);
  });
});
