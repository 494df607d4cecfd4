// The board: renders a view (the server's, or a replay's) and turns the
// player's gestures into moves of the notation. It never changes what it
// shows by itself: a move is only shown once a new view comes.
//
// The board is laid out left to right in every language (dir="ltr"): the
// stock and the waste top left, the foundations top right, the piles T1 to
// T7 from the left, as the game is dealt and as the notation and the keys
// 1-7 name them (api/web/README.md, "Languages"). Its words (the labels a
// screen reader reads) follow the page's language.

import { h, replace, reducedMotion } from './util.js';
import { t, plural } from './i18n.js';
import {
  SUITS, SUIT_SYMBOLS, rankLabel, suitOf, isRed,
  runLength, fitLength, gameOf, specOf, foundationCard, RANKS,
} from './engine.js';
import { cardWords as cardName, suitWords } from './games.js';

const TEXT_STYLE = '\uFE0E'; // keeps the suit symbols from turning into emoji

/** cardEl draws one card face up (with CSS) or face down. */
export function cardEl(card, extra = {}) {
  if (!card) {
    return h('div', { class: 'card back', role: 'img', 'aria-label': t('board.face_down'), ...extra });
  }
  const sym = SUIT_SYMBOLS[suitOf(card)] + TEXT_STYLE;
  const r = rankLabel(card);
  const court = 'JQK'.includes(card[0]);
  return h('div', {
    class: `card face suit-${suitOf(card)} ${isRed(card) ? 'red' : 'black'}${court ? ' court' : ''}`,
    role: 'img', 'aria-label': cardName(card), dataset: { card }, ...extra,
  },
  h('span', { class: 'corner tl', 'aria-hidden': 'true' }, h('span', { class: 'r', text: r }), h('span', { class: 's', text: sym })),
  h('span', { class: 'pip', 'aria-hidden': 'true' }, court ? h('span', { class: 'court-r', text: r }) : null, h('span', { text: sym })),
  h('span', { class: 'corner br', 'aria-hidden': 'true' }, h('span', { class: 'r', text: r }), h('span', { class: 's', text: sym })));
}

function topOf(up) { return up.length ? up[up.length - 1] : null; }

// fslot names a foundation's slot: FC … FS, and in Double Klondike FC2 …
// FS2 for the second foundation of each suit.
function fslot(suit, second) { return `F${suit}${second ? '2' : ''}`; }

// foundationSlots are the game's foundations in the order they are drawn:
// the first of each suit, then the second ones.
function foundationSlots(sp) {
  const out = SUITS.map((s) => ({ suit: s, second: false }));
  if (sp.decks === 2) out.push(...SUITS.map((s) => ({ suit: s, second: true })));
  return out;
}

/**
 * A Board draws into root. With interactive, onMove(text, info) is called
 * with a move of the notation when the player makes one; info.origin names
 * the dragged cards so that a refusal can snap them back.
 */
export class Board {
  constructor(root, { interactive = false, onMove = () => {}, onHint = () => {}, label = t('board.label') } = {}) {
    this.root = root;
    this.interactive = interactive;
    this.onMove = onMove;
    this.onHint = onHint;
    this.view = null;
    this.rules = null;
    this.game = 'klondike';
    this.sp = specOf(this.game);
    this.sel = null; // {pile:'T3', index, auto} | {pile:'W'} | {pile:'F', suit, second}
    this.drag = null;
    this.ghost = null;
    this.suppressClick = false;
    this.el = h('section', { class: 'board', 'aria-label': label, role: 'region', dir: 'ltr' });
    root.appendChild(this.el);
    if (interactive) this.bind();
  }

  destroy() {
    this.unbind();
    this.removeGhost();
    this.el.remove();
  }

  setView(view, rules) {
    this.view = view;
    this.rules = rules || this.rules;
    this.game = gameOf(this.rules);
    this.sp = specOf(this.game);
    if (this.sel && !this.selValid()) this.sel = null;
    this.render();
  }

