// What crosses between the pult's server and its page: every WebSocket message both ways and every route's request
// and answer. One file that both sides import (as vite's types/hmrPayload.d.ts is): ui/server.ts and ui/session.ts
// with `import type`, the page with JSDoc `@import`, which `tsc -p ui/page` checks. Types only, and importing nothing:
// the page's check sees this file and no server code. The server's own types (an applied file, an undo report, a
// loop's stop) reach the page by being assigned to these, so a change there that the page would not understand stops
// the server's build until it is made here too, where the page's check sees it.

// ---- what the server says, as codes ----

// A sentence of the server's as a code and its parameters: the page words it in the reader's language (strings.js,
// said). `detail`: words of the layers below that are English still (why a SEARCH missed, why a file makes tools run
// code), which the page shows after its own sentence, marked as English. `text`: a sentence not coded yet.
export type Said =
  // What stands in the way of a proposed file, or is to be known before it is written (FileView.said).
  | { code: 'incomplete'; block: 'file' | 'edit' }
  | { code: 'edit-unreadable'; detail: string }
  // `edit` of `edits`: which of the path's EDITs did not apply; `pair`: its SEARCH/REPLACE pair, from 1.
  | { code: 'edit-failed'; edit: number; edits: number; pair: number; detail: string }
  | { code: 'no-file-to-edit' }
  | { code: 'path-refused'; detail: string }
  | { code: 'link'; to: string }
  | { code: 'edit-partial'; pairs: number; missed: number[] }
  | { code: 'binary'; detail: string }
  | { code: 'private-key'; line: number | undefined }
  | { code: 'too-large'; bytes: number; limit: number }
  | { code: 'unreadable'; errno: string }
  | { code: 'inexact'; encoding: string }
  | { code: 'read-only' }
  | { code: 'elided'; detail: string }
  | { code: 'runs-code'; detail: string }
  | { code: 'unencodable'; char: string; line: number; encoding: string }
  | { code: 'written-later'; path: string }
  | { code: 'git-dir'; detail: string }
  // What became of a Write (the route's answer): stopped before the file, the file changed between the look and the
  // write, or since the diff the page showed, or the disk refused (`errno`: its code, when it gave one).
  | { code: 'stopped' }
  | { code: 'changed-since-read' }
  | { code: 'changed-since-shown' }
  | { code: 'write-failed'; errno: string | undefined; detail: string }
  // Why undo left a file as it is, or could not put it back (UndoneFile.said); `copy`: where its old version stays.
  | { code: 'undo-outside' }
  | { code: 'undo-path-refused'; detail: string }
  | { code: 'undo-now-link'; to: string }
  | { code: 'undo-unreadable'; errno: string }
  | { code: 'undo-changed-after'; copy: string | undefined }
  | { code: 'undo-changed-while'; copy: string | undefined }
  | { code: 'undo-copy-outside' }
  | { code: 'undo-failed'; detail: string }
  // A route's refusal (RouteError.said).
  | { code: 'busy' }
  | { code: 'not-waiting'; run: number }
  | { code: 'no-proposal'; run: number; paths: string[] }
  | { code: 'nothing-to-undo'; set: string | undefined }
  | { code: 'undo-blocked'; later: Array<{ path: string; set: string }> }
  | { code: 'no-conversation'; id: string }
  // A pasted reply refused: the chat's notice that it took too much (its words), or nothing at all.
  | { code: 'chat-notice'; notice: string }
  | { code: 'empty-reply' }
  // A change of the configured bridge refused: a host that is not an http(s) URL, no model, a pult started without a
  // config file to save to (tests), or the file could not be written.
  | { code: 'bad-host'; host: string; detail: string }
  | { code: 'bad-model' }
  | { code: 'no-settings' }
  | { code: 'not-saved'; detail: string }
  // Why a run failed (RunView.error), or why the bridge is down (BridgeCheck.said): nothing listens at `origin`, its
  // name does not resolve, no whole answer in time, the model's window too small, a model the bridge does not know.
  | { code: 'not-listening'; origin: string; errno: string }
  | { code: 'no-such-host'; host: string }
  | { code: 'timeout'; origin: string }
  | { code: 'window-full'; detail: string }
  | { code: 'unknown-model'; model: string; detail: string }
  // The bridge's state (BridgeCheck.said), when it answers.
  | { code: 'ready'; host: string; model: string }
  | { code: 'idle'; host: string; model: string }
  | { code: 'text'; text: string };

// ---- a run as the page shows it ----

