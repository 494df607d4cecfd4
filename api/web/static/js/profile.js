// A player's profile, /p/<id> (GET /api/v1/players/{id}): their name and
// tag, ratings per game and draw (the history as a chart, the place on the
// ladder), records per game and draw, daily streak, recent finished games
// with their replays, and the challenges they made. On the player's own
// profile, their account too: the name to change, passkeys, signing out
// here or everywhere, their data to download and deleting the player.
// Anyone else's profile, and a browser with no player yet, offers to sign
// in with a passkey: a person who opens their profile on a new device
// looks there.

import { h, replace, fmtClock } from './util.js';
import { t, plural, fmtNumber, fmtDate, fmtTime, fmtList, errorText } from './i18n.js';
import { S } from './state.js';
import { toast, fail, confirmDialog, announce } from './feedback.js';
import { pageLink, backButton } from './pages.js';
import {
  getProfile, getMe, rename, addPasskey, signIn, signOut, signOutEverywhere, downloadData, deletePlayer,
} from './account.js';
import { recordCard, variantName } from './records.js';
import { ReplayViewer } from './replay.js';
import { ratingSpan, ratingChart, variantText, ordinal } from './ratings.js';

// The longest name the server takes, in characters.
const MAX_NAME = 24;

/** when writes a time of the server as a date and time of the player's. */
function when(time) { return fmtTime(time); }

function day(time) { return fmtDate(time); }

/** busy runs a button's action with the button off meanwhile, and shows its error. */
function busy(btn, run) {
  return async () => {
    btn.disabled = true;
    try {
      await run();
    } catch (err) {
      fail(err);
    } finally {
      btn.disabled = false;
    }
  };
}

/** signInButton offers to sign in with a passkey: the browser becomes that player. */
export function signInButton(id, cls = 'btn') {
  const btn = h('button', { class: cls, type: 'button', id, text: t('profile.signin') });
  btn.addEventListener('click', busy(btn, signIn));
  return btn;
}

