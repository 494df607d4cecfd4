// A ladder, /ladder/<game>/<draw> (GET /api/v1/ladder/{game}/{draw}): the
// players whose rating in that game and draw is established, best first,
// a hundred a page; for the player, when they are on it, their place among
// their neighbours. The game and the draw are chosen on the page, which
// reads the other ladder in place (the address follows). Like a profile, it
// is a side page: it needs no name and shows over a game.

import { h, replace } from './util.js';
import { S } from './state.js';
import { api } from './http.js';
import { setPath } from './route.js';
import { pageLink, pagePath, backButton } from './pages.js';
import { gameOptions } from './games.js';
import { t, plural, fmtNumber, errorText } from './i18n.js';
import { ratingSpan, variantText, ordinal } from './ratings.js';

// PAGE is how many places a page shows: the server's most.
const PAGE = 100;

// T holds this page's words, from the catalogue (i18n.js).
const T = {
  title: () => t('ladder.title'),
  lead: (v) => t('ladder.lead', { variant: v }),
  game: () => t('settings.game'),
  draw: () => t('settings.draw'),
  drawN: (n) => t('common.draw_n', { n }),
  reading: () => t('ladder.reading'),
  count: (n) => plural('ladder.count', n),
  empty: () => t('ladder.empty'),
  noGame: () => t('ladder.no_game'),
  failed: (err) => t('ladder.failed', { why: errorText(err) }),
  caption: (a, b) => t('ladder.caption', { a, b }),
  place: () => t('ladder.place'),
  player: () => t('common.player'),
  rating: () => t('tables.rating'),
  rounds: () => t('settings.rounds'),
  deviation: (d) => t('ladder.deviation', { d }),
  you: () => t('common.you_sr'),
  mine: (place, of) => t('ladder.mine', { place: ordinal(place), of }),
  mineTitle: () => t('ladder.mine_title'),
  notOn: () => t('ladder.not_on'),
  prev: () => t('ladder.prev'),
  next: () => t('ladder.next'),
};

// DRAWS are the draws a game's ladders exist for: Whitehead draws one.
const DRAWS = { whitehead: [1] };

