// The client's words: one catalogue a language (js/lang/<code>.js), the
// language chosen, plurals, and numbers, times and dates through Intl.
//
// Every string a person reads comes from a catalogue: t('lobby.title'),
// plural('players.count', n). A catalogue is one file, a flat object of
// keys; web.go lists the files it embeds on the page (<html
// data-languages>), so a new language is one new file. English is loaded
// always: a key a catalogue lacks falls back to it, and a key English lacks
// shows as itself, with a warning on the console of a development page.
//
// The language is the player's choice (the switch in the top bar, kept in
// localStorage), else the first of navigator.languages whose primary
// subtag has a catalogue, else English. The catalogue is read before any
// other module runs (a top-level await), so no screen is ever drawn in a
// language and then another.
//
// The server's refusals reach the player through errorText: the error's
// stable code, and for the messages players meet most a known part of the
// server's English words, map to catalogue sentences. The server's words
// themselves are shown only in English, as a detail after the sentence.

import en from './lang/en.js';
import { storageGet, storageSet, LANG_KEY } from './storage.js';

// DEFAULT is the language of last resort, and the one every catalogue
// falls back to.
const DEFAULT = 'en';

/** languages lists the codes of the catalogues the page offers ("ar", "en"). */
export function languages() {
  const listed = (document.documentElement.dataset.languages || '').split(/\s+/).filter(Boolean);
  return listed.length ? listed : [DEFAULT];
}

// chooseLanguage is the stored choice, then a ?lang= in the address (a
// link that asks for a language), then the browser's languages.
function chooseLanguage() {
  const have = languages();
  const asked = new URLSearchParams(location.search).get('lang');
  if (asked && have.includes(asked)) {
    storageSet(LANG_KEY, asked);
    return asked;
  }
  const stored = storageGet(LANG_KEY);
  if (have.includes(stored)) return stored;
  for (const tag of navigator.languages || [navigator.language || '']) {
    const primary = String(tag).split('-')[0].toLowerCase();
    if (have.includes(primary)) return primary;
  }
  return DEFAULT;
}

// loadCatalogue reads a language's file; English on any failure, so a
// broken catalogue never leaves the page without words.
async function loadCatalogue(lang) {
  if (lang === DEFAULT) return en;
  try {
    return (await import(`./lang/${lang}.js`)).default;
  } catch (err) {
    console.error(`i18n: the ${lang} catalogue could not be read`, err);
    return null;
  }
}

let lang = DEFAULT;
let cat = en;
let locale = 'en';
let plurals = null;
let ordinals = null;
let numbers = null;

// localeFor is the Intl locale of a language: the browser's own tag when
// it is of that language (ar-EG, en-GB: their dates), with the digits the
// catalogue asks for (lang.digits, a Unicode numbering system).
function localeFor(code, catalogue) {
  const tag = (navigator.languages || []).find((x) => String(x).split('-')[0].toLowerCase() === code) || code;
  const digits = catalogue['lang.digits'];
  let loc;
  try {
    loc = new Intl.Locale(tag, digits ? { numberingSystem: digits } : {}).toString();
  } catch {
    loc = code;
  }
  return loc;
}

async function use(code) {
  const loaded = await loadCatalogue(code);
  if (!loaded) code = DEFAULT;
  lang = code;
  cat = loaded || en;
  locale = localeFor(code, cat);
  plurals = new Intl.PluralRules(locale);
  ordinals = new Intl.PluralRules(locale, { type: 'ordinal' });
  numbers = new Intl.NumberFormat(locale, { useGrouping: 'min2' });
  const root = document.documentElement;
  root.lang = code;
  root.dir = cat['lang.dir'] === 'rtl' ? 'rtl' : 'ltr';
}

await use(chooseLanguage());

/** language is the code of the language shown ("en", "ar"). */
export function language() { return lang; }

/** intlLocale is the locale the page formats numbers and dates with. */
export function intlLocale() { return locale; }

/**
 * setLanguage shows the page in another language, and remembers the
 * choice. The caller draws the page again (app.js).
 */
export async function setLanguage(code) {
  if (!languages().includes(code)) return;
  storageSet(LANG_KEY, code);
  await use(code);
  translateDom(document);
}

/** languageName names a language in that language: "English", "العربية". */
export function languageName(code) {
  try {
    const name = new Intl.DisplayNames([code], { type: 'language' }).of(code);
    if (name && name !== code) return name.charAt(0).toLocaleUpperCase(code) + name.slice(1);
  } catch { /* the code below */ }
  return code;
}