  clearSelection() {
    if (this.sel) {
      this.sel = null;
      this.render();
    }
  }

  selValid() {
    const v = this.view;
    const s = this.sel;
    if (!v || v.status !== 'playing') return false;
    if (s.pile === 'W') return v.waste.length > 0;
    if (s.pile === 'F') return this.foundationCount(s.suit, s.second) > 0;
    const up = v.tableau[+s.pile.slice(1) - 1].up;
    return s.index >= 0 && s.index < up.length;
  }

  /** foundationCount is how many cards a foundation of the view holds. */
  foundationCount(suit, second) {
    const f = second ? this.view.foundations2 : this.view.foundations;
    return f ? f[suit] : 0;
  }

  /** foundationTop is a foundation's top card, or null. */
  foundationTop(suit, second) {
    return foundationCard(suit, this.foundationCount(suit, second), this.view.foundation_base || 1);
  }

  /** slotOrder lists the slots in keyboard order: stock, waste, the foundations, then the piles. */
  slotOrder() {
    const piles = this.view ? this.view.tableau.length : 7;
    return ['S', 'W', ...foundationSlots(this.sp).map((f) => fslot(f.suit, f.second)),
      ...Array.from({ length: piles }, (_, i) => `T${i + 1}`)];
  }

  // ---- rendering ----

  render() {
    const v = this.view;
    if (!v) return;
    const focused = document.activeElement && this.el.contains(document.activeElement)
      ? document.activeElement.closest('[data-slot]')?.dataset.slot : null;
    const top = h('div', { class: 'row row-top' },
      this.stockEl(v), this.wasteEl(v), h('div', { class: 'gap', 'aria-hidden': 'true' }),
      h('div', { class: 'foundations' }, foundationSlots(this.sp).map((f) => this.foundationEl(f.suit, f.second))));
    const tab = h('div', { class: 'row row-tableau' }, v.tableau.map((p, i) => this.pileEl(p, i + 1)));
    replace(this.el, top, tab);
    this.el.classList.toggle('over', v.status !== 'playing');
    // The game's layout: Double Klondike's nine piles and eight foundations.
    this.el.dataset.game = this.game;
    this.el.classList.toggle('double', this.sp.decks === 2);
    if (focused) this.focusSlot(focused);
  }

  slotAttrs(slot, label, extra = {}) {
    const a = { class: `slot slot-${slot[0] === 'T' ? 'pile' : slot === 'S' ? 'stock' : slot === 'W' ? 'waste' : 'foundation'}`, dataset: { slot }, 'aria-label': label, ...extra };
    if (this.interactive) {
      a.tabindex = '0';
      a.role = 'button';
    } else {
      a.role = 'group';
    }
    return a;
  }

  stockEl(v) {
    let label = plural('board.stock', v.stock);
    if (v.stock > 0) label += this.interactive ? t('board.stock_draw') : '';
    else if (v.waste_size > 0) label += v.passes_left === 0 ? t('board.stock_no_passes') : this.interactive ? t('board.stock_turn') : '';
    // passes_left counts the times the waste may still go back to the
    // stock: a game of one pass has none from its first move, which is no
    // news, so the title says so only where there were some.
    const onePass = this.rules && this.rules.passes === 1;
    const passes = v.passes_left === null ? '' : onePass ? t('board.one_pass') : plural('board.recycles_left', v.passes_left);
    return h('div', this.slotAttrs('S', label, { title: passes || null }),
      v.stock > 0 ? cardEl(null, { class: 'card back stock-card', 'aria-hidden': 'true', role: null })
        : h('div', { class: `empty-mark recycle${v.waste_size > 0 && v.passes_left !== 0 ? '' : ' done'}`, 'aria-hidden': 'true', text: v.waste_size > 0 && v.passes_left !== 0 ? '\u21BB' : '\u2715' }),
      h('span', { class: 'count', 'aria-hidden': 'true', text: String(v.stock) }));
  }