/** ladderScreen is the ladder of S.page's game and draw. */
export function ladderScreen() {
  let { game, draw } = S.page;
  let from = 0;
  let gone = false;
  let asked = ''; // the query of the answer shown or awaited
  const gameSel = h('select', { id: 'ladder-game', name: 'game' },
    gameOptions().map(([val, text]) => h('option', { value: val, text, selected: val === game })));
  const drawSel = h('select', { id: 'ladder-draw', name: 'draw' });
  const lead = h('p', { class: 'lead', id: 'ladder-lead' });
  const count = h('p', { class: 'ladder-count', id: 'ladder-count', 'aria-live': 'polite', text: T.reading() });
  const mine = h('section', { class: 'ladder-mine', id: 'ladder-mine', 'aria-labelledby': 'ladder-mine-title', hidden: true });
  const tableHost = h('div', { class: 'ladder-host' });
  const prevBtn = h('button', { class: 'btn', type: 'button', id: 'ladder-prev', text: T.prev(), hidden: true });
  const nextBtn = h('button', { class: 'btn', type: 'button', id: 'ladder-next', text: T.next(), hidden: true });
  const el = h('section', { class: 'panel ladder', 'aria-labelledby': 'ladder-title' },
    h('h1', { id: 'ladder-title', text: T.title() }),
    h('div', { class: 'ladder-choice' },
      h('span', { class: 'ladder-field' }, h('label', { for: 'ladder-game', text: T.game() }), gameSel),
      h('span', { class: 'ladder-field' }, h('label', { for: 'ladder-draw', text: T.draw() }), drawSel)),
    lead, count, mine, tableHost,
    h('div', { class: 'actions' }, prevBtn, nextBtn),
    h('div', { class: 'actions page-links' }, backButton('ladder-back')));

  // fillDraws offers the draws of the game chosen, keeping the draw if it
  // has it.
  const fillDraws = () => {
    const draws = DRAWS[gameSel.value] || [3, 1];
    if (!draws.includes(draw)) draw = draws[0];
    replace(drawSel, draws.map((d) => h('option', { value: String(d), text: T.drawN(d), selected: d === draw })));
    drawSel.disabled = draws.length === 1;
  };

  const load = () => {
    const q = new URLSearchParams({ from: String(from), limit: String(PAGE) });
    if (S.me) q.set('around', S.me);
    const path = `/api/v1/ladder/${encodeURIComponent(game)}/${draw}?${q}`;
    asked = path;
    lead.textContent = T.lead(gameOptions().some(([g]) => g === game) ? variantText(game, draw) : `${game} \u00b7 ${T.drawN(draw)}`);
    api('GET', path).then((L) => {
      if (gone || asked !== path) return;
      show(L);
    }, (err) => {
      if (gone || asked !== path) return;
      count.textContent = err.status === 404 || err.status === 400 ? T.noGame() : T.failed(err);
      mine.hidden = true;
      prevBtn.hidden = true;
      nextBtn.hidden = true;
      replace(tableHost);
    });
  };

  const show = (L) => {
    const entries = L.entries || [];
    count.textContent = L.players ? T.count(L.players) : T.empty();
    // The player's own place, with their neighbours, when they are on it.
    if (L.place && L.around && L.around.length) {
      mine.hidden = false;
      replace(mine, h('h2', { id: 'ladder-mine-title', text: T.mineTitle() }),
        h('p', { class: 'my-rank', id: 'ladder-my-place', text: T.mine(L.place, L.players) }),
        table(L.around, { id: 'ladder-around', caption: null }));
    } else if (S.me && L.players) {
      mine.hidden = false;
      replace(mine, h('p', { class: 'hint', id: 'ladder-my-place', text: T.notOn() }));
    } else {
      mine.hidden = true;
    }
    replace(tableHost, entries.length
      ? table(entries, { id: 'ladder-table', caption: T.caption(entries[0].place, entries[entries.length - 1].place) })
      : null);
    prevBtn.hidden = from === 0;
    nextBtn.hidden = !L.next_from;
    nextBtn.onclick = () => { from = L.next_from; load(); };
    prevBtn.onclick = () => { from = Math.max(0, from - PAGE); load(); };
  };

  // choose reads the ladder of the game and draw chosen, from its top.
  const choose = () => {
    game = gameSel.value;
    draw = +drawSel.value;
    fillDraws();
    from = 0;
    S.page = { ...S.page, game, draw };
    setPath(pagePath(S.page));
    count.textContent = T.reading();
    load();
  };
  gameSel.addEventListener('change', choose);
  drawSel.addEventListener('change', choose);
  fillDraws();
  // A draw the game has no ladder of (/ladder/whitehead/3) shows the one
  // it has, at its address.
  if (draw !== S.page.draw) {
    S.page = { ...S.page, draw };
    setPath(pagePath(S.page));
  }
  load();

  return {
    el,
    // The welcome says who the player is: their place is asked for then.
    update: () => {
      if (S.me && !asked.includes(`around=${S.me}`)) load();
    },
    destroy: () => { gone = true; },
  };
}

// table shows ladder entries: place, name (linking the profile), rating
// and rated rounds; the player's own row is marked.
function table(entries, { id, caption }) {
  return h('table', { class: 'board-table ladder-table', id },
    caption ? h('caption', { text: caption }) : null,
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col', class: 'num', text: T.place() }),
      h('th', { scope: 'col', text: T.player() }),
      h('th', { scope: 'col', class: 'num', text: T.rating() }),
      h('th', { scope: 'col', class: 'num', text: T.rounds() }))),
    h('tbody', {}, entries.map((e) => h('tr', { class: e.player_id === S.me ? 'me' : '', dataset: { player: e.name, place: String(e.place) } },
      h('td', { class: 'num', text: fmtNumber(e.place) }),
      h('th', { scope: 'row' }, pageLink({ kind: 'profile', id: e.player_id }, { text: e.name }),
        e.player_id === S.me ? h('span', { class: 'visually-hidden', text: T.you() }) : null),
      h('td', { class: 'num' }, ratingSpan(e.rating, false, { title: T.deviation(Math.round(e.deviation)) })),
      h('td', { class: 'num', text: fmtNumber(e.rounds) })))));
}
