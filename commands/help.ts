// `deepwork --help`: the commands and flags, with where this deepwork keeps its config, state and backups (a config
// that does not load is named as such, not an error).

import fs from 'node:fs';
import { messageOf } from '../common/errors.ts';
import { configPathOf, homeOf, loadConfig } from '../app/config.ts';
import { helpText, type Places } from '../console/help.ts';
import { EXIT, type Context } from './context.ts';

export function run(context: Context): Promise<number> {
  const where = configPathOf(context.flags.config, context.cwd, context.env);
  let places: Places;
  try {
    const config = loadConfig(where.file, where.explicit, homeOf(context.env));
    places = {
      config: where.file,
      state: config.stateDir,
      backups: config.backupDir,
      ...(fs.existsSync(where.file) ? {} : { problem: 'absent' as const }),
    };
  } catch (error) {
    places = { config: where.file, state: '?', backups: '?', problem: { unloadable: messageOf(error) } };
  }
  context.io.out(helpText(places, context.lang));
  return Promise.resolve(EXIT.ok);
}
