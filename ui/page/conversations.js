// The folder's saved conversations: the list to reopen one from, and the title of the one shown, which Ask continues.

import { post } from './api.js';
import { $, h, setText, showError } from './dom.js';
import { showButtons, showRuns } from './runs.js';
import { conversations, shownRuns } from './state.js';
import { locale, t } from './strings.js';

/** @import { Conversations } from '../contract.ts' */

export function showConversations() {
  const { current, list } = conversations;
  const info = list.find((c) => c.id === current);
  const title = info?.title ?? shownRuns()[0]?.view.question;
  setText($('conversation-title'), title ?? t('newConversationTitle'));
  setText($('follow'), title === undefined ? '' : t('continues')(title));
  const items = $('conversations');
  if (list.length === 0) {
    items.replaceChildren(h('li', { class: 'small muted' }, [t('noConversations')]));
  } else {
    items.replaceChildren(
      ...list.map((c) => {
        const when = new Date(c.time).toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
        const button = h('button', { type: 'button', 'aria-current': String(c.id === current) }, [
          h('span', { class: 'title' }, [c.title]),
          h('span', { class: 'when' }, [`${when} · ${t('questions')(c.questions)}`]),
        ]);
        button.addEventListener(
          'click',
          () => void post('POST /api/conversation/open', { id: c.id }).then(takeConversations).catch(showError),
        );
        return h('li', {}, [button]);
      }),
    );
  }
  showButtons();
}

// The list and the current conversation, as a route or the socket sent them; another current one shows its runs.
/** @param {Conversations} value */
export function takeConversations(value) {
  const changed = value.current !== conversations.current;
  conversations.current = value.current;
  conversations.list = value.list;
  if (changed) showRuns();
  showConversations();
}
