package match

import (
	"context"
	"errors"
	"time"
)

// ErrVersionConflict: a record changed since it was read; read it again and
// retry.
var ErrVersionConflict = errors.New("the record changed since it was read")

// ErrRoundClosed: the round has ended in the store; it takes no more moves.
var ErrRoundClosed = errors.New("the round is closed")

// An OpenMatch is a match on the list of open matches and its place there.
type OpenMatch struct {
	ID string
	// Seq is the match's place on the list, 1 or more: larger for every
	// match that joined it later.
	Seq int64
}

// A Coord is what the server nodes share besides move logs and standings:
// the matches' records, the lobby's indexes, a message bus between nodes,
// leases, and the data epoch. The memory implementation serves one
// process; the Redis one lets several nodes serve the same matches.
//
// Every method returns an error matching ErrUnavailable when the shared
// state cannot be reached; the caller may retry. Records are opaque bytes:
// the match package encodes them.
type Coord interface {
	// LoadMatch returns a match's record and its version (1 or more);
	// ErrNotFound if there is none.
	LoadMatch(ctx context.Context, id string) (rec []byte, version int64, err error)
	// MatchVersion returns the version LoadMatch would, without the record
	// (a cheap check whether a replica is behind); ErrNotFound if none.
	MatchVersion(ctx context.Context, id string) (int64, error)
	// SaveMatch stores a match's record as version prev+1 if its version is
	// still prev (0: the match must not exist yet), and returns the new
	// version; ErrVersionConflict otherwise, changing nothing. In the same
	// atomic step the match joins the list of open matches when open is
	// true and leaves it when false. The record lives ttl after its last
	// save.
	SaveMatch(ctx context.Context, id string, prev int64, rec []byte, open bool, ttl time.Duration) (version int64, err error)
	// OpenMatches returns the matches last saved with open set whose place
	// on the list is after the place after (0: from the start), in the
	// order they joined the list, at most limit of them (limit ≤ 0: all).
	// A match keeps its place while it stays open; one that leaves the list
	// and joins it again gets a new place at the end. Places only grow, so
	// a reader that pages through the list, each time after the last place
	// it was given, sees every match that stayed open meanwhile exactly
	// once, and those that joined meanwhile if still open when it gets
	// there.
	OpenMatches(ctx context.Context, after int64, limit int) ([]OpenMatch, error)

	// ClaimCode maps an invite code to a match for ttl unless the code is
	// already mapped: ok is false then, and nothing changes.
	ClaimCode(ctx context.Context, code, matchID string, ttl time.Duration) (ok bool, err error)
	// CodeMatch returns the match of an invite code; ErrNotFound if none.
	CodeMatch(ctx context.Context, code string) (matchID string, err error)
	// SetPlayerMatch records the player's current match for ttl; an empty
	// matchID forgets it.
	SetPlayerMatch(ctx context.Context, playerID, matchID string, ttl time.Duration) error
	// PlayerMatch returns the player's current match, or "" if none.
	PlayerMatch(ctx context.Context, playerID string) (string, error)

	// SaveRound stores a round's record (overwriting it) for ttl.
	SaveRound(ctx context.Context, roundID string, rec []byte, ttl time.Duration) error
	// LoadRound returns a round's record; ErrNotFound if there is none.
	LoadRound(ctx context.Context, roundID string) ([]byte, error)

	// Publish sends msg to every subscriber of every node, this one
	// included. Delivery is best effort (a node that is not subscribed at
	// that moment misses it); the messages of one publisher reach each
	// subscriber in the order they were published.
	Publish(ctx context.Context, msg []byte) error
	// Subscribe calls f, on one goroutine of the Coord's, with every message
	// published from now on, until ctx is done. It returns once the
	// subscription is in place, or with an error if it cannot be made. A
	// subscription that breaks is made again by the Coord itself; messages
	// published meanwhile are lost.
	Subscribe(ctx context.Context, f func(msg []byte)) error

	// Lease takes the named lease for holder, or renews it if holder has
	// it, for ttl; it reports whether holder has it now. Another holder
	// gets it only once it expired.
	Lease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	// ReleaseLease gives the lease up if holder has it.
	ReleaseLease(ctx context.Context, name, holder string) error

	// DataEpoch returns the shared state's data epoch: a random value
	// written when the state is first used. A different value than before
	// means the shared state lost its data (a Redis restarted empty).
	DataEpoch(ctx context.Context) (string, error)
}
