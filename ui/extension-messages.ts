// The extension's words as they arrive on its socket: unknown JSON, checked against the contract
// (ui/extension-contract.ts) field by field. Anything else is undefined, and the socket is let go.

import { isRecord } from '../common/unknown.ts';
import type { ExtensionMiss, MissKind, StepPhase } from './contract.ts';
import { MAX_TAB_REPLY, type ExtensionMessage, type TabReport } from './extension-contract.ts';

const PHASES: readonly StepPhase[] = ['opening', 'typing', 'waiting-send', 'answering', 'reading', 'missed'];
const MISSES: readonly MissKind[] = [
  'absent',
  'no-tab',
  'tab-busy',
  'tab-gone',
  'no-access',
  'logged-out',
  'no-input',
  'not-typed',
  'no-send',
  'no-reply',
  'not-settled',
  'too-large',
  'bad-selector',
  'refused',
  'failed',
];
const ID = /^[A-Za-z0-9_-]{8,64}$/;
const MAX_TABS = 200;

const text = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;
const count = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

// A message of the extension, or undefined. A reply past MAX_TAB_REPLY characters is a miss of its own (too-large),
// made here, so that no caller holds on to it.
export function extensionMessage(raw: string): ExtensionMessage | undefined {
  let m: unknown;
  try {
    m = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isRecord(m)) return undefined;
  switch (m.type) {
    case 'hello':
      return ID.test(String(m.pairing)) && text(m.proof, 100) && text(m.challenge, 128) && text(m.version, 40)
        ? { type: 'hello', pairing: String(m.pairing), proof: m.proof, challenge: m.challenge, version: m.version }
        : undefined;
    case 'tabs': {
      if (!Array.isArray(m.tabs) || m.tabs.length > MAX_TABS) return undefined;
      const tabs: TabReport[] = [];
      for (const t of m.tabs) {
        if (!isRecord(t) || !count(t.id) || !text(t.site, 40) || typeof t.title !== 'string') return undefined;
        tabs.push({ id: t.id, site: t.site, title: t.title.slice(0, 200), other: t.other === true });
      }
      return { type: 'tabs', tabs };
    }
    case 'progress':
      return text(m.job, 64) && PHASES.includes(m.phase as StepPhase) && count(m.chars)
        ? { type: 'progress', job: m.job, phase: m.phase as StepPhase, chars: m.chars }
        : undefined;
    case 'reply':
      if (!text(m.job, 64) || typeof m.text !== 'string') return undefined;
      if (m.text.length > MAX_TAB_REPLY)
        return { type: 'miss', job: m.job, miss: { kind: 'too-large', detail: String(m.text.length) } };
      return { type: 'reply', job: m.job, text: m.text };
    case 'miss': {
      const miss = missOf(m.miss);
      return text(m.job, 64) && miss !== undefined ? { type: 'miss', job: m.job, miss } : undefined;
    }
    case 'pong':
      return { type: 'pong' };
    default:
      return undefined;
  }
}

function missOf(v: unknown): ExtensionMiss | undefined {
  if (!isRecord(v) || !MISSES.includes(v.kind as MissKind)) return undefined;
  if (v.selector !== undefined && !text(v.selector, 2_000)) return undefined;
  if (v.detail !== undefined && !text(v.detail, 500)) return undefined;
  return {
    kind: v.kind as MissKind,
    ...(v.selector === undefined ? {} : { selector: v.selector }),
    ...(v.detail === undefined ? {} : { detail: v.detail }),
  };
}
