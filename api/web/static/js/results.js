// The results of a round, and of the match once it is over: the ranked
// results, the deal revealed with the check of its commitment, the replay,
// the match's standings, and what comes next (the next round, a rematch).
//
// Fairness is checked here, in the browser, not taken on the server's word:
// the SHA-256 of the revealed salt and seed must equal the commitment the
// server published before the round (fair.js).

import { h, replace } from './util.js';
import { t, ordinal, language } from './i18n.js';
import { checkCommitment } from './fair.js';
import { ReplayViewer } from './replay.js';
import { S, isPlayer } from './state.js';
import { fail } from './feedback.js';
import { request } from './connection.js';
import { onMatch, leaveMatch } from './match.js';
import { createChallenge } from './async.js';
import { goPage } from './pages.js';
import { scoreNote, leaderboardTable, totalsTable, ratingsOf } from './tables.js';
import { changeText, ratingText } from './ratings.js';
import { hashOf, proofList } from './asyncboard.js';
import { specOf } from './engine.js';

// RATING_WAIT_MS is how long the results wait for the round's ratings
// before saying they are late: the server sends them well under a second
// after the round's end.
const RATING_WAIT_MS = 15000;

// UNRATED_WHY maps the server's reasons a round rated nobody
// (lobby/rated.go) to catalogue keys. English shows the server's words,
// as it always has; another language its sentence, or a general one.
const UNRATED_WHY = [
  ['hints were used', 'results.unrated.hints'],
  ['fewer than two players', 'results.unrated.few'],
  ['as often as a day allows', 'results.unrated.pairs'],
  ['known deal', 'results.unrated.seed'],
];

// unratedWords says why a round rated nobody.
function unratedWords(why) {
  if (language() === 'en' && why) return t('results.unrated', { why });
  const s = String(why || '').toLowerCase();
  const hit = UNRATED_WHY.find(([w]) => s.includes(w));
  return hit ? t('results.unrated', { why: t(hit[1]) }) : t('results.unrated_other');
}

// ratingWords is the line under a rated round's results.
function ratingWords(state, rr) {
  if (state === 'pending') return t('results.rating_pending');
  if (state === 'late') return t('results.rating_late');
  if (state === 'unrated') return unratedWords(rr.unrated);
  if (state !== 'rated') return '';
  const c = rr.changes.find((x) => x.player_id === S.me);
  return c ? t('results.rating_mine', { after: ratingText(c.after, c.provisional), change: changeText(c.change) }) : t('results.rating_done');
}

// beforeRatings are the ratings beside the names in a round's results:
// each player's rating before the round. Once the ratings are in, the
// match shows the new ones, so the changes' before is used, provisional as
// seen before the round when this screen saw it (seen), else as after it.
function beforeRatings(m, rr, seen) {
  const map = ratingsOf(m) || new Map();
  if (!rr || !rr.changes) return map;
  for (const c of rr.changes) {
    const was = seen && seen.get(c.player_id);
    map.set(c.player_id, { rating: c.before, provisional: was ? was.provisional : !!c.provisional });
  }
  return map;
}

// changeOf gives the rating column's cell of each player.
function changeOf(state, rr) {
  return (id) => {
    if (state === 'pending' || state === 'late') return { text: '…', cls: 'pending' };
    const c = state === 'rated' && rr.changes.find((x) => x.player_id === id);
    if (!c) return { text: t('common.none'), title: state === 'rated' ? t('results.no_move') : null, cls: 'none' };
    const title = t('results.cell_title', { place: ordinal(c.place), before: ratingText(c.before, false), after: ratingText(c.after, c.provisional) });
    return { text: changeText(c.change), title, cls: c.change > 0 ? 'up' : c.change < 0 ? 'down' : 'same' };
  };
}