  wasteEl(v) {
    const topCard = topOf(v.waste);
    const selected = this.sel && this.sel.pile === 'W';
    const label = topCard ? plural('board.waste', v.waste_size, { top: cardName(topCard) }) + (selected ? t('board.selected') : '') : t('board.waste_empty');
    const slot = h('div', this.slotAttrs('W', label, selected ? { 'aria-pressed': 'true' } : {}));
    const n = v.waste.length;
    v.waste.forEach((c, i) => {
      const isTop = i === n - 1;
      const el = cardEl(c, { 'aria-hidden': isTop ? null : 'true' });
      el.style.setProperty('--x', String(i));
      el.classList.add('fan');
      if (isTop) {
        el.dataset.drag = 'W';
        if (selected) el.classList.add('selected');
      }
      slot.appendChild(el);
    });
    if (!n) slot.appendChild(h('div', { class: 'empty-mark', 'aria-hidden': 'true' }));
    return slot;
  }

  foundationEl(s, second) {
    const n = this.foundationCount(s, second);
    const name = fslot(s, second);
    const selected = this.sel && this.sel.pile === 'F' && this.sel.suit === s && !!this.sel.second === second;
    // Whitehead's foundations start at the base rank, which the empty
    // ones show beside the suit.
    const base = this.view.foundation_base;
    const baseRank = base ? RANKS[base - 1].replace('T', '10') : '';
    const what = t(second ? 'board.foundation2' : 'board.foundation', { suit: suitWords(s) });
    const label = n ? plural('board.foundation_cards', n, { what, top: cardName(this.foundationTop(s, second)) }) + (selected ? t('board.selected') : '')
      : baseRank ? t('board.foundation_base', { what, rank: baseRank }) : t('board.foundation_empty', { what });
    const slot = h('div', this.slotAttrs(name, label, { dataset: { slot: name, drop: 'F', suit: s }, ...(selected ? { 'aria-pressed': 'true' } : {}) }));
    slot.appendChild(h('div', { class: `empty-mark suit-mark suit-${s} ${s === 'D' || s === 'H' ? 'red' : 'black'}${baseRank ? ' base' : ''}`, 'aria-hidden': 'true', text: baseRank + SUIT_SYMBOLS[s] + TEXT_STYLE }));
    if (n) {
      const el = cardEl(this.foundationTop(s, second));
      el.dataset.drag = name;
      if (selected) el.classList.add('selected');
      slot.appendChild(el);
    }
    return slot;
  }

  pileEl(p, n) {
    const sel = this.sel && this.sel.pile === `T${n}` ? this.sel : null;
    const words = [];
    if (p.down) words.push(plural('board.face_down_n', p.down));
    if (p.up.length) words.push(p.up.map(cardName).join(t('board.card_sep')));
    let label = t('board.pile', { n, cards: words.length ? words.join(t('board.part_sep')) : t('board.empty') });
    if (sel) label += t('board.selected_from', { card: cardName(p.up[sel.index]) });
    const slot = h('div', this.slotAttrs(`T${n}`, label, { dataset: { slot: `T${n}`, drop: `T${n}` }, ...(sel ? { 'aria-pressed': 'true' } : {}) }));
    // Offsets in card heights: face-down cards close together, face-up
    // cards far enough apart to read their corners, squeezed when long.
    const down = 0.11;
    let up = 0.27;
    const room = 3.15 - p.down * down;
    if (p.up.length > 1 && (p.up.length - 1) * up > room) up = Math.max(0.13, room / (p.up.length - 1));
    let y = 0;
    const cards = [];
    for (let i = 0; i < p.down; i++) {
      const el = cardEl(null, { 'aria-hidden': 'true', role: null });
      el.style.setProperty('--y', y.toFixed(3));
      cards.push(el);
      y += down;
    }
    const run = runLength(p.up, this.game);
    p.up.forEach((c, i) => {
      const el = cardEl(c);
      el.style.setProperty('--y', y.toFixed(3));
      el.dataset.drag = `T${n}`;
      el.dataset.index = String(i);
      if (i < p.up.length - run) el.classList.add('not-run');
      if (sel && i >= sel.index) el.classList.add('selected');
      cards.push(el);
      y += up;
    });
    // An empty pile takes a king, or in Thumb and Pouch and Whitehead any card.
    if (!cards.length) slot.appendChild(h('div', { class: 'empty-mark', 'aria-hidden': 'true', text: this.sp.anyToEmpty ? '' : 'K' }));
    slot.style.setProperty('--depth', Math.max(0, y - up).toFixed(3));
    cards.forEach((el) => slot.appendChild(el));
    return slot;
  }