/** profileScreen is the profile of the player S.page.id. */
export function profileScreen() {
  const id = S.page.id;
  const title = h('h1', { id: 'profile-title', text: t('common.player') });
  const facts = h('p', { class: 'lead', id: 'profile-facts' });
  const account = h('div', { class: 'profile-account' });
  const body = h('div', { class: 'profile-body' }, h('p', { class: 'muted', text: t('profile.reading') }));
  const el = h('div', { class: 'profile-page' },
    h('section', { class: 'panel profile', 'aria-labelledby': 'profile-title' },
      title, facts, account,
      h('div', { class: 'actions page-links' },
        backButton('profile-back'),
        pageLink({ kind: 'privacy' }, { class: 'btn subtle', id: 'profile-privacy', text: t('privacy.title') }))),
    body);

  let gone = false;
  let profile = null; // the server's answer
  let shownOwn = null; // whether the account shown is the player's own
  let viewer = null; // the replay open, if any

  const load = () => getProfile(id).then((p) => {
    if (gone) return;
    profile = p;
    build();
    update();
  }, (err) => {
    if (gone) return;
    title.textContent = t(err.status === 404 ? 'profile.missing_title' : 'profile.title');
    facts.textContent = err.status === 404 ? t('profile.missing') : t('profile.failed', { why: errorText(err) });
    replace(body);
    update();
  });

  // build lays out the public part of the profile.
  const build = () => {
    const p = profile;
    replace(title, p.player.name, ' ', h('span', { class: 'tag', id: 'profile-tag', text: p.player.tag }));
    const streak = p.daily_streak || 0;
    facts.textContent = t('profile.facts', { since: day(p.player.created), streak: plural('profile.days', streak) });
    const recs = p.records || [];
    const recent = p.recent || [];
    const made = p.challenges || [];
    const replayHost = h('div', { class: 'replay-host', id: 'profile-replay' });
    replace(body,
      ratingsPanel(p.ratings || []),
      h('section', { class: 'panel', 'aria-labelledby': 'profile-records-title' },
        h('h2', { id: 'profile-records-title', text: t('profile.records') }),
        recs.length ? h('div', { class: 'record-list', id: 'profile-records' }, recs.map((r) => recordCard(r, 'h3')))
          : h('p', { class: 'empty', id: 'profile-records', text: t('profile.no_games') })),
      h('section', { class: 'panel', 'aria-labelledby': 'profile-recent-title' },
        h('h2', { id: 'profile-recent-title', text: t('profile.recent') }),
        recent.length ? recentTable(recent, replayHost) : h('p', { class: 'empty', id: 'profile-recent', text: t('profile.no_recent') }),
        replayHost),
      h('section', { class: 'panel', 'aria-labelledby': 'profile-challenges-title' },
        h('h2', { id: 'profile-challenges-title', text: t('profile.challenges') }),
        made.length ? h('ul', { class: 'plain-list', id: 'profile-challenges' }, made.map(challengeItem))
          : h('p', { class: 'empty', id: 'profile-challenges', text: t('profile.no_challenges') })));
  };

  // ratingsPanel shows each rating: its game and draw, the rating ("?"
  // while provisional), the rated rounds, the place on the ladder and the
  // history as a chart.
  const ratingsPanel = (ratings) => h('section', { class: 'panel', 'aria-labelledby': 'profile-ratings-title' },
    h('h2', { id: 'profile-ratings-title', text: t('profile.ratings') }),
    ratings.length ? h('div', { class: 'rating-list', id: 'profile-ratings' }, ratings.map(ratingCard))
      : h('p', { class: 'empty', id: 'profile-ratings' }, t('profile.no_ratings'), ' ',
        pageLink({ kind: 'ladder', game: 'klondike', draw: 3 }, { id: 'profile-ladder', text: t('profile.see_ladder') })));

  const ratingCard = (r) => {
    const key = `${r.game}/${r.draw}`;
    const head = `rating-${r.game}-${r.draw}`;
    const hist = r.history || [];
    return h('section', { class: 'rating-card', dataset: { key }, 'aria-labelledby': head },
      h('h3', { id: head, text: variantText(r.game, r.draw) }),
      h('dl', { class: 'figures' },
        h('div', { class: 'figure fig-rating' }, h('dt', { text: t('tables.rating') }), h('dd', { class: 'v' }, ratingSpan(r.rating, r.provisional))),
        h('div', { class: 'figure fig-rounds' }, h('dt', { text: t('profile.rated_rounds') }), h('dd', { class: 'v', text: fmtNumber(r.rounds) })),
        h('div', { class: 'figure fig-place', title: r.place ? null : t('profile.off_ladder') },
          h('dt', { text: t('profile.place') }), h('dd', { class: 'v', text: r.place ? ordinal(r.place) : t('common.none') }))),
      hist.length ? ratingChart(hist, { id: `chart-${r.game}-${r.draw}` }) : null,
      h('p', { class: 'rating-links' }, pageLink({ kind: 'ladder', game: r.game, draw: r.draw }, { class: 'ladder-link', text: t('profile.the_ladder', { variant: variantText(r.game, r.draw) }) })));
  };

  const recentTable = (recent, host) => {
    const toggle = (btn, g) => {
      const was = viewer && viewer.btn === btn;
      if (viewer) {
        viewer.v.destroy();
        viewer.btn.textContent = t('profile.replay');
        viewer.btn.setAttribute('aria-expanded', 'false');
        viewer = null;
      }
      if (was) return;
      viewer = { btn, v: new ReplayViewer(host, g.replay, id, { onError: fail }) };
      btn.textContent = t('profile.close');
      btn.setAttribute('aria-expanded', 'true');
    };
    return h('table', { class: 'board-table recent-games', id: 'profile-recent' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', text: t('settings.game') }), h('th', { scope: 'col', text: t('profile.result') }),
        h('th', { scope: 'col', class: 'num', text: t('profile.score') }), h('th', { scope: 'col', class: 'num', text: t('common.time') }),
        h('th', { scope: 'col', text: t('profile.finished') }), h('th', { scope: 'col', text: t('profile.replay') }))),
      h('tbody', {}, recent.map((g) => {
        const btn = h('button', {
          class: 'btn subtle', type: 'button', text: t('profile.replay'), 'aria-expanded': 'false', 'aria-controls': 'profile-replay',
          'aria-label': t('profile.replay_label', { variant: variantName(g.variant), when: when(g.finished) }),
        });
        btn.addEventListener('click', () => toggle(btn, g));
        return h('tr', { dataset: { round: g.round_id } },
          h('td', { text: variantName(g.variant) }),
          h('td', { text: t(g.won ? 'profile.won' : 'profile.not_won') }),
          h('td', { class: 'num', text: fmtNumber(g.score) }),
          h('td', { class: 'num', text: g.elapsed_ms ? fmtClock(g.elapsed_ms) : t('common.none') }),
          h('td', { text: when(g.finished) }),
          h('td', {}, btn));
      })));
  };

  const challengeItem = (c) => {
    const closed = c.closed_early || Date.parse(c.closes_at) <= Date.now();
    return h('li', { dataset: { challenge: c.id } },
      pageLink({ kind: 'challenge', id: c.id }, { text: t('profile.challenge_of', { variant: variantName(c.variant) }) }),
      h('span', { class: 'muted', text: t('common.sep') + t('profile.made', { when: when(c.opens_at) }) + t('common.sep')
        + (closed ? (c.closed_early ? t('profile.closed_early') : t('profile.closed_at', { when: when(c.closes_at) })) : t('profile.open_until', { when: when(c.closes_at) })) }));
  };

  // update shows the account part: the player's own once the welcome says
  // who the browser is, an offer to sign in otherwise.
  const update = () => {
    const own = !!S.me && S.me === id;
    if (own === shownOwn || (!profile && own)) return;
    shownOwn = own;
    replace(account, own ? ownAccount() : h('div', { class: 'signin-offer' },
      h('p', { text: t(S.me ? 'profile.is_you_other' : 'profile.is_you') }),
      signInButton('profile-signin')));
  };

  // ownAccount is the player's own account: name, passkeys, signing out,
  // their data.
  const ownAccount = () => {
    const nameInput = h('input', { id: 'profile-name', name: 'name', maxlength: String(MAX_NAME), autocomplete: 'nickname', required: true, value: profile.player.name });
    const renameBtn = h('button', { class: 'btn', type: 'submit', id: 'profile-rename', text: t('profile.rename') });
    const passkeysLine = h('p', { id: 'profile-passkeys', text: t('profile.reading_passkeys') });
    const devicesLine = h('p', { class: 'hint', id: 'profile-devices' });
    let passkeys = [];
    const showPasskeys = (list) => {
      passkeys = list || [];
      passkeysLine.textContent = passkeys.length
        ? plural('profile.passkeys', passkeys.length, { added: fmtList(passkeys.map((k) => day(k.created))), name: S.name })
        : t('profile.no_passkeys');
    };
    getMe().then((me) => {
      if (gone) return;
      showPasskeys(me.passkeys);
      const n = me.devices || 0;
      devicesLine.textContent = plural('profile.devices', n);
    }, (err) => { if (!gone) passkeysLine.textContent = t('profile.passkeys_failed', { why: errorText(err) }); });

    const form = h('form', { class: 'inline-form', id: 'profile-rename-form' },
      h('label', { for: 'profile-name', text: t('profile.name') }), nameInput, renameBtn);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const name = nameInput.value.trim().replace(/\s+/g, ' ');
      if (!name || [...name].length > MAX_NAME) {
        toast(t('common.name_rule'), 'error');
        return;
      }
      busy(renameBtn, async () => {
        const p = await rename(name);
        profile.player = p;
        replace(title, p.name, ' ', h('span', { class: 'tag', id: 'profile-tag', text: p.tag }));
        nameInput.value = p.name;
        toast(t('profile.renamed', { name: p.name }));
      })();
    });

    const addBtn = h('button', { class: 'btn primary', type: 'button', id: 'passkey-add', text: t('profile.add_passkey') });
    addBtn.addEventListener('click', busy(addBtn, async () => {
      const r = await addPasskey();
      showPasskeys(r && r.passkeys);
      toast(t('profile.passkey_added'));
      announce(t('profile.passkey_added'));
    }));
    const outBtn = h('button', { class: 'btn', type: 'button', id: 'signout', text: t('profile.signout') });
    outBtn.addEventListener('click', () => {
      const go = busy(outBtn, signOut);
      if (passkeys.length) go();
      else confirmDialog(t('profile.signout_ask', { name: S.name }), t('profile.signout'), go);
    });
    const allBtn = h('button', { class: 'btn', type: 'button', id: 'signout-all', text: t('profile.signout_all') });
    allBtn.addEventListener('click', () => confirmDialog(
      t(passkeys.length ? 'profile.signout_all_ask' : 'profile.signout_all_ask_none', { name: S.name }),
      t('profile.signout_all'), busy(allBtn, signOutEverywhere)));
    const exportBtn = h('button', { class: 'btn', type: 'button', id: 'export', text: t('profile.export') });
    exportBtn.addEventListener('click', busy(exportBtn, async () => {
      const name = await downloadData();
      toast(t('profile.saved_as', { name }));
    }));
    const deleteBtn = h('button', { class: 'btn danger', type: 'button', id: 'delete-player', text: t('profile.delete') });
    deleteBtn.addEventListener('click', () => confirmDialog(
      t('profile.delete_ask', { name: S.name }),
      t('profile.delete'), busy(deleteBtn, deletePlayer)));

    return h('section', { class: 'account', 'aria-labelledby': 'account-title' },
      h('h2', { id: 'account-title', text: t('profile.your_player') }),
      form,
      h('p', { class: 'hint', text: t('profile.tag_about', { tag: profile.player.tag, name: profile.player.name }) }),
      h('h3', { text: t('profile.passkeys_title') }),
      passkeysLine,
      h('div', { class: 'actions' }, addBtn),
      h('h3', { text: t('profile.signing_out') }),
      devicesLine,
      h('div', { class: 'actions' }, outBtn, allBtn),
      h('p', { class: 'hint', text: t('profile.signout_about') }),
      h('h3', { text: t('privacy.your_data') }),
      h('div', { class: 'actions' }, exportBtn, deleteBtn),
      h('p', { class: 'hint' }, t('profile.kept_before'), pageLink({ kind: 'privacy' }, { text: t('profile.kept_link') }), t('profile.kept_after')));
  };

  load();
  return {
    el, update,
    destroy: () => {
      gone = true;
      if (viewer) viewer.v.destroy();
    },
  };
}