const warned = new Set();
// DEV is a page served from this machine: a missing key is worth a warning
// there, not on a player's console.
const DEV = /^(localhost|127\.0\.0\.1|\[::1\])$/.test(location.hostname);

function lookup(key) {
  let v = cat[key];
  if (v === undefined) {
    v = en[key];
    if (DEV && !warned.has(key)) {
      warned.add(key);
      console.warn(v === undefined ? `i18n: no key ${key}` : `i18n: ${lang} lacks ${key}`);
    }
  }
  return v;
}

// fill puts the params in a template: {name}; numbers go through Intl.
function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (all, k) => {
    if (!(k in params)) return all;
    const v = params[k];
    return typeof v === 'number' ? fmtNumber(v) : String(v);
  });
}

/** t is the catalogue's sentence for key, with its {params} filled in. */
export function t(key, params) {
  const v = lookup(key);
  if (v === undefined) return key;
  if (typeof v === 'object') return fill(v.other, params); // a plural used without its count
  return fill(v, params);
}

/**
 * ltr keeps a run that reads left to right (the notation "T1:2-T4", a code)
 * whole in a right-to-left sentence: an isolate there, the text itself on a
 * left-to-right page.
 */
export function ltr(text) {
  return document.documentElement.dir === 'rtl' ? `\u2066${text}\u2069` : String(text);
}

/** has tells whether a key is in the catalogue or in English's. */
export function has(key) {
  return cat[key] !== undefined || en[key] !== undefined;
}

/**
 * plural is the form of key for the count n, as Intl.PluralRules chooses it
 * (English: one, other; Arabic: zero, one, two, few, many, other); {n} is
 * the count. A form the entry lacks falls back to its other.
 */
export function plural(key, n, params) {
  const v = lookup(key);
  const p = { n, ...params };
  if (v === undefined) return key;
  if (typeof v === 'string') return fill(v, p);
  return fill(v[plurals.select(n)] ?? v.other, p);
}

/** ordinal writes a place: "1st", "22nd" in English (the catalogue's "ordinal"). */
export function ordinal(n) {
  const v = lookup('ordinal');
  if (!v || typeof v !== 'object') return fmtNumber(n);
  return fill(v[ordinals.select(n)] ?? v.other, { n });
}

/** fmtNumber writes a number in the page's digits (grouped from 10,000). */
export function fmtNumber(n) {
  return numbers.format(n);
}

/** fmtDigits writes a whole number with at least width digits: 05. */
export function fmtDigits(n, width) {
  return new Intl.NumberFormat(locale, { minimumIntegerDigits: width, useGrouping: false }).format(n);
}

/** list joins words as the language does: "a, b and c". */
export function fmtList(items) {
  return new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' }).format(items.map(String));
}

/**
 * fmtDuration writes a long span of time in words: "2 days, 3 hr", "5 hr,
 * 12 min" (days and hours, or hours and minutes).
 */
export function fmtDuration(ms) {
  const mins = Math.max(0, Math.floor(ms / 60000));
  const days = Math.floor(mins / 1440);
  const parts = days >= 1 ? { days, hours: Math.floor((mins % 1440) / 60) } : { hours: Math.floor(mins / 60), minutes: mins % 60 };
  if (typeof Intl.DurationFormat === 'function') return new Intl.DurationFormat(locale, { style: 'short' }).format(parts);
  const unit = (v, u) => new Intl.NumberFormat(locale, { style: 'unit', unit: u, unitDisplay: 'short' }).format(v);
  return Object.entries(parts).filter(([, v]) => v).map(([u, v]) => unit(v, u.slice(0, -1))).join(' ');
}

// A time the server sent is shown in the player's zone and language.
function dateOf(t) {
  const d = t instanceof Date ? t : new Date(t);
  return Number.isNaN(d.getTime()) ? null : d;
}

// DAY is how a day is written: its month named ("6 Dec 2026", "6 ديسمبر
// 2026"), not in digits, whose order differs from one country to another.
const DAY = { year: 'numeric', month: 'short', day: 'numeric' };

/** fmtDate writes a day: "4 Dec 2026" (a server day, "2026-12-04", read as UTC). */
export function fmtDate(t) {
  if (typeof t === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(t)) {
    const d = dateOf(`${t}T00:00:00Z`);
    return d ? new Intl.DateTimeFormat(locale, { ...DAY, timeZone: 'UTC' }).format(d) : t;
  }
  const d = dateOf(t);
  return d ? new Intl.DateTimeFormat(locale, DAY).format(d) : '';
}

