// Two tabs of one player in one match: the server lets one connection play
// (the newest to say hello, or the last to say play_here) and tells the
// one that played before (playing_elsewhere). That tab shows, over the
// game, that the game is played in another tab, with "Play here" to take it
// back: the server then resends the match and the round, as on a resume,
// and the handlers of those messages put the game back together.

import { h } from './util.js';
import { t } from './i18n.js';
import { S, resetRound } from './state.js';
import { setPath } from './route.js';
import { toast, fail } from './feedback.js';
import { render } from './screen.js';
import { request } from './connection.js';

// The screens of a match, which the notice covers.
const MATCH_SCREENS = new Set(['room', 'game', 'watch', 'results', 'link']);

const app = document.getElementById('app');
let overlay = null;

// The events of the player's match, which the server sends only to the
// connection that plays.
const MATCH_EVENTS = new Set(['match', 'round_starting', 'round_started', 'leaderboard', 'round_over', 'match_over', 'ghost', 'attempt_over']);

/**
 * playsAgain notes that a push of the match came: this tab plays again.
 * The server hands the game back by itself when the tab that played
 * closes, resending the match and the round to the newest tab left.
 */
export function playsAgain(m) {
  if (S.elsewhere && !m.re && MATCH_EVENTS.has(m.type)) S.elsewhere = '';
}

/** onPlayingElsewhere takes the server's word that another tab plays the match. */
export function onPlayingElsewhere(m) {
  S.elsewhere = m.match_id || (S.match ? S.match.id : '');
  render();
}

/** playHere asks to play in this tab. */
function playHere(btn) {
  btn.disabled = true;
  request('play_here', {}).then(() => {
    S.elsewhere = '';
    render();
  }, (err) => {
    btn.disabled = false;
    if (err.code === 'disconnected') return;
    if (err.code === 'not_found') {
      // The game ended, or was left, in the other tab.
      S.elsewhere = '';
      S.match = null;
      resetRound();
      S.page = { kind: 'lobby' };
      setPath('/');
      toast(t('elsewhere.over'));
      render();
      return;
    }
    fail(err);
  });
}

/**
 * redrawElsewhere writes the notice again, in the language just chosen:
 * the next render lays it over the screen anew.
 */
export function redrawElsewhere() {
  if (!overlay) return;
  overlay.remove();
  overlay = null;
  app.inert = false;
}

/**
 * showElsewhere lays the notice over a match's screen while another tab
 * plays, and takes it away otherwise. The screen under it is inert: no
 * click or key reaches the game.
 */
export function showElsewhere(kind) {
  // A finished match has nothing left to play: its results stay readable.
  const want = !!S.elsewhere && MATCH_SCREENS.has(kind) && !(S.match && S.match.state === 'over');
  if (!want) {
    if (overlay) {
      overlay.remove();
      overlay = null;
      app.inert = false;
    }
    return;
  }
  if (overlay) return;
  const btn = h('button', { class: 'btn primary', type: 'button', id: 'play-here', text: t('elsewhere.play_here') });
  btn.addEventListener('click', () => playHere(btn));
  overlay = h('div', { class: 'elsewhere', id: 'elsewhere' },
    h('div', { class: 'panel elsewhere-box', role: 'alertdialog', 'aria-modal': 'true', 'aria-labelledby': 'elsewhere-text' },
      h('p', { id: 'elsewhere-text', text: t('elsewhere.text') }),
      btn));
  app.inert = true;
  document.body.append(overlay);
  btn.focus();
}
