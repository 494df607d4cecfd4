// Package challenge runs the rounds that players play each on their own
// clock: a challenge is one committed deal that any number of players each
// play once within a window; a player makes one and shares it as a link,
// and the server makes the daily rounds, one a UTC day and daily variant.
//
// A Record is a challenge, kept in a Store with its attempts and its
// board. Service is a node's door to them: Create, Load, Info, CloseEarly,
// StartAttempt and AttemptState, Board, BoardRange and Replay, Daily, Made
// (the challenges a player made, newest first), and Records and Recent (a
// player's records and last games, in a RecordStore, which count race
// rounds too: CountRound), which ForgetPlayer forgets. Everything of a
// player is keyed by the player's id alone: the one attempt at each
// challenge and daily round, a challenge's creator, the records, the
// daily streaks and the limit on challenges made. Each attempt is a match.Round of one player
// (Record.AttemptRecord), so moves, seats, resuming on any node and
// replays work as in a race; the node that serves it sends its player
// ghosts (GhostTrack: how the leader and the friend who sent the link
// stood at the same time of their own clocks) and ends it when the game
// ends or the time runs out. Once a window has closed, the first reader on
// each node closes it out: every attempt not yet on the board ends as it
// stands.
//
// The service needs of the live lobby only whether the node is ready and
// the players who said hello (Lobby); the lobby asks it for the rounds of
// attempts (lobby.Config.AttemptRound, Service.Round).
//
// Info is what anyone may know of a challenge, BoardPage a page of its
// board, VariantRecord and GameResult a player's records by Variant; the
// api writes them as api/protocol's objects. Three of the challenges'
// values stay in package match, whose own code names them: BoardEntry and
// Ghost, which its events AttemptOver and GhostUpdate carry, and
// AttemptRoundID (with SplitAttemptRoundID), by which a Round knows it is
// an attempt (no hints).
//
// lobby/memstore and lobby/redisstore implement Store and RecordStore
// (Store.Made and RecordStore.Recent read indexes they keep as they
// create challenges and count games); lobby/storetest's RunChallenges and
// RunRecords are the suites they pass.
package challenge
