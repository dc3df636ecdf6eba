import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { defaultConfig, loadConfig } from '../app/config.ts';
import { INSTALL_DIR as HOME } from '../common/install.ts';
import { tempFolder } from './helpers.ts';

describe('loadConfig', () => {
  it('gives the defaults when the default config.json is missing', () => {
    const config = loadConfig(path.join(tempFolder(), 'config.json'));
    assert.deepEqual(config, {
      ...defaultConfig,
      backupDir: path.join(HOME, 'backup'),
      stateDir: path.join(HOME, 'state'),
    });
  });

  it('reads config.example.json as the defaults, so the example stays true', () => {
    const config = loadConfig(path.join(HOME, 'config.example.json'), true);
    assert.deepEqual(config, {
      ...defaultConfig,
      backupDir: path.join(HOME, 'backup'),
      stateDir: path.join(HOME, 'state'),
    });
  });

  it("takes a relative backupDir from deepwork's folder and an absolute one as it is", () => {
    const dir = tempFolder({ 'a.json': '{"backupDir": "old-versions"}', 'b.json': '{"backupDir": "/srv/backups"}' });
    assert.equal(loadConfig(path.join(dir, 'a.json'), true).backupDir, path.join(HOME, 'old-versions'));
    assert.equal(loadConfig(path.join(dir, 'b.json'), true).backupDir, '/srv/backups');
  });

  it('accepts a BOM, as Windows editors write it', () => {
    const dir = tempFolder({ 'c.json': '\uFEFF{"steps": 6}' });
    assert.equal(loadConfig(path.join(dir, 'c.json'), true).steps, 6);
  });

  const bad: Array<[string, string, RegExp]> = [
    ['a list instead of an object', '[1]', /must hold one JSON object/],
    ['a port out of range', '{"port": 70000}', /"port" must be a port number from 1 to 65535, not 70000/],
    [
      'secret names that are not strings',
      '{"secretNames": [1]}',
      /"secretNames" must be a list of at most 1,000 file name patterns .*; 1 is not one/,
    ],
    ['an empty secret name', '{"secretNames": [""]}', /"secretNames" must be a list .*; "" is not one/],
    [
      'a timeout past what a timer can wait',
      '{"timeoutMinutes": 100000}',
      /"timeoutMinutes" must be a number of minutes above 0, at most 1,440 \(a day\), not 100000/,
    ],
    ['steps past the range', '{"steps": 1000000000}', /"steps" must be a whole number from 1 to 50, not 1000000000/],
    [
      'a reply cap below any answer',
      '{"maxReplyChars": 5}',
      /"maxReplyChars" must be a whole number from 10,000 to 1,000,000,000, not 5/,
    ],
    ['an empty host', '{"deepseekHost": " "}', /"deepseekHost" must be a non-empty string/],
    [
      'a window too small for the instructions',
      '{"contextTokens": 100}',
      /"contextTokens" must be a whole number from 2,048 to 10,000,000, not 100/,
    ],
    ['an unknown api', '{"api": "anthropic"}', /"api" must be one of "ollama", "openai", not "anthropic"/],
    [
      'a reply token limit below any answer',
      '{"maxReplyTokens": 0}',
      /"maxReplyTokens" must be a whole number from 16 to 10,000,000, not 0/,
    ],
    [
      'a paste limit no message fits',
      '{"pasteMaxChars": 500}',
      /"pasteMaxChars" must be a whole number from 10,000 to 10,000,000, not 500/,
    ],
  ];
  it('refuses a key pasted where the name of its variable goes, without repeating it', () => {
    const key = 'sk-3f9a0c1d2e4b5a6978';
    const file = path.join(tempFolder({ 'k.json': JSON.stringify({ api: 'openai', apiKeyEnv: key }) }), 'k.json');
    assert.throws(
      () => loadConfig(file, true),
      (error: Error) => {
        assert.match(
          error.message,
          /"apiKeyEnv" must be the name of an environment variable that holds the key .*like "DEEPSEEK_API_KEY"\), not the key itself; its value is not shown here/,
        );
        assert.ok(!error.message.includes(key));
        return true;
      },
    );
    const good = path.join(
      tempFolder({ 'g.json': '{"api": "openai", "apiKeyEnv": "DEEPSEEK_API_KEY", "maxReplyTokens": 8192}' }),
      'g.json',
    );
    const config = loadConfig(good, true);
    assert.deepEqual([config.api, config.apiKeyEnv, config.maxReplyTokens], ['openai', 'DEEPSEEK_API_KEY', 8192]);
  });

  for (const [name, text, message] of bad) {
    it(`refuses ${name}`, () => {
      const file = path.join(tempFolder({ 'x.json': text }), 'x.json');
      assert.throws(
        () => loadConfig(file, true),
        (error: Error) => message.test(error.message) && error.message.includes(file),
      );
    });
  }
});
