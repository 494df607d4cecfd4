// What the browser keeps (localStorage): every key the client writes, what
// it holds and why, in one list. The privacy page shows this list, so a key
// that is not in it cannot be written (storageSet refuses it), and the page
// and the code cannot drift apart.
//
// localStorage is shared by every tab of a browser and lasts across
// restarts: the device credential kept here makes every tab, and the same
// browser tomorrow, one player.

export const TOKEN_KEY = 'klondike.token';
export const NAME_KEY = 'klondike.name';
export const FOUR_KEY = 'klondike.fourColour';
export const LAST_SETTINGS_KEY = 'klondike.settings';
export const COMMITMENTS_KEY = 'klondike.commitments';
export const LANG_KEY = 'klondike.lang';

/**
 * STORED is every key the client keeps: {key, holds, why}, where holds and
 * why are the keys of their words in the catalogues (i18n.js), which this
 * module, below it, does not read.
 */
export const STORED = [
  { key: TOKEN_KEY, holds: 'storage.token.holds', why: 'storage.token.why' },
  { key: NAME_KEY, holds: 'storage.name.holds', why: 'storage.name.why' },
  { key: FOUR_KEY, holds: 'storage.four.holds', why: 'storage.four.why' },
  { key: LANG_KEY, holds: 'storage.lang.holds', why: 'storage.lang.why' },
  { key: LAST_SETTINGS_KEY, holds: 'storage.settings.holds', why: 'storage.settings.why' },
  { key: COMMITMENTS_KEY, holds: 'storage.commitments.holds', why: 'storage.commitments.why' },
];

const KNOWN = new Set(STORED.map((s) => s.key));

/** storageGet reads a key, or fallback when it is unset or storage is off. */
export function storageGet(key, fallback = '') {
  try { const v = localStorage.getItem(key); return v === null ? fallback : v; } catch { return fallback; }
}

/** storageSet writes a key of STORED; '' removes it. */
export function storageSet(key, value) {
  if (!KNOWN.has(key)) throw new Error(`${key} is not among the keys the privacy page lists`);
  try {
    if (value === '' || value === null || value === undefined) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch { /* private mode, or storage off: the value lasts as long as the page */ }
}