  focusSlot(slot) {
    const el = this.el.querySelector(`[data-slot="${slot}"]`);
    if (el) el.focus({ preventScroll: true });
  }

  // ---- moves ----

  /** moveFor returns the notation that moves the selection onto slot, or null with a hint. */
  moveFor(sel, slot) {
    const v = this.view;
    if (slot === 'S' || slot === 'W') return null;
    const toF = slot[0] === 'F';
    if (sel.pile === 'W') return toF ? 'W-F' : `W-${slot}`;
    if (sel.pile === 'F') {
      if (toF) return null;
      // Fs-Tn names no foundation: the target decides which of Double
      // Klondike's two comes down. A card that does not go there is not
      // sent, lest the other foundation's card come down instead.
      if (this.sp.decks === 2) {
        const c = this.foundationTop(sel.suit, sel.second);
        const onto = topOf(v.tableau[+slot.slice(1) - 1].up);
        if (c && (onto ? !this.sp.goes(c, onto) : !this.sp.empty(c))) {
          this.onHint(t('board.not_there', { card: cardName(c) }));
          return 'HINT';
        }
      }
      return `F${sel.suit}-${slot}`;
    }
    const from = +sel.pile.slice(1);
    const up = v.tableau[from - 1].up;
    if (toF) {
      if (!sel.auto && sel.index !== up.length - 1) {
        this.onHint(t('board.top_only'));
        return 'HINT';
      }
      return `T${from}-F`;
    }
    const to = +slot.slice(1);
    if (sel.auto || to === from) return `T${from}-T${to}`;
    const k = up.length - sel.index;
    const run = runLength(up, this.game);
    const fit = run ? fitLength(up, run, topOf(v.tableau[to - 1].up), this.game) : 0;
    return fit === k ? `T${from}-T${to}` : `T${from}:${k}-T${to}`;
  }

  play(move, origin) {
    this.sel = null;
    this.onMove(move, { origin });
    this.render();
  }

  /** activate is a click or Enter on a slot (card index when a card was hit). */
  activate(slot, index) {
    const v = this.view;
    if (!v || v.status !== 'playing') return;
    if (slot === 'S') {
      this.sel = null;
      if (v.stock > 0) this.play('D');
      else if (v.waste_size > 0) this.play('R');
      return;
    }
    if (this.sel) {
      const same = this.sel.pile === slot || (this.sel.pile === 'F' && slot === fslot(this.sel.suit, this.sel.second));
      if (same) {
        if (slot[0] === 'T' && index !== undefined && index !== this.sel.index && v.tableau[+slot.slice(1) - 1].up.length > index) {
          this.sel = { pile: slot, index, auto: false };
        } else {
          this.sel = null;
        }
        this.render();
        return;
      }
      const move = this.moveFor(this.sel, slot);
      if (move === 'HINT') return;
      if (move) {
        this.play(move, this.sel);
        return;
      }
      this.sel = null;
    }
    this.select(slot, index);
    this.render();
  }

  select(slot, index) {
    const v = this.view;
    this.sel = null;
    if (slot === 'W' && v.waste.length) this.sel = { pile: 'W' };
    else if (slot[0] === 'F' && this.foundationCount(slot[1], slot.length > 2) > 0) this.sel = { pile: 'F', suit: slot[1], second: slot.length > 2 };
    else if (slot[0] === 'T') {
      const up = v.tableau[+slot.slice(1) - 1].up;
      if (!up.length) return;
      if (index === undefined) {
        this.sel = { pile: slot, index: up.length - runLength(up, this.game), auto: true };
      } else {
        this.sel = { pile: slot, index, auto: false };
      }
    }
  }

