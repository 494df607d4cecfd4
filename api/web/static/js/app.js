// The Klondike race client: name, lobby, waiting room, board, results and
// replays, over the server's WebSocket protocol (docs/protocol.md).

import { h, replace, fmtClock, storageGet, storageSet } from './util.js';
import { Connection, forgetSession } from './net.js';
import { Board } from './board.js';
import { cardName, parseMove, makeCard, timedScore } from './engine.js';
import { checkCommitment } from './fair.js';
import { ReplayViewer } from './replay.js';

const NAME_KEY = 'klondike.name';
const FOUR_KEY = 'klondike.fourColour';
const LAST_SETTINGS_KEY = 'klondike.settings';

const app = document.getElementById('app');
const toasts = document.getElementById('toasts');
const announcer = document.getElementById('announce');
const connStatus = document.getElementById('conn-status');
const who = document.getElementById('who');

const S = {
  name: storageGet(NAME_KEY),
  conn: null,
  connected: false,
  me: '', // player id
  match: null, // the protocol's match object
  spectating: '', // the id of a match watched
  leaving: '',
  // lobbyList is the lobby's list of open matches as far as the player
  // has paged through it: next is the cursor of the page after it ('' at
  // the end), pages how many pages it holds.
  lobbyList: { matches: [], next: '', pages: 1 },
  round: null,
  leaderboard: null,
  roundOver: null,
  matchOver: null,
  dealOffer: null, // {seed, draw, passes, scoring} from /deal/<seed>
  route: parseRoute(location),
  routeDone: false,
  welcomed: false,
  // resumedId is the match a resumed session brought back while a link
  // waits: its first snapshot decides whether the link goes ahead.
  resumedId: '',
  // linkConflict is a link that would take the player out of a live match:
  // they choose between the two.
  linkConflict: null,
  // dismissed holds matches a link replaced: their pushes are not adopted.
  dismissed: new Set(),
};

// ---------- routing ----------

function parseRoute(loc) {
  const p = loc.pathname;
  let m = /^\/m\/([A-Za-z0-9]{1,16})\/?$/.exec(p);
  if (m) return { kind: 'match', code: m[1].toUpperCase() };
  m = /^\/deal\/(\d{1,20})\/?$/.exec(p);
  if (m) {
    const q = new URLSearchParams(loc.search);
    const offer = { seed: m[1], draw: q.get('draw') === '1' ? 1 : 3 };
    if (['0', '1', '3'].includes(q.get('passes'))) offer.passes = +q.get('passes');
    if (['standard', 'vegas', 'none'].includes(q.get('scoring'))) offer.scoring = q.get('scoring');
    return { kind: 'deal', ...offer };
  }
  return { kind: 'lobby' };
}

// describeRoute says in words what a link offers, or '' for the lobby.
function describeRoute(r) {
  if (r.kind === 'deal') return `Deal #${r.seed}, draw ${r.draw}`;
  if (r.kind === 'match') return `An invite to match ${r.code}`;
  return '';
}

function routePath(r) {
  if (r.kind === 'match') return `/m/${r.code}`;
  if (r.kind !== 'deal') return '/';
  const q = new URLSearchParams({ draw: String(r.draw) });
  if (r.passes !== undefined) q.set('passes', String(r.passes));
  if (r.scoring) q.set('scoring', r.scoring);
  return `/deal/${r.seed}?${q}`;
}

function setPath(path) {
  if (location.pathname + location.search !== path) history.replaceState(null, '', path);
}

// ---------- feedback ----------

function toast(text, kind = 'info') {
  const el = h('div', { class: `toast toast-${kind}`, text });
  toasts.appendChild(el);
  setTimeout(() => el.remove(), kind === 'error' ? 6000 : 3500);
  while (toasts.children.length > 4) toasts.firstChild.remove();
}

function announce(text) {
  announcer.textContent = '';
  // A fresh text node makes screen readers speak the same words again.
  setTimeout(() => { announcer.textContent = text; }, 20);
}

function fail(err) {
  toast((err && (err.message || err.reason)) || 'something went wrong', 'error');
}

// ---------- connection ----------

function connect() {
  if (S.conn) return;
  S.conn = new Connection({ name: S.name, onMessage, onStatus });
  S.conn.connect();
}

function onStatus(status, detail) {
  S.connected = status === 'open';
  const text = {
    connecting: 'Connecting…', open: 'Connected', reconnecting: 'Reconnecting…',
    replaced: 'Opened elsewhere', closed: 'Disconnected',
  }[status] || status;
  connStatus.textContent = text;
  connStatus.dataset.state = status;
  if (status === 'replaced') showReplaced(detail);
  if (status === 'closed' && detail) {
    toast(detail, 'error');
    if (!S.welcomed) {
      // The name was refused: ask again.
      S.conn.close();
      S.conn = null;
      S.name = '';
      render();
    }
  }
  if (status !== 'open' && S.round && S.round.inflight) {
    // The answer is lost with the connection; resuming sends the truth.
    S.round.inflight = null;
    S.round.queue = [];
    if (screen.board) screen.board.moveAnswered(false);
  }
  if (screen.update) screen.update();
}

function showReplaced(detail) {
  const dlg = h('div', { class: 'panel replaced', role: 'alertdialog', 'aria-labelledby': 'replaced-title' },
    h('h2', { id: 'replaced-title', text: 'Playing in another tab' }),
    h('p', { text: detail }),
    h('button', { class: 'btn primary', type: 'button', onclick: () => location.reload(), text: 'Play here instead' }));
  screenKey = 'replaced';
  screen = {};
  replace(app, dlg);
}

function onMessage(m) {
  switch (m.type) {
    case 'welcome': onWelcome(m); break;
    case 'match': if (m.match) onMatch(m.match, m.re); break;
    case 'matches': break; // read by the lobby where it asked for them
    case 'round_starting': onRoundStarting(m); break;
    case 'round_started': onRoundStarted(m); break;
    case 'move_ok': onMoveOK(m); break;
    case 'move_rejected': onMoveRejected(m); break;
    case 'leaderboard': onLeaderboard(m); break;
    case 'round_over': onRoundOver(m); break;
    case 'match_over': onMatchOver(m); break;
    case 'resigned': announce('You resigned this round.'); break;
    case 'error': onError(m); break;
    default: break; // the protocol only adds messages
  }
}

