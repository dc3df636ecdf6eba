import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { estimateTokens } from '../common/tokens.ts';
import { INSTALL_DIR } from '../common/install.ts';

// The estimate against a real tokenizer (cl100k, a devDependency used only here): above it, by little.
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
  const samples: Array<[string, string]> = [
    ["deepwork's own sources", sources()],
    [
      'Russian prose',
      'Цикл с инструментами поверх сервиса. Модель просит файлы блоками, программа отвечает на них внутри папки и отправляет весь разговор заново, потому что мост ничего не помнит. '.repeat(
        40,
      ),
    ],
    [
      'Russian in code',
      '// Проверяем путь: всё, что просит модель, проходит через одно правило.\nexport function проверить(путь: string): boolean {\n  return путь.length > 0;\n}\n'.repeat(
        40,
      ),
    ],
    [
      'Chinese prose',
      '模型只能交换文本，但它通过请求块读取本地项目文件夹中的文件。程序在文件夹内回答这些请求，并把整个对话重新发送。'.repeat(
        40,
      ),
    ],
  ];
  for (const [name, text] of samples) {
    it(`comes out at or a little above cl100k on ${name}`, () => {
      const real = cl100k(text).length;
      const estimate = estimateTokens(text);
      assert.ok(estimate >= real * 0.98, `estimate ${estimate} is below the real ${real}`);
      assert.ok(estimate <= real * 1.35, `estimate ${estimate} is far above the real ${real}`);
    });
  }

  it('counts a character outside the basic plane once', () => {
    assert.equal(estimateTokens('😀'), estimateTokens('é'));
  });
});