  toFoundation(slot, index) {
    const v = this.view;
    if (!v || v.status !== 'playing') return;
    if (slot === 'W' && v.waste.length) this.play('W-F', { pile: 'W' });
    else if (slot[0] === 'T') {
      const n = +slot.slice(1);
      const up = v.tableau[n - 1].up;
      if (!up.length) return;
      if (index !== undefined && index !== up.length - 1) {
        this.onHint(t('board.top_only'));
        return;
      }
      this.play(`T${n}-F`, { pile: slot, index: up.length - 1 });
    }
  }

  // ---- events ----

  bind() {
    this.handlers = {
      click: (e) => this.onClick(e),
      dblclick: (e) => this.onDblClick(e),
      pointerdown: (e) => this.onPointerDown(e),
      keydown: (e) => this.onKey(e),
    };
    this.el.addEventListener('click', this.handlers.click);
    this.el.addEventListener('dblclick', this.handlers.dblclick);
    this.el.addEventListener('pointerdown', this.handlers.pointerdown);
    document.addEventListener('keydown', this.handlers.keydown);
    this.moveH = (e) => this.onPointerMove(e);
    this.upH = (e) => this.onPointerUp(e);
    this.cancelH = () => this.cancelDrag();
  }

  unbind() {
    if (!this.handlers) return;
    document.removeEventListener('keydown', this.handlers.keydown);
    window.removeEventListener('pointermove', this.moveH);
    window.removeEventListener('pointerup', this.upH);
    window.removeEventListener('pointercancel', this.cancelH);
    this.handlers = null;
  }

  hit(target) {
    const slotEl = target.closest('[data-slot]');
    if (!slotEl || !this.el.contains(slotEl)) return null;
    const cardElm = target.closest('.card[data-index]');
    const index = cardElm ? +cardElm.dataset.index : undefined;
    return { slot: slotEl.dataset.slot, index };
  }

  onClick(e) {
    if (this.suppressClick) {
      this.suppressClick = false;
      return;
    }
    const hit = this.hit(e.target);
    if (!hit) return;
    // The second click of a double-click is left to dblclick.
    if (e.detail > 1 && hit.slot !== 'S') return;
    this.activate(hit.slot, hit.index);
  }

  onDblClick(e) {
    const hit = this.hit(e.target);
    if (!hit || hit.slot === 'S') return;
    e.preventDefault();
    this.sel = null;
    this.toFoundation(hit.slot, hit.index);
  }

  onPointerDown(e) {
    if (e.button !== 0 || !this.view || this.view.status !== 'playing') return;
    const cardElm = e.target.closest('.card[data-drag]');
    if (!cardElm) return;
    const slot = cardElm.dataset.drag;
    let sel;
    let els;
    if (slot === 'W') {
      if (cardElm !== this.el.querySelector('[data-slot="W"] .card[data-drag]')) return;
      sel = { pile: 'W' };
      els = [cardElm];
    } else if (slot[0] === 'F') {
      sel = { pile: 'F', suit: slot[1], second: slot.length > 2 };
      els = [cardElm];
    } else {
      const index = +cardElm.dataset.index;
      sel = { pile: slot, index, auto: false };
      els = [...this.el.querySelectorAll(`[data-slot="${slot}"] .card[data-index]`)].filter((c) => +c.dataset.index >= index);
    }
    this.drag = { sel, els, x0: e.clientX, y0: e.clientY, id: e.pointerId, started: false };
    window.addEventListener('pointermove', this.moveH);
    window.addEventListener('pointerup', this.upH);
    window.addEventListener('pointercancel', this.cancelH);
  }

