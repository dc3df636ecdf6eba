// `deepwork --check`: is the bridge up, and its model? Exit 0 ready, 3 idle, 1 down.

import { checkConfigured } from '../bridge/choose.ts';
import { printJson } from '../console/output.ts';
import { EXIT, settingsOf, type Context } from './context.ts';

export async function run(context: Context): Promise<number> {
  const { io } = context;
  const { config, configFile } = settingsOf(context);
  const report = await checkConfigured({ ...config, configFile });
  if (context.flags.json === true)
    printJson(io, { state: report.state, host: report.host, model: report.model, message: report.message });
  else io.out(`${report.state}: ${report.message}`);
  return report.state === 'ready' ? EXIT.ok : report.state === 'idle' ? EXIT.idle : EXIT.failure;
}
