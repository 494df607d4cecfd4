// The client's state: one plain object, S, that the message handlers change
// and the screens read. Everything the server said lives here; a screen
// keeps only what is its own (a selection, a poll under way), so a resumed
// session, which resends the match and the round, puts the client back
// together through the same handlers as a fresh one.
//
// app.js shows S as window.klondike.state; the browser tests in api/webtest
// read it (and change lastSeq to force a resync), so its field names are
// part of what they check.

import { storageGet, NAME_KEY } from './storage.js';
import { parseRoute } from './route.js';

// What the browser keeps across visits (the player's credential and name,
// the settings) is listed in storage.js, with the privacy page's words.

const route = parseRoute(location);

export const S = {
  name: storageGet(NAME_KEY),
  conn: null, // the Connection, once the player has a name
  connected: false, // the connection is open and welcomed
  me: '', // player id
  tag: '', // the player's tag ("#3F2A"): tells two players of one name apart
  // elsewhere is the id of the player's match while another tab of theirs
  // plays it (playing_elsewhere): this tab shows "Play here" over it.
  elsewhere: '',
  match: null, // the protocol's match object
  spectating: '', // the id of a match watched
  leaving: '', // the id of a match being left: its pushes are ignored
  // lobbyList is the lobby's list of open matches as far as the player
  // has paged through it: next is the cursor of the page after it ('' at
  // the end), pages how many pages it holds.
  lobbyList: { matches: [], next: '', pages: 1 },
  // round is the current round, its view and its moves in flight (see
  // newRound in round.js).
  round: null,
  leaderboard: null, // the last leaderboard message of the round
  roundOver: null, // the round_over message shown on the results screen
  matchOver: null, // the match_over message
  dealOffer: null, // {seed, draw, passes, scoring, game} from /deal/<seed>
  watchOffer: '', // the code of a match a link named that had already started
  route,
  routeDone: false, // the link that opened the page has been acted on
  welcomed: false, // a welcome came on this page at least once
  // resumedId is the match a resumed session brought back while a link
  // waits: its first snapshot decides whether the link goes ahead.
  resumedId: '',
  // linkConflict is a link that would take the player out of a live match:
  // they choose between the two.
  linkConflict: null,
  // dismissed holds matches a link replaced: their pushes are not adopted.
  dismissed: new Set(),
  // page is what the tab shows outside a match: {kind: 'lobby'}, the daily
  // deals {kind: 'daily'}, a challenge {kind: 'challenge', id}, the
  // player's records {kind: 'records', back} (back: the page to return to),
  // a player's profile {kind: 'profile', id}, a ladder {kind: 'ladder',
  // game, draw} or the privacy page {kind: 'privacy'}. The last three need
  // no name, so they show from the start.
  page: ['profile', 'privacy', 'ladder'].includes(route.kind) ? { ...route } : { kind: 'lobby' },
  // asyncRounds holds the last async_round message of each asynchronous
  // round asked about, by round id: {round (AsyncInfo), url, attempt}.
  asyncRounds: {},
  // attempt is the player's attempt being played: {asyncId, roundId, kind};
  // S.round is its round (the board, the clock, the moves).
  attempt: null,
  ghost: null, // the last ghost message of the attempt
  attemptOver: null, // the last attempt_over message
};

/** isPlayer reports whether the player has a seat in the match info. */
export function isPlayer(info) {
  return !!(info && info.players && info.players.some((p) => p.player_id === S.me));
}

/** resetRound forgets the round and its results, for another match. */
export function resetRound() {
  S.round = null;
  S.leaderboard = null;
  S.roundOver = null;
  S.matchOver = null;
}
