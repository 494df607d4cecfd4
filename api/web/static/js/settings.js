// A match's settings: the create form and their description in a line. The
// fields are create_match's (docs/protocol.md); a choice left at its empty
// option, or an empty deal number, is left out, so that the server's default
// applies; so is the game when it is Klondike, the default. The game's rules
// show in a line under its choice; Whitehead, which draws one card with no
// redeal, fixes the draw and the passes, and a game the server's solver
// does not play deals any deal.

import { h, fmtClock } from './util.js';
import { GAME_OPTIONS, gameName, gameSummary, isKlondike, hasSolver } from './games.js';

const SETTING_FIELDS = [
  { key: 'game', label: 'Game', type: 'select', options: GAME_OPTIONS, def: 'klondike' },
  { key: 'draw', label: 'Draw', type: 'select', options: [['3', 'Draw 3'], ['1', 'Draw 1']], def: '3', num: true },
  { key: 'passes', label: 'Passes through the stock', type: 'select', options: [['', 'Default'], ['0', 'Unlimited'], ['3', '3 passes'], ['1', '1 pass']], def: '', num: true },
  { key: 'scoring', label: 'Scoring', type: 'select', options: [['standard', 'Standard (timed)'], ['vegas', 'Vegas'], ['none', 'None']], def: 'standard' },
  { key: 'undo', label: 'Undo', type: 'select', options: [['no_reveal', 'Unless a card turned'], ['on', 'Always'], ['off', 'Never']], def: 'no_reveal' },
  { key: 'foundation_to_tableau', label: 'Cards may come back from the foundations', type: 'checkbox', def: true },
  { key: 'mode', label: 'Ranking', type: 'select', options: [['race', 'Race: first to win'], ['score', 'Score: highest score']], def: 'race' },
  { key: 'rounds', label: 'Rounds', type: 'number', min: 1, max: 20, def: 1 },
  { key: 'max_players', label: 'Most players', type: 'number', min: 1, max: 64, def: 8 },
  { key: 'time_limit_s', label: 'Time limit (seconds)', type: 'number', min: 2, max: 10800, def: 900 },
  { key: 'countdown_s', label: 'Countdown (seconds)', type: 'number', min: 0, max: 30, def: 3 },
  { key: 'public', label: 'List it in the lobby (public)', type: 'checkbox', def: true },
  // Rated is asked for only when ticked: the server's default is casual.
  { key: 'rated', label: 'Rated', type: 'checkbox', def: false, onlyTrue: true },
  { key: 'deals', label: 'Deals', type: 'select', options: [['any', 'Any deal'], ['winnable', 'Only deals proved winnable']], def: 'any' },
  { key: 'seed', label: 'Deal number (optional)', type: 'text', def: '', pattern: '[0-9]{1,20}' },
];

// RATED_WORDS say what the Rated box does, and why it is off with a deal
// number.
const RATED_WORDS = {
  about: 'Each round changes the players\u2019 ratings in this game and draw.',
  seed: 'A match on a known deal (a deal number) cannot be rated.',
};

// USUAL_DRAW is the draw each game is usually played with (the server's
// default when a game's settings leave the draw out).
const USUAL_DRAW = { thumb_and_pouch: '1' };

/**
 * settingsForm is the form of a match's settings, filled from prefill (the
 * last settings used) or the defaults; onSubmit gets the settings as the
 * protocol spells them. Options: only, the keys of the fields shown (all by
 * default); prefix, of the fields' ids; submitId, the button's id; extra,
 * more fields placed after them (their values are the caller's to read).
 */
