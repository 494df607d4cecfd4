// The screen manager: which screen the state calls for, and swapping it in.
//
// A screen is made by a function of no arguments that returns
// {el, update?, updateSide?, board?, destroy?}. render() builds a new one
// only when the screen's key changes, and otherwise calls its update(): the
// key holds the kind, the match and the round shown (an attempt's round, a
// challenge's id), so a new match or a new round's results get a fresh
// screen, while a push within them (a player joins, a move is accepted) only
// updates the one shown.
//
// The screens are registered by app.js (defineScreens) rather than imported
// here: they call render(), and this way no module imports one above it.

import { replace } from './util.js';
import { S, isPlayer } from './state.js';

const app = document.getElementById('app');

let makers = {};
let screenKey = '';

/**
 * screen is the screen shown. Other modules read it (screen.board, to
 * answer a move) but only this module replaces it.
 */
export let screen = {};

/** defineScreens registers the function that makes each kind of screen. */
export function defineScreens(m) { makers = m; }

/** currentScreen names the screen the state calls for. */
function currentScreen() {
  // A profile, a ladder and the privacy page need no name, and show over
  // a game (pages.js).
  if (S.page.kind === 'profile' || S.page.kind === 'privacy' || S.page.kind === 'ladder') return S.page.kind;
  if (!S.name) return 'name';
  // While a resumed session's match is weighed against a link (see
  // linkDecides in match.js), neither is shown.
  if (!S.welcomed || S.resumedId) return 'connecting';
  // An attempt at an asynchronous round is a round of one player without
  // a match.
  if (S.attempt && S.round && S.round.view) return 'game';
  const m = S.match;
  if (!m) return S.page.kind;
  if (S.linkConflict) return 'link';
  if (S.roundOver && (m.state === 'between' || m.state === 'over' || m.state === 'running')) return 'results';
  if (m.state === 'over') return 'results';
  if (m.state === 'open') return 'room';
  if (m.state === 'between') return 'results';
  if (isPlayer(m) && S.round && S.round.view) return 'game';
  return 'watch';
}

/** render shows the screen the state calls for, and updates it. */
export function render() {
  const kind = currentScreen();
  let key = kind + (S.match ? `:${S.match.id}` : '') + (S.roundOver ? `:${S.roundOver.round_id}` : '');
  if (kind === 'game' && S.attempt) key = `game:${S.attempt.roundId}`;
  if (kind === 'challenge') key = `challenge:${S.page.id}`;
  if (kind === 'profile') key = `profile:${S.page.id}`;
  if (key !== screenKey) {
    if (screen.destroy) screen.destroy();
    screenKey = key;
    screen = makers[kind]();
    const focus = document.activeElement;
    replace(app, screen.el);
    // A new screen takes the focus when the old one had it (the focused
    // element went with it) or nothing had: focus in the top bar, such as
    // on the four-colour switch, stays put. It goes to the element marked
    // data-autofocus, or to the heading, so that a screen reader starts
    // reading the new screen from its top.
    if (!focus || focus === document.body || !document.contains(focus)) {
      const first = screen.el.querySelector('[data-autofocus]') || screen.el.querySelector('h1, h2');
      if (first) {
        if (!first.hasAttribute('tabindex') && !/^(INPUT|BUTTON|SELECT|A)$/.test(first.tagName)) first.setAttribute('tabindex', '-1');
        first.focus({ preventScroll: true });
      }
    }
  }
  if (screen.update) screen.update();
  afterRender(kind);
}

// afterRender is told the kind of each screen rendered: app.js sets it to
// what lays itself over the screens (the notice that another tab plays).
let afterRender = () => {};

/** onRendered names the function told the kind of each screen rendered. */
export function onRendered(fn) { afterRender = fn; }

/** update updates the screen shown without asking whether it should change. */
export function update() {
  if (screen.update) screen.update();
}

/** updateSide redraws the side column (the leaderboard) of the game screen. */
export function updateSide() {
  if (screen.updateSide) screen.updateSide();
}

/**
 * rebuild makes the next render() build its screen anew even if the key is
 * the same: the lobby shows or drops a deal offer, which the key does not
 * hold.
 */
export function rebuild() { screenKey = ''; }

/**
 * takeOver replaces whatever is shown with el (the notice that the game was
 * opened in another tab), until a render finds another key. The screen it
 * replaces is dropped without its destroy().
 */
export function takeOver(key, el) {
  screenKey = key;
  screen = {};
  replace(app, el);
}
