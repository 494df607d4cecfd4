// The replay viewer: fetches a finished round's replay (seed, rules, layout
// and every player's moves with their times), replays any player's moves on
// the layout with the JavaScript engine and steps through them.

import { h, replace, fmtClock, reducedMotion } from './util.js';
import { t, plural, errorText } from './i18n.js';
import { Game, timedScore, foundationsHome } from './engine.js';
import { Board } from './board.js';
import { gameName, isKlondike, statusWords } from './games.js';

export class ReplayViewer {
  constructor(host, url, me, { onError = () => {} } = {}) {
    this.host = host;
    this.me = me;
    this.onError = onError;
    this.data = null;
    this.player = null;
    this.views = [];
    this.step = 0;
    this.timer = 0;
    this.el = h('section', { class: 'replay', id: 'replay', 'aria-label': t('replay.label'), tabindex: '-1' }, h('p', { text: t('replay.loading') }));
    host.appendChild(this.el);
    this.onKey = (e) => {
      if (e.target && /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName) && e.target.type !== 'range') return;
      if (e.key === 'ArrowLeft') { e.preventDefault(); this.go(this.step - 1); }
      if (e.key === 'ArrowRight') { e.preventDefault(); this.go(this.step + 1); }
      if (e.key === 'Home') { e.preventDefault(); this.go(0); }
      if (e.key === 'End') { e.preventDefault(); this.go(this.views.length - 1); }
    };
    this.el.addEventListener('keydown', this.onKey);
    this.load(url);
  }

  async load(url) {
    try {
      const res = await fetch(url, { headers: { Accept: 'application/json' } });
      const body = await res.json();
      if (!res.ok) throw { code: (body.error && body.error.code) || `http_${res.status}`, message: (body.error && body.error.message) || body.message || '', status: res.status };
      this.data = body;
      this.build();
      const mine = body.players.find((p) => p.player_id === this.me);
      this.choose((mine || body.players[0]).player_id);
      this.el.focus({ preventScroll: true });
    } catch (err) {
      replace(this.el, h('p', { class: 'error', text: t('replay.failed', { why: errorText(err) }) }));
      this.onError(err);
    }
  }

  build() {
    const d = this.data;
    this.select = h('select', { id: 'replay-player' }, d.players.map((p) => h('option', { value: p.player_id, text: p.name })));
    this.select.addEventListener('change', () => this.choose(this.select.value));
    this.range = h('input', { type: 'range', id: 'replay-range', min: '0', max: '0', value: '0', 'aria-label': t('replay.move') });
    this.range.addEventListener('input', () => this.go(+this.range.value));
    this.label = h('p', { class: 'replay-step', id: 'replay-step', role: 'status', 'aria-live': 'polite' });
    this.verdict = h('p', { class: 'fair-check', id: 'replay-verdict' });
    this.playBtn = h('button', { class: 'btn', type: 'button', id: 'replay-play', text: t('replay.play'), onclick: () => this.togglePlay() });
    const btn = (id, text, label, f) => h('button', { class: 'btn', type: 'button', id, 'aria-label': label, text, onclick: f });
    this.list = h('ol', { class: 'replay-moves', id: 'replay-moves' });
    this.boardHost = h('div', { class: 'replay-board' });
    // The transport runs left to right in every language, as a player's
    // controls do (a timeline, like the board it steps through).
    replace(this.el,
      h('h3', { text: isKlondike(d.rules) ? t('replay.title', { seed: d.seed }) : t('replay.title_game', { seed: d.seed, game: gameName(d.rules) }) }),
      h('div', { class: 'replay-controls' },
        h('label', { for: 'replay-player', text: t('common.player') }), this.select,
        h('span', { class: 'replay-transport', dir: 'ltr' },
          btn('replay-first', '«', t('replay.first'), () => this.go(0)),
          btn('replay-prev', '◀', t('replay.prev'), () => this.go(this.step - 1)),
          this.playBtn,
          btn('replay-next', '▶', t('replay.next'), () => this.go(this.step + 1)),
          btn('replay-last', '»', t('replay.last'), () => this.go(this.views.length - 1)),
          this.range)),
      this.label, this.verdict,
      h('div', { class: 'replay-body' }, this.boardHost, this.list));
    this.board = new Board(this.boardHost, { interactive: false, label: t('replay.board') });
  }

  choose(playerId) {
    const d = this.data;
    const p = d.players.find((x) => x.player_id === playerId);
    if (!p) return;
    this.stop();
    this.player = p;
    this.select.value = playerId;
    const g = new Game(d.layout, d.rules);
    this.views = [{ view: g.view(0), move: null }];
    let bad = '';
    for (const e of p.moves) {
      try {
        const events = g.apply(e.move);
        this.views.push({ view: g.view(e.at_ms), move: e.move, at: e.at_ms, events });
      } catch (err) {
        bad = t('replay.bad_move', { seq: e.seq, move: e.move, why: errorText(err) });
        break;
      }
    }
    const last = this.views[this.views.length - 1].view;
    const score = timedScore(d.rules.scoring, last.score, p.elapsed_ms, last.status === 'won');
    if (bad) {
      this.verdict.dataset.state = 'bad';
      this.verdict.textContent = t('replay.breaks', { bad });
    } else if (last.score === p.points && (last.status === p.status || last.status === 'playing')) {
      this.verdict.dataset.state = 'ok';
      const n = foundation(last);
      const params = { moves: plural('replay.moves', p.moves.length), points: plural('replay.points', last.score), cards: plural('replay.cards', n) };
      this.verdict.textContent = d.rules.scoring === 'standard'
        ? t('replay.ok_timed', { ...params, timed: score === p.score ? score : p.score })
        : t('replay.ok', params);
    } else {
      this.verdict.dataset.state = 'bad';
      this.verdict.textContent = t('replay.mismatch', { points: last.score, server: p.points });
    }
    replace(this.list, this.views.slice(1).map((s, i) => h('li', { dataset: { step: String(i + 1) } },
      h('button', { type: 'button', class: 'linkish', text: `${s.move}`, 'aria-label': t('replay.go_to', { n: i + 1, move: s.move }), onclick: () => this.go(i + 1) }),
      h('span', { class: 'muted', text: ` ${fmtClock(s.at)}` }))));
    this.range.max = String(this.views.length - 1);
    this.go(this.views.length - 1);
  }

  go(step) {
    if (!this.views.length) return;
    step = Math.max(0, Math.min(this.views.length - 1, step));
    this.step = step;
    const s = this.views[step];
    this.board.setView(s.view, this.data.rules);
    this.range.value = String(step);
    const v = s.view;
    const total = this.views.length - 1;
    if (step === 0) {
      this.label.textContent = t('replay.start', { name: this.player.name, moves: plural('replay.moves', total) });
    } else {
      const sep = t('common.sep');
      const facts = [plural('replay.points', v.score), t('replay.on_foundations', { n: foundation(v) })];
      if (v.status !== 'playing') facts.push(statusWords(v.status));
      this.label.textContent = t('replay.step', { n: step, of: total, move: s.move, time: fmtClock(s.at) }) + sep + facts.join(sep);
    }
    this.list.querySelectorAll('li').forEach((li) => li.classList.toggle('current', +li.dataset.step === step));
    const cur = this.list.querySelector('li.current');
    if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest', behavior: reducedMotion() ? 'auto' : 'smooth' });
  }

  togglePlay() {
    if (this.timer) {
      this.stop();
      return;
    }
    if (this.step >= this.views.length - 1) this.go(0);
    this.playBtn.textContent = t('replay.pause');
    this.timer = setInterval(() => {
      if (this.step >= this.views.length - 1) {
        this.stop();
        return;
      }
      this.go(this.step + 1);
    }, 450);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = 0;
    if (this.playBtn) this.playBtn.textContent = t('replay.play');
  }

  destroy() {
    this.stop();
    if (this.board) this.board.destroy();
    this.el.remove();
  }
}

function foundation(v) {
  return foundationsHome(v);
}
