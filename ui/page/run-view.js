// One run as the page shows it: the question, the step log as it happens, a copy-and-paste step, and the answer,
// the model's prose set apart from deepwork's cards and summary. A run is drawn whole from its view and the page's
// state for it, at every message.

import { proposalCard, summaryView } from './cards.js';
import { $, h, replaceKeepingFocus, showHiddenIn } from './dom.js';
import { saidView } from './said.js';
import { afterDrawing, pasteView } from './paste-view.js';
import { extensionLine } from './extension.js';
import { newestId, runs } from './state.js';
import { t } from './strings.js';

/** @import { LogEntry, RunBridge } from '../contract.ts' */
/** @import { Run } from './state.js' */

/** @param {LogEntry} e */
function logLine(e) {
  switch (e.kind) {
    case 'sending':
      return t('stepSending')(e);
    case 'replied':
      return t('stepReplied')(e);
    case 'answered-requests':
      return t('stepAnswered')(e);
    case 'warning':
      return t('stepWarning')(e);
    case 'miscited':
      return t('stepMiscited')(e);
    case 'edits':
      return t('edits')(e);
    case 'done':
      return t('done')(e);
    case 'not-saved':
      return t('notSaved')(e);
  }
}

// Draws the run in its place, or at the end when it is new there, keeping the focus where it was; then what the page
// asked for once it is drawn (a copy-and-paste step brought into view, the focus given to it).
/** @param {Run} run */
export function placeRun(run) {
  const drawn = runView(run);
  const old = document.getElementById(`run-${run.view.id}`);
  if (old === null) $('runs').append(drawn);
  else replaceKeepingFocus(old, drawn);
  afterDrawing(run);
  return drawn;
}

// Draws the run again in place, after a change of the page's own state for it (a diff opened, an Undo's report);
// not when the page has let it go since (deepwork was started again, and its runs are new), nor when it is not shown.
/** @param {Run} run */
export function redraw(run) {
  if (runs.get(run.view.id) !== run || document.getElementById(`run-${run.view.id}`) === null) return;
  placeRun(run);
}

// How many steps the run may take, as its last step said.
/** @param {LogEntry[]} log */
function stepsOf(log) {
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log[i];
    if (e?.kind === 'sending') return e.steps;
  }
  return undefined;
}

/** @param {Run} run */
function answerView(run) {
  const answer = h('div', { class: 'answer' });
  const parts = run.view.parts ?? [];
  const perPath = new Map();
  for (const p of parts) if (p.kind === 'proposal') perPath.set(p.path, (perPath.get(p.path) ?? 0) + 1);
  const seen = new Map();
  for (const part of parts) {
    if (part.kind === 'prose') {
      // The model's text is set apart from deepwork's cards and summary: a bar beside it, and a caption over the first.
      if (answer.querySelector('.prose') === null)
        answer.append(h('p', { class: 'from-model small muted' }, [t('fromModel')]));
      const prose = h('div', { class: 'prose', role: 'group', 'aria-label': t('fromModel') });
      prose.innerHTML = part.html;
      showHiddenIn(prose);
      answer.append(prose);
    } else {
      const i = (seen.get(part.path) ?? 0) + 1;
      seen.set(part.path, i);
      const n = perPath.get(part.path) ?? 1;
      answer.append(proposalCard(run, part.path, part, n > 1 ? t('partOf')(i, n) : '', redraw));
    }
  }
  // Files proposed at an earlier step of the run, not in the final answer.
  const others = run.view.files.filter((f) => !perPath.has(f.path));
  if (others.length > 0) {
    answer.append(h('h4', { class: 'muted small' }, [t('elsewhere')]));
    for (const f of others) answer.append(proposalCard(run, f.path, undefined, '', redraw));
  }
  return answer;
}

