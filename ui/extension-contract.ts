// What crosses between the pult's server and the browser extension (extension/) on the extension's WebSocket,
// /extension: the sites' data and every message both ways. Types only, importing nothing but types (the page's
// contract, a site's data): the
// server (ui/extension-link.ts) imports them with `import type`, the extension with JSDoc `@import`, which
// `tsc -p extension` checks, so neither side can drift from what the other sends.
//
// The handshake. Pairing: the page asks the pult for a one-time code (POST /api/extension/pair, with the token) and
// hands it to the extension's script on the pult's page (window.postMessage to the page's own origin), which opens
// /extension?pair=<code>; the pult answers `paired` with a key made for it and closes. Every later connection: the pult sends a `challenge`; the extension answers `hello` with an HMAC of it keyed
// by that key and bound to the pult's port, and a challenge of its own; the pult answers `welcome` with the HMAC of
// that. Neither side ever sends the key again, so whatever else answers on a pult's port, or poses as the extension,
// learns nothing it could use, not even by relaying one side's words to the other.

import type { ExtensionMiss, StepPhase } from './contract.ts';
import type { SiteData } from '../bridge/site-data.ts';

// A chat site as the extension uses it: bridge/sites.ts holds the built-in ones and reads the user's.
export type { SiteData } from '../bridge/site-data.ts';

// A chat tab as the extension reports it: its id, the key of the site it matches, its title, and whether another
// pult's question holds it.
export type TabReport = { id: number; site: string; title: string; other: boolean };

// The pult to the extension. `job`: a step to work in tab `tab` (or, when it is undefined, a free tab of the site the
// extension chooses); `fresh`: the message stands on its own, so the chat is begun anew at the site's `newChat`.
export type PultMessage =
  | { type: 'challenge'; instance: string; challenge: string }
  | { type: 'paired'; pairing: string; key: string; folder: string }
  | { type: 'welcome'; proof: string; folder: string; sites: SiteData[] }
  | { type: 'sites'; sites: SiteData[] }
  | { type: 'job'; job: string; tab: number; site: string; message: string; fresh: boolean; automatic: boolean }
  | { type: 'cancel'; job: string }
  | { type: 'ping' };

// The extension to the pult. `reply`: the last reply as read from the chat's page, its code blocks fenced again.
export type ExtensionMessage =
  | { type: 'hello'; pairing: string; proof: string; challenge: string; version: string }
  | { type: 'tabs'; tabs: TabReport[] }
  | { type: 'progress'; job: string; phase: StepPhase; chars: number }
  | { type: 'reply'; job: string; text: string }
  | { type: 'miss'; job: string; miss: ExtensionMiss }
  | { type: 'pong' };

// The most characters a reply taken from a chat tab may have: ten times the longest reply a web chat gives, and far
// under what the socket takes. Both sides hold to it.
export const MAX_TAB_REPLY = 1_000_000;
