// Package lobby is a node's door to the live matches: the players'
// sessions and tokens, the node's replicas of matches, finding matches by
// id or invite code, the open list, quick match, ready and start,
// spectating, rematch, each player's current match, the caps on open
// matches and on new players an address, the data epoch and a janitor.
// Each match runs its own goroutine (package match).
//
// It declares the interfaces it needs beyond match's: Coord (the matches'
// records, the open list, invite codes, the bus between nodes) and
// Players (players, their credentials and passkeys), with the types they
// carry (Player, Passkey, OpenMatch);
// lobby/memstore and lobby/redisstore implement them.
//
// Challenges (attempts at a deal shared as a link, the daily deal, their
// boards, ghosts and the players' records) are lobby/challenge's: the
// lobby only hands it the rounds of attempts (Config.AttemptRound) and
// the results of finished race rounds (Config.OnRoundResults).
package lobby
