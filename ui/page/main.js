// The pult's page, wired: the folder's files, the conversation run by run as it happens, the answers with their
// proposed changes as cards, and the folder's saved conversations. Each concern is a module of this folder; this one
// starts the page, switches its language and connects the controls.

import { get, key, post } from './api.js';
import { check, showConfigured, showState } from './bridge.js';
import { wireBridgeSettings } from './bridge-settings.js';
import { connect, lockOut, look, prove, takeToken } from './connection.js';
import { showConversations, takeConversations } from './conversations.js';
import { $, $of, h, setText, showError } from './dom.js';
import { readDraft, saveDraft } from './drafts.js';
import { catchPaste } from './paste-view.js';
import { showRuns, takeRuns, tickWaiting } from './runs.js';
import { conversations, pult, selected } from './state.js';
import { language, setLanguage, t } from './strings.js';
import { showSelected, showTree, takeFiles, takeSizes, tickKept } from './tree.js';

/** @import { BridgeChoice } from '../contract.ts' */
/** @import { Key } from './strings.js' */

// Speaks `lang`: every string of the page in it, and each view drawn again.
/** @param {'en' | 'ru'} lang */
function applyLanguage(lang) {
  setLanguage(lang);
  document.documentElement.lang = lang;
  $of('lang', HTMLSelectElement).value = lang;
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-i18n]'))) {
    const value = t(/** @type {Key} */ (el.dataset.i18n));
    if (typeof value === 'string') el.textContent = value;
  }
  for (const el of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('[data-i18n-placeholder]'))) {
    const value = t(/** @type {Key} */ (el.dataset.i18nPlaceholder));
    if (typeof value === 'string') el.placeholder = value;
  }
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-i18n-label]'))) {
    const value = t(/** @type {Key} */ (el.dataset.i18nLabel));
    if (typeof value === 'string') el.setAttribute('aria-label', value);
  }
  showSelected();
  showTree();
  showFilesToggle();
  showRuns();
  showConversations();
  showState();
}

// The file tree folds away above a copy-and-paste step on a narrow screen (style.css); this button opens it again.
function showFilesToggle() {
  const open = $('files-toggle').getAttribute('aria-expanded') === 'true';
  $('files-toggle').textContent = t(open ? 'hideFiles' : 'showFiles');
}

function ask() {
  const box = $of('question', HTMLTextAreaElement);
  const question = box.value.trim();
  const hint = $('ask-hint');
  if (question === '') {
    hint.textContent = t('emptyQuestion');
    hint.hidden = false;
    box.focus();
    return;
  }
  hint.hidden = true;
  const steps = Number($of('steps', HTMLInputElement).value);
  const bridge = /** @type {BridgeChoice} */ ($of('bridge-choice', HTMLSelectElement).value);
  void post('POST /api/ask', {
    question,
    files: [...selected],
    steps,
    bridge,
    follow: conversations.current !== undefined,
  })
    .then(() => {
      box.value = '';
      saveDraft();
    })
    .catch(showError);
}

function savedLanguage() {
  try {
    return localStorage.getItem('deepwork.lang');
  } catch {
    return null;
  }
}

