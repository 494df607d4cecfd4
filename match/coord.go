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

// A Coord is what a match shares with the other server nodes besides move
// logs and standings: its record, a message bus between nodes, the lease
// of its clock, and the records of its rounds. The memory implementation
// (memstore) serves one process; the Redis one (redisstore) lets several
// nodes serve the same matches. The lobby asks more of the same backends
// (lobby.Coord).
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

	// SaveRound stores a round's record (overwriting it) for ttl.
	SaveRound(ctx context.Context, roundID string, rec []byte, ttl time.Duration) error

	// Publish sends msg to every subscriber of every node, this one
	// included. Delivery is best effort (a node that is not subscribed at
	// that moment misses it); the messages of one publisher reach each
	// subscriber in the order they were published.
	Publish(ctx context.Context, msg []byte) error

	// KeepNode marks the node live for ttl from now; it reports whether
	// the node was live until now (false the first time, and after a
	// lapse, when its leases may have passed to other nodes).
	KeepNode(ctx context.Context, node string, ttl time.Duration) (kept bool, err error)
	// Lease takes the named lease for holder (a node's name), or renews
	// it if holder has it, for ttl; it reports whether holder has it now.
	// Another holder gets it only once it expired, or once the holder's
	// node is no longer live (see KeepNode).
	Lease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	// ReleaseLease gives the lease up if holder has it.
	ReleaseLease(ctx context.Context, name, holder string) error
}