function onWelcome(m) {
  const first = !S.welcomed;
  S.welcomed = true;
  S.me = m.player_id;
  S.name = m.name;
  who.textContent = m.name;
  if (!first) {
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
    if (S.route.kind !== 'lobby' && !S.routeDone) {
      S.resumedId = m.match_id;
      const id = m.match_id;
      setTimeout(() => {
        if (S.resumedId !== id) return;
        S.resumedId = '';
        handleRoute();
        render();
      }, 2000);
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
  S.linkConflict = { ...r };
  return false;
}

function handleRoute() {
  if (S.routeDone) return;
  S.routeDone = true;
  const r = S.route;
  if (r.kind === 'match') {
    joinByCode(r.code, true);
  } else if (r.kind === 'deal') {
    S.dealOffer = { seed: r.seed, draw: r.draw, passes: r.passes, scoring: r.scoring };
    screenKey = ''; // the lobby shows the offer
  }
}

function isPlayer(info) {
  return !!(info && info.players && info.players.some((p) => p.player_id === S.me));
}

function resetRound() {
  S.round = null;
  S.leaderboard = null;
  S.roundOver = null;
  S.matchOver = null;
}

function onMatch(info, re) {
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
  if (!S.linkConflict) setPath(`/m/${info.code}`);
  if (info.round_id && S.roundOver && S.roundOver.round_id !== info.round_id && info.state !== 'over') {
    S.roundOver = null;
  }
  render();
}

function onRoundStarting(m) {
  if (!S.match || m.match_id !== S.match.id) return;
  if (!S.round || S.round.id !== m.round_id) S.round = newRound(m);
  S.round.commitment = m.commitment || S.round.commitment;
  S.roundOver = null;
  S.leaderboard = null;
  render();
}

function newRound(m) {
  return {
    id: m.round_id, number: m.round, startsAt: Date.parse(m.starts_at), endsAt: Date.parse(m.ends_at),
    rules: m.rules, commitment: m.commitment || '', known: !!m.known_deal, seed: m.seed || '',
    view: null, lastSeq: 0, inflight: null, queue: [], lastEvents: null,
  };
}

function onRoundStarted(m) {
  if (S.match && m.match_id !== S.match.id) return;
  if (!S.round || S.round.id !== m.round_id) S.round = newRound(m);
  const r = S.round;
  r.rules = m.rules;
  r.startsAt = Date.parse(m.starts_at);
  r.endsAt = Date.parse(m.ends_at);
  if (m.commitment && !r.commitment) r.commitment = m.commitment;
  r.known = !!m.known_deal;
  r.seed = m.seed || r.seed;
  r.view = m.view;
  r.lastSeq = m.last_seq || 0;
  r.inflight = null;
  r.queue = [];
  if (m.resumed) {
    r.lastEvents = null;
    announce('Back in the game.');
  } else {
    announce(`Round ${m.round} started. Good luck!`);
  }
  if (screen.board) screen.board.moveAnswered(false);
  S.roundOver = null;
  render();
}

// ---------- moves ----------

function sendMove(text, info = {}) {
  const r = S.round;
  if (!r || !r.view || r.view.status !== 'playing') return;
  if (text === 'U' && r.rules.undo === 'off') {
    toast('Undo is off in this match.');
    return;
  }
  if (!S.conn || !S.conn.isOpen()) {
    toast('Not connected: the move was not sent.', 'error');
    if (screen.board) screen.board.moveAnswered(false);
    return;
  }
  if (r.inflight) {
    if (r.queue.length < 3) r.queue.push({ text, info });
    return;
  }
  dispatch({ text, info, tries: 0 });
}

function dispatch(mv) {
  const r = S.round;
  mv.seq = r.lastSeq + 1;
  mv.id = S.conn.send('move', { round_id: r.id, seq: mv.seq, move: mv.text });
  if (!mv.id) {
    if (screen.board) screen.board.moveAnswered(false);
    return;
  }
  mv.sentAt = performance.now();
  r.inflight = mv;
}

function pump() {
  const r = S.round;
  if (!r || r.inflight || !r.queue.length || !r.view || r.view.status !== 'playing') return;
  dispatch({ ...r.queue.shift(), tries: 0 });
}

function onMoveOK(m) {
  const r = S.round;
  if (!r || m.round_id !== r.id) return;
  const before = r.view;
  const mv = r.inflight && r.inflight.seq === m.seq ? r.inflight : null;
  if (mv) r.inflight = null;
  if (m.seq >= r.lastSeq) {
    r.lastSeq = m.seq;
    r.view = m.view;
    r.lastEvents = m.events || [];
  }
  if (screen.board) screen.board.moveAnswered(true);
  if (mv) announce(describeMove(mv.text, before, m.view, m.events || []));
  updateGame();
  pump();
}

function onMoveRejected(m) {
  const r = S.round;
  if (!r || m.round_id !== r.id) return;
  const mv = r.inflight && r.inflight.seq === m.seq ? r.inflight : r.inflight;
  r.inflight = null;
  r.queue = [];
  if (screen.board) {
    screen.board.moveAnswered(false);
    if (mv && mv.info) screen.board.shake(mv.info.origin);
  }
  switch (m.code) {
    case 'out_of_order': {
      const expected = m.expected || r.lastSeq + 1;
      const stale = expected - 1 !== r.lastSeq;
      r.lastSeq = expected - 1;
      if (stale) {
        // Our view is not the server's: resume to get it.
        toast('Resynchronising with the server…');
        S.conn.reconnectNow();
      } else if (mv && (mv.tries || 0) < 2) {
        dispatch({ ...mv, tries: (mv.tries || 0) + 1 });
      }
      break;
    }
    case 'unavailable':
      if (mv && (mv.tries || 0) < 4) {
        setTimeout(() => { if (S.round === r && !r.inflight) dispatch({ ...mv, tries: (mv.tries || 0) + 1 }); }, 300 * 2 ** (mv.tries || 0));
      } else {
        toast(`The server is busy: ${m.reason}`, 'error');
      }
      break;
    default:
      toast(`${mv ? `${mv.text} refused: ` : 'Refused: '}${m.reason}`, 'error');
      announce(`Move refused: ${m.reason}`);
  }
  updateGame();
}

function onError(m) {
  const r = S.round;
  if (r && r.inflight && m.re && m.re === r.inflight.id) {
    const mv = r.inflight;
    if (m.code === 'rate_limited' && mv.tries < 5) {
      // Dropped unread: send it again, same seq, a little later.
      r.inflight = { ...mv, tries: mv.tries + 1, id: 'waiting' };
      if (mv.tries === 0) toast('Slow down a little: the server is pacing your moves.');
      setTimeout(() => {
        if (S.round === r && r.inflight && r.inflight.id === 'waiting') {
          r.inflight = null;
          dispatch({ ...mv, tries: mv.tries + 1 });
        }
      }, 500 * 2 ** mv.tries);
      return;
    }
    r.inflight = null;
    r.queue = [];
    if (screen.board) screen.board.moveAnswered(false);
  }
  if (m.code === 'rate_limited') {
    toast('Slow down a little: too many messages.', 'error');
    return;
  }
  toast(m.message || m.code, 'error');
}

function describeMove(text, before, after, events) {
  const m = parseMove(text);
  if (!m || !before) return `${text} played.`;
  const tail = events.includes('won') ? ' You won!' : events.includes('stuck') ? ' No useful move is left: the game is over.' : events.includes('revealed') ? ' A card turned face up.' : '';
  const wtop = before.waste.length ? before.waste[before.waste.length - 1] : null;
  switch (m.kind) {
    case 'D': return `Drew ${after.waste.slice(-Math.min(after.waste.length, 3)).map(cardName).join(', ')}; ${cardName(after.waste[after.waste.length - 1])} on top.${tail}`;
    case 'R': return `Turned the waste over: ${after.stock} cards in the stock.${tail}`;
    case 'U': return 'Undid the last move.';
    case 'WF': return `${cardName(wtop)} to the foundation.${tail}`;
    case 'WT': return `${cardName(wtop)} onto pile ${m.to}.${tail}`;
    case 'TF': {
      const up = before.tableau[m.from - 1].up;
      return `${cardName(up[up.length - 1])} from pile ${m.from} to the foundation.${tail}`;
    }
    case 'TT': return `Moved cards from pile ${m.from} onto pile ${m.to}.${tail}`;
    case 'FT': return `${cardName(makeCard(before.foundations[m.suit], m.suit))} back onto pile ${m.to}.${tail}`;
  }
  return `${text} played.`;
}

// ---------- round results ----------

function onLeaderboard(m) {
  if (!S.match || m.match_id !== S.match.id) return;
  S.leaderboard = m;
  if (screen.updateSide) screen.updateSide();
}

function onRoundOver(m) {
  if (!S.match || m.match_id !== S.match.id) return;
  S.roundOver = m;
  S.leaderboard = { round_id: m.round_id, entries: m.results };
  if (S.round && S.round.id === m.round_id) {
    S.round.inflight = null;
    S.round.queue = [];
  }
  announce(`Round ${m.round} is over.`);
  render();
}

function onMatchOver(m) {
  if (!S.match || m.match_id !== S.match.id) return;
  S.matchOver = m;
  render();
}

// ---------- actions ----------

function request(type, body) {
  if (!S.conn || !S.conn.isOpen()) {
    toast('Not connected yet; try again in a moment.', 'error');
    return Promise.reject({ code: 'disconnected' });
  }
  return S.conn.request(type, body);
}

function joinByCode(code, fromLink = false) {
  code = String(code || '').trim().toUpperCase();
  if (!code) return;
  request('join_match', { code }).catch((err) => {
    if (err.code === 'disconnected') return;
    if (fromLink && err.code === 'bad_request') {
      toast(`Match ${code} has already started: you can watch it.`, 'error');
      S.watchOffer = code;
      render();
      return;
    }
    fail(err);
    if (fromLink) setPath('/');
  });
}

function watchByCode(code) {
  code = String(code || '').trim().toUpperCase();
  if (!code) return;
  request('spectate', { code }).then((m) => {
    S.spectating = m.match.id;
    S.watchOffer = '';
    onMatch(m.match, m.re);
  }).catch(fail);
}

function createMatch(settings) {
  storageSet(LAST_SETTINGS_KEY, JSON.stringify({ ...settings, seed: undefined }));
  return request('create_match', { settings });
}

function soloPractice(draw, seed) {
  const settings = { draw, max_players: 1, public: false, undo: 'on', countdown_s: 0, time_limit_s: 3600, mode: 'score' };
  if (seed) settings.seed = seed;
  request('create_match', { settings })
    .then((m) => request('start_match', { match_id: m.match.id }))
    .catch(fail);
}

// leaveMatch leaves the current match (or stops watching it), then goes
// to the lobby, or on to the link the player chose (then).
function leaveMatch(then) {
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
      setPath('/');
    }
    render();
  };
  if (m.state === 'over') {
    done();
    return;
  }
  request('leave_match', { match_id: m.id }).then(done, (err) => {
    S.leaving = '';
    if (err.code === 'not_found' || err.code === 'unauthorized') done();
    else fail(err);
  });
}

