// Small DOM helpers: elements are built with h(), never from HTML strings,
// so nothing a player typed can become markup.

import { fmtDigits } from './i18n.js';

/**
 * h makes an element. attrs: class, text, style (an object of CSS
 * properties), on<event> handlers, dataset (data-*), and any other
 * attribute; false/null/undefined attributes are left out.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === false || v === null || v === undefined) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k === 'style') for (const [p, pv] of Object.entries(v)) el.style.setProperty(p, pv);
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'value') el.value = v;
      else if (k === 'checked') el.checked = !!v;
      else if (k === 'disabled') el.disabled = !!v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** replace empties el and puts the children in it. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * fmtClock writes a duration as m:ss (h:mm:ss past an hour), in the page's
 * digits (a colon between digits keeps them one run, left to right, in a
 * right-to-left line too).
 */
export function fmtClock(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const hr = Math.floor(total / 3600);
  const ss = fmtDigits(s, 2);
  return hr ? `${fmtDigits(hr, 1)}:${fmtDigits(m, 2)}:${ss}` : `${fmtDigits(m, 1)}:${ss}`;
}

export function reducedMotion() {
  return window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}
