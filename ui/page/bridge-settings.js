// The configured bridge's host and model, changed in the pult: a small form under the header, saved by the server to
// config.json; the Bridge list and the state line follow at once.

import { post } from './api.js';
import { check, showConfigured } from './bridge.js';
import { $, $of } from './dom.js';
import { pult } from './state.js';

/** @param {boolean} open */
function showForm(open) {
  const form = $of('bridge-form', HTMLFormElement);
  form.hidden = !open;
  $('bridge-edit').setAttribute('aria-expanded', String(open));
  $('bridge-form-error').hidden = true;
  if (open) {
    $of('bridge-host', HTMLInputElement).value = pult.bridge.host;
    $of('bridge-model', HTMLInputElement).value = pult.bridge.model;
    $of('bridge-host', HTMLInputElement).focus();
  }
}

async function save() {
  const error = $('bridge-form-error');
  try {
    const settings = await post('POST /api/bridge', {
      host: $of('bridge-host', HTMLInputElement).value,
      model: $of('bridge-model', HTMLInputElement).value,
    });
    pult.bridge = settings;
    showConfigured(settings);
    showForm(false);
    $of('bridge-choice', HTMLSelectElement).value = 'configured';
    void check();
  } catch (e) {
    error.textContent = e instanceof Error ? e.message : String(e);
    error.hidden = false;
  }
}

export function wireBridgeSettings() {
  $('bridge-edit').addEventListener('click', () => showForm($of('bridge-form', HTMLFormElement).hidden === true));
  $('bridge-cancel').addEventListener('click', () => showForm(false));
  $of('bridge-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    void save();
  });
}