// ---------- screens ----------

let screen = {};
let screenKey = '';

function currentScreen() {
  if (!S.name) return 'name';
  if (!S.welcomed || S.resumedId) return 'connecting';
  const m = S.match;
  if (!m) return 'lobby';
  if (S.linkConflict) return 'link';
  if (S.roundOver && (m.state === 'between' || m.state === 'over' || m.state === 'running')) return 'results';
  if (m.state === 'over') return 'results';
  if (m.state === 'open') return 'room';
  if (m.state === 'between') return 'results';
  if (isPlayer(m) && S.round && S.round.view) return 'game';
  return 'watch';
}

function render() {
  const key = currentScreen() + (S.match ? `:${S.match.id}` : '') + (S.roundOver ? `:${S.roundOver.round_id}` : '');
  if (key !== screenKey) {
    if (screen.destroy) screen.destroy();
    screenKey = key;
    const kind = key.split(':')[0];
    screen = { name: nameScreen, connecting: connectingScreen, lobby: lobbyScreen, room: roomScreen, game: gameScreen, watch: gameScreen, results: resultsScreen, link: linkScreen }[kind]();
    const focus = document.activeElement;
    replace(app, screen.el);
    if (!focus || focus === document.body || !document.contains(focus)) {
      const first = screen.el.querySelector('[data-autofocus]') || screen.el.querySelector('h1, h2');
      if (first) {
        if (!first.hasAttribute('tabindex') && !/^(INPUT|BUTTON|SELECT|A)$/.test(first.tagName)) first.setAttribute('tabindex', '-1');
        first.focus({ preventScroll: true });
      }
    }
  }
  if (screen.update) screen.update();
}

function nameScreen() {
  const input = h('input', { id: 'name-input', name: 'name', maxlength: '24', autocomplete: 'nickname', required: true, value: storageGet(NAME_KEY), 'data-autofocus': true });
  const form = h('form', {
    class: 'panel narrow', 'aria-labelledby': 'name-title',
    onsubmit: (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name || name.length > 24) {
        toast('A name is 1 to 24 characters.', 'error');
        return;
      }
      storageSet(NAME_KEY, name);
      S.name = name;
      connect();
      render();
    },
  },
  h('h1', { id: 'name-title', text: 'Klondike race' }),
  waitingLine(),
  h('p', { class: 'lead', text: 'Race other players on the same deal of solitaire. Every move is checked by the server; every deal is provably fair.' }),
  h('label', { for: 'name-input', text: 'Your name' }),
  input,
  h('button', { class: 'btn primary', type: 'submit', id: 'name-go', text: 'Continue' }));
  return { el: form };
}

// waitingLine says what the link that opened the page offers, before the
// player has a name.
function waitingLine() {
  const what = describeRoute(S.route);
  if (!what) return null;
  return h('p', { class: 'waiting', id: 'waiting-link' }, 'Waiting for you: ', h('strong', { text: what }),
    S.route.kind === 'deal' ? ' (play it alone or race friends on it)' : ' (you join it once you have a name)');
}

function connectingScreen() {
  return { el: h('section', { class: 'panel narrow' }, h('h1', { text: 'Connecting…' }), waitingLine(), h('p', { text: 'Reaching the server.' })) };
}

// linkScreen: a link was opened in a tab whose player is still in a match
// that is not over. The link goes ahead once they leave it.
function linkScreen() {
  const r = S.linkConflict;
  const m0 = S.match;
  const what = describeRoute(r);
  const phase = { open: 'in its waiting room', starting: 'its round is about to start', running: 'a round is being played', between: 'between two rounds' }[m0.state] || m0.state;
  const go = () => {
    S.linkConflict = null;
    S.routeDone = false;
    setPath(routePath(r));
    handleRoute();
  };
  const el = h('section', { class: 'panel narrow link-conflict', 'aria-labelledby': 'link-title' },
    h('h1', { id: 'link-title', text: what }),
    h('p', { text: `You are still in match ${m0.code} (${phase}). Leave it to go on${m0.state === 'open' ? '' : ': leaving gives up your game in it'}, or go back to it.` }),
    h('div', { class: 'actions' },
      h('button', { class: 'btn primary', type: 'button', id: 'link-go', 'data-autofocus': true, text: `Leave match ${m0.code} and go on`, onclick: () => leaveMatch(go) }),
      h('button', {
        class: 'btn', type: 'button', id: 'link-back', text: `Back to match ${m0.code}`,
        onclick: () => { S.linkConflict = null; setPath(`/m/${S.match.code}`); render(); },
      })));
  return { el };
}

