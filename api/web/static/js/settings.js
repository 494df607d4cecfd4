// A match's settings: the create form and their description in a line. The
// fields are create_match's (docs/protocol.md); a choice left at its empty
// option, or an empty deal number, is left out, so that the server's default
// applies; so is the game when it is Klondike, the default. The game's rules
// show in a line under its choice; Whitehead, which draws one card with no
// redeal, fixes the draw and the passes, and a game the server's solver
// does not play deals any deal.

import { h, fmtClock } from './util.js';
import { t, plural } from './i18n.js';
import { gameOptions, gameName, gameSummary, isKlondike, hasSolver } from './games.js';

// SETTING_FIELDS are the form's fields; label and the options' texts are
// catalogue keys (options: [value, key]), read when the form is built.
const SETTING_FIELDS = [
  { key: 'game', label: 'settings.game', type: 'select', options: 'games', def: 'klondike' },
  { key: 'draw', label: 'settings.draw', type: 'select', options: [['3', 'settings.draw3'], ['1', 'settings.draw1']], def: '3', num: true },
  { key: 'passes', label: 'settings.passes', type: 'select', options: [['', 'settings.passes_default'], ['0', 'settings.passes_unlimited'], ['3', 'settings.passes3'], ['1', 'settings.passes1']], def: '', num: true },
  { key: 'scoring', label: 'settings.scoring', type: 'select', options: [['standard', 'settings.scoring_standard'], ['vegas', 'settings.scoring_vegas'], ['none', 'settings.scoring_none']], def: 'standard' },
  { key: 'undo', label: 'settings.undo', type: 'select', options: [['no_reveal', 'settings.undo_no_reveal'], ['on', 'settings.undo_on'], ['off', 'settings.undo_off']], def: 'no_reveal' },
  { key: 'foundation_to_tableau', label: 'settings.foundation_to_tableau', type: 'checkbox', def: true },
  { key: 'mode', label: 'settings.mode', type: 'select', options: [['race', 'settings.mode_race'], ['score', 'settings.mode_score']], def: 'race' },
  { key: 'rounds', label: 'settings.rounds', type: 'number', min: 1, max: 20, def: 1 },
  { key: 'max_players', label: 'settings.max_players', type: 'number', min: 1, max: 64, def: 8 },
  { key: 'time_limit_s', label: 'settings.time_limit', type: 'number', min: 2, max: 10800, def: 900 },
  { key: 'countdown_s', label: 'settings.countdown', type: 'number', min: 0, max: 30, def: 3 },
  { key: 'public', label: 'settings.public', type: 'checkbox', def: true },
  // Rated is asked for only when ticked: the server's default is casual.
  { key: 'rated', label: 'settings.rated', type: 'checkbox', def: false, onlyTrue: true },
  { key: 'deals', label: 'settings.deals', type: 'select', options: [['any', 'settings.deals_any'], ['winnable', 'settings.deals_winnable']], def: 'any' },
  { key: 'seed', label: 'settings.seed', type: 'text', def: '', pattern: '[0-9]{1,20}' },
];

// optionsOf is a select field's [value, text] options.
function optionsOf(f) {
  return f.options === 'games' ? gameOptions() : f.options.map(([v, key]) => [v, t(key)]);
}

// USUAL_DRAW is the draw each game is usually played with (the server's
// default when a game's settings leave the draw out).
const USUAL_DRAW = { thumb_and_pouch: '1', whitehead: '1' };

