// What the page knows: the folder and the pult it talks to, the conversations, the files ticked, and the runs, each
// with the page's own state for it. No DOM here: the views read this and draw.

/** @import { ConversationInfo, RunView, UndoneFile } from '../contract.ts' */
/** @import { PasteNote } from './paste-strings.js' */

// The folder and the pult answering for it.
export const pult = {
  root: '',
  rootName: '',
  // What the files ticked with a question may hold before the first step leaves some for the model to ask again.
  limits: { needChars: 200_000, needPaths: 100 },
  // The server's instance: another one means deepwork was started again, and its runs are new.
  instance: '',
  // A pult that proved itself answers; false while deepwork is stopped or the page is locked out.
  connected: false,
  // The configured bridge: where it is and the model asked for.
  bridge: { host: '', model: '' },
};

// The folder's saved conversations, and the one shown, which a follow-up continues (undefined: a new one).
export const conversations = {
  /** @type {string | undefined} */
  current: undefined,
  /** @type {ConversationInfo[]} */
  list: [],
};

// The files ticked to go with the question, by path.
/** @type {Set<string>} */
export const selected = new Set();

/**
 * A run as the server last sent it (`view`), and what the page keeps for it between the redraws that every message
 * brings: nothing of this is in the view, and it goes when the run goes.
 * @typedef {{
 *   view: RunView,
 *   folded: boolean | undefined,
 *   logOpen: boolean | undefined,
 *   diffs: Set<string>,
 *   undone: { files: UndoneFile[], count: number, path: string } | undefined,
 *   paste: PasteState | undefined,
 *   draft: string,
 *   note: PasteNote | undefined,
 *   refused: string | undefined,
 *   focus: 'copy' | 'reply' | undefined,
 * }} Run
 * `folded`: the reader's own folding, by a click on the run's summary (undefined: the page decides). `logOpen`: the
 * reader's own opening of the step log (undefined: open when it holds a warning).
 * `diffs`: the paths whose diff the reader opened or closed (a small diff is open at first, a long one closed).
 * `undone`: what the last Undo did, shown under the card whose Undo it was (`path`), until the next Write (`count`:
 * the files it undid). `paste`: the waiting copy-and-paste step as the page keeps it. `draft`: the reply pasted so far. `note`:
 * what became of Copy or of Paste from clipboard. `refused`: the server's refusal of the reply sent, said by the reply
 * box until the next is sent. `focus`: where the focus goes once the run is drawn and that control can take it (the
 * reply box after Copy, Copy when a step comes).
 */

/**
 * A copy-and-paste step's messages, each asked for once (undefined while on its way or not asked for): the message for
 * the chat the step's conversation is pasted into, and the one that stands on its own, for a new chat. `newChat`: the
 * reader's choice of chat; undefined follows the server (a new chat when the same one is full). `sending`: a reply is on
 * its way (a second press sends nothing). `shown`: the step was brought into view once its message came.
 * @typedef {{
 *   step: number,
 *   message: string | undefined,
 *   standalone: string | undefined,
 *   standaloneAsked: boolean,
 *   newChat: boolean | undefined,
 *   sending: boolean,
 *   shown: boolean,
 * }} PasteState
 */

// Every run of this pult the page has been sent, by id.
/** @type {Map<number, Run>} */
export const runs = new Map();

// A run as the server sent it, kept with the page's state for it; `fresh`: not known before.
/** @param {RunView} view @returns {{ run: Run, fresh: boolean }} */
export function takeRun(view) {
  const known = runs.get(view.id);
  if (known !== undefined) {
    known.view = view;
    return { run: known, fresh: false };
  }
  /** @type {Run} */
  const run = {
    view,
    folded: undefined,
    logOpen: undefined,
    diffs: new Set(),
    undone: undefined,
    paste: undefined,
    draft: '',
    note: undefined,
    refused: undefined,
    focus: undefined,
  };
  runs.set(view.id, run);
  return { run, fresh: true };
}

// The runs of the conversation shown, oldest first.
export function shownRuns() {
  return [...runs.values()]
    .filter((r) => r.view.conversation === conversations.current)
    .sort((a, b) => a.view.id - b.view.id);
}

// The newest run of the conversation shown (0: none), which is open unless the reader folded it.
export function newestId() {
  let newest = 0;
  for (const { view } of runs.values())
    if (view.conversation === conversations.current && view.id > newest) newest = view.id;
  return newest;
}
