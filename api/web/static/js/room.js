// The waiting room of a match not yet started: the invite link to share,
// the players and who is ready, and the host's Start. Only the controls that
// apply are shown: a guest never sees Start, a spectator never sees Ready.

import { h, replace } from './util.js';
import { S } from './state.js';
import { fail } from './feedback.js';
import { request } from './connection.js';
import { leaveMatch } from './match.js';
import { describeSettings } from './settings.js';
import { playersList } from './tables.js';

/** roomScreen is the waiting room; update() follows the match's pushes. */
export function roomScreen() {
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
    // The clipboard API needs a secure context (https or loopback); the
    // selection and execCommand work on plain http too.
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