// The bridge a run went to, in the page's words.
/** @param {RunBridge} bridge */
function bridgeName(bridge) {
  switch (bridge.kind) {
    case 'configured':
      return t('configuredBridge')(bridge.model, bridge.host);
    case 'demo':
      return t('demoOption');
    case 'paste':
      return t('pasteOption');
    case 'extension':
      return t('extensionOption');
    case 'other':
      return bridge.label;
  }
}

// The step log: open while the run goes on, then folded to one line (how the run ended) with every step on demand. A
// warning keeps it open: the reader should see it without looking for it.
/** @param {Run} run */
function logView(run) {
  const { view } = run;
  const lines = view.log.map((e) =>
    h('li', e.kind === 'warning' || e.kind === 'miscited' ? { class: 'warning' } : {}, [logLine(e)]),
  );
  const waiting = view.waiting !== undefined && view.waiting.paste === undefined ? t('waiting')(view.waiting) : '';
  if (waiting !== '') lines.push(h('li', { class: 'waiting' }, [waiting]));
  const last = view.log.at(-1);
  const line = waiting !== '' ? waiting : last === undefined ? '' : logLine(last);
  const summary = h('summary', { class: 'log-line' });
  // Folded, the summary says the last line; open, the lines below say it.
  const label = () => summary.replaceChildren(t('logSummary')(view.log.length, box.open ? '' : line));
  const box = /** @type {HTMLDetailsElement} */ (
    h('details', { class: 'log-box' }, [summary, h('ul', { class: 'log' }, lines)])
  );
  box.open = run.logOpen ?? (view.state === 'running' || view.log.some((e) => e.kind === 'warning'));
  label();
  // Only the reader's own opening is remembered (a click or Enter on the summary), not the page's.
  summary.addEventListener('click', () => (run.logOpen = !box.open));
  box.addEventListener('toggle', label);
  return box;
}

/** @param {Run} run */
export function runView(run) {
  const { view } = run;
  const meta = view.reopened
    ? t('reopened')
    : `${bridgeName(view.bridge)}${view.attached.length > 0 ? t('withFiles')(view.attached.join(', ')) : ''}`;
  const body = h('div', { class: 'body' }, [h('p', { class: 'meta' }, [meta])]);
  if (view.log.length > 0 || view.waiting !== undefined) body.append(logView(run));
  if (view.waiting?.extension !== undefined) body.append(extensionLine(view.waiting.extension));
  if (view.waiting?.paste !== undefined) {
    const { waiting } = view;
    body.append(pasteView(run, waiting, view.waiting.paste, stepsOf(view.log) ?? waiting.step, redraw));
  }
  if (view.state === 'answered' && view.files.length > 0) body.append(summaryView(run));
  if (view.parts !== undefined) body.append(answerView(run));
  // Citations still wrong in the final answer are said under it too, where the reader follows them.
  const miscited = view.log.findLast((e) => e.kind === 'miscited');
  if (view.parts !== undefined && miscited !== undefined && !miscited.retry)
    body.append(h('p', { class: 'warning miscited', role: 'note' }, [logLine(miscited)]));
  if (view.state === 'stopped') body.append(h('p', { class: 'error' }, [t('stopped')]));
  if (view.error !== undefined) body.append(h('p', { class: 'error', role: 'alert' }, [saidView(view.error)]));
  // Only answered questions are kept in the conversation (and counted in its list): said where the others are.
  if (view.state === 'failed' || view.state === 'stopped')
    body.append(h('p', { class: 'muted small' }, [t('notInConversation')]));
  const summary = h('summary', {}, [h('h3', {}, [view.question])]);
  const details = /** @type {HTMLDetailsElement} */ (
    h('details', { class: 'run', id: `run-${view.id}`, 'data-state': view.state }, [summary, body])
  );
  details.open = !(run.folded ?? view.id !== newestId());
  // Only the reader's own folding is remembered (a click or Enter on the summary), not the page's.
  summary.addEventListener('click', () => (run.folded = details.open));
  return details;
}