export function settingsForm(prefill, submitText, onSubmit, { only = null, prefix = 'set-', submitId = 'create-submit', extra = null } = {}) {
  const fields = {};
  const rows = SETTING_FIELDS.filter((f) => !only || only.includes(f.key)).map((f) => {
    const id = `${prefix}${f.key}`;
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
    if (f.key === 'game') {
      const about = h('p', { class: 'hint game-summary', id: `${prefix}game-summary`, 'aria-live': 'polite' });
      input.setAttribute('aria-describedby', about.id);
      fields.game.about = about;
      return h('div', { class: 'field wide' }, h('label', { for: id, text: f.label }), input, about);
    }
    if (f.key === 'rated') {
      // A known deal cannot be rated (its players could know it): with a
      // deal number, the box is off and says why.
      const note = h('p', { class: 'hint rated-note', id: `${prefix}rated-note`, text: RATED_WORDS.about });
      input.setAttribute('aria-describedby', note.id);
      fields.rated.note = note;
      return h('div', { class: 'field check rated-field' }, input, h('label', { for: id, text: f.label }), note);
    }
    return f.type === 'checkbox'
      ? h('div', { class: 'field check' }, input, h('label', { for: id, text: f.label }))
      : h('div', { class: 'field' }, h('label', { for: id, text: f.label }), input);
  });
  // The game's line of rules, and Whitehead's fixed draw and passes: the
  // two fields keep the player's values for the other games.
  const gameChanged = () => {
    const g = fields.game;
    if (!g) return;
    g.about.textContent = gameSummary(g.input.value);
    const fixed = g.input.value === 'whitehead';
    for (const [key, val] of [['draw', '1'], ['passes', '1']]) {
      const x = fields[key];
      if (!x) continue;
      if (fixed && !x.input.disabled) {
        x.kept = x.input.value;
        x.input.value = val;
      } else if (!fixed && x.input.disabled && x.kept !== undefined) {
        x.input.value = x.kept;
      }
      x.input.disabled = fixed;
      x.input.title = fixed ? 'Whitehead turns one card at a time, with no redeal' : '';
    }
    // Deals proved winnable only in the games the solver plays.
    const deals = fields.deals;
    if (deals) {
      const none = !hasSolver(g.input.value);
      if (none) deals.input.value = 'any';
      deals.input.disabled = none;
      deals.input.title = none ? 'The server\u2019s solver does not play this game: any deal' : '';
    }
  };
  // A deal number turns Rated off and keeps what it was for when the
  // number goes.
  const seedChanged = () => {
    const r = fields.rated;
    const seed = fields.seed;
    if (!r || !seed) return;
    const known = seed.input.value.trim() !== '';
    if (known && !r.input.disabled) r.kept = r.input.checked;
    else if (!known && r.input.disabled && r.kept !== undefined) r.input.checked = r.kept;
    if (known) r.input.checked = false;
    r.input.disabled = known;
    r.note.textContent = known ? RATED_WORDS.seed : RATED_WORDS.about;
    r.note.dataset.state = known ? 'seed' : 'about';
  };
  if (fields.seed) fields.seed.input.addEventListener('input', seedChanged);
  // Choosing a game sets the draw it is usually played with (Thumb and
  // Pouch one card at a time); the player may change it after.
  if (fields.game) {
    fields.game.input.addEventListener('change', () => {
      const d = fields.draw;
      const g = fields.game.input.value;
      if (d && !d.input.disabled && g !== 'whitehead') d.input.value = USUAL_DRAW[g] || '3';
      gameChanged();
    });
  }
  const form = h('form', {
    class: 'settings-form',
    onsubmit: (e) => {
      e.preventDefault();
      const s = {};
      for (const [key, { f, input }] of Object.entries(fields)) {
        if (f.type === 'checkbox') {
          if (input.checked || !f.onlyTrue) s[key] = input.checked;
        } else if (f.type === 'number') s[key] = Math.round(+input.value);
        else if (f.type === 'select') {
          if (input.value === '' || (key === 'game' && isKlondike(input.value))) continue;
          s[key] = f.num ? +input.value : input.value;
        } else if (input.value.trim()) s[key] = input.value.trim(); // the seed stays a string
      }
      onSubmit(s);
    },
  }, h('div', { class: 'fields' }, rows, extra), h('button', { class: 'btn primary', type: 'submit', id: submitId, text: submitText }));
  gameChanged();
  seedChanged();
  return form;
}

/** describeSettings writes a match's settings in one line. */
export function describeSettings(s) {
  const parts = [...(isKlondike(s) ? [] : [gameName(s)]), `draw ${s.draw}`, s.passes ? `${s.passes} pass${s.passes === 1 ? '' : 'es'}` : 'unlimited passes',
    `${s.scoring} scoring`, s.mode === 'race' ? 'race' : 'score mode', `${s.rounds} round${s.rounds === 1 ? '' : 's'}`,
    `${fmtClock(s.time_limit_s * 1000)} a round`, `undo ${s.undo.replace('_', ' ')}`];
  if (!s.foundation_to_tableau) parts.push('no cards back from the foundations');
  if (s.rated) parts.push('rated');
  if (s.seed) parts.push(`deal #${s.seed}`);
  return parts.join(' · ');
}
