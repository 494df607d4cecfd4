// The Klondike race client: name, lobby, waiting room, board, results and
// replays, the daily deals, challenges, the player's records and profile,
// ratings and their ladders, passkeys and the privacy page, over the
// server's WebSocket protocol (docs/protocol.md) and its HTTP routes.
//
// app.js is the entry point index.html loads. It wires the modules together
// and starts the client: each server message goes to its handler, and each
// kind of screen to the function that makes it. The wiring is done here, at
// the top, so that no module imports one above it and the imports form no
// cycle (see api/web/README.md for the layers).

import { t, languages, language, languageName, setLanguage, translateDom } from './i18n.js';
import { h } from './util.js';
import { storageGet, storageSet, FOUR_KEY, TOKEN_KEY, NAME_KEY, LANG_KEY } from './storage.js';
import { forgetSession } from './net.js';
import { S } from './state.js';
import { parseRoute } from './route.js';
import { announce } from './feedback.js';
import { defineScreens, render, rebuild, onRendered } from './screen.js';
import { connect, setMessageHandler, showStatus } from './connection.js';
import { onWelcome, onMatch, handleRoute, showWho, goLobby } from './match.js';
import { onRoundStarting, onRoundStarted, onLeaderboard, onRoundOver, onMatchOver } from './round.js';
import { onMoveOK, onMoveRejected, onError } from './moves.js';
import { onAsyncRound, onAttemptStarted, onGhost, onAttemptOver, onAsyncWelcome } from './async.js';
import { nameScreen, connectingScreen, linkScreen } from './entry.js';
import { lobbyScreen } from './lobby.js';
import { roomScreen } from './room.js';
import { gameScreen } from './game.js';
import { resultsScreen } from './results.js';
import { dailyScreen } from './daily.js';
import { challengeScreen } from './challenge.js';
import { recordsScreen } from './records.js';
import { profileScreen } from './profile.js';
import { ladderScreen } from './ladder.js';
import { privacyScreen } from './privacy.js';
import { onPlayingElsewhere, showElsewhere, playsAgain, redrawElsewhere } from './elsewhere.js';

// onMessage hands each server message to its handler. Replies reach it
// too, before their request's promise settles (net.js), so a match a
// request returned is adopted here like a pushed one.
function onMessage(m) {
  playsAgain(m);
  switch (m.type) {
    case 'welcome': onAsyncWelcome(m); onWelcome(m); break;
    case 'match': if (m.match) onMatch(m.match, m.re); break;
    case 'playing_elsewhere': onPlayingElsewhere(m); break;
    case 'matches': break; // read by the lobby where it asked for them
    case 'round_starting': onRoundStarting(m); break;
    // An attempt at an asynchronous round is a round_started with a kind.
    case 'round_started': if (m.kind) onAttemptStarted(m); else onRoundStarted(m); break;
    case 'move_ok': onMoveOK(m); break;
    case 'move_rejected': onMoveRejected(m); break;
    case 'leaderboard': onLeaderboard(m); break;
    case 'round_over': onRoundOver(m); break;
    case 'match_over': onMatchOver(m); break;
    case 'resigned': announce(t('app.resigned')); break;
    case 'async_round': onAsyncRound(m); break;
    case 'ghost': onGhost(m); break;
    case 'attempt_over': onAttemptOver(m); break;
    case 'daily': case 'board': case 'records': break; // read where they were asked for
    case 'error': onError(m); break;
    default: break; // the protocol only adds messages
  }
}

// setupFourColour keeps the four-colour switch of the top bar, remembered
// by the browser: a style only, the board draws the same cards.
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

// setupLanguage fills the top bar's language switch, each language named
// in its own words, and draws the page again in the language chosen: the
// screen is built anew (a game goes on, the server's state is in S), the
// top bar's words and the connection's state are written again.
function setupLanguage() {
  translateDom(document);
  const sel = document.getElementById('lang-switch');
  const codes = languages();
  if (codes.length < 2) return;
  sel.replaceChildren(...codes.map((c) => h('option', { value: c, lang: c, text: languageName(c), selected: c === language() })));
  sel.hidden = false;
  sel.addEventListener('change', () => switchLanguage(sel.value));
}

// switchLanguage shows the page in the language code, chosen here or in
// another tab of the browser.
async function switchLanguage(code) {
  if (!code || code === language()) return;
  await setLanguage(code);
  document.getElementById('lang-switch').value = code;
  showStatus();
  if (S.welcomed) showWho();
  redrawElsewhere();
  rebuild();
  render();
}

// onStorage follows what another tab of the browser changed. A new
// credential there (a passkey sign-in, a new player) or none (signed out,
// deleted) makes this tab another player, or none: it starts again from
// what the browser keeps now. A new name (changed on the profile) shows in
// the top bar; the screen shown is not rebuilt for it, not to disturb a
// game.
function onStorage(e) {
  if (e.storageArea !== localStorage) return;
  // This tab closed its connection to change the player itself (account.js):
  // it goes on to the page that follows.
  if (S.conn && S.conn.stopped) return;
  if (e.key === TOKEN_KEY || e.key === null) {
    const held = S.conn ? S.conn.token : '';
    if ((e.key === null ? storageGet(TOKEN_KEY) : e.newValue || '') !== held) location.reload();
    return;
  }
  // A language chosen in another tab is every tab's.
  if (e.key === LANG_KEY && e.newValue) {
    switchLanguage(e.newValue);
    return;
  }
  if (e.key === NAME_KEY && e.newValue && S.welcomed && e.newValue !== S.name) {
    S.name = e.newValue;
    if (S.conn) S.conn.name = e.newValue;
    showWho();
  }
}

function start() {
  defineScreens({
    name: nameScreen, connecting: connectingScreen, lobby: lobbyScreen, room: roomScreen,
    game: gameScreen, watch: gameScreen, results: resultsScreen, link: linkScreen,
    daily: dailyScreen, challenge: challengeScreen, records: recordsScreen,
    profile: profileScreen, privacy: privacyScreen, ladder: ladderScreen,
  });
  onRendered(showElsewhere);
  setMessageHandler(onMessage);
  window.addEventListener('storage', onStorage);
  setupFourColour();
  setupLanguage();
  // The top bar's "back to the lobby" is followed in the page, not by a
  // reload: a reload of / would bring back the finished match the server
  // keeps for the player, and its results.
  document.querySelector('.brand').addEventListener('click', (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || !S.welcomed) return;
    if (goLobby()) e.preventDefault();
  });
  // A Back or Forward within the page fires popstate: outside a match, the
  // path it lands on is followed as a new link; in a match or an attempt,
  // the game stays.
  window.addEventListener('popstate', () => {
    if (S.match || S.attempt) return;
    S.route = parseRoute(location);
    S.routeDone = false;
    if (S.welcomed) handleRoute();
    rebuild();
    render();
  });
  // Test and debugging hook: the state, read-only by convention.
  window.klondike = { state: S, forgetSession };
  // A name remembered from an earlier visit connects at once.
  if (S.name) connect();
  render();
}

start();