/** resultsScreen is the results of the round S.roundOver, or of the match. */
export function resultsScreen() {
  const ro = S.roundOver;
  const m = S.match;
  const r = S.round && ro && S.round.id === ro.round_id ? S.round : null;
  const rules = (r && r.rules) || (m && m.settings) || {};
  const parts = [];
  let screenDestroy = null;
  parts.push(h('h1', { id: 'results-title', text: ro ? t('results.title', { n: ro.round }) : t('results.match_over') }));
  // The results table is drawn again when the round's ratings come.
  const boardHost = h('div', { class: 'board-host-results' });
  const ratingNote = h('p', { class: 'rating-note', id: 'rating-note', 'aria-live': 'polite', hidden: true });
  let showBoard = () => {};
  let shownState = '';
  let late = false;
  let waitTimer = null;
  if (ro) {
    const mode = m && m.settings.mode;
    const cards = specOf(rules).cards;
    parts.push(boardHost, ratingNote, scoreNote(rules.scoring, mode, 'score-note', cards));
    showBoard = () => {
      const mm = S.match;
      const rated = !!(mm && mm.settings.rated);
      const rr = rated && mm.ratings && mm.ratings.round_id === ro.round_id ? mm.ratings : null;
      const state = !rated ? 'casual' : rr ? (rr.unrated ? 'unrated' : 'rated') : late ? 'late' : 'pending';
      if (state === shownState) return;
      shownState = state;
      ratingNote.hidden = state === 'casual';
      ratingNote.dataset.state = state;
      ratingNote.textContent = ratingWords(state, rr);
      if (state !== 'pending' && waitTimer) { clearTimeout(waitTimer); waitTimer = null; }
      replace(boardHost, leaderboardTable(ro.results, {
        labelledBy: 'results-title', scoring: rules.scoring, mode, cards,
        ratings: rated ? beforeRatings(mm, rr, seen) : null,
        change: rated ? changeOf(state, rr) : null,
      }));
    };
    // The ratings shown before the round's came: the players' ratings
    // before it.
    const seen = m && m.settings.rated && !(m.ratings && m.ratings.round_id === ro.round_id) ? ratingsOf(m) : null;
    if (m && m.settings.rated) {
      // The ratings come in a match push just after round_over; should
      // they not, the player is told rather than left with "Rating…".
      waitTimer = setTimeout(() => { late = true; waitTimer = null; showBoard(); }, RATING_WAIT_MS);
    }
    const d = ro.deal;
    const check = h('p', { class: 'fair-check', id: 'commitment-check', dataset: { state: 'checking' }, text: t('fair.checking') });
    // The commitment kept from round_starting is the one that proves
    // something; a client that came in later has only the one round_over
    // repeats, and says so.
    const published = r && r.commitment ? r.commitment : '';
    checkCommitment(d, published).then((res) => {
      if (res.known) {
        check.dataset.state = 'known';
        check.textContent = t('fair.known_match', { seed: d.seed });
      } else if (res.ok) {
        check.dataset.state = 'ok';
        replace(check, h('span', { class: 'tick', 'aria-hidden': 'true', text: '✓ ' }),
          t(published ? 'fair.verified_published' : 'fair.verified_sent', { hash: hashOf(d.seed) }));
      } else {
        check.dataset.state = 'bad';
        replace(check, h('span', { class: 'cross', 'aria-hidden': 'true', text: '✗ ' }), t('fair.mismatch'));
      }
    }).catch(() => { check.dataset.state = 'error'; check.textContent = t('fair.no_hash'); });
    // "Play this deal again" is the /deal/<seed> link of these rules, the
    // same a player can share.
    const q = new URLSearchParams({ draw: String(rules.draw || 3) });
    if (rules.passes) q.set('passes', String(rules.passes));
    if (rules.scoring && rules.scoring !== 'standard') q.set('scoring', rules.scoring);
    if (rules.game && rules.game !== 'klondike') q.set('game', rules.game);
    const again = `/deal/${d.seed}?${q}`;
    const replayHost = h('div', { class: 'replay-host', id: 'replay-host' });
    let viewer = null;
    const replayBtn = h('button', {
      class: 'btn', type: 'button', id: 'open-replay', text: t('results.watch_replay'),
      onclick: () => {
        if (viewer) { viewer.destroy(); viewer = null; replayBtn.textContent = t('results.watch_replay'); return; }
        viewer = new ReplayViewer(replayHost, ro.replay_url, S.me, { onError: fail });
        replayBtn.textContent = t('results.close_replay');
      },
    });
    parts.push(h('section', { class: 'panel deal-reveal', 'aria-labelledby': 'deal-title' },
      h('h2', { id: 'deal-title' }, t('fair.the_deal'), h('span', { id: 'revealed-seed', text: `#${d.seed}` })),
      check,
      d.salt ? proofList(published || d.commitment, d.salt, d.seed) : null,
      h('div', { class: 'actions' },
        h('a', { class: 'btn', id: 'play-again', href: again, text: t('results.play_again') }),
        replayBtn),
      replayHost));
    screenDestroy = () => {
      if (viewer) viewer.destroy();
      if (waitTimer) clearTimeout(waitTimer);
    };
  }
  const totalsHost = h('div', { class: 'totals-host' });
  const next = h('p', { class: 'hint', id: 'next-round' });
  const actions = h('div', { class: 'actions' });
  parts.push(totalsHost, next, actions);
  const el = h('section', { class: 'panel results', 'aria-labelledby': 'results-title' }, parts);
  // update follows the match while the results are shown: the standings
  // once they are in, the next round's coming, the match's end.
  const update = () => {
    const mm = S.match;
    if (!mm) return;
    showBoard();
    const done = mm.state === 'over';
    const totals = (S.matchOver && S.matchOver.totals) || (S.roundOver && S.roundOver.totals) || mm.totals || [];
    // A match of one round has no standings beyond that round's results.
    replace(totalsHost, totals.length && mm.settings.rounds > 1
      ? totalsTable(totals, { caption: t(done ? 'tables.final_standings' : 'tables.match_totals'), scoring: mm.settings.scoring, mode: mm.settings.mode, ratings: ratingsOf(mm) }) : null);
    if (mm.state === 'over') {
      const player = isPlayer(mm);
      next.textContent = t(mm.next_match && player ? 'results.rematch_open' : 'results.match_is_over');
      // After practice alone, the natural next step is a friend on a deal
      // of the same rules: a challenge, which the player plays first.
      const practice = player && mm.settings.max_players === 1;
      const rules = { draw: mm.settings.draw, scoring: mm.settings.scoring };
      if (mm.settings.passes) rules.passes = mm.settings.passes;
      if (mm.settings.game && mm.settings.game !== 'klondike') rules.game = mm.settings.game;
      replace(actions,
        practice ? h('button', {
          class: 'btn', type: 'button', id: 'challenge-after', text: t('lobby.challenge'), title: t('results.challenge_title'),
          onclick: () => leaveMatch(() => { goPage({ kind: 'lobby' }); createChallenge(rules).catch(fail); }),
        }) : null,
        player ? h('button', { class: 'btn primary', type: 'button', id: 'rematch', text: t(mm.next_match ? 'results.join_rematch' : 'results.rematch'), onclick: () => request('rematch', { match_id: mm.id }).then((res) => onMatch(res.match, res.re)).catch(fail) }) : null,
        h('button', { class: 'btn', type: 'button', id: 'to-lobby', text: t('common.back_lobby'), onclick: () => leaveMatch() }));
    } else if (mm.state === 'between' || mm.state === 'running') {
      next.textContent = mm.round < mm.settings.rounds ? t('results.next_round', { n: mm.round + 1, of: mm.settings.rounds }) : t('results.finishing');
      replace(actions);
    }
  };
  return { el, update, destroy: () => { if (screenDestroy) screenDestroy(); } };
}
