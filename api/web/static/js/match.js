// The player's match: which match the tab shows (one joined, created,
// rematched or watched), the requests that change it, and the link that
// opened the page weighed against the player the browser brought back.
//
// Links win: the browser's credential (localStorage) survives a reload and
// a restart, and every tab says hello with it; a resumed player brings back
// their current match, which the server keeps even once it is over. A
// /m/<code> or /deal/<seed> link opened in a tab must still do what it says,
// so a finished match the player resumed is dropped for it; a live one is
// not dropped silently, the player chooses (linkScreen in entry.js). A
// profile or the privacy page takes no one out of a match: they show over
// it (pages.js).

import { storageSet, LAST_SETTINGS_KEY, NAME_KEY } from './storage.js';
import { t } from './i18n.js';
import { S, isPlayer, resetRound } from './state.js';
import { setPath } from './route.js';
import { goPage, isSidePage } from './pages.js';
import { toast, fail } from './feedback.js';
import { render, rebuild } from './screen.js';
import { request } from './connection.js';

const who = document.getElementById('who');

// The player's name in the top bar links their profile.
who.addEventListener('click', (e) => {
  if (!S.me || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  goPage({ kind: 'profile', id: S.me });
});

/** showWho shows the player's name and tag in the top bar, linking their profile. */
export function showWho() {
  who.replaceChildren(S.name, ' ', Object.assign(document.createElement('span'), { className: 'tag', textContent: S.tag }));
  who.href = S.me ? `/p/${S.me}` : '/';
  who.title = t('app.your_profile');
}

// RESUME_WAIT_MS is how long a link waits for the snapshot of the match a
// resumed session brought back; the server sends it right after welcome, so
// this only bounds the wait should it never come.
const RESUME_WAIT_MS = 2000;

/** onWelcome takes the server's welcome, on the first connection or a later one. */
export function onWelcome(m) {
  const first = !S.welcomed;
  S.welcomed = true;
  S.me = m.player_id;
  S.name = m.name;
  S.tag = m.tag || '';
  // This connection said hello last: it is the one that plays.
  S.elsewhere = '';
  // The server's name wins: it may have been changed on another device.
  storageSet(NAME_KEY, m.name);
  showWho();
  if (!first) {
    // A reconnection: the server resends a player's match and round by
    // itself, but not a spectator's, who must ask again.
    if (S.spectating) S.conn.request('spectate', { match_id: S.spectating }).catch(() => {});
    else if (!m.match_id && S.match && S.match.state !== 'over') {
      // The server no longer has us in this match.
      S.match = null;
      resetRound();
    }
    render();
    return;
  }
  if (m.resumed && m.match_id) {
    // The server resends the match and the round. A link opened in this
    // tab waits for that snapshot: a finished match must not win over it.
    // The lobby's address (/, the top bar's link) is such a link too: a
    // finished match the server still keeps gives way to the lobby, while
    // a live one is shown (linkDecides).
    if (!isSidePage(S.route) && !S.routeDone) {
      S.resumedId = m.match_id;
      const id = m.match_id;
      setTimeout(() => {
        if (S.resumedId !== id) return;
        S.resumedId = '';
        handleRoute();
        render();
      }, RESUME_WAIT_MS);
    }
    render();
    return;
  }
  handleRoute();
  render();
}

// linkDecides settles a waiting link against the first snapshot of the
// match the session resumed, and reports whether that match is dropped.
function linkDecides(info) {
  if (!S.resumedId || info.id !== S.resumedId) return false;
  S.resumedId = '';
  const r = S.route;
  if (r.kind === 'match' && r.code === info.code) {
    S.routeDone = true; // the link names this very match
    return false;
  }
  if (info.state === 'over') {
    S.dismissed.add(info.id);
    handleRoute();
    render();
    return true;
  }
  S.routeDone = true;
  // A live match wins over the lobby's address: the player comes back to
  // their game. Any other link asks first.
  if (r.kind !== 'lobby') S.linkConflict = { ...r };
  return false;
}

/**
 * goLobby is the top bar's link to the lobby, followed in the page: a
 * finished match, or one watched, is left for it; a live match of the
 * player's asks first, as a link does (linkScreen); an attempt stays,
 * since its clock runs (its page says Resume after a reload).
 */
export function goLobby() {
  const m = S.match;
  const lobby = { kind: 'lobby' };
  if (S.attempt) return false;
  S.route = lobby;
  S.routeDone = true;
  S.linkConflict = null;
  if (m && m.state !== 'over' && isPlayer(m)) {
    S.page = lobby;
    S.linkConflict = lobby;
    render();
    return true;
  }
  if (m) {
    leaveMatch();
    return true;
  }
  goPage(lobby);
  return true;
}

/**
 * handleRoute acts on the link that opened the page, once: an invite joins
 * its match, a deal is offered in the lobby, /daily and a challenge's link
 * show their pages.
 */
export function handleRoute() {
  if (S.routeDone) return;
  S.routeDone = true;
  const r = S.route;
  S.page = r.kind === 'daily' || r.kind === 'challenge' || isSidePage(r) ? { ...r } : { kind: 'lobby' };
  if (r.kind === 'match') {
    joinByCode(r.code, true);
  } else if (r.kind === 'deal') {
    S.dealOffer = { seed: r.seed, draw: r.draw, passes: r.passes, scoring: r.scoring, game: r.game };
    rebuild(); // the lobby shows the offer
  }
}

/**
 * onMatch takes a match message: a reply to a request of ours (re set) or
 * a push. A reply is adopted, since the player asked for that match. A push
 * of another match than the one shown is adopted only if the player has a
 * seat in it (a rematch) or watches it, and never while the one shown is a
 * started match they play in: a push must not pull a player out of a game.
 * Pushes of a match being left, or dismissed for a link, are ignored.
 */
export function onMatch(info, re) {
  if (S.leaving && info.id === S.leaving) return;
  if (!re && S.dismissed.has(info.id)) return;
  if (!re && linkDecides(info)) return;
  if (re) S.dismissed.delete(info.id);
  const mine = isPlayer(info);
  const current = S.match && S.match.id === info.id;
  if (!current) {
    // A match we joined, created, were seated in (a rematch) or watch.
    if (!mine && S.spectating !== info.id && !re) return;
    if (S.match && S.match.state !== 'over' && S.match.state !== 'open' && !re && isPlayer(S.match)) return;
    resetRound();
  }
  S.match = info;
  if (mine && S.spectating === info.id) S.spectating = '';
  // A match that ends while its player chooses shows its results.
  if (S.linkConflict && info.state === 'over') S.linkConflict = null;
  if (!S.linkConflict && !isSidePage(S.page)) setPath(`/m/${info.code}`);
  if (info.round_id && S.roundOver && S.roundOver.round_id !== info.round_id && info.state !== 'over') {
    S.roundOver = null;
  }
  render();
}

/**
 * joinByCode joins the match of an invite code. From a link, a match that
 * has already started is offered to watch instead (the server refuses a
 * late join with bad_request).
 */
export function joinByCode(code, fromLink = false) {
  code = String(code || '').trim().toUpperCase();
  if (!code) return;
  request('join_match', { code }).catch((err) => {
    if (err.code === 'disconnected') return;
    if (fromLink && err.code === 'bad_request') {
      toast(t('match.started_watch', { code }), 'error');
      S.watchOffer = code;
      render();
      return;
    }
    fail(err);
    if (fromLink) setPath('/');
  });
}

/** watchByCode watches the match of an invite code. */
export function watchByCode(code) {
  code = String(code || '').trim().toUpperCase();
  if (!code) return;
  request('spectate', { code }).then((m) => {
    S.spectating = m.match.id;
    S.watchOffer = '';
    onMatch(m.match, m.re);
  }).catch(fail);
}

/**
 * createMatch creates a match. Its settings, but for the deal number, are
 * remembered as the create form's next defaults.
 */
export function createMatch(settings) {
  storageSet(LAST_SETTINGS_KEY, JSON.stringify({ ...settings, seed: undefined }));
  return request('create_match', { settings });
}

/**
 * soloPractice creates and starts a private match of one player on the
 * game (Klondike when absent): undo always on, no countdown, an hour to
 * play, ranked by score. Whitehead draws one card with no redeal.
 */
export function soloPractice(draw, seed, game) {
  const settings = { draw, max_players: 1, public: false, undo: 'on', countdown_s: 0, time_limit_s: 3600, mode: 'score' };
  if (seed) settings.seed = seed;
  if (game && game !== 'klondike') settings.game = game;
  if (game === 'whitehead') Object.assign(settings, { draw: 1, passes: 1 });
  request('create_match', { settings })
    .then((m) => request('start_match', { match_id: m.match.id }))
    .catch(fail);
}

/**
 * leaveMatch leaves the current match (or stops watching it), then goes
 * to the lobby, or on to the link the player chose (then). The match is
 * dismissed, so that a late push of it does not bring it back.
 */
export function leaveMatch(then) {
  const m = S.match;
  if (!m) return;
  S.leaving = m.id;
  const done = () => {
    S.leaving = '';
    S.match = null;
    S.spectating = '';
    S.dismissed.add(m.id);
    resetRound();
    if (typeof then === 'function') {
      then();
    } else {
      S.page = { kind: 'lobby' };
      setPath('/');
    }
    render();
  };
  if (m.state === 'over') {
    // The server forgets a finished match by itself.
    done();
    return;
  }
  request('leave_match', { match_id: m.id }).then(done, (err) => {
    S.leaving = '';
    // Already out of it: the server forgot the match or our seat.
    if (err.code === 'not_found' || err.code === 'unauthorized') done();
    else fail(err);
  });
}
