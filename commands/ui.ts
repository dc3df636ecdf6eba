// `deepwork ui`: serves the pult until Ctrl-C. A link with a one-time code goes to stdout and another to the browser:
// never the token, which a command line would show to every user of the machine, and a screen to whoever sees it.

import fs from 'node:fs';
import path from 'node:path';
import { homeOf } from '../app/config.ts';
import { createExecutor } from '../reading/executor.ts';
import { mapStore } from '../saved/map-cache.ts';
import { walkStore } from '../saved/walk-cache.ts';
import { launchPult, openInBrowser } from '../ui/launch.ts';
import { CODE_LIFE_MS } from '../ui/security.ts';
import { checkConfigured, createBridge } from '../bridge/choose.ts';
import { createDemoBridge } from '../bridge/demo.ts';
import { chatLimits } from '../bridge/chat-sites.ts';
import { pultTexts } from '../common/strings/console.js';
import { textsIn } from '../common/strings/language.js';
import { EXIT, projectFolder, settingsOf, type Context } from './context.ts';

export async function run(context: Context): Promise<number> {
  const { io, flags } = context;
  const { config: settings, configFile, box } = settingsOf(context);
  const config = { ...settings, configFile };
  const executor = createExecutor(projectFolder(context.cwd, flags['any-folder'] === true), {
    ...box,
    mapStore: (root) => mapStore(config.stateDir, root),
    walkStore: (root) => walkStore(config.stateDir, root),
  });
  const bridge = await createBridge(config);
  const launched = await launchPult({
    // A port from the config (not from --port) gives way to the next free one when another program holds it.
    nextPorts: flags.port === undefined ? 20 : 0,
    executor,
    bridge,
    demo: createDemoBridge,
    check: () => checkConfigured(config),
    // Host and model changed in the pult: saved to the config file, the next question goes to them.
    reconfigure: async (host, model) => {
      saveBridgeSettings(configFile, host, model);
      const next = { ...config, deepseekHost: host, deepseekModel: model };
      return { bridge: await createBridge(next), check: () => checkConfigured(next), host, model };
    },
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
  const t = textsIn(pultTexts, context.lang);
  io.err(t.link(CODE_LIFE_MS / 60_000));
  if (launched.reused) io.err(t.reused);
  if (launched.movedFrom !== undefined) io.err(t.moved(launched.movedFrom, new URL(launched.url).port));
  if (flags['no-open'] !== true && !(await openInBrowser(launched.oneTimeUrl()))) io.err(t.noBrowser);
  if (launched.pult === undefined) return EXIT.ok;
  io.err(t.serving(executor.box.root));
  const pult = launched.pult;
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      // The executor closed too: the walk and the map's cache are kept for the next session.
      void pult
        .close()
        .then(() => executor.close())
        .then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return EXIT.ok;
}

// Sets deepseekHost and deepseekModel in the config file, keeping its other settings; a new file when there is none.
function saveBridgeSettings(file: string, host: string, model: string): void {
  let settings: unknown = {};
  if (fs.existsSync(file)) settings = JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
    throw new Error(`${file} does not hold a JSON object; fix it, or set deepseekHost and deepseekModel in it by hand`);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify({ ...settings, deepseekHost: host, deepseekModel: model }, null, 2)}\n`);
  fs.renameSync(temp, file);
}