/** fmtTime writes a date and time: "4 Dec 2026, 18:30". */
export function fmtTime(t) {
  const d = dateOf(t);
  return d ? new Intl.DateTimeFormat(locale, { ...DAY, hour: 'numeric', minute: '2-digit' }).format(d) : '';
}

/**
 * translateDom fills the page's fixed words (index.html): data-t names the
 * key of an element's text, data-t-label of its aria-label, data-t-title
 * of its title.
 */
export function translateDom(root) {
  for (const el of root.querySelectorAll('[data-t]')) el.textContent = t(el.dataset.t);
  for (const el of root.querySelectorAll('[data-t-label]')) el.setAttribute('aria-label', t(el.dataset.tLabel));
  for (const el of root.querySelectorAll('[data-t-title]')) el.title = t(el.dataset.tTitle);
  if (root === document) document.title = t('app.title');
}

// ---- the server's refusals ----

// SERVER_WORDS map the server's English messages that players meet most to
// catalogue keys: a message that contains the words (the server may put a
// context before them, "match: the match is full") gets that key's sentence.
const SERVER_WORDS = [
  ['a name is 1 to 24', 'error.msg.bad_name'],
  ['unknown or expired token', 'error.msg.unknown_token'],
  ['you are in no match', 'error.msg.no_current_match'],
  ['no such match', 'error.msg.no_such_match'],
  ['no such player', 'error.msg.no_such_player'],
  ['no such round', 'error.msg.no_such_round'],
  ['no such challenge or daily round', 'error.msg.no_such_challenge'],
  ['you are playing in another match', 'error.msg.in_another_match'],
  ['the server is shutting down', 'error.msg.shutting_down'],
  ['too many open matches from your address', 'error.msg.too_many_open_from_addr'],
  ['the server has too many open matches', 'error.msg.too_many_open'],
  ['too many new players from your address', 'error.msg.too_many_new_sessions'],
  ['bad cursor', 'error.msg.bad_cursor'],
  ['at most 10 passkeys', 'error.msg.too_many_passkeys'],
  ['this passkey is registered already', 'error.msg.passkey_taken'],
  ['winnable deals are offered for', 'error.msg.not_solvable'],
  ['hints are offered for', 'error.msg.no_hints_for_game'],
  ['hints are for solo practice', 'error.msg.no_hints'],
  ['this server offers no hints', 'error.msg.no_hints_server'],
  ['another hint is being searched', 'error.msg.hint_busy'],
  ['the match is full', 'error.msg.match_full'],
  ['the match is not open for joining', 'error.msg.not_open'],
  ['only the host can start the match', 'error.msg.not_host'],
  ['you are not a player of this match', 'error.msg.not_member'],
  ['the match has no players', 'error.msg.no_players'],
  ['the match is over', 'error.msg.match_closed'],
  ['the match is busy', 'error.msg.busy'],
  ['the match has already started', 'error.msg.already_started'],
  ['once it has started you cannot rejoin', 'error.msg.left'],
  ['the round is not running', 'error.msg.round_not_running'],
  ['you are not playing in this round', 'error.msg.not_in_round'],
  ['rated with a seed', 'error.msg.rated_seed'],
  ['bad settings', 'error.msg.bad_settings'],
  ['the server lost this game\u2019s data', 'error.msg.data_lost'],
  ["the server lost this game's data", 'error.msg.data_lost'],
  ['you have too many attempts in play', 'error.msg.too_many_attempts'],
  ['too many attempts in play from your address', 'error.msg.too_many_attempts_addr'],
  ['the server has too many attempts in play', 'error.msg.attempts_full'],
  ['have played today\u2019s deal', 'error.msg.daily_from_addr'],
  ["have played today's deal", 'error.msg.daily_from_addr'],
  ['only the challenge\u2019s creator can close it', 'error.msg.not_creator'],
  ["only the challenge's creator can close it", 'error.msg.not_creator'],
  ['too many challenges made lately', 'error.msg.too_many_challenges'],
  ['you have played this round already', 'error.msg.already_played'],
  ['window is closed', 'error.msg.window_closed'],
  ['20000-move limit', 'error.msg.move_limit'],
  ['say hello first', 'error.msg.hello_first'],
];

