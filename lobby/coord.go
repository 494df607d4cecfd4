package lobby

import (
	"context"
	"time"

	"klondike/match"
)

// An OpenMatch is a match on the list of open matches and its place there
// (see match.Coord.SaveMatch's open): what Coord.OpenMatches lists.
type OpenMatch struct {
	ID string
	// Seq is the match's place on the list, 1 or more: larger for every
	// match that joined it later.
	Seq int64
}

// A Coord is what the lobby shares with the other server nodes: what its
// matches need (match.Coord), and the lobby's own indexes over them (the
// list of open matches, invite codes, players' current matches), the
// records of rounds played anywhere, the bus's receiving end and the data
// epoch. memstore.Coord serves one process; redisstore.Coord lets several
// nodes serve the same players.
//
// Every method returns an error matching match.ErrUnavailable when the
// shared state cannot be reached; the caller may retry.
type Coord interface {
	match.Coord

	// OpenMatches returns the matches last saved with open set (see
	// match.Coord.SaveMatch) whose place on the list is after the place
	// after (0: from the start), in the order they joined the list, at
	// most limit of them (limit ≤ 0: all). A match keeps its place while
	// it stays open; one that leaves the list and joins it again gets a
	// new place at the end. Places only grow, so a reader that pages
	// through the list, each time after the last place it was given, sees
	// every match that stayed open meanwhile exactly once, and those that
	// joined meanwhile if still open when it gets there.
	OpenMatches(ctx context.Context, after int64, limit int) ([]OpenMatch, error)

	// ClaimCode maps an invite code to a match for ttl unless the code is
	// already mapped: ok is false then, and nothing changes.
	ClaimCode(ctx context.Context, code, matchID string, ttl time.Duration) (ok bool, err error)
	// CodeMatch returns the match of an invite code; match.ErrNotFound if
	// none.
	CodeMatch(ctx context.Context, code string) (matchID string, err error)
	// SetPlayerMatch records the player's current match for ttl; an empty
	// matchID forgets it.
	SetPlayerMatch(ctx context.Context, playerID, matchID string, ttl time.Duration) error
	// PlayerMatch returns the player's current match, or "" if none.
	PlayerMatch(ctx context.Context, playerID string) (string, error)

	// LoadRound returns a round's record (match.Coord.SaveRound);
	// match.ErrNotFound if there is none.
	LoadRound(ctx context.Context, roundID string) ([]byte, error)

	// Subscribe calls f, on one goroutine of the Coord's, with every
	// message published (match.Coord.Publish) from now on, until ctx is
	// done. It returns once the subscription is in place, or with an error
	// if it cannot be made. A subscription that breaks is made again by
	// the Coord itself; messages published meanwhile are lost, so once it
	// is in place again the Coord calls f(nil) for the lobby to read again
	// what it may have missed.
	Subscribe(ctx context.Context, f func(msg []byte)) error

	// DataEpoch returns the shared state's data epoch: a random value
	// written when the state is first used. A different value than before
	// means the shared state lost its data (a Redis restarted empty).
	DataEpoch(ctx context.Context) (string, error)
}