  onPointerMove(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    const dx = e.clientX - d.x0;
    const dy = e.clientY - d.y0;
    if (!d.started) {
      if (Math.hypot(dx, dy) < 6) return;
      d.started = true;
      this.startGhost(d);
    }
    e.preventDefault();
    this.ghost.style.setProperty('transform', `translate(${dx}px, ${dy}px)`);
    const over = this.dropTarget(e.clientX, e.clientY);
    this.el.querySelectorAll('.drop-over').forEach((x) => x.classList.remove('drop-over'));
    if (over) over.classList.add('drop-over');
  }

  startGhost(d) {
    // The ghost is placed by the cards' boxes on the screen, which are
    // physical: left and top, not logical properties.
    const first = d.els[0].getBoundingClientRect();
    const g = h('div', { class: 'drag-ghost', 'aria-hidden': 'true' });
    g.style.setProperty('left', `${first.left}px`);
    g.style.setProperty('top', `${first.top}px`);
    g.style.setProperty('--cw', `${first.width}px`);
    g.style.setProperty('--ch', `${first.height}px`);
    for (const el of d.els) {
      const r = el.getBoundingClientRect();
      const c = el.cloneNode(true);
      c.classList.remove('selected');
      c.style.setProperty('position', 'absolute');
      c.style.setProperty('left', `${r.left - first.left}px`);
      c.style.setProperty('top', `${r.top - first.top}px`);
      g.appendChild(c);
      el.classList.add('lifted');
    }
    document.body.appendChild(g);
    this.ghost = g;
    this.el.classList.add('dragging');
  }

  dropTarget(x, y) {
    const el = document.elementFromPoint(x, y);
    if (!el) return null;
    const slot = el.closest('[data-slot]');
    if (!slot || !this.el.contains(slot)) return null;
    return slot.dataset.drop ? slot : null;
  }

  onPointerUp(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    this.endListen();
    this.drag = null;
    if (!d.started) return; // a click: the click handler takes it
    this.suppressClick = true;
    setTimeout(() => { this.suppressClick = false; }, 0);
    this.el.classList.remove('dragging');
    this.el.querySelectorAll('.drop-over').forEach((x) => x.classList.remove('drop-over'));
    const target = this.dropTarget(e.clientX, e.clientY);
    const slot = target ? target.dataset.slot : null;
    const from = d.sel.pile === 'F' ? fslot(d.sel.suit, d.sel.second) : d.sel.pile;
    const move = slot && slot !== from ? this.moveFor(d.sel, slot) : null;
    if (!move || move === 'HINT') {
      this.snapBack();
      return;
    }
    // The ghost waits where it was dropped until the server answers: the
    // board itself changes only with the server's view.
    this.ghost.classList.add('pending');
    this.pendingGhost = true;
    this.sel = null;
    this.onMove(move, { origin: d.sel, dragged: true });
  }

  endListen() {
    window.removeEventListener('pointermove', this.moveH);
    window.removeEventListener('pointerup', this.upH);
    window.removeEventListener('pointercancel', this.cancelH);
  }

  cancelDrag() {
    this.endListen();
    if (this.drag && this.drag.started) this.snapBack();
    this.drag = null;
  }

  /** moveAnswered is told the server's answer to a move: the ghost goes. */
  moveAnswered(ok) {
    if (!this.ghost) return;
    if (ok) this.removeGhost();
    else this.snapBack();
  }

  /** snapBack sends the dragged cards back where they came from. */
  snapBack() {
    const g = this.ghost;
    this.pendingGhost = false;
    if (!g) {
      this.el.querySelectorAll('.lifted').forEach((x) => x.classList.remove('lifted'));
      return;
    }
    this.ghost = null;
    const done = () => {
      g.remove();
      this.el.querySelectorAll('.lifted').forEach((x) => x.classList.remove('lifted'));
    };
    if (reducedMotion()) {
      done();
      return;
    }
    g.classList.add('snapping');
    g.style.setProperty('transform', 'translate(0px, 0px)');
    setTimeout(done, 180);
  }

  removeGhost() {
    if (this.ghost) this.ghost.remove();
    this.ghost = null;
    this.pendingGhost = false;
  }

