import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { estimateTokens } from '../common/tokens.ts';
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
});
