// Ratings in words and in a picture: a rating as the client shows it
// ("1512", or "1500?" while it is provisional), a round's change ("+12",
// "−8"), a place on a ladder, and the chart of a rating's history, an
// inline SVG drawn here (no library). The server rates (docs/rules.md);
// this module only shows what it sent.

import { h } from './util.js';
import { t, plural, fmtNumber, ordinal as placeText } from './i18n.js';
import { gameName } from './games.js';

// MINUS is the minus sign a change is written with: a hyphen reads as a
// dash and is narrower than the plus.
const MINUS = '\u2212';

/** ratingText writes a rating as shown: whole, with "?" while provisional. */
export function ratingText(rating, provisional) {
  return `${fmtNumber(Math.round(rating))}${provisional ? '?' : ''}`;
}

/**
 * ratingSpan is a rating to show beside a name. The "?" of a provisional
 * one says what it means in its tooltip, and in words to a screen reader.
 */
export function ratingSpan(rating, provisional, attrs = {}) {
  return h('span', { class: `rating${provisional ? ' provisional' : ''}`, title: provisional ? t('ratings.provisional') : null, ...attrs },
    fmtNumber(Math.round(rating)),
    provisional ? h('span', { 'aria-hidden': 'true', text: '?' }) : null,
    provisional ? h('span', { class: 'visually-hidden', text: t('ratings.provisional_sr') }) : null);
}

/**
 * changeText writes a change of rating: "+12", "−8" (a minus sign), "±0".
 * On a right-to-left page the sign would be drawn after the number, so
 * the change is isolated left to right there.
 */
export function changeText(change) {
  const text = change > 0 ? `+${fmtNumber(change)}` : change < 0 ? `${MINUS}${fmtNumber(-change)}` : t('ratings.no_change');
  return document.documentElement.dir === 'rtl' ? `\u2066${text}\u2069` : text;
}

/** variantText names a rating's game and draw: "Klondike · Draw 3". */
export function variantText(game, draw) { return t('ratings.variant', { game: gameName(game), draw }); }

/** ordinal writes a place: 1st, 2nd, 3rd, 4th, 11th, 21st (i18n.js's, in the page's language). */
export function ordinal(n) { return placeText(n); }

const SVG = 'http://www.w3.org/2000/svg';

// svg makes an SVG element with the attributes given.
function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') el.textContent = v;
    else if (k === 'class') el.setAttribute('class', v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children) if (c) el.appendChild(c);
  return el;
}

// The chart's drawing box, in the SVG's own units: the labels take the
// left margin, and the line the rest.
const CHART = { w: 320, h: 110, left: 44, right: 8, top: 10, bottom: 10 };

/**
 * ratingChart draws a rating's history (oldest first, each point
 * {rating}) as a line, one vertex a point, with its lowest and highest
 * ratings labelled on dashed lines. It is one image to assistive
 * technology, with a summary as its label.
 */
export function ratingChart(history, attrs = {}) {
  const pts = history.map((p) => Math.round(p.rating));
  const lo = Math.min(...pts);
  const hi = Math.max(...pts);
  const label = pts.length === 1 ? t('ratings.chart_one', { first: pts[0] })
    : t('ratings.chart', { count: plural('ratings.rounds', pts.length), first: pts[0], last: pts[pts.length - 1], lo, hi });
  const { w, h: ht, left, right, top, bottom } = CHART;
  const span = hi - lo;
  // A flat history draws a flat line across the middle.
  const y = (r) => (span ? top + ((hi - r) / span) * (ht - top - bottom) : ht / 2);
  const step = pts.length > 1 ? (w - left - right) / (pts.length - 1) : 0;
  const x = (i) => (pts.length > 1 ? left + i * step : (left + w - right) / 2);
  const points = pts.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(' ');
  const last = pts.length - 1;
  return svg('svg', {
    class: 'rating-chart', viewBox: `0 0 ${w} ${ht}`, role: 'img', 'aria-label': label, ...attrs,
  },
  svg('title', { text: label }),
  svg('line', { class: 'guide', x1: left, x2: w - right, y1: y(hi), y2: y(hi) }),
  span ? svg('line', { class: 'guide', x1: left, x2: w - right, y1: y(lo), y2: y(lo) }) : null,
  svg('text', { class: 'label max', x: left - 6, y: y(hi), 'text-anchor': 'end', 'dominant-baseline': 'middle', text: fmtNumber(hi) }),
  span ? svg('text', { class: 'label min', x: left - 6, y: y(lo), 'text-anchor': 'end', 'dominant-baseline': 'middle', text: fmtNumber(lo) }) : null,
  svg('polyline', { class: 'line', points, fill: 'none' }),
  svg('circle', { class: 'last', cx: x(last), cy: y(pts[last]), r: 3 }));
}