/** usualDraw is the draw a game is usually played with: "1" or "3". */
export function usualDraw(game) { return USUAL_DRAW[game] || '3'; }

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
      input = h('select', { id, name: f.key }, optionsOf(f).map(([val, text]) => h('option', { value: val, text, selected: String(v) === val })));
    } else if (f.type === 'checkbox') {
      input = h('input', { id, name: f.key, type: 'checkbox', checked: !!v });
    } else if (f.type === 'number') {
      input = h('input', { id, name: f.key, type: 'number', min: String(f.min), max: String(f.max), step: '1', value: String(v), required: true, inputmode: 'numeric' });
    } else {
      input = h('input', { id, name: f.key, type: 'text', value: String(v), pattern: f.pattern, inputmode: 'numeric', autocomplete: 'off', placeholder: t('settings.seed_random') });
    }
    fields[f.key] = { f, input };
    const label = t(f.label);
    if (f.key === 'game') {
      const about = h('p', { class: 'hint game-summary', id: `${prefix}game-summary`, 'aria-live': 'polite' });
      input.setAttribute('aria-describedby', about.id);
      fields.game.about = about;
      return h('div', { class: 'field wide' }, h('label', { for: id, text: label }), input, about);
    }
    if (f.key === 'rated') {
      // A known deal cannot be rated (its players could know it): with a
      // deal number, the box is off and says why.
      const note = h('p', { class: 'hint rated-note', id: `${prefix}rated-note`, text: t('settings.rated_about') });
      input.setAttribute('aria-describedby', note.id);
      fields.rated.note = note;
      return h('div', { class: 'field check rated-field' }, input, h('label', { for: id, text: label }), note);
    }
    if (f.key === 'seed') {
      // Which deal a number is: PySolFC's game of that number (docs/deals.md).
      const about = h('p', { class: 'hint seed-note', id: `${prefix}seed-note`, text: t('settings.seed_about') });
      input.setAttribute('aria-describedby', about.id);
      return h('div', { class: 'field seed-field' }, h('label', { for: id, text: label }), input, about);
    }
    return f.type === 'checkbox'
      ? h('div', { class: 'field check' }, input, h('label', { for: id, text: label }))
      : h('div', { class: 'field' }, h('label', { for: id, text: label }), input);
  });
  // The game's line of rules, and Whitehead's fixed draw and passes: the
  // two fields keep the player's values for the other games. A form that
  // opens on Whitehead (the last settings were a Whitehead match) holds
  // only Whitehead's own values, so the other games get the defaults.
  const gameChanged = (opening = false) => {
    const g = fields.game;
    if (!g) return;
    g.about.textContent = gameSummary(g.input.value);
    const fixed = g.input.value === 'whitehead';
    for (const [key, val] of [['draw', '1'], ['passes', '1']]) {
      const x = fields[key];
      if (!x) continue;
      if (fixed && !x.input.disabled) {
        x.kept = opening ? String(x.f.def) : x.input.value;
        x.input.value = val;
      } else if (!fixed && x.input.disabled) {
        x.input.value = x.kept !== undefined ? x.kept : String(x.f.def);
      }
      x.input.disabled = fixed;
      x.input.title = fixed ? t('settings.whitehead_fixed') : '';
    }
    // Deals proved winnable only in the games the solver plays.
    const deals = fields.deals;
    if (deals) {
      const none = !hasSolver(g.input.value);
      if (none) deals.input.value = 'any';
      deals.input.disabled = none;
      deals.input.title = none ? t('settings.no_solver') : '';
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
    r.note.textContent = t(known ? 'settings.rated_seed' : 'settings.rated_about');
    r.note.dataset.state = known ? 'seed' : 'about';
  };
  if (fields.seed) fields.seed.input.addEventListener('input', seedChanged);
  // Choosing a game sets the draw it is usually played with (Thumb and
  // Pouch one card at a time); the player may change it after. Leaving
  // Whitehead frees the draw first.
  if (fields.game) {
    fields.game.input.addEventListener('change', () => {
      gameChanged();
      const d = fields.draw;
      const g = fields.game.input.value;
      if (d && g !== 'whitehead') d.input.value = usualDraw(g);
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
  gameChanged(true);
  seedChanged();
  return form;
}

/** describeSettings writes a match's settings in one line. */
export function describeSettings(s) {
  const parts = [...(isKlondike(s) ? [] : [gameName(s)]), t('settings.d.draw', { n: s.draw }), passesWords(s.passes),
    t(`settings.d.scoring_${s.scoring}`), t(s.mode === 'race' ? 'settings.d.race' : 'settings.d.score'), plural('settings.d.rounds', s.rounds),
    t('settings.d.time', { time: fmtClock(s.time_limit_s * 1000) }), t(`settings.d.undo_${s.undo}`)];
  if (!s.foundation_to_tableau) parts.push(t('settings.d.no_back'));
  if (s.rated) parts.push(t('settings.d.rated'));
  if (s.seed) parts.push(t('settings.d.seed', { seed: s.seed }));
  return parts.join(t('common.sep'));
}

/** passesWords says how many passes through the stock: "1 pass", "unlimited passes". */
export function passesWords(passes) {
  return passes ? plural('settings.d.passes', passes) : t('settings.d.passes_unlimited');
}
