// The lobby: a shared deal or a started match a link offered, quick match
// and solo practice, the ways to the daily deals, a challenge and the
// player's records and profile, joining or watching by code, the open
// public matches, the create form, and at its foot signing in with a
// passkey and the privacy page.

import { h, replace } from './util.js';
import { t, fmtNumber } from './i18n.js';
import { storageGet, LAST_SETTINGS_KEY } from './storage.js';
import { S } from './state.js';
import { setPath } from './route.js';
import { fail } from './feedback.js';
import { render, rebuild } from './screen.js';
import { request } from './connection.js';
import { joinByCode, watchByCode, createMatch, soloPractice } from './match.js';
import { settingsForm, describeSettings, usualDraw } from './settings.js';
import { goPage, pageLink, pagePath } from './pages.js';
import { challengeForm } from './challenge.js';
import { gameOptions, gameName, gameSummary, isKlondike } from './games.js';
import { signInButton } from './profile.js';
import { privacyNote } from './privacy.js';
import { ratingsOf } from './tables.js';
import { ratingSpan } from './ratings.js';

// POLL_MS is how often the open matches are read again while the lobby is
// shown: the server pushes no changes to the list.
const POLL_MS = 2000;

/** lobbyScreen is the lobby; it polls the open matches while it is shown. */
export function lobbyScreen() {
  let lastSettings = {};
  try { lastSettings = JSON.parse(storageGet(LAST_SETTINGS_KEY, '{}')) || {}; } catch { lastSettings = {}; }
  const drawSel = h('select', { id: 'quick-draw', 'aria-label': t('lobby.quick_draw') }, h('option', { value: '3', text: t('settings.draw3') }), h('option', { value: '1', text: t('settings.draw1') }));
  const gameSel = h('select', { id: 'quick-game', 'aria-label': t('lobby.quick_game'), 'aria-describedby': 'quick-game-summary' },
    gameOptions().map(([val, text]) => h('option', { value: val, text, selected: val === (lastSettings.game || 'klondike') })));
  const gameAbout = h('p', { class: 'hint game-summary', id: 'quick-game-summary', 'aria-live': 'polite' });
  // Whitehead draws one card at a time: its draw is fixed.
  const gameChanged = () => {
    gameAbout.textContent = gameSummary(gameSel.value);
    const whitehead = gameSel.value === 'whitehead';
    if (whitehead) drawSel.value = '1';
    drawSel.disabled = whitehead;
  };
  // Choosing a game sets its usual draw, as the create form does (leaving
  // Whitehead gives back the draw of the game chosen, not Whitehead's).
  gameSel.addEventListener('change', () => {
    drawSel.value = usualDraw(gameSel.value);
    gameChanged();
  });
  gameChanged();
  // Quick match is rated unless the player asks for a casual game.
  const ratedBox = h('input', { type: 'checkbox', id: 'quick-rated', checked: true, 'aria-describedby': 'quick-about' });
  // quickSettings are the settings quick match and practice ask for: the
  // draw, rated false when unticked, and, unless it is Klondike, the game
  // (Whitehead with its one pass). Practice reads only the draw and game.
  const quickSettings = () => {
    const s = { draw: +drawSel.value };
    if (!ratedBox.checked) s.rated = false;
    if (!isKlondike(gameSel.value)) s.game = gameSel.value;
    if (gameSel.value === 'whitehead') s.passes = 1;
    return s;
  };
  // The ladder of the game and draw chosen for quick match.
  const ladderLink = h('a', {
    class: 'btn subtle', id: 'lobby-ladder', text: t('lobby.ladder'),
    onclick: (e) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      goPage(ladderPage(quickSettings()));
    },
  });
  const ladderHref = () => ladderLink.setAttribute('href', pagePath(ladderPage(quickSettings())));
  gameSel.addEventListener('change', ladderHref);
  drawSel.addEventListener('change', ladderHref);
  ladderHref();
  const codeInput = h('input', { id: 'join-code', dir: 'ltr', name: 'code', maxlength: '16', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', placeholder: 'K7QX2M' });
  const list = h('ul', { class: 'match-list', id: 'open-matches', 'aria-live': 'polite' });
  const more = h('button', { class: 'btn subtle more-matches', type: 'button', id: 'more-matches', text: t('lobby.show_more'), hidden: true });
  const offer = S.dealOffer;
  const offerEl = offer ? h('section', { class: 'panel deal-offer', 'aria-labelledby': 'offer-title' },
    h('h2', { id: 'offer-title', text: t('lobby.offer_title', { seed: offer.seed }) }),
    h('p', { text: isKlondike(offer.game) ? t('lobby.offer', { draw: offer.draw }) : t('lobby.offer_game', { game: gameName(offer.game), draw: offer.draw }) }),
    isKlondike(offer.game) ? null : h('p', { class: 'hint game-summary', text: gameSummary(offer.game) }),
    h('div', { class: 'actions' },
      h('button', { class: 'btn primary', type: 'button', id: 'deal-solo', 'data-autofocus': true, text: t('lobby.offer_solo', { seed: offer.seed }), onclick: () => { S.dealOffer = null; soloPractice(offer.draw, offer.seed, offer.game); } }),
      h('button', {
        class: 'btn', type: 'button', id: 'deal-match', text: t('lobby.offer_match'),
        onclick: () => {
          const s = { seed: offer.seed, draw: offer.draw, public: false };
          if (!isKlondike(offer.game)) s.game = offer.game;
          if (offer.passes !== undefined) s.passes = offer.passes;
          if (offer.scoring) s.scoring = offer.scoring;
          S.dealOffer = null;
          createMatch(s).catch(fail);
        },
      }),
      h('button', { class: 'btn subtle', type: 'button', text: t('lobby.not_now'), onclick: () => { S.dealOffer = null; setPath('/'); rebuild(); render(); } }))) : null;
  // A link to a match that had already started (joinByCode) offers to watch it.
  const watchOffer = S.watchOffer ? h('section', { class: 'panel deal-offer' },
    h('h2', { text: t('lobby.under_way', { code: S.watchOffer }) }),
    h('button', { class: 'btn primary', type: 'button', id: 'watch-offer', text: t('lobby.watch_it'), onclick: () => watchByCode(S.watchOffer) })) : null;
  // The challenge form shows when asked for: most visits do not need it.
  const challengePanel = h('section', { class: 'panel challenge-panel', id: 'challenge-panel', 'aria-labelledby': 'challenge-form-title', hidden: true },
    h('h2', { id: 'challenge-form-title', text: t('lobby.challenge') }),
    h('p', { class: 'hint', text: t('lobby.challenge_about') }),
    challengeForm());
  const challengeBtn = h('button', {
    class: 'btn', type: 'button', id: 'challenge-open', text: t('lobby.challenge'), 'aria-expanded': 'false', 'aria-controls': 'challenge-panel',
    onclick: () => {
      challengePanel.hidden = !challengePanel.hidden;
      challengeBtn.setAttribute('aria-expanded', String(!challengePanel.hidden));
      if (!challengePanel.hidden) {
        challengePanel.scrollIntoView({ block: 'nearest' });
        challengePanel.querySelector('select, input').focus({ preventScroll: true });
      }
    },
  });
  const el = h('div', { class: 'lobby' },
    offerEl, watchOffer,
    h('section', { class: 'panel', 'aria-labelledby': 'play-title' },
      h('h1', { id: 'play-title', text: t('lobby.hello', { name: S.name }) }),
      h('div', { class: 'actions' },
        gameSel, drawSel,
        h('label', { class: 'toggle quick-rated', for: 'quick-rated' }, ratedBox, ' ', t('settings.rated')),
        h('button', { class: 'btn primary', type: 'button', id: 'quick-match', text: t('lobby.quick_match'), onclick: () => request('quick_match', { settings: quickSettings() }).catch(fail) }),
        h('button', { class: 'btn', type: 'button', id: 'solo', text: t('lobby.solo'), onclick: () => { const q = quickSettings(); soloPractice(q.draw, '', q.game); } })),
      gameAbout,
      h('p', { class: 'hint', id: 'quick-about', text: t('lobby.quick_about') }),
      h('div', { class: 'actions' },
        h('button', { class: 'btn', type: 'button', id: 'lobby-daily', text: t('common.daily_deals'), onclick: () => goPage({ kind: 'daily' }) }),
        challengeBtn,
        h('button', { class: 'btn subtle', type: 'button', id: 'lobby-records', text: t('common.my_records'), onclick: () => goPage({ kind: 'records' }) }),
        pageLink({ kind: 'profile', id: S.me }, { class: 'btn subtle', id: 'lobby-profile', text: t('lobby.my_profile') }),
        ladderLink)),
    challengePanel,
    h('section', { class: 'panel', 'aria-labelledby': 'join-title' },
      h('h2', { id: 'join-title', text: t('lobby.join_title') }),
      h('form', {
        class: 'inline-form',
        onsubmit: (e) => { e.preventDefault(); joinByCode(codeInput.value); },
      },
      h('label', { for: 'join-code', class: 'visually-hidden', text: t('lobby.invite_code') }),
      codeInput,
      h('button', { class: 'btn primary', type: 'submit', id: 'join-go', text: t('lobby.join') }),
      h('button', { class: 'btn', type: 'button', id: 'watch-go', text: t('lobby.watch'), onclick: () => watchByCode(codeInput.value) }))),
    h('section', { class: 'panel', 'aria-labelledby': 'open-title' },
      h('h2', { id: 'open-title', text: t('lobby.open_title') }),
      list, more),
    h('section', { class: 'panel create-panel', 'aria-labelledby': 'create-title' },
      h('h2', { id: 'create-title', text: t('lobby.create_title') }),
      settingsForm(lastSettings, t('lobby.create_submit'), (s) => createMatch(s).catch(fail))),
    h('footer', { class: 'panel lobby-foot', 'aria-label': t('lobby.foot') },
      h('div', { class: 'actions' },
        h('span', { class: 'hint', text: t('lobby.foot_other') }),
        signInButton('lobby-passkey', 'btn subtle')),
      privacyNote('lobby-privacy')));

  // updateList shows the open matches read so far; a match that started
  // since stays out until the next poll drops it.
  const updateList = () => {
    const L = S.lobbyList;
    more.hidden = !L.next;
    const ms = L.matches.filter((m) => m.state === 'open');
    if (!ms.length) {
      replace(list, h('li', { class: 'empty', text: t('lobby.none_open') }));
      return;
    }
    replace(list, ms.map((m) => {
      const host = (m.players.find((p) => p.player_id === m.host) || m.players[0] || { name: '?' }).name;
      return h('li', { class: 'match-item', dataset: { code: m.code } },
        h('div', { class: 'match-info' },
          h('strong', { text: t('lobby.hosts_match', { name: host }) }), ' ',
          h('span', { class: 'code', text: m.code }), m.quick ? h('span', { class: 'badge', text: t('lobby.badge_quick') }) : null,
          m.settings.rated ? h('span', { class: 'badge rated', text: t('lobby.badge_rated') }) : null,
          h('div', { class: 'muted', text: describeSettings(m.settings) }),
          m.settings.rated ? ratedPlayers(m) : null),
        h('span', { class: 'seats', title: t('lobby.seats_title'), text: `${fmtNumber(m.players.length)}/${fmtNumber(m.settings.max_players)}` }),
        h('button', { class: 'btn', type: 'button', 'aria-label': t('lobby.join_label', { name: host, code: m.code }), text: t('lobby.join'), onclick: () => joinByCode(m.code) }));
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
  // A poll asks the connection itself, not request(): the player did not
  // click, so a poll that finds the connection down fails quietly.
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
  const timer = setInterval(read, POLL_MS);
  updateList();
  return { el, destroy: () => { gone = true; clearInterval(timer); } };
}

// ratedPlayers names a rated match's players with their ratings, so that
// a player sees whom they would meet.
function ratedPlayers(m) {
  const ratings = ratingsOf(m);
  const items = m.players.map((p) => {
    const r = ratings.get(p.player_id);
    return h('span', { class: 'rated-player', dataset: { player: p.name } }, p.name, r ? [' ', ratingSpan(r.rating, r.provisional)] : null);
  });
  return h('div', { class: 'muted rated-players' }, items.flatMap((x, i) => (i ? [' · ', x] : [x])));
}

// ladderPage is the ladder of the game and draw quick match offers.
function ladderPage(q) {
  return { kind: 'ladder', game: q.game || 'klondike', draw: q.draw };
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