const SETTING_FIELDS = [
  { key: 'draw', label: 'Draw', type: 'select', options: [['3', 'Draw 3'], ['1', 'Draw 1']], def: '3', num: true },
  { key: 'passes', label: 'Passes through the stock', type: 'select', options: [['', 'Default (by scoring)'], ['0', 'Unlimited'], ['3', '3 passes'], ['1', '1 pass']], def: '', num: true },
  { key: 'scoring', label: 'Scoring', type: 'select', options: [['standard', 'Standard (timed)'], ['vegas', 'Vegas'], ['none', 'None']], def: 'standard' },
  { key: 'undo', label: 'Undo', type: 'select', options: [['no_reveal', 'Unless a card turned'], ['on', 'Always'], ['off', 'Never']], def: 'no_reveal' },
  { key: 'foundation_to_tableau', label: 'Cards may come back from the foundations', type: 'checkbox', def: true },
  { key: 'mode', label: 'Ranking', type: 'select', options: [['race', 'Race: first to win'], ['score', 'Score: highest score']], def: 'race' },
  { key: 'rounds', label: 'Rounds', type: 'number', min: 1, max: 20, def: 1 },
  { key: 'max_players', label: 'Most players', type: 'number', min: 1, max: 64, def: 8 },
  { key: 'time_limit_s', label: 'Time limit (seconds)', type: 'number', min: 2, max: 10800, def: 900 },
  { key: 'countdown_s', label: 'Countdown (seconds)', type: 'number', min: 0, max: 30, def: 3 },
  { key: 'public', label: 'List it in the lobby (public)', type: 'checkbox', def: true },
  { key: 'deals', label: 'Deals', type: 'select', options: [['any', 'Any deal'], ['winnable', 'Only deals proved winnable']], def: 'any' },
  { key: 'seed', label: 'Deal number (optional)', type: 'text', def: '', pattern: '[0-9]{1,20}' },
];

function settingsForm(prefill, submitText, onSubmit) {
  const fields = {};
  const rows = SETTING_FIELDS.map((f) => {
    const id = `set-${f.key}`;
    const v = prefill[f.key] !== undefined ? prefill[f.key] : f.def;
    let input;
    if (f.type === 'select') {
      input = h('select', { id, name: f.key }, f.options.map(([val, text]) => h('option', { value: val, text, selected: String(v) === val })));
    } else if (f.type === 'checkbox') {
      input = h('input', { id, name: f.key, type: 'checkbox', checked: !!v });
    } else if (f.type === 'number') {
      input = h('input', { id, name: f.key, type: 'number', min: String(f.min), max: String(f.max), step: '1', value: String(v), required: true, inputmode: 'numeric' });
    } else {
      input = h('input', { id, name: f.key, type: 'text', value: String(v), pattern: f.pattern, inputmode: 'numeric', autocomplete: 'off', placeholder: 'random' });
    }
    fields[f.key] = { f, input };
    return f.type === 'checkbox'
      ? h('div', { class: 'field check' }, input, h('label', { for: id, text: f.label }))
      : h('div', { class: 'field' }, h('label', { for: id, text: f.label }), input);
  });
  const form = h('form', {
    class: 'settings-form',
    onsubmit: (e) => {
      e.preventDefault();
      const s = {};
      for (const [key, { f, input }] of Object.entries(fields)) {
        if (f.type === 'checkbox') s[key] = input.checked;
        else if (f.type === 'number') s[key] = Math.round(+input.value);
        else if (f.type === 'select') {
          if (input.value === '') continue;
          s[key] = f.num ? +input.value : input.value;
        } else if (input.value.trim()) s[key] = input.value.trim();
      }
      onSubmit(s);
    },
  }, h('div', { class: 'fields' }, rows), h('button', { class: 'btn primary', type: 'submit', id: 'create-submit', text: submitText }));
  return form;
}

function describeSettings(s) {
  const parts = [`draw ${s.draw}`, s.passes ? `${s.passes} pass${s.passes === 1 ? '' : 'es'}` : 'unlimited passes',
    `${s.scoring} scoring`, s.mode === 'race' ? 'race' : 'score mode', `${s.rounds} round${s.rounds === 1 ? '' : 's'}`,
    `${fmtClock(s.time_limit_s * 1000)} a round`, `undo ${s.undo.replace('_', ' ')}`];
  if (!s.foundation_to_tableau) parts.push('no cards back from the foundations');
  if (s.seed) parts.push(`deal #${s.seed}`);
  return parts.join(' · ');
}