// RULE_WORDS map the engine's refusals (docs/rules.md, the words of
// engine.js's Err) to catalogue keys: a move refused is told by its rule.
const RULE_WORDS = [
  ['the game is over', 'rule.game_over'],
  ['the stock is empty', 'rule.stock_empty'],
  ['the waste goes back to the stock only when the stock is empty', 'rule.stock_not_empty'],
  ['the waste is empty', 'rule.waste_empty'],
  ['no passes through the stock are left', 'rule.no_passes_left'],
  ['the pile is empty', 'rule.pile_empty'],
  ['a pile cannot move onto itself', 'rule.same_pile'],
  ['a foundation takes the ace of its suit', 'rule.foundation_order'],
  ['a foundation takes the card of its suit of the base rank', 'rule.foundation_base'],
  ['one rank higher of the opposite colour', 'rule.build'],
  ['one rank higher of another suit', 'rule.build_suit'],
  ['one rank higher of the same colour', 'rule.build_colour'],
  ['an empty pile takes only a king', 'rule.king_only'],
  ['no face-up run of that pile fits there', 'rule.no_run_fits'],
  ['the count does not match the run that fits', 'rule.run_count'],
  ['do not allow cards back from a foundation', 'rule.no_foundation_moves'],
  ['that foundation is empty', 'rule.foundation_empty'],
  ['undo is off in this game', 'rule.undo_off'],
  ['undo cannot take back a move that turned a card', 'rule.undo_reveal'],
  ['there is no move to undo', 'rule.nothing_to_undo'],
  ['there is no move to redo', 'rule.nothing_to_redo'],
  ['bad move', 'rule.bad_move'],
  ['not a move', 'rule.bad_move'],
  ['20000-move limit', 'error.msg.move_limit'],
  ['the server lost this game', 'error.msg.data_lost'],
  ['out of order', 'rule.out_of_order'],
];

function known(words, text) {
  const s = String(text || '').toLowerCase();
  const hit = s && words.find(([w]) => s.includes(w.toLowerCase()));
  return hit ? hit[1] : '';
}

/**
 * errorText says in words why the server refused something: err is a
 * protocol error {code, message}, an HTTP one {code, message, status}, one
 * of the client's own {code, key} or an Error. A message of the server's
 * that the catalogue knows becomes its sentence; otherwise the code's. In
 * English the server's own words follow an unknown message's sentence, as
 * its detail; other languages never show them.
 */
export function errorText(err) {
  if (!err) return t('error.unknown');
  if (err.key) return t(err.key, err.params);
  const msg = err.message || err.reason || '';
  const hit = known(SERVER_WORDS, msg) || known(RULE_WORDS, msg);
  if (hit) return t(hit);
  if (/^http_\d+$/.test(err.code || '')) {
    const sentence = t('error.http', { status: err.status || err.code.slice(5) });
    return lang === DEFAULT && msg ? `${sentence} (${msg})` : sentence;
  }
  const code = err.code && has(`error.${err.code}`) ? `error.${err.code}` : 'error.unknown';
  const sentence = t(code);
  if (lang === DEFAULT && msg && msg !== 'internal error') return `${sentence} (${msg})`;
  return sentence;
}

/**
 * moveReason is a refused move's reason. English shows the server's words,
 * which name the cards ("QH on TS: a card goes on …"); other languages the
 * rule's sentence, with the cards as printed when the server named them.
 */
export function moveReason(m) {
  const reason = m.reason || m.message || '';
  if (lang === DEFAULT && reason) return reason;
  const key = known(RULE_WORDS, reason) || known(SERVER_WORDS, reason);
  if (!key) return errorText({ code: m.code });
  // "QH on TS: …", "KD to the empty D foundation: …": the cards, as the
  // notation writes them, stay.
  const m2 = /^([A2-9TJQK][CDHS])(?: on ([A2-9TJQK][CDHS]))?[: ]/.exec(reason);
  if (!m2) return t(key);
  const cards = m2[2] ? t('rule.cards_on', { a: cardShown(m2[1]), b: cardShown(m2[2]) }) : cardShown(m2[1]);
  return `${cards}: ${t(key)}`;
}

// cardShown writes a card of the notation as printed, "TS" → "10♠", kept
// left to right among words of either direction (an isolate).
function cardShown(c) {
  const sym = { C: '\u2663\uFE0E', D: '\u2666\uFE0E', H: '\u2665\uFE0E', S: '\u2660\uFE0E' };
  return `\u2066${c[0] === 'T' ? '10' : c[0]}${sym[c[1]]}\u2069`;
}
