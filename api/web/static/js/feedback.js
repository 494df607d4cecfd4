// Feedback to the player: toasts for what they should see, announcements for
// screen readers, and the confirmation dialog. Every module reports through
// these, so that messages look and read the same wherever they come from.

import { h } from './util.js';
import { t, errorText } from './i18n.js';

const toasts = document.getElementById('toasts');
const announcer = document.getElementById('announce');

// MAX_TOASTS bounds the stack: a burst of errors pushes the oldest out
// rather than covering the page.
const MAX_TOASTS = 4;

/** toast shows text for a few seconds; errors stay longer. */
export function toast(text, kind = 'info') {
  const el = h('div', { class: `toast toast-${kind}`, text });
  toasts.appendChild(el);
  setTimeout(() => el.remove(), kind === 'error' ? 6000 : 3500);
  while (toasts.children.length > MAX_TOASTS) toasts.firstChild.remove();
}

/** announce has screen readers say text (the polite live region). */
export function announce(text) {
  announcer.textContent = '';
  // A fresh text node makes screen readers speak the same words again.
  setTimeout(() => { announcer.textContent = text; }, 20);
}

/**
 * fail shows a refused request or a failed step as an error toast: err is a
 * protocol error ({code, message}), a move refusal ({reason}) or one of the
 * client's own ({code, key}); errorText (i18n.js) says it in words.
 */
export function fail(err) {
  toast(errorText(err), 'error');
}

/**
 * confirmDialog asks a question in a modal dialog and calls onYes if the
 * player confirms. Cancel has the focus, so a stray Enter does nothing.
 */
export function confirmDialog(question, yes, onYes) {
  const dlg = h('dialog', { class: 'dialog', 'aria-labelledby': 'dlg-q' },
    h('form', { method: 'dialog' },
      h('p', { id: 'dlg-q', text: question }),
      h('div', { class: 'actions' },
        h('button', { class: 'btn danger', value: 'yes', id: 'confirm-yes', text: yes }),
        h('button', { class: 'btn', value: 'no', id: 'confirm-no', text: t('common.cancel'), autofocus: true }))));
  dlg.addEventListener('close', () => {
    if (dlg.returnValue === 'yes') onYes();
    dlg.remove();
  });
  document.body.appendChild(dlg);
  dlg.showModal();
}