function lobbyScreen() {
  let lastSettings = {};
  try { lastSettings = JSON.parse(storageGet(LAST_SETTINGS_KEY, '{}')) || {}; } catch { lastSettings = {}; }
  const drawSel = h('select', { id: 'quick-draw', 'aria-label': 'Draw for quick match and practice' }, h('option', { value: '3', text: 'Draw 3' }), h('option', { value: '1', text: 'Draw 1' }));
  const codeInput = h('input', { id: 'join-code', name: 'code', maxlength: '16', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', placeholder: 'K7QX2M' });
  const list = h('ul', { class: 'match-list', id: 'open-matches', 'aria-live': 'polite' });
  const more = h('button', { class: 'btn subtle more-matches', type: 'button', id: 'more-matches', text: 'Show more', hidden: true });
  const offer = S.dealOffer;
  const offerEl = offer ? h('section', { class: 'panel deal-offer', 'aria-labelledby': 'offer-title' },
    h('h2', { id: 'offer-title', text: `Deal #${offer.seed}` }),
    h('p', { text: `Someone shared this deal with you (draw ${offer.draw}). Play it alone, or open a match so friends can race you on it.` }),
    h('div', { class: 'actions' },
      h('button', { class: 'btn primary', type: 'button', id: 'deal-solo', 'data-autofocus': true, text: `Play deal #${offer.seed} solo`, onclick: () => { S.dealOffer = null; soloPractice(offer.draw, offer.seed); } }),
      h('button', {
        class: 'btn', type: 'button', id: 'deal-match', text: 'Open a match on it',
        onclick: () => {
          const s = { seed: offer.seed, draw: offer.draw, public: false };
          if (offer.passes !== undefined) s.passes = offer.passes;
          if (offer.scoring) s.scoring = offer.scoring;
          S.dealOffer = null;
          createMatch(s).catch(fail);
        },
      }),
      h('button', { class: 'btn subtle', type: 'button', text: 'Not now', onclick: () => { S.dealOffer = null; setPath('/'); screenKey = ''; render(); } }))) : null;
  const watchOffer = S.watchOffer ? h('section', { class: 'panel deal-offer' },
    h('h2', { text: `Match ${S.watchOffer} is under way` }),
    h('button', { class: 'btn primary', type: 'button', id: 'watch-offer', text: 'Watch it', onclick: () => watchByCode(S.watchOffer) })) : null;
  const el = h('div', { class: 'lobby' },
    offerEl, watchOffer,
    h('section', { class: 'panel', 'aria-labelledby': 'play-title' },
      h('h1', { id: 'play-title', text: `Hello, ${S.name}` }),
      h('div', { class: 'actions' },
        drawSel,
        h('button', { class: 'btn primary', type: 'button', id: 'quick-match', text: 'Quick match', onclick: () => request('quick_match', { settings: { draw: +drawSel.value } }).catch(fail) }),
        h('button', { class: 'btn', type: 'button', id: 'solo', text: 'Solo practice', onclick: () => soloPractice(+drawSel.value) })),
      h('p', { class: 'hint', text: 'Quick match seats you with others who want the same draw; it starts a few seconds after a second player arrives.' })),
    h('section', { class: 'panel', 'aria-labelledby': 'join-title' },
      h('h2', { id: 'join-title', text: 'Join with a code' }),
      h('form', {
        class: 'inline-form',
        onsubmit: (e) => { e.preventDefault(); joinByCode(codeInput.value); },
      },
      h('label', { for: 'join-code', class: 'visually-hidden', text: 'Invite code' }),
      codeInput,
      h('button', { class: 'btn primary', type: 'submit', id: 'join-go', text: 'Join' }),
      h('button', { class: 'btn', type: 'button', id: 'watch-go', text: 'Watch', onclick: () => watchByCode(codeInput.value) }))),
    h('section', { class: 'panel', 'aria-labelledby': 'open-title' },
      h('h2', { id: 'open-title', text: 'Open matches' }),
      list, more),
    h('section', { class: 'panel create-panel', 'aria-labelledby': 'create-title' },
      h('h2', { id: 'create-title', text: 'Create a match' }),
      settingsForm(lastSettings, 'Create match', (s) => createMatch(s).catch(fail))));

  const updateList = () => {
    const L = S.lobbyList;
    more.hidden = !L.next;
    const ms = L.matches.filter((m) => m.state === 'open');
    if (!ms.length) {
      replace(list, h('li', { class: 'empty', text: 'No open public matches right now. Create one, or try a quick match.' }));
      return;
    }
    replace(list, ms.map((m) => {
      const host = (m.players.find((p) => p.player_id === m.host) || m.players[0] || { name: '?' }).name;
      return h('li', { class: 'match-item', dataset: { code: m.code } },
        h('div', { class: 'match-info' },
          h('strong', { text: `${host}'s match` }), ' ',
          h('span', { class: 'code', text: m.code }), m.quick ? h('span', { class: 'badge', text: 'quick' }) : null,
          h('div', { class: 'muted', text: describeSettings(m.settings) })),
        h('span', { class: 'seats', text: `${m.players.length}/${m.settings.max_players}` }),
        h('button', { class: 'btn', type: 'button', 'aria-label': `Join ${host}'s match ${m.code}`, text: 'Join', onclick: () => joinByCode(m.code) }));
    }));
  };

  // The server sends the list in pages, oldest first (docs/protocol.md,
  // list_matches). Every poll reads again, from the first page, as many
  // pages as the list holds, so that matches that closed drop out; "Show
  // more" reads the page after the last one and appends it. One read runs
  // at a time: a click during a poll is served once the poll is done, and
  // clicks while more is on its way ask for nothing further.
  let reading = false;
  let moreWanted = false;
  let gone = false;
  const page = (cursor) => S.conn.request('list_matches', cursor ? { cursor } : {});
  const readAgain = async () => {
    const want = S.lobbyList.pages;
    const matches = [];
    let next = '';
    let pages = 0;
    do {
      const m = await page(next);
      matches.push(...(m.matches || []));
      next = m.next_cursor || '';
      pages++;
    } while (next && pages < want);
    return { matches: unique([], matches), next, pages };
  };
  const readMore = async () => {
    const L = S.lobbyList;
    if (!L.next) return L;
    const m = await page(L.next);
    return { matches: unique(L.matches, m.matches || []), next: m.next_cursor || '', pages: L.pages + 1 };
  };
  const read = () => {
    if (reading || gone || !S.conn || !S.conn.isOpen()) return;
    reading = true;
    const forMore = moreWanted;
    const before = S.lobbyList.matches.length;
    (forMore ? readMore() : readAgain()).then((L) => {
      if (gone) return;
      const hadFocus = document.activeElement === more;
      S.lobbyList = L;
      updateList();
      // The button goes once the last page is in: the first match that
      // page brought takes the focus, rather than the page.
      if (forMore && hadFocus && more.hidden) {
        const first = list.querySelectorAll('.match-item button')[before];
        if (first) first.focus();
      }
    }, (err) => {
      // A cursor the server does not know (it restarted): the next poll
      // reads the first page alone.
      if (err.code === 'bad_request') S.lobbyList = { ...S.lobbyList, pages: 1 };
      if (err.code !== 'disconnected' && !gone) fail(err);
    }).finally(() => {
      reading = false;
      if (forMore) moreWanted = false;
      else if (moreWanted) read();
    });
  };
  more.addEventListener('click', () => {
    if (moreWanted) return;
    moreWanted = true;
    read();
  });
  read();
  const timer = setInterval(read, 2000);
  updateList();
  return { el, destroy: () => { gone = true; clearInterval(timer); } };
}

// unique is the matches of have followed by those of add not already
// among them: a match that two pages both hold shows once.
function unique(have, add) {
  const seen = new Set(have.map((m) => m.id));
  const fresh = [];
  for (const m of add) {
    if (seen.has(m.id)) continue;
    seen.add(m.id);
    fresh.push(m);
  }
  return have.concat(fresh);
}

function playersList(m) {
  return h('ul', { class: 'players', id: 'players' }, m.players.map((p) => h('li', { class: `player${p.player_id === S.me ? ' me' : ''}`, dataset: { player: p.name } },
    h('span', { class: `dot ${p.connected ? 'on' : 'off'}`, title: p.connected ? 'connected' : 'disconnected', 'aria-hidden': 'true' }),
    h('span', { class: 'pname', text: p.name }),
    p.player_id === m.host ? h('span', { class: 'badge', text: 'host' }) : null,
    p.player_id === S.me ? h('span', { class: 'badge you', text: 'you' }) : null,
    h('span', { class: `ready ${p.ready ? 'yes' : 'no'}`, text: p.ready ? 'ready' : 'not ready' }),
    h('span', { class: 'visually-hidden', text: p.connected ? ', connected' : ', disconnected' }))));
}

function roomScreen() {
  const m0 = S.match;
  const link = `${location.origin}/m/${m0.code}`;
  const linkInput = h('input', { id: 'invite-link', readonly: true, value: link, 'aria-label': 'Invite link' });
  const copyStatus = h('span', { class: 'muted', role: 'status', 'aria-live': 'polite' });
  const copy = () => {
    const ok = () => { copyStatus.textContent = 'Copied!'; };
    const fallback = () => {
      linkInput.select();
      try { if (document.execCommand('copy')) { ok(); return; } } catch { /* fall through */ }
      copyStatus.textContent = 'Select the link and copy it.';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(link).then(ok, fallback);
    else fallback();
  };
  const readyBtn = h('button', { class: 'btn', type: 'button', id: 'ready-toggle', 'aria-pressed': 'false', text: 'Ready' });
  const startBtn = h('button', { class: 'btn primary', type: 'button', id: 'start-match', text: 'Start the match' });
  const playersHost = h('div');
  const settingsP = h('p', { class: 'muted' });
  const note = h('p', { class: 'hint' });
  const title = h('h1', { id: 'room-title' });
  readyBtn.addEventListener('click', () => {
    const me = S.match.players.find((p) => p.player_id === S.me);
    request('ready', { match_id: S.match.id, ready: !(me && me.ready) }).catch(fail);
  });
  startBtn.addEventListener('click', () => request('start_match', { match_id: S.match.id }).catch(fail));
  const el = h('section', { class: 'panel room', 'aria-labelledby': 'room-title' },
    title, settingsP,
    h('div', { class: 'invite' },
      h('label', { for: 'invite-link', text: 'Invite link' }),
      h('div', { class: 'inline-form' }, linkInput, h('button', { class: 'btn', type: 'button', id: 'copy-link', text: 'Copy', onclick: copy }), copyStatus)),
    h('h2', { text: 'Players' }),
    playersHost,
    h('div', { class: 'actions' }, readyBtn, startBtn, h('button', { class: 'btn subtle', type: 'button', id: 'leave', text: 'Leave', onclick: () => leaveMatch() })),
    note);
  const update = () => {
    const m = S.match;
    if (!m) return;
    title.textContent = `Match ${m.code}`;
    settingsP.textContent = describeSettings(m.settings);
    replace(playersHost, playersList(m), m.spectators ? h('p', { class: 'muted', text: `${m.spectators} watching` }) : null);
    const me = m.players.find((p) => p.player_id === S.me);
    const player = !!me;
    readyBtn.hidden = !player;
    readyBtn.setAttribute('aria-pressed', me && me.ready ? 'true' : 'false');
    readyBtn.textContent = me && me.ready ? 'Ready ✓' : 'Ready';
    startBtn.hidden = m.host !== S.me;
    note.textContent = m.host === S.me
      ? `Start when everyone is here. The match also starts by itself once ${m.settings.max_players} players are in and all are ready.`
      : `Waiting for the host to start. It also starts by itself once ${m.settings.max_players} players are in and all are ready.`;
  };
  return { el, update };
}

// scoreWords names and explains a round's score in each scoring: the
// column's header, and one line under every table that shows it.
function scoreWords(scoring, mode) {
  const ranking = mode === 'score'
    ? 'Ranked by timed score.'
    : 'Ranked by who won first, then cards home, then timed score.';
  if (scoring === 'vegas') {
    return { header: 'Vegas score', title: '−52 to start, +5 for each card home; no time penalty', note: `Vegas score: −52 to start, +5 for each card home, no time penalty. ${mode === 'score' ? 'Ranked by Vegas score.' : 'Ranked by who won first, then by cards home.'}` };
  }
  if (scoring === 'none') {
    return { header: '', title: '', note: mode === 'score' ? 'No scoring: ties are broken by who got there first.' : 'Ranked by who won first, then by cards home.' };
  }
  return {
    header: 'Timed score',
    title: 'the board\u2019s points − 2 for every 10 s played (never below 0), + a bonus for a win',
    note: `Timed score: the board\u2019s points − 2 for every 10 s played (never below 0), + a time bonus for a win; so most are 0 early on. ${ranking}`,
  };
}

// scoreNote is the one line that explains the score of a table.
function scoreNote(scoring, mode, id) {
  return h('p', { class: 'score-note', id, text: scoreWords(scoring, mode).note });
}

function leaderboardTable(entries, { caption, scoring, mode }) {
  const statusText = (e) => {
    const t = e.finished_ms !== null && e.finished_ms !== undefined ? ` ${fmtClock(e.finished_ms)}` : '';
    return { playing: 'playing', won: `won${t}`, stuck: `stuck${t}`, resigned: 'resigned', timed_out: 'out of time' }[e.status] || e.status;
  };
  const words = scoreWords(scoring, mode);
  const num = (text, title) => h('th', { scope: 'col', class: 'num', text, title: title || null });
  return h('table', { class: 'board-table leaderboard', id: 'leaderboard', 'aria-describedby': 'score-note' },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {},
      num('#', 'rank'), h('th', { scope: 'col', text: 'Player' }),
      num('Cards home', 'cards on the foundations, of 52'),
      words.header ? num(words.header, words.title) : null,
      num('Moves'), h('th', { scope: 'col', class: 'status', text: 'Status' }))),
    h('tbody', {}, entries.map((e) => h('tr', { class: `${e.player_id === S.me ? 'me' : ''} st-${e.status}`, dataset: { player: e.name, foundation: String(e.foundation) } },
      h('td', { class: 'num', text: String(e.rank) }),
      h('th', { scope: 'row' }, e.name, e.player_id === S.me ? h('span', { class: 'visually-hidden', text: ' (you)' }) : null),
      h('td', { class: 'num foundation-count', text: String(e.foundation) }),
      words.header ? h('td', { class: 'num score', text: String(e.score) }) : null,
      h('td', { class: 'num', text: String(e.moves) }),
      h('td', { class: 'status', text: statusText(e) + (e.helped ? ' · with hints' : '') })))));
}

// totalsTable shows the match standings. The server's "wins" counts the
// rounds a player ranked first (a lone player who resigned ranks first), so
// it is named for that; games won show only when the server counts them.
function totalsTable(totals, { caption, scoring, mode }) {
  const words = scoreWords(scoring, 'score');
  const num = (text, title) => h('th', { scope: 'col', class: 'num', text, title: title || null });
  const won = totals.some((t) => t.games_won !== undefined);
  const total = words.header ? {
    th: num(`Total ${words.header.toLowerCase()}`, `the sum of the round scores (${words.header.toLowerCase()})`),
    td: (t) => h('td', { class: 'num total', text: String(t.total) }),
  } : null;
  const firsts = {
    th: num('1st places', 'rounds in which this player ranked first, won or not'),
    td: (t) => h('td', { class: 'num firsts', text: String(t.wins) }),
  };
  const cols = (mode === 'race' ? [firsts, total] : [total, firsts]).filter(Boolean);
  const ranking = mode === 'race'
    ? `Standings: ranked by 1st places, then by total${words.header ? ` ${words.header.toLowerCase()}` : ''}.`
    : `Standings: ranked by total${words.header ? ` ${words.header.toLowerCase()}` : ''}.`;
  return h('div', { class: 'totals-wrap' },
    h('table', { class: 'board-table totals', id: 'totals', 'aria-describedby': 'totals-note' },
      h('caption', { text: caption }),
      h('thead', {}, h('tr', {},
        num('#', 'rank'), h('th', { scope: 'col', text: 'Player' }),
        cols.map((c) => c.th),
        won ? num('Games won', 'rounds whose game this player won') : null,
        num('Place each round', 'the rank in each round, in order'))),
      h('tbody', {}, totals.map((t) => h('tr', { class: t.player_id === S.me ? 'me' : '', dataset: { player: t.name } },
        h('td', { class: 'num', text: String(t.rank) }), h('th', { scope: 'row', text: t.name }),
        cols.map((c) => c.td(t)),
        won ? h('td', { class: 'num', text: String(t.games_won) }) : null,
        h('td', { class: 'num', text: (t.placings || []).join(', ') || '–' }))))),
    h('p', { class: 'score-note', id: 'totals-note', text: ranking }));
}

function confirmDialog(question, yes, onYes) {
  const dlg = h('dialog', { class: 'dialog', 'aria-labelledby': 'dlg-q' },
    h('form', { method: 'dialog' },
      h('p', { id: 'dlg-q', text: question }),
      h('div', { class: 'actions' },
        h('button', { class: 'btn danger', value: 'yes', id: 'confirm-yes', text: yes }),
        h('button', { class: 'btn', value: 'no', id: 'confirm-no', text: 'Cancel', autofocus: true }))));
  dlg.addEventListener('close', () => {
    if (dlg.returnValue === 'yes') onYes();
    dlg.remove();
  });
  document.body.appendChild(dlg);
  dlg.showModal();
}

// A stat is one labelled figure of the HUD: its label and value read as
// "Points 35", set with set(value) and hidden with set(null). A short
// label, when given, replaces the label on a phone.
function stat(id, label, title, cls = '', short = '') {
  const k = h('span', { class: 'k' });
  let shownLabel = '';
  const setLabel = (text) => {
    if (text === shownLabel) return;
    shownLabel = text;
    if (short) replace(k, h('span', { class: 'label-long', text }), h('span', { class: 'label-short', 'aria-hidden': 'true', text: short }));
    else k.textContent = text;
  };
  setLabel(label);
  const v = h('b', { class: 'v' });
  const el = h('span', { class: `stat ${cls}`.trim(), id, title: title || null }, k, ' ', v);
  return {
    el,
    set(value, newLabel) {
      el.hidden = value === null || value === undefined;
      if (newLabel !== undefined) setLabel(newLabel);
      if (!el.hidden) v.textContent = String(value);
    },
  };
}

// soloRound tells whether the round has one player: the server offers
// hints only then, since its solver sees cards the players cannot.
function soloRound() {
  const lb = S.leaderboard;
  if (lb && S.round && lb.round_id === S.round.id && lb.entries) return lb.entries.length === 1;
  return !!S.match && S.match.players.length === 1;
}

function foundationCount(v) {
  return v.foundations.C + v.foundations.D + v.foundations.H + v.foundations.S;
}

function gameScreen() {
  const hud = h('div', { class: 'hud', role: 'group', 'aria-label': 'Round status' });
  const roundStat = stat('round-label', 'Round');
  const dealStat = stat('deal-label', 'Deal', 'a known deal: anyone can play it again');
  const clock = stat('clock', 'Left', null, 'clock');
  const cards = stat('cards', 'Cards', 'cards on the foundations, of 52');
  const points = stat('points', 'Points', 'move points: what your moves earned, before the clock');
  const timed = stat('timed-score', 'Timed score', 'the timed score the leaderboard shows: points − 2 for every 10 s played (never below 0), + a bonus for a win', '', 'Timed');
  const moves = stat('moves', 'Moves');
  const passes = stat('passes', 'Recycles left');
  const undoBtn = h('button', { class: 'btn', type: 'button', id: 'undo', text: 'Undo', title: 'Undo (U)', onclick: () => sendMove('U', {}) });
  const resignBtn = h('button', {
    class: 'btn subtle', type: 'button', id: 'resign', text: 'Resign',
    onclick: () => confirmDialog('Resign this round? Your game ends where it stands.', 'Resign', () => {
      if (S.round) request('resign', { round_id: S.round.id }).catch(fail);
    }),
  });
  // Hints are for solo practice: the server's solver sees every card, so
  // it never helps in a round with rivals; a hinted game is marked so.
  const hintBtn = h('button', {
    class: 'btn subtle', type: 'button', id: 'hint', text: 'Hint', title: 'Ask the solver for the next move (solo rounds only)',
    onclick: () => {
      if (!S.round) return;
      hintBtn.disabled = true;
      request('hint', { round_id: S.round.id }).then((m) => {
        if (m.move) toast(`Hint: ${m.move}`);
        else if (m.verdict === 'unwinnable') toast('No line wins from here.');
        else toast('The solver could not decide in time.');
      }).catch(fail).finally(() => { hintBtn.disabled = false; });
    },
  });
  const stats = h('div', { class: 'hud-stats' }, roundStat.el, dealStat.el, clock.el, cards.el, points.el, timed.el, moves.el, passes.el);
  const buttons = h('div', { class: 'hud-actions' }, hintBtn, undoBtn, resignBtn);
  replace(hud, stats, buttons);
  const banner = h('div', { class: 'banner', id: 'banner', role: 'status', 'aria-live': 'polite', hidden: true });
  // The countdown sits in the flow, above the board: it covers nothing.
  const overlay = h('div', { class: 'countdown', id: 'countdown', 'aria-live': 'assertive', hidden: true });
  const boardHost = h('div', { class: 'board-host' });
  const sideMain = h('div', { class: 'side-main' });
  const help = h('details', { class: 'keys-help', id: 'keys-help' },
    h('summary', { text: 'Keyboard and mouse' }),
    h('ul', {},
      h('li', { text: 'Drag a card (or a run) onto a pile or a foundation; or click it, then click where it goes.' }),
      h('li', { text: 'Double-click a card to send it to its foundation.' }),
      h('li', { text: '1–7 choose a pile (first the source, then the target); W the waste; F sends the chosen card to its foundation.' }),
      h('li', { text: 'Arrow keys move between piles; up/down change how many cards are chosen; Enter or Space picks or places; Esc cancels.' }),
      h('li', { text: 'D draws (or turns the waste over); U undoes.' })));
  const watching = !isPlayer(S.match) || !(S.round && S.round.view);
  const side = h('aside', { class: 'side', 'aria-label': 'Leaderboard' }, sideMain, watching ? null : help);
  const main = h('div', { class: 'game-main' }, hud, overlay, banner, boardHost);
  const el = h('div', { class: 'game' }, main, side);
  let board = null;
  if (!watching) {
    board = new Board(boardHost, {
      interactive: true,
      onMove: (text, info) => sendMove(text, info),
      onHint: (text) => toast(text),
    });
  } else {
    const player = isPlayer(S.match);
    replace(boardHost, h('section', { class: 'panel watching' },
      h('h1', { id: 'watch-title', text: S.match.state === 'starting' ? 'The round is about to start' : 'Watching' }),
      h('p', { text: player ? 'Your board appears when the round starts.' : 'Spectators see the leaderboard, never the boards.' }),
      h('button', { class: 'btn subtle', type: 'button', id: 'watch-leave', text: player ? 'Leave the match' : 'Back to the lobby', onclick: () => leaveMatch() })));
  }

  const updateSide = () => {
    const r = S.round;
    const m = S.match;
    const parts = [];
    if (S.leaderboard && S.leaderboard.entries) {
      const rules = (r && r.rules) || (m && m.settings) || {};
      const mode = m && m.settings.mode;
      parts.push(leaderboardTable(S.leaderboard.entries, { caption: `Leaderboard${r ? ` · round ${r.number}` : ''}`, scoring: rules.scoring, mode }),
        scoreNote(rules.scoring, mode, 'score-note'));
    } else if (m) {
      parts.push(h('h2', { text: 'Players' }), playersList(m));
    }
    if (m && m.totals && m.totals.length && m.settings.rounds > 1) parts.push(totalsTable(m.totals, { caption: 'Match totals', scoring: m.settings.scoring, mode: m.settings.mode }));
    if (m && m.spectators) parts.push(h('p', { class: 'muted', text: `${m.spectators} watching` }));
    replace(sideMain, parts);
  };

  // controls shows the buttons that apply now: a player's own game being
  // played, past the countdown; Hint in a solo round, Undo if the rules
  // allow it.
  const controls = (counting) => {
    const r = S.round;
    const v = r && r.view;
    const playing = !watching && !counting && !!v && v.status === 'playing';
    undoBtn.hidden = !playing || r.rules.undo === 'off';
    resignBtn.hidden = !playing;
    hintBtn.hidden = !playing || !soloRound();
    if (playing) {
      const turned = r.lastEvents && (r.lastEvents.includes('drew') || r.lastEvents.includes('revealed'));
      undoBtn.disabled = v.moves === 0 || (r.rules.undo === 'no_reveal' && !!turned);
      undoBtn.title = undoBtn.disabled && v.moves > 0 ? 'No undo of a move that turned a card (these rules)' : 'Undo (U)';
    }
  };

  const tick = () => {
    const r = S.round;
    const now = S.conn ? S.conn.serverNow() : Date.now();
    if (!r) {
      clock.set(null);
      overlay.hidden = true;
      controls(false);
      return;
    }
    const counting = now < r.startsAt;
    if (counting) {
      const secs = Math.ceil((r.startsAt - now) / 1000);
      overlay.textContent = secs > 0 ? `Round ${r.number} starts in ${secs}…` : 'Go!';
    }
    overlay.hidden = !counting;
    const v = r.view;
    const finished = v && v.status !== 'playing';
    const left = r.endsAt - Math.max(now, r.startsAt);
    if (finished) clock.set(fmtClock(v.elapsed_ms), 'Time');
    else clock.set(fmtClock(left), 'Left');
    clock.el.classList.toggle('low', !finished && left < 30000);
    if (v && r.rules.scoring === 'standard') {
      // The leaderboard's score, on the server's clock: the time penalty
      // runs until a win, or until the round's end for any other game.
      const won = v.status === 'won';
      const at = won ? v.elapsed_ms : Math.min(now, r.endsAt) - r.startsAt;
      timed.set(timedScore('standard', v.score, at, won));
    } else {
      timed.set(null);
    }
    controls(counting);
  };

  const update = () => {
    const r = S.round;
    const m = S.match;
    if (!m) return;
    roundStat.set(m.settings.rounds > 1 ? `${r ? r.number : m.round || 1}/${m.settings.rounds}` : null);
    dealStat.set(r && r.known && r.seed ? `#${r.seed}` : null);
    if (board && r && r.view) {
      board.setView(r.view, r.rules);
      const v = r.view;
      const scoring = r.rules.scoring;
      cards.set(foundationCount(v));
      points.set(scoring === 'none' ? null : v.score, scoring === 'vegas' ? 'Vegas' : 'Points');
      moves.set(v.moves);
      passes.set(v.passes_left === null ? null : v.passes_left);
      const msg = {
        won: 'You won! Waiting for the round to end…', stuck: 'No useful move is left: your game is over. Waiting for the others…',
        resigned: 'You resigned. Waiting for the others…', timed_out: 'Time is up.',
      }[v.status] || '';
      banner.textContent = msg;
      banner.hidden = !msg;
    } else {
      banner.hidden = true;
      for (const s of [cards, points, timed, moves, passes]) s.set(null);
    }
    updateSide();
    tick();
  };
  const timer = setInterval(tick, 250);
  return {
    el, update, updateSide, board,
    destroy: () => {
      clearInterval(timer);
      if (board) board.destroy();
    },
  };
}

function updateGame() {
  if (screen.update) screen.update();
}

function resultsScreen() {
  const ro = S.roundOver;
  const m = S.match;
  const r = S.round && ro && S.round.id === ro.round_id ? S.round : null;
  const rules = (r && r.rules) || (m && m.settings) || {};
  const parts = [];
  let screenDestroy = null;
  parts.push(h('h1', { id: 'results-title', text: ro ? `Round ${ro.round} results` : 'Match over' }));
  if (ro) {
    const mode = m && m.settings.mode;
    parts.push(leaderboardTable(ro.results, { caption: `Results of round ${ro.round}`, scoring: rules.scoring, mode }),
      scoreNote(rules.scoring, mode, 'score-note'));
    const d = ro.deal;
    const check = h('p', { class: 'fair-check', id: 'commitment-check', dataset: { state: 'checking' }, text: 'Checking the commitment…' });
    const published = r && r.commitment ? r.commitment : '';
    checkCommitment(d, published).then((res) => {
      if (res.known) {
        check.dataset.state = 'known';
        check.textContent = `Deal #${d.seed} was chosen in advance (a known deal): there was no secret to commit to.`;
      } else if (res.ok) {
        check.dataset.state = 'ok';
        replace(check, h('span', { class: 'tick', 'aria-hidden': 'true', text: '✓ ' }),
          `Commitment verified: SHA-256("salt:${d.seed}") equals the commitment ${published ? 'published before the round' : 'the server sent'}.`);
      } else {
        check.dataset.state = 'bad';
        replace(check, h('span', { class: 'cross', 'aria-hidden': 'true', text: '✗ ' }), 'The commitment does not match the revealed deal!');
      }
    }).catch(() => { check.dataset.state = 'error'; check.textContent = 'Could not compute the hash in this browser.'; });
    const q = new URLSearchParams({ draw: String(rules.draw || 3) });
    if (rules.passes) q.set('passes', String(rules.passes));
    if (rules.scoring && rules.scoring !== 'standard') q.set('scoring', rules.scoring);
    const again = `/deal/${d.seed}?${q}`;
    const replayHost = h('div', { class: 'replay-host', id: 'replay-host' });
    let viewer = null;
    const replayBtn = h('button', {
      class: 'btn', type: 'button', id: 'open-replay', text: 'Watch the replay',
      onclick: () => {
        if (viewer) { viewer.destroy(); viewer = null; replayBtn.textContent = 'Watch the replay'; return; }
        viewer = new ReplayViewer(replayHost, ro.replay_url, S.me, { onError: fail });
        replayBtn.textContent = 'Close the replay';
      },
    });
    parts.push(h('section', { class: 'panel deal-reveal', 'aria-labelledby': 'deal-title' },
      h('h2', { id: 'deal-title' }, 'The deal: ', h('span', { id: 'revealed-seed', text: `#${d.seed}` })),
      check,
      d.salt ? h('dl', { class: 'proof' },
        h('dt', { text: 'Commitment' }), h('dd', {}, h('code', { text: published || d.commitment })),
        h('dt', { text: 'Salt' }), h('dd', {}, h('code', { text: d.salt })),
        h('dt', { text: 'Check it yourself' }), h('dd', {}, h('code', { text: `printf '%s:%s' ${d.salt} ${d.seed} | sha256sum` }))) : null,
      h('div', { class: 'actions' },
        h('a', { class: 'btn', id: 'play-again', href: again, text: 'Play this deal again' }),
        replayBtn),
      replayHost));
    screenDestroy = () => { if (viewer) viewer.destroy(); };
  }
  const totalsHost = h('div', { class: 'totals-host' });
  const next = h('p', { class: 'hint', id: 'next-round' });
  const actions = h('div', { class: 'actions' });
  parts.push(totalsHost, next, actions);
  const el = h('section', { class: 'panel results', 'aria-labelledby': 'results-title' }, parts);
  const update = () => {
    const mm = S.match;
    if (!mm) return;
    const done = mm.state === 'over';
    const totals = (S.matchOver && S.matchOver.totals) || (S.roundOver && S.roundOver.totals) || mm.totals || [];
    // A match of one round has no standings beyond that round's results.
    replace(totalsHost, totals.length && mm.settings.rounds > 1
      ? totalsTable(totals, { caption: done ? 'Final standings' : 'Match totals', scoring: mm.settings.scoring, mode: mm.settings.mode }) : null);
    if (mm.state === 'over') {
      const player = isPlayer(mm);
      next.textContent = mm.next_match && player ? 'A rematch is open: join it to play again with the same players.' : 'The match is over.';
      replace(actions,
        player ? h('button', { class: 'btn primary', type: 'button', id: 'rematch', text: mm.next_match ? 'Join the rematch' : 'Rematch', onclick: () => request('rematch', { match_id: mm.id }).then((res) => onMatch(res.match, res.re)).catch(fail) }) : null,
        h('button', { class: 'btn', type: 'button', id: 'to-lobby', text: 'Back to the lobby', onclick: () => leaveMatch() }));
    } else if (mm.state === 'between' || mm.state === 'running') {
      next.textContent = mm.round < mm.settings.rounds ? `Round ${mm.round + 1} of ${mm.settings.rounds} starts in a few seconds.` : 'Waiting for the match to finish…';
      replace(actions);
    }
  };
  return { el, update, destroy: () => { if (screenDestroy) screenDestroy(); } };
}

// ---------- start ----------

function setupFourColour() {
  const box = document.getElementById('four-colour');
  const on = storageGet(FOUR_KEY) === '1';
  box.checked = on;
  document.body.classList.toggle('four-colour', on);
  box.addEventListener('change', () => {
    document.body.classList.toggle('four-colour', box.checked);
    storageSet(FOUR_KEY, box.checked ? '1' : '0');
  });
}

function start() {
  setupFourColour();
  window.addEventListener('popstate', () => {
    if (S.match) return;
    S.route = parseRoute(location);
    S.routeDone = false;
    if (S.welcomed) handleRoute();
    screenKey = '';
    render();
  });
  // Test and debugging hook: the state, read-only by convention.
  window.klondike = { state: S, forgetSession };
  if (S.name) connect();
  render();
}

start();
