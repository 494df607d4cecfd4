// A link to share: the link in a read-only field and a Copy button, as the
// waiting room shows its invite and a challenge its page.

import { h } from './util.js';
import { t } from './i18n.js';

/**
 * shareBox is a labelled link with its Copy button; id is the field's, and
 * copyId the button's.
 */
export function shareBox({ id, copyId, label, url }) {
  const input = h('input', { id, readonly: true, value: url, 'aria-label': label, dir: 'ltr' });
  // The end of the link is what tells it from another (the match's code,
  // the challenge's id): a field too narrow for all of it (a phone) shows
  // its end, once it is laid out.
  requestAnimationFrame(() => { input.scrollLeft = input.scrollWidth; });
  const status = h('span', { class: 'muted', role: 'status', 'aria-live': 'polite' });
  const copy = () => {
    const ok = () => { status.textContent = t('common.copied'); };
    const fallback = () => {
      input.select();
      try { if (document.execCommand('copy')) { ok(); return; } } catch { /* fall through */ }
      status.textContent = t('common.copy_by_hand');
    };
    // The clipboard API needs a secure context (https or loopback); the
    // selection and execCommand work on plain http too.
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(input.value).then(ok, fallback);
    else fallback();
  };
  return h('div', { class: 'invite' },
    h('label', { for: id, text: label }),
    h('div', { class: 'inline-form' }, input, h('button', { class: 'btn', type: 'button', id: copyId, text: t('common.copy'), onclick: copy }), status));
}
