// The runs of the conversation shown, in order: each drawn again as its message comes, the newest scrolled into view
// with the ones before it folded; and the buttons that depend on them (Ask, Stop, New conversation).

import { $, $of } from './dom.js';
import { afterDrawing } from './paste-view.js';
import { placeRun, runView } from './run-view.js';
import { conversations, newestId, pult, runs, shownRuns, takeRun } from './state.js';
import { t } from './strings.js';

/** @import { RunView } from '../contract.ts' */

// The newest run brought into view so far: a run is scrolled to once, when it first comes, not again when the page
// is sent it anew (a reconnect, a reopened conversation).
let latestShown = 0;

// The runs the page had at start are in view already.
/** @param {RunView[]} views */
export function takeRuns(views) {
  for (const view of views) takeRun(view);
  latestShown = Math.max(0, ...views.map((r) => r.id));
}

/** @param {RunView} view */
export function showRun(view) {
  const { run, fresh } = takeRun(view);
  if (view.conversation !== conversations.current) return;
  const drawn = placeRun(run);
  if (fresh && view.id === newestId() && view.id > latestShown) {
    latestShown = view.id;
    // The newest run in view, the ones before it folded unless the reader opened them.
    for (const other of shownRuns()) {
      if (other.view.id === view.id || other.folded !== undefined) continue;
      const el = document.getElementById(`run-${other.view.id}`);
      if (el instanceof HTMLDetailsElement) el.open = false;
    }
    drawn.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }
  showButtons();
}

export function showRuns() {
  const list = shownRuns();
  $('runs').replaceChildren(...list.map(runView));
  for (const run of list) afterDrawing(run);
  showButtons();
}

// The characters received while a step is waited for: counted by the waiting line's next tick, not drawn now.
/** @param {number} id @param {number} received @param {number} thinking */
export function takeProgress(id, received, thinking) {
  const waiting = runs.get(id)?.view.waiting;
  if (waiting === undefined) return;
  waiting.received = received;
  waiting.thinking = thinking;
}

// Each waiting line counts its seconds.
export function tickWaiting() {
  for (const el of document.querySelectorAll('.waiting')) {
    const waiting = runs.get(Number(el.closest('.run')?.id.slice(4)))?.view.waiting;
    if (waiting !== undefined) el.textContent = t('waiting')(waiting);
  }
}

export function showButtons() {
  const running = [...runs.values()].some((r) => r.view.state === 'running');
  $of('ask', HTMLButtonElement).disabled = running || !pult.connected;
  $of('stop', HTMLButtonElement).disabled = !running || !pult.connected;
  $of('new-conversation', HTMLButtonElement).disabled = running || conversations.current === undefined;
  $('empty').hidden = shownRuns().length > 0;
  // The conversation's title is its first question, which its first run shows: said once. With runs to read, the file
  // tree folds away on a narrow screen (style.css).
  $('conversation-heading').hidden = shownRuns().length > 0;
  document.body.classList.toggle('has-runs', shownRuns().length > 0);
  // While a copy-and-paste step waits, the composer steps aside (not sticky over the step) and, on a narrow screen,
  // the file tree folds away above it (style.css).
  document.body.classList.toggle(
    'pasting',
    shownRuns().some((r) => r.view.waiting?.paste !== undefined),
  );
}