// Why a run's loop ended: it answered, its steps ran out, or the model asked again for what it had (protocol/loop.ts).
export type Stop = 'answered' | 'steps' | 'repeat';

// What became of a proposed file (writing/apply.ts): the page words each in the reader's language.
export type FileStatus =
  | 'new'
  | 'changed'
  | 'unchanged'
  | 'incomplete'
  | 'held back'
  | 'refused'
  | 'failed'
  | 'stopped';

// A proposed file: its status against the disk now, its diff, and what its Write sends back (`base`).
export type FileView = {
  path: string;
  status: FileStatus;
  added: number;
  removed: number;
  written: boolean;
  // Why it is not written, or held back, or what to know before it is.
  said?: Said;
  // A unified diff against the disk as it is now.
  diff?: string;
  // What the diff was made against, hashed: a Write names it, and a file that is no longer that is not overwritten.
  base?: string;
  // The backup set its Write made (absent on the wire when undefined: JSON drops it).
  backupSet?: string | undefined;
};

// A place the answer cites that does not match the files (protocol/citations.ts): no such file, a line past the end,
// the name cited beside it elsewhere (`at`) or not in the file.
export type Miscitation = { cited: string; path: string; line: number; end?: number; name?: string } & (
  | { problem: 'no-file' }
  | { problem: 'past-end'; lines: number }
  | { problem: 'name-elsewhere'; at: number; more?: number[] }
  | { problem: 'name-absent' }
);

// The step log as data: the page words it in the reader's language.
export type LogEntry =
  | {
      kind: 'sending';
      step: number;
      steps: number;
      chars: number;
      tokens: number;
      budget: number;
      window: number;
      dropped: number;
    }
  | { kind: 'replied'; step: number; steps: number; chars: number; ms: number; requests: string[]; files: string[] }
  | { kind: 'answered-requests'; step: number; steps: number; requests: number; chars: number }
  | { kind: 'warning'; step: number; steps: number; message: string }
  // `retry`: put to the model, whose next reply answers again.
  | { kind: 'miscited'; step: number; steps: number; citations: Miscitation[]; retry: boolean }
  // How the run's EDIT blocks went (`run`), and its model's over all runs (`all`): applied, or not.
  | {
      kind: 'edits';
      model: string;
      run: { applied: number; missed: number };
      all: { applied: number; missed: number };
    }
  | { kind: 'done'; steps: number; stop: Stop }
  | { kind: 'not-saved'; where: string; reason: string };

// The answer in pieces: prose as sanitised HTML, and each FILE or EDIT block as a reference to its proposal, which the
// page shows as a card in place (never as markdown).
export type AnswerPart =
  | { kind: 'prose'; html: string }
  | { kind: 'proposal'; path: string; block: 'file' | 'edit'; complete: boolean };

// A copy-and-paste step's message, waiting to be copied into a web chat (the page fetches it: GET /api/paste).
// `warning`: the message is past what the chat takes in one message. `standalone`: in a chat that holds what came
// before, the message that stands on its own, for a new chat (GET /api/paste?standalone=1). `chat`: what the chat
// holds now, as deepwork counts it, and the site's limits;
// `full`: with this message it would pass what the chat holds (start a new chat with the standalone message).
export type PasteWaiting = {
  chars: number;
  tokens: number;
  warning?: string;
  standalone?: { chars: number; tokens: number; warning?: string };
  chat: { site: string; chars: number; messages: number; chatChars: number; messageChars: number };
  full: boolean;
  fullWarning?: string;
};

// The step being waited for, and since when (ms since epoch): the page counts the seconds. `carries`: in a web chat
// that holds what came before, what this step's message holds that is new. `extension`: the browser extension works
// the step in a chat tab; the copy-and-paste step (`paste`) stays ready beside it, and is the step when it missed.
export type Waiting = {
  step: number;
  since: number;
  received: number;
  thinking: number;
  paste?: PasteWaiting;
  carries?: string[];
  extension?: ExtensionStep;
};

// ---- the browser extension (extension/, ui/extension-*.ts) ----

// Where a step stands in the chat tab: the tab opened at a new chat, the message put into its input, waiting for the
// person to press Send (assisted), the chat answering, its reply being taken; `missed`: the step is the person's to
// copy and paste, and `miss` says why.
export type StepPhase = 'opening' | 'typing' | 'waiting-send' | 'answering' | 'reading' | 'missed';