async function start() {
  const saved = savedLanguage();
  const lang =
    saved === 'ru' || saved === 'en' ? saved : navigator.language.toLowerCase().startsWith('ru') ? 'ru' : 'en';
  setLanguage(lang);
  const taken = await takeToken();
  if (taken.kind === 'refused') {
    applyLanguage(language());
    lockOut(
      t(
        taken.reason === 'used'
          ? 'linkUsed'
          : taken.reason === 'expired'
            ? 'linkExpired'
            : taken.reason === 'unknown'
              ? 'linkUnknown'
              : 'noLink',
      ),
    );
    return;
  }
  const peer = await prove();
  if (peer === 'down') throw new Error(t('notRunning'));
  if (peer === 'foreign') {
    applyLanguage(language());
    lockOut(t('foreignPult'));
    return;
  }
  key.proven = true;
  const state = await get('GET /api/state');
  pult.connected = true;
  pult.root = state.root;
  pult.rootName = state.rootName;
  pult.limits = state.limits;
  setText($('root-name'), `— ${state.rootName}`);
  document.title = `deepwork — ${state.rootName}`;
  $of('steps', HTMLInputElement).value = String(state.steps);
  const choice = $of('bridge-choice', HTMLSelectElement);
  choice.replaceChildren(
    h('option', { value: 'configured' }),
    h('option', { value: 'demo', 'data-i18n': 'demoOption' }, [t('demoOption')]),
    h('option', { value: 'paste', 'data-i18n': 'pasteOption' }, [t('pasteOption')]),
    h('option', { value: 'extension', 'data-i18n': 'extensionOption' }, [t('extensionOption')]),
  );
  showConfigured(state.bridge);
  const draft = readDraft();
  // The bridge chosen before a reload (the demo, or copy and paste), when the page offers it still.
  if (draft.bridge !== undefined && [...choice.options].some((o) => o.value === draft.bridge))
    choice.value = draft.bridge;
  takeConversations(state.conversations);
  takeRuns(state.runs);
  pult.instance = (await get('GET /api/ping')).instance;
  // The language as it is now: the person may have chosen one while the page was loading.
  applyLanguage(language());
  void connect();
  void check();
  const tree = await get('GET /api/tree');
  takeFiles(tree.files, tree.total);
  const box = $of('question', HTMLTextAreaElement);
  if (draft.question !== undefined && box.value === '') box.value = draft.question;
  tickKept(draft.files);
  showTree();
  showSelected();
  await loadSizes(tree.version);
}

// The sizes of the files drawn, which the server looks at after listing them. The tree made again in between (the
// pult wrote files): the page takes the new one, then its sizes.
/** @param {number} version */
async function loadSizes(version) {
  const sizes = await get('GET /api/tree/sizes');
  if (sizes.version === version) {
    takeSizes(sizes.sizes);
    return;
  }
  const tree = await get('GET /api/tree');
  takeFiles(tree.files, tree.total);
  showTree();
  showSelected();
  await loadSizes(tree.version);
}

$('filter').addEventListener('input', showTree);
$('files-toggle').addEventListener('click', () => {
  const open = $('files-toggle').getAttribute('aria-expanded') !== 'true';
  $('files-toggle').setAttribute('aria-expanded', String(open));
  document.querySelector('nav')?.classList.toggle('open', open);
  showFilesToggle();
});
wireBridgeSettings();
document.addEventListener('paste', catchPaste);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') look();
});
window.addEventListener('focus', look);
$('check').addEventListener('click', () => void check());
$('bridge-choice').addEventListener('change', () => {
  saveDraft();
  if ($of('bridge-choice', HTMLSelectElement).value === 'configured') void check();
  else showState();
});
$('lang').addEventListener('change', () => {
  const lang = $of('lang', HTMLSelectElement).value === 'ru' ? 'ru' : 'en';
  try {
    localStorage.setItem('deepwork.lang', lang);
  } catch {
    // Not kept: the page still switches.
  }
  applyLanguage(lang);
});
$('stop').addEventListener('click', () => void post('POST /api/stop', {}).catch(showError));
$('new-conversation').addEventListener(
  'click',
  () => void post('POST /api/conversation/new', {}).then(takeConversations).catch(showError),
);
$('ask-form').addEventListener('submit', (event) => {
  event.preventDefault();
  ask();
});
$('question').addEventListener('input', () => {
  $('ask-hint').hidden = true;
  saveDraft();
});
$('question').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    ask();
  }
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && !$of('stop', HTMLButtonElement).disabled)
    void post('POST /api/stop', {}).catch(showError);
});
setInterval(tickWaiting, 1000);
void start().catch(showError);
