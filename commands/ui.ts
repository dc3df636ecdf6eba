// `deepwork ui`: serves the pult until Ctrl-C. A link with a one-time code goes to stdout and another to the browser:
// never the token, which a command line would show to every user of the machine, and a screen to whoever sees it.

import path from 'node:path';
import { homeOf } from '../app/config.ts';
import { createExecutor } from '../reading/executor.ts';
import { launchPult, openInBrowser } from '../ui/launch.ts';
import { CODE_LIFE_MS } from '../ui/security.ts';
import { checkConfigured, createBridge } from '../bridge/choose.ts';
import { createDemoBridge } from '../bridge/demo.ts';
import { chatLimits } from '../bridge/chat-sites.ts';
import { EXIT, projectFolder, settingsOf, type Context } from './context.ts';

export async function run(context: Context): Promise<number> {
  const { io, flags } = context;
  const { config: settings, configFile, box } = settingsOf(context);
  const config = { ...settings, configFile };
  const executor = createExecutor(projectFolder(context.cwd, flags['any-folder'] === true), box);
  const bridge = await createBridge(config);
  const launched = await launchPult({
    // A port from the config (not from --port) gives way to the next free one when another program holds it.
    nextPorts: flags.port === undefined ? 20 : 0,
    executor,
    bridge,
    demo: createDemoBridge,
    check: () => checkConfigured(config),
    host: config.deepseekHost,
    model: config.deepseekModel,
    steps: config.steps,
    contextTokens: config.contextTokens,
    backupDir: config.backupDir,
    stateDir: config.stateDir,
    port: config.port,
    chatLimits: chatLimits(config.pasteSite, config.pasteMaxChars, config.pasteChatChars),
    sitesDir: path.join(homeOf(context.env), 'sites'),
    extensionAutomatic: config.extensionAutomatic,
  });
  io.out(launched.oneTimeUrl());
  io.err(
    `deepwork: the link above opens the pult in one page, once, within ${CODE_LIFE_MS / 60_000} minutes; run deepwork ui again for another.`,
  );
  if (launched.reused) io.err('deepwork: a pult for this folder is already running there; opening it.');
  if (launched.movedFrom !== undefined)
    io.err(
      `deepwork: port ${launched.movedFrom} is taken by another program, so the pult is on ${new URL(launched.url).port}.`,
    );
  if (flags['no-open'] !== true && !(await openInBrowser(launched.oneTimeUrl())))
    io.err('deepwork: could not start the default browser; open the link above.');
  if (launched.pult === undefined) return EXIT.ok;
  io.err(`deepwork: the pult serves ${executor.box.root}; Ctrl-C stops it.`);
  const pult = launched.pult;
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void pult.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return EXIT.ok;
}