// Why the extension could not do a step. The page words each: `selector` is the site's selector that matched nothing
// (or did not do what it should), `detail` the figure or the server's sentence that goes with it.
export type MissKind =
  | 'absent'
  | 'no-tab'
  | 'tab-busy'
  | 'tab-gone'
  | 'no-access'
  | 'logged-out'
  | 'no-input'
  | 'not-typed'
  | 'no-send'
  | 'no-reply'
  | 'not-settled'
  | 'too-large'
  | 'bad-selector'
  | 'refused'
  | 'failed';
export type ExtensionMiss = { kind: MissKind; selector?: string; detail?: string };

// A step the extension works: the site (its name), the tab's title, whether it presses Send itself, where it stands,
// the reply's characters so far.
export type ExtensionStep = {
  site: string;
  tab: string;
  automatic: boolean;
  phase: StepPhase;
  chars: number;
  miss?: ExtensionMiss;
};

// A chat tab the extension found: its id in the browser, its site (key and name), its title (the page's own, untrusted
// text), and whether another pult's question uses it.
export type ChatTab = { id: number; site: string; name: string; title: string; other: boolean };

// A file of the sites folder the pult could not read, with the sentence that says what to fix.
export type SiteProblem = { file: string; problem: string };

// The extension as this pult knows it: connected (paired, and proven), the chat tabs it sees, the one chosen here
// (undefined: the extension's choice), whether it presses Send itself, and the user's sites that could not be read.
export type ExtensionState = {
  type: 'extension';
  connected: boolean;
  tabs: ChatTab[];
  tab: number | undefined;
  automatic: boolean;
  problems: SiteProblem[];
};

export type RunState = 'running' | 'answered' | 'failed' | 'stopped';

// The bridge a run went to: the configured one (its host and model), the demo, copy and paste, or another (its label).
export type RunBridge =
  | { kind: 'configured'; host: string; model: string }
  | { kind: 'demo' }
  | { kind: 'paste' }
  | { kind: 'extension' }
  | { kind: 'other'; label: string };

// One question and what came of it. A field that is undefined is absent on the wire (JSON drops it).
export type RunView = {
  id: number;
  // The conversation the run belongs to (saved/conversations.ts).
  conversation: string;
  question: string;
  attached: string[];
  bridge: RunBridge;
  state: RunState;
  // Reopened from a saved conversation: its answer as it was, without a log.
  reopened: boolean;
  log: LogEntry[];
  waiting: Waiting | undefined;
  parts: AnswerPart[] | undefined;
  stop: Stop | undefined;
  error: Said | undefined;
  files: FileView[];
  // The proposed paths whose new text holds invisible or direction-changing characters, found in the whole text: a
  // diff shows only its first lines, or none for a file rewritten throughout. The page says so on their cards.
  hiddenIn: string[];
};

// A saved conversation in the folder's list.
export type ConversationInfo = { id: string; title: string; time: string; questions: number };

// The folder's conversations, and the one a follow-up continues (undefined: the next question starts one).
export type Conversations = { type: 'conversations'; current: string | undefined; list: ConversationInfo[] };

// ---- the WebSocket, /ws?token=… ----

// What the session sends as a run goes on: the whole run at each change, and the characters received between.
export type Outgoing =
  | { type: 'run'; run: RunView }
  | { type: 'progress'; id: number; received: number; thinking: number }
  | Conversations
  | ExtensionState;

// Everything the server sends on the socket. `rekeyed`: a one-time link came a second time, so the pult changed its
// key and lets this page go. `error`: the page sent something the server does not take.
export type ServerMessage = Outgoing | { type: 'rekeyed' } | { type: 'error'; message: string };

// What the page sends: `hello` asks for every run and the conversations (on each connect and reconnect); `look`, sent
// when the page is looked at again, has every proposal judged against the disk as it is now (runs that changed come).
export type PageMessage = { type: 'hello' } | { type: 'look' };

// ---- the routes ----

// The bridge's state as --check reports it, and what it says of it.
export type BridgeCheck = { state: 'ready' | 'idle' | 'down'; host: string; model: string; said: Said };

// The configured bridge: where it is and the model asked for (the page names it in its own words).
export type BridgeSettings = { host: string; model: string };

// The bridge a question goes to: the config's, the offline demo, a person copying and pasting, or the browser extension
// doing the copying in a chat tab.
export type BridgeChoice = 'configured' | 'demo' | 'paste' | 'extension';

// Why a one-time link was refused: traded before, too old, or not made by this pult (for this run of it).
export type LinkRefusal = 'used' | 'expired' | 'unknown';

// What every route answers when it refuses: the server's message in English, a tag where the page decides on the
// reason, and what the page words (`said`) when the server has it as a code.
export type RouteError = { error: string; reason?: LinkRefusal; said?: Said };

