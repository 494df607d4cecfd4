// The replay viewer: fetches a finished round's replay (seed, rules, layout
// and every player's moves with their times), replays any player's moves on
// the layout with the JavaScript engine and steps through them.

import { h, replace, fmtClock, reducedMotion } from './util.js';
import { Game, timedScore, foundationsHome } from './engine.js';
import { Board } from './board.js';
import { gameName, isKlondike } from './games.js';

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
    this.el = h('section', { class: 'replay', id: 'replay', 'aria-label': 'Replay', tabindex: '-1' }, h('p', { text: 'Loading the replay…' }));
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
      if (!res.ok) throw new Error(body.message || `HTTP ${res.status}`);
      this.data = body;
      this.build();
      const mine = body.players.find((p) => p.player_id === this.me);
      this.choose((mine || body.players[0]).player_id);
      this.el.focus({ preventScroll: true });
    } catch (err) {
      replace(this.el, h('p', { class: 'error', text: `The replay could not be loaded: ${err.message}` }));
      this.onError(err);
    }
  }

  build() {
    const d = this.data;
    this.select = h('select', { id: 'replay-player' }, d.players.map((p) => h('option', { value: p.player_id, text: p.name })));
    this.select.addEventListener('change', () => this.choose(this.select.value));
    this.range = h('input', { type: 'range', id: 'replay-range', min: '0', max: '0', value: '0', 'aria-label': 'Move' });
    this.range.addEventListener('input', () => this.go(+this.range.value));
    this.label = h('p', { class: 'replay-step', id: 'replay-step', role: 'status', 'aria-live': 'polite' });
    this.verdict = h('p', { class: 'fair-check', id: 'replay-verdict' });
    this.playBtn = h('button', { class: 'btn', type: 'button', id: 'replay-play', text: '▶ Play', onclick: () => this.togglePlay() });
    const btn = (id, text, label, f) => h('button', { class: 'btn', type: 'button', id, 'aria-label': label, text, onclick: f });
    this.list = h('ol', { class: 'replay-moves', id: 'replay-moves' });
    this.boardHost = h('div', { class: 'replay-board' });
    replace(this.el,
      h('h3', { text: `Replay of deal #${d.seed}${isKlondike(d.rules) ? '' : ` (${gameName(d.rules)})`}` }),
      h('div', { class: 'replay-controls' },
        h('label', { for: 'replay-player', text: 'Player' }), this.select,
        btn('replay-first', '«', 'First position', () => this.go(0)),
        btn('replay-prev', '◀', 'Previous move', () => this.go(this.step - 1)),
        this.playBtn,
        btn('replay-next', '▶', 'Next move', () => this.go(this.step + 1)),
        btn('replay-last', '»', 'Last position', () => this.go(this.views.length - 1)),
        this.range),
      this.label, this.verdict,
      h('div', { class: 'replay-body' }, this.boardHost, this.list));
    this.board = new Board(this.boardHost, { interactive: false, label: 'Replay board' });
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
        bad = `move ${e.seq} (${e.move}) does not replay: ${err.message}`;
        break;
      }
    }
    const last = this.views[this.views.length - 1].view;
    const score = timedScore(d.rules.scoring, last.score, p.elapsed_ms, last.status === 'won');
    if (bad) {
      this.verdict.dataset.state = 'bad';
      this.verdict.textContent = `✗ The replay breaks: ${bad}`;
    } else if (last.score === p.points && (last.status === p.status || last.status === 'playing')) {
      this.verdict.dataset.state = 'ok';
      const n = foundation(last);
      const timed = d.rules.scoring === 'standard' ? `; timed score ${score === p.score ? score : p.score}` : '';
      this.verdict.textContent = `✓ Replayed here: ${p.moves.length} move${p.moves.length === 1 ? '' : 's'} reach ${last.score} points and ${n} card${n === 1 ? '' : 's'} on the foundations, as the server says${timed}.`;
    } else {
      this.verdict.dataset.state = 'bad';
      this.verdict.textContent = `✗ The replay reaches ${last.score} points, the server says ${p.points}.`;
    }
    replace(this.list, this.views.slice(1).map((s, i) => h('li', { dataset: { step: String(i + 1) } },
      h('button', { type: 'button', class: 'linkish', text: `${s.move}`, 'aria-label': `Go to move ${i + 1}, ${s.move}`, onclick: () => this.go(i + 1) }),
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
    this.label.textContent = step === 0
      ? `Start: ${this.player.name}'s deal before the first move (${this.views.length - 1} moves).`
      : `Move ${step} of ${this.views.length - 1}: ${s.move} at ${fmtClock(s.at)} · ${v.score} points · ${foundation(v)} on the foundations${v.status !== 'playing' ? ` · ${v.status}` : ''}`;
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
    this.playBtn.textContent = '⏸ Pause';
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
    if (this.playBtn) this.playBtn.textContent = '▶ Play';
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
