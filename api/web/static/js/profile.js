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

// P holds the words of the ratings' part of a profile.
const P = {
  ratings: 'Ratings',
  noRatings: 'No rated games yet. Quick matches are rated unless you untick Rated.',
  seeLadders: 'See the ladder',
  rating: 'Rating',
  rounds: 'Rated rounds',
  place: 'Ladder place',
  offLadder: 'not on the ladder: only established ratings are',
  ladder: (v) => `The ${v} ladder`,
};

/** when writes a time of the server as a date and time of the player's. */
function when(t) {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

function day(t) {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString([], { dateStyle: 'medium' });
}

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
  const btn = h('button', { class: cls, type: 'button', id, text: 'Sign in with a passkey' });
  btn.addEventListener('click', busy(btn, signIn));
  return btn;
}

/** profileScreen is the profile of the player S.page.id. */
export function profileScreen() {
  const id = S.page.id;
  const title = h('h1', { id: 'profile-title', text: 'Player' });
  const facts = h('p', { class: 'lead', id: 'profile-facts' });
  const account = h('div', { class: 'profile-account' });
  const body = h('div', { class: 'profile-body' }, h('p', { class: 'muted', text: 'Reading the profile…' }));
  const el = h('div', { class: 'profile-page' },
    h('section', { class: 'panel profile', 'aria-labelledby': 'profile-title' },
      title, facts, account,
      h('div', { class: 'actions page-links' },
        backButton('profile-back'),
        pageLink({ kind: 'privacy' }, { class: 'btn subtle', id: 'profile-privacy', text: 'Privacy' }))),
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
    title.textContent = err.status === 404 ? 'No such player' : 'Profile';
    facts.textContent = err.status === 404 ? 'This player does not exist, or was deleted.' : `The profile could not be read: ${err.message}`;
    replace(body);
    update();
  });

  // build lays out the public part of the profile.
  const build = () => {
    const p = profile;
    replace(title, p.player.name, ' ', h('span', { class: 'tag', id: 'profile-tag', text: p.player.tag }));
    const streak = p.daily_streak || 0;
    facts.textContent = `Playing since ${day(p.player.created)} · Daily streak: ${streak} day${streak === 1 ? '' : 's'}`;
    const recs = p.records || [];
    const recent = p.recent || [];
    const made = p.challenges || [];
    const replayHost = h('div', { class: 'replay-host', id: 'profile-replay' });
    replace(body,
      ratingsPanel(p.ratings || []),
      h('section', { class: 'panel', 'aria-labelledby': 'profile-records-title' },
        h('h2', { id: 'profile-records-title', text: 'Records' }),
        recs.length ? h('div', { class: 'record-list', id: 'profile-records' }, recs.map((r) => recordCard(r, 'h3')))
          : h('p', { class: 'empty', id: 'profile-records', text: 'No games yet.' })),
      h('section', { class: 'panel', 'aria-labelledby': 'profile-recent-title' },
        h('h2', { id: 'profile-recent-title', text: 'Recent games' }),
        recent.length ? recentTable(recent, replayHost) : h('p', { class: 'empty', id: 'profile-recent', text: 'No finished games yet.' }),
        replayHost),
      h('section', { class: 'panel', 'aria-labelledby': 'profile-challenges-title' },
        h('h2', { id: 'profile-challenges-title', text: 'Challenges made' }),
        made.length ? h('ul', { class: 'plain-list', id: 'profile-challenges' }, made.map(challengeItem))
          : h('p', { class: 'empty', id: 'profile-challenges', text: 'No challenges yet.' })));
  };

  // ratingsPanel shows each rating: its game and draw, the rating ("?"
  // while provisional), the rated rounds, the place on the ladder and the
  // history as a chart.
  const ratingsPanel = (ratings) => h('section', { class: 'panel', 'aria-labelledby': 'profile-ratings-title' },
    h('h2', { id: 'profile-ratings-title', text: P.ratings }),
    ratings.length ? h('div', { class: 'rating-list', id: 'profile-ratings' }, ratings.map(ratingCard))
      : h('p', { class: 'empty', id: 'profile-ratings' }, P.noRatings, ' ',
        pageLink({ kind: 'ladder', game: 'klondike', draw: 3 }, { id: 'profile-ladder', text: P.seeLadders })));

  const ratingCard = (r) => {
    const key = `${r.game}/${r.draw}`;
    const head = `rating-${r.game}-${r.draw}`;
    const hist = r.history || [];
    return h('section', { class: 'rating-card', dataset: { key }, 'aria-labelledby': head },
      h('h3', { id: head, text: variantText(r.game, r.draw) }),
      h('dl', { class: 'figures' },
        h('div', { class: 'figure fig-rating' }, h('dt', { text: P.rating }), h('dd', { class: 'v' }, ratingSpan(r.rating, r.provisional))),
        h('div', { class: 'figure fig-rounds' }, h('dt', { text: P.rounds }), h('dd', { class: 'v', text: String(r.rounds) })),
        h('div', { class: 'figure fig-place', title: r.place ? null : P.offLadder },
          h('dt', { text: P.place }), h('dd', { class: 'v', text: r.place ? ordinal(r.place) : '–' }))),
      hist.length ? ratingChart(hist, { id: `chart-${r.game}-${r.draw}` }) : null,
      h('p', { class: 'rating-links' }, pageLink({ kind: 'ladder', game: r.game, draw: r.draw }, { class: 'ladder-link', text: P.ladder(variantText(r.game, r.draw)) })));
  };

  const recentTable = (recent, host) => {
    const toggle = (btn, g) => {
      const was = viewer && viewer.btn === btn;
      if (viewer) {
        viewer.v.destroy();
        viewer.btn.textContent = 'Replay';
        viewer.btn.setAttribute('aria-expanded', 'false');
        viewer = null;
      }
      if (was) return;
      viewer = { btn, v: new ReplayViewer(host, g.replay, id, { onError: fail }) };
      btn.textContent = 'Close';
      btn.setAttribute('aria-expanded', 'true');
    };
    return h('table', { class: 'board-table recent-games', id: 'profile-recent' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', text: 'Game' }), h('th', { scope: 'col', text: 'Result' }),
        h('th', { scope: 'col', class: 'num', text: 'Score' }), h('th', { scope: 'col', class: 'num', text: 'Time' }),
        h('th', { scope: 'col', text: 'Finished' }), h('th', { scope: 'col', text: 'Replay' }))),
      h('tbody', {}, recent.map((g) => {
        const btn = h('button', {
          class: 'btn subtle', type: 'button', text: 'Replay', 'aria-expanded': 'false', 'aria-controls': 'profile-replay',
          'aria-label': `Replay of the ${variantName(g.variant)} game finished ${when(g.finished)}`,
        });
        btn.addEventListener('click', () => toggle(btn, g));
        return h('tr', { dataset: { round: g.round_id } },
          h('td', { text: variantName(g.variant) }),
          h('td', { text: g.won ? 'Won' : 'Not won' }),
          h('td', { class: 'num', text: String(g.score) }),
          h('td', { class: 'num', text: g.elapsed_ms ? fmtClock(g.elapsed_ms) : '–' }),
          h('td', { text: when(g.finished) }),
          h('td', {}, btn));
      })));
  };

  const challengeItem = (c) => {
    const closed = c.closed_early || Date.parse(c.closes_at) <= Date.now();
    return h('li', { dataset: { challenge: c.id } },
      pageLink({ kind: 'challenge', id: c.id }, { text: `${variantName(c.variant)} challenge` }),
      h('span', { class: 'muted', text: ` · made ${when(c.opens_at)} · ${closed ? `closed${c.closed_early ? ' early' : ` ${when(c.closes_at)}`}` : `open until ${when(c.closes_at)}`}` }));
  };

  // update shows the account part: the player's own once the welcome says
  // who the browser is, an offer to sign in otherwise.
  const update = () => {
    const own = !!S.me && S.me === id;
    if (own === shownOwn || (!profile && own)) return;
    shownOwn = own;
    replace(account, own ? ownAccount() : h('div', { class: 'signin-offer' },
      h('p', { text: S.me
        ? 'Is this you, on another device? Sign in with a passkey you added there, and this browser becomes that player.'
        : 'Is this you? Sign in with a passkey you added on another device, and this browser becomes that player.' }),
      signInButton('profile-signin')));
  };

  // ownAccount is the player's own account: name, passkeys, signing out,
  // their data.
  const ownAccount = () => {
    const nameInput = h('input', { id: 'profile-name', name: 'name', maxlength: String(MAX_NAME), autocomplete: 'nickname', required: true, value: profile.player.name });
    const renameBtn = h('button', { class: 'btn', type: 'submit', id: 'profile-rename', text: 'Change name' });
    const passkeysLine = h('p', { id: 'profile-passkeys', text: 'Reading your passkeys…' });
    const devicesLine = h('p', { class: 'hint', id: 'profile-devices' });
    let passkeys = [];
    const showPasskeys = (list) => {
      passkeys = list || [];
      passkeysLine.textContent = passkeys.length
        ? `${passkeys.length} passkey${passkeys.length === 1 ? '' : 's'} (added ${passkeys.map((k) => day(k.created)).join(', ')}). Sign in with one on another browser or device to play as ${S.name} there.`
        : 'No passkey yet. Add one to play as this player on another browser or device, or to get it back should this browser forget it.';
    };
    getMe().then((me) => {
      if (gone) return;
      showPasskeys(me.passkeys);
      const n = me.devices || 0;
      devicesLine.textContent = `Signed in on ${n} browser${n === 1 ? '' : 's'} or device${n === 1 ? '' : 's'}.`;
    }, (err) => { if (!gone) passkeysLine.textContent = `Your passkeys could not be read: ${err.message}`; });

    const form = h('form', { class: 'inline-form', id: 'profile-rename-form' },
      h('label', { for: 'profile-name', text: 'Name' }), nameInput, renameBtn);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const name = nameInput.value.trim().replace(/\s+/g, ' ');
      if (!name || [...name].length > MAX_NAME) {
        toast('A name is 1 to 24 characters.', 'error');
        return;
      }
      busy(renameBtn, async () => {
        const p = await rename(name);
        profile.player = p;
        replace(title, p.name, ' ', h('span', { class: 'tag', id: 'profile-tag', text: p.tag }));
        nameInput.value = p.name;
        toast(`Your name is now ${p.name}.`);
      })();
    });

    const addBtn = h('button', { class: 'btn primary', type: 'button', id: 'passkey-add', text: 'Add a passkey' });
    addBtn.addEventListener('click', busy(addBtn, async () => {
      const r = await addPasskey();
      showPasskeys(r && r.passkeys);
      toast('Passkey added.');
      announce('Passkey added.');
    }));
    const outBtn = h('button', { class: 'btn', type: 'button', id: 'signout', text: 'Sign out' });
    outBtn.addEventListener('click', () => {
      const go = busy(outBtn, signOut);
      if (passkeys.length) go();
      else confirmDialog(`You have no passkey: once signed out, no browser can play as ${S.name} again. Sign out anyway?`, 'Sign out', go);
    });
    const allBtn = h('button', { class: 'btn', type: 'button', id: 'signout-all', text: 'Sign out everywhere' });
    allBtn.addEventListener('click', () => confirmDialog(
      `Sign out every browser and device that plays as ${S.name}, this one included? ${passkeys.length ? 'A passkey signs you in again.' : 'You have no passkey: no browser can play as this player again.'}`,
      'Sign out everywhere', busy(allBtn, signOutEverywhere)));
    const exportBtn = h('button', { class: 'btn', type: 'button', id: 'export', text: 'Download my data' });
    exportBtn.addEventListener('click', busy(exportBtn, async () => {
      const name = await downloadData();
      toast(`Saved as ${name}.`);
    }));
    const deleteBtn = h('button', { class: 'btn danger', type: 'button', id: 'delete-player', text: 'Delete my player' });
    deleteBtn.addEventListener('click', () => confirmDialog(
      `Delete ${S.name} for good? Your records, passkeys and sign-ins are deleted; replays keep your moves under the name "Deleted player". This cannot be undone.`,
      'Delete my player', busy(deleteBtn, deletePlayer)));

    return h('section', { class: 'account', 'aria-labelledby': 'account-title' },
      h('h2', { id: 'account-title', text: 'Your player' }),
      form,
      h('p', { class: 'hint', text: `Names need not be unique: your tag, ${profile.player.tag}, tells you apart from another ${profile.player.name}.` }),
      h('h3', { text: 'Passkeys' }),
      passkeysLine,
      h('div', { class: 'actions' }, addBtn),
      h('h3', { text: 'Signing out' }),
      devicesLine,
      h('div', { class: 'actions' }, outBtn, allBtn),
      h('p', { class: 'hint', text: 'Sign out forgets this browser\u2019s sign-in. Sign out everywhere ends every sign-in of this player, for a lost or shared device.' }),
      h('h3', { text: 'Your data' }),
      h('div', { class: 'actions' }, exportBtn, deleteBtn),
      h('p', { class: 'hint' }, 'What is kept, where, and for how long: ', pageLink({ kind: 'privacy' }, { text: 'the privacy page' }), '.'));
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
