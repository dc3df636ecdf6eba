// On a page of 127.0.0.1 or localhost: says the extension is here (for the pult's state line), wakes the extension's
// worker so that it connects to the pults it is paired with, and hands a pairing code the pult's page gives it to the
// worker. It runs apart from the page's own script and holds nothing: the worker asks the person to confirm a pairing
// in a window of its own, which no page can press.

document.documentElement.dataset.deepworkExtension = chrome.runtime.getManifest().version;
void chrome.runtime.sendMessage({ type: 'wake' }).catch(() => undefined);

window.addEventListener('message', (event) => {
  if (event.source !== window || event.origin !== location.origin) return;
  const data = /** @type {unknown} */ (event.data);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return;
  const { type, code } = /** @type {Record<string, unknown>} */ (data);
  if (type !== 'deepwork-pair' || typeof code !== 'string' || !/^[A-Za-z0-9_-]{16,64}$/.test(code)) return;
  chrome.runtime.sendMessage({ type: 'pair', code }).then(
    (answer) => window.postMessage({ type: 'deepwork-paired', answer }, location.origin),
    (error) =>
      window.postMessage(
        {
          type: 'deepwork-paired',
          answer: { ok: false, error: error instanceof Error ? error.message : String(error) },
        },
        location.origin,
      ),
  );
});