// Everything the page needs at start.
export type PultState = {
  root: string;
  rootName: string;
  bridge: BridgeSettings;
  steps: number;
  // What the files ticked with a question may hold before the first step leaves some for the model to ask again.
  limits: { needChars: number; needPaths: number };
  check: BridgeCheck | null;
  running: boolean;
  runs: RunView[];
  conversations: Conversations;
};

// The folder's files, at most the first 50,000 of `total`; `version` names this making of the tree, whose sizes come
// apart (FileSizes), so that the page draws the tree without waiting for a stat of every file.
export type FileTree = { root: string; files: string[]; total: number; version: number };

// The sizes in bytes of a tree's files, in the order of its `files`.
export type FileSizes = { version: number; sizes: number[] };

// `follow`: continue the current conversation. `demo: true` is the older way to say bridge "demo".
export type AskRequest = {
  question: string;
  files?: string[];
  steps?: number;
  bridge?: BridgeChoice;
  follow?: boolean;
  demo?: boolean;
};

// One file, by its path and the `base` its preview showed (`force`: Write anyway on a held-back card), or several at
// once as one backup set (`files`: path to base).
export type WriteRequest =
  | { run: number; path: string; base: string; force?: boolean }
  | { run: number; files: Record<string, string> };

// What undo did with each file of the set. `left`: the file changed since deepwork wrote it (or is now a link), so it
// is left as the user has it; `failed`: it could not be put back, and is as it was.
export type UndoAction = 'restored' | 'removed' | 'left' | 'failed';
export type UndoneFile = { path: string; action: UndoAction; said?: Said };

// An undo's report. The set's manifest comes along too; the page reads only the files.
export type UndoReport = {
  set: { dir: string; name: string } | undefined;
  files: UndoneFile[];
  later: Array<{ path: string; set: string }>;
};

// Every route: its query, its JSON body (undefined: none) and its answer. The server's route table is typed over this,
// so a route that answers otherwise does not compile; the page's api() takes its types from it.
export type Routes = {
  // Who answers on the port: its instance (new at each start) and its folder.
  'GET /api/ping': { query: undefined; body: undefined; response: { instance: string; root: string } };
  // Open: an HMAC of the challenge keyed by the token (ui/security.ts, proofOf), never the token.
  'GET /api/prove': { query: { challenge: string }; body: undefined; response: { instance: string; proof: string } };
  // Open: a one-time code for the token; refused with a LinkRefusal.
  'POST /api/exchange': { query: undefined; body: { code: string }; response: { token: string } };
  'GET /api/state': { query: undefined; body: undefined; response: PultState };
  'GET /api/tree': { query: undefined; body: undefined; response: FileTree };
  'GET /api/tree/sizes': { query: undefined; body: undefined; response: FileSizes };
  'GET /api/check': { query: undefined; body: undefined; response: BridgeCheck };
  'POST /api/ask': { query: undefined; body: AskRequest; response: { id: number } };
  'GET /api/paste': { query: { run: string; standalone?: string }; body: undefined; response: { message: string } };
  'POST /api/paste': {
    query: undefined;
    body: { run: number; reply: string; newChat?: boolean };
    response: { ok: true };
  };
  'POST /api/stop': { query: undefined; body: Record<string, never>; response: { stopped: boolean } };
  // One file answers its FileView; several answer them all.
  'POST /api/write': { query: undefined; body: WriteRequest; response: FileView | { files: FileView[] } };
  // The configured bridge's host and model, changed and saved to the config file.
  'POST /api/bridge': { query: undefined; body: { host: string; model: string }; response: BridgeSettings };
  'POST /api/conversation/new': { query: undefined; body: Record<string, never>; response: Conversations };
  'POST /api/conversation/open': { query: undefined; body: { id: string }; response: Conversations };
  // Without `set`, the last set.
  'POST /api/undo': { query: undefined; body: { set?: string }; response: UndoReport };
  // The extension: its state here; a one-time code the page hands the extension to pair with this deepwork; the tab
  // chosen (null: the extension's choice) and whether it presses Send itself.
  'GET /api/extension': { query: undefined; body: undefined; response: ExtensionState };
  'POST /api/extension/pair': { query: undefined; body: Record<string, never>; response: { code: string } };
  'POST /api/extension/settings': {
    query: undefined;
    body: { tab?: number | null; automatic?: boolean };
    response: ExtensionState;
  };
};

export type Route = keyof Routes;
export type GetRoute = Extract<Route, `GET ${string}`>;
export type PostRoute = Extract<Route, `POST ${string}`>;
