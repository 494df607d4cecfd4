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

/** STORED is every key the client keeps: {key, holds, why}. */
export const STORED = [
  {
    key: TOKEN_KEY,
    holds: 'This browser\u2019s device credential: a random secret of 48 characters the server gave it.',
    why: 'It makes every tab of this browser, today and after a restart, the same player, with the same records, streaks, challenges and game in progress. Signing out forgets it.',
  },
  {
    key: NAME_KEY,
    holds: 'The name you play under.',
    why: 'To say hello with it, and to fill in the name box next time.',
  },
  {
    key: FOUR_KEY,
    holds: 'Whether the four-colour suits are on ("1") or off ("0").',
    why: 'To draw the cards the way you chose.',
  },
  {
    key: LAST_SETTINGS_KEY,
    holds: 'The settings of the last match or challenge you made (the game, the draw, the rules), without its deal number.',
    why: 'To start the forms from them next time.',
  },
  {
    key: COMMITMENTS_KEY,
    holds: 'The commitments of the last 60 daily deals and challenges you saw open: each round\u2019s id and the SHA-256 published before anyone played.',
    why: 'To check each deal, once it is revealed, against the commitment you saw before playing, not only against what the server says afterwards.',
  },
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
