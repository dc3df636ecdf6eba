// The pult's options for a test: what deepwork.ts wires in (the demo bridge, the bridge check, a state folder),
// filled in around what the test names; the state folder is a fresh temp folder.

import type { PultOptions } from '../ui/server.ts';
import { createDemoBridge } from '../bridge/demo.ts';
import { checkBridge } from '../bridge/check.ts';
import { tempFolder } from './helpers.ts';

export function pultOptions(
  given: Omit<PultOptions, 'demo' | 'check' | 'stateDir'> & Partial<Pick<PultOptions, 'stateDir'>>,
): PultOptions {
  return {
    demo: createDemoBridge,
    check: () => checkBridge(given.host, given.model),
    stateDir: given.stateDir ?? tempFolder(),
    ...given,
  };
}
