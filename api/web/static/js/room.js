// The waiting room of a match not yet started: the invite link to share,
// the players and who is ready, and the host's Start. Only the controls that
// apply are shown: a guest never sees Start, a spectator never sees Ready.

import { h, replace } from './util.js';
import { t, plural } from './i18n.js';
import { S } from './state.js';
import { fail } from './feedback.js';
import { request } from './connection.js';
import { leaveMatch } from './match.js';
import { describeSettings } from './settings.js';
import { gameName, gameSummary, isKlondike } from './games.js';
import { playersList } from './tables.js';
import { shareBox } from './share.js';

/** roomScreen is the waiting room; update() follows the match's pushes. */
export function roomScreen() {
  const m0 = S.match;
  const readyBtn = h('button', { class: 'btn', type: 'button', id: 'ready-toggle', 'aria-pressed': 'false', text: t('room.ready') });
  const startBtn = h('button', { class: 'btn primary', type: 'button', id: 'start-match', text: t('room.start') });
  const playersHost = h('div');
  const settingsP = h('p', { class: 'muted' });
  // A game other than Klondike says its rules, so that guests know them.
  const gameP = h('p', { class: 'muted game-summary', id: 'room-game', hidden: true });
  const note = h('p', { class: 'hint' });
  const title = h('h1', { id: 'room-title' });
  readyBtn.addEventListener('click', () => {
    const me = S.match.players.find((p) => p.player_id === S.me);
    request('ready', { match_id: S.match.id, ready: !(me && me.ready) }).catch(fail);
  });
  startBtn.addEventListener('click', () => request('start_match', { match_id: S.match.id }).catch(fail));
  const el = h('section', { class: 'panel room', 'aria-labelledby': 'room-title' },
    title, settingsP, gameP,
    shareBox({ id: 'invite-link', copyId: 'copy-link', label: t('room.invite_link'), url: `${location.origin}/m/${m0.code}` }),
    h('h2', { text: t('room.players') }),
    playersHost,
    h('div', { class: 'actions' }, readyBtn, startBtn, h('button', { class: 'btn subtle', type: 'button', id: 'leave', text: t('room.leave'), onclick: () => leaveMatch() })),
    note);
  const update = () => {
    const m = S.match;
    if (!m) return;
    title.textContent = t('room.title', { code: m.code });
    settingsP.textContent = describeSettings(m.settings);
    gameP.hidden = isKlondike(m.settings);
    gameP.textContent = gameP.hidden ? '' : t('games.line', { game: gameName(m.settings), rules: gameSummary(m.settings) });
    replace(playersHost, playersList(m), m.spectators ? h('p', { class: 'muted', text: plural('room.watching', m.spectators) }) : null);
    const me = m.players.find((p) => p.player_id === S.me);
    const player = !!me;
    readyBtn.hidden = !player;
    readyBtn.setAttribute('aria-pressed', me && me.ready ? 'true' : 'false');
    readyBtn.textContent = me && me.ready ? t('room.ready_done') : t('room.ready');
    startBtn.hidden = m.host !== S.me;
    note.textContent = plural(m.host === S.me ? 'room.note_host' : 'room.note_guest', m.settings.max_players);
  };
  return { el, update };
}
