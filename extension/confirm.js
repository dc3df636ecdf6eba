// The person's answer to a pairing: asked in the extension's own window, which no web page can reach or press.

const params = new URLSearchParams(location.search);
const port = Number(params.get('port'));
const id = params.get('id') ?? '';
const where = document.getElementById('where');
if (where !== null) where.textContent = `127.0.0.1:${Number.isInteger(port) ? port : '?'}`;
if (navigator.language.startsWith('ru')) {
  const ask = document.getElementById('ask');
  if (ask !== null && where !== null) ask.replaceChildren('Связать с пультом deepwork на ', where, '?');
  const why = document.getElementById('why');
  if (why !== null)
    why.textContent =
      'Расширение будет вставлять сообщения deepwork во вкладки чата и читать ответы, пока идёт вопрос. Связывайте, только если вы только что нажали «Связать» в этом пульте.';
  const yes = document.getElementById('yes');
  if (yes !== null) yes.textContent = 'Связать';
  const no = document.getElementById('no');
  if (no !== null) no.textContent = 'Отмена';
}

/** @param {boolean} yes */
function answer(yes) {
  void chrome.runtime.sendMessage({ type: 'confirm', id, yes }).finally(() => window.close());
}
document.getElementById('yes')?.addEventListener('click', () => answer(true));
document.getElementById('no')?.addEventListener('click', () => answer(false));