  /** shake marks cards that the server refused to move. */
  shake(origin) {
    if (!origin) return;
    let sel = null;
    if (origin.pile === 'W') sel = '[data-slot="W"] .card[data-drag]';
    else if (origin.pile === 'F') sel = `[data-slot="${fslot(origin.suit, origin.second)}"] .card`;
    else if (origin.pile) sel = `[data-slot="${origin.pile}"] .card[data-index]`;
    if (!sel) return;
    this.el.querySelectorAll(sel).forEach((el) => {
      if (origin.index !== undefined && el.dataset.index !== undefined && +el.dataset.index < origin.index) return;
      el.classList.remove('refused');
      void el.offsetWidth; // restart the animation
      el.classList.add('refused');
    });
  }

  onKey(e) {
    if (!this.view || !this.el.isConnected) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const el = e.target;
    if (el && ((el.tagName === 'INPUT' && !['checkbox', 'radio', 'button', 'submit', 'range'].includes(el.type))
      || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable)) return;
    if (document.querySelector('dialog[open]')) return;
    const key = e.key;
    const focusedSlot = document.activeElement && this.el.contains(document.activeElement)
      ? document.activeElement.closest('[data-slot]')?.dataset.slot : null;
    const lower = key.length === 1 ? key.toLowerCase() : key;
    if (lower >= '1' && lower <= String(this.view.tableau.length)) {
      e.preventDefault();
      this.activate(`T${lower}`);
      this.focusSlot(`T${lower}`);
      return;
    }
    switch (lower) {
      case 'd':
        e.preventDefault();
        this.activate('S');
        return;
      case 'w':
        e.preventDefault();
        this.activate('W');
        this.focusSlot('W');
        return;
      case 'f':
        e.preventDefault();
        if (this.sel) {
          const sel = this.sel;
          const move = this.moveFor(sel, 'F');
          if (move && move !== 'HINT') this.play(move, sel);
        } else if (focusedSlot) {
          this.toFoundation(focusedSlot);
        }
        return;
      case 'u':
      case 'y':
        e.preventDefault();
        this.sel = null;
        this.onMove(lower === 'u' ? 'U' : 'Y', {});
        this.render();
        return;
      case 'Escape':
        if (this.sel) {
          e.preventDefault();
          this.clearSelection();
        }
        return;
      case 'Enter':
      case ' ':
        if (!focusedSlot) return;
        e.preventDefault();
        this.activate(focusedSlot);
        return;
      case 'ArrowLeft':
      case 'ArrowRight': {
        e.preventDefault();
        const order = this.slotOrder();
        const i = focusedSlot ? order.indexOf(focusedSlot) : -1;
        const next = key === 'ArrowLeft' ? (i <= 0 ? order.length - 1 : i - 1) : (i + 1) % order.length;
        this.focusSlot(order[next]);
        return;
      }
      case 'ArrowUp':
      case 'ArrowDown': {
        if (!this.sel || this.sel.pile[0] !== 'T') {
          if (focusedSlot) {
            e.preventDefault();
            // Up and down jump between the top row and the tableau.
            const order = this.slotOrder();
            const tops = order.length - this.view.tableau.length;
            const i = order.indexOf(focusedSlot);
            const target = key === 'ArrowDown' ? (i < tops ? order[tops + Math.min(i, order.length - tops - 1)] : null)
              : (i >= tops ? order[Math.min(i - tops, tops - 1)] : null);
            if (target) this.focusSlot(target);
          }
          return;
        }
        e.preventDefault();
        const up = this.view.tableau[+this.sel.pile.slice(1) - 1].up;
        let idx = this.sel.index + (key === 'ArrowUp' ? -1 : 1);
        idx = Math.max(0, Math.min(up.length - 1, idx));
        this.sel = { pile: this.sel.pile, index: idx, auto: false };
        this.render();
        this.focusSlot(this.sel.pile);
        return;
      }
    }
  }
}

