// The draft: the question, the ticked files and the bridge chosen survive a reload, kept per folder in localStorage.

import { $of, isRecord } from './dom.js';
import { pult, selected } from './state.js';

function draftKey() {
  return `deepwork.draft:${pult.root}`;
}

export function saveDraft() {
  if (pult.root === '') return;
  const question = $of('question', HTMLTextAreaElement).value;
  const bridge = $of('bridge-choice', HTMLSelectElement).value;
  try {
    localStorage.setItem(draftKey(), JSON.stringify({ question, files: [...selected], bridge }));
  } catch {
    // Storage full or refused: the draft is a convenience.
  }
}

// The draft kept for this folder, as far as it is one: storage is anyone's to change.
/** @returns {{ question?: string, files: string[], bridge?: string }} */
export function readDraft() {
  /** @type {unknown} */
  let value;
  try {
    value = JSON.parse(localStorage.getItem(draftKey()) ?? 'null');
  } catch {
    value = null;
  }
  if (!isRecord(value)) return { files: [] };
  const files = Array.isArray(value.files) ? value.files.filter((f) => typeof f === 'string') : [];
  return {
    files,
    ...(typeof value.question === 'string' ? { question: value.question } : {}),
    ...(typeof value.bridge === 'string' ? { bridge: value.bridge } : {}),
  };
}
