package match

import (
	"context"
	"errors"
	"time"

	"klondike/engine"
)

// A LogEntry is one accepted move of a player's log for a round.
type LogEntry struct {
	Seq  int    `json:"seq"`   // 1-based index in the player's log
	Move string `json:"move"`  // canonical notation
	AtMs int64  `json:"at_ms"` // server time since the round started
}

// A Standing is a player's result so far in a round: what the score keeper
// ranks.
type Standing struct {
	PlayerID   string        `json:"player_id"`
	Name       string        `json:"name"`
	Join       int           `json:"-"`                // seat order, the last tie-break
	Points     int           `json:"points"`           // running move points
	Foundation int           `json:"foundation"`       // cards on the foundations
	Moves      int           `json:"moves"`            // accepted moves
	Status     engine.Status `json:"status"`           // playing, won, stuck, resigned, timed_out
	FinishedMs int64         `json:"finished_ms"`      // when the game ended, or −1
	ReachedMs  int64         `json:"reached_ms"`       // when foundation and points last changed
	Helped     bool          `json:"helped,omitempty"` // the player asked for a hint (solo practice)
}

// Errors of a Store.
var (
	// ErrSeqConflict: the log already holds an entry at that sequence number.
	ErrSeqConflict = errors.New("sequence number already in the log")
	// ErrSeqGap: the entry's sequence number is beyond the next one.
	ErrSeqGap = errors.New("sequence number beyond the next")
	// ErrStaleWriter: a newer writer (epoch) owns the player's log.
	ErrStaleWriter = errors.New("another writer owns this log")
	// ErrDataLost: the round's data is gone from the store (a store that
	// was emptied, or came back empty): the game cannot be kept, so it no
	// longer counts. Trying again cannot succeed.
	ErrDataLost = errors.New("the server lost this game's data (its store was emptied): this game no longer counts")
	// ErrNotFound: no such round or player.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: the store cannot be reached; the caller may retry.
	ErrUnavailable = errors.New("store unavailable")
)

// A Store keeps each round's move logs and score keeper. The memory store
// is the embedded default; a Redis store makes them durable and shared.
type Store interface {
	// Append adds e to the player's log for the round and sets the player's
	// standing, atomically, in one round trip. e.Seq must be the log's
	// length plus one. Append is idempotent: when the log already holds e
	// itself at e.Seq (a retry whose first reply was lost) it changes
	// nothing and returns nil; a different entry there gives ErrSeqConflict,
	// a larger seq ErrSeqGap. A writer whose epoch is older than the log's
	// gets ErrStaleWriter; a newer epoch takes the log over. An entry past
	// the first by a writer of a claimed epoch (above 0) that the store
	// has no epoch for gets ErrDataLost: the round's data is gone from the
	// store, the seat's writer epoch and the log before seq, and taking
	// the log over would keep a game whose start is lost. It returns an
	// error matching ErrUnavailable when the store cannot be reached.
	Append(ctx context.Context, roundID string, epoch uint64, e LogEntry, s Standing) error
	// SetStanding sets a player's standing without a move (a resignation,
	// a time-out, a seat taken at round start).
	SetStanding(ctx context.Context, roundID string, s Standing) error
	// Log returns the player's log for the round, oldest first.
	Log(ctx context.Context, roundID, playerID string) ([]LogEntry, error)
	// Standings returns every player's standing in the round, in no
	// particular order; ErrNotFound if the round has none.
	Standings(ctx context.Context, roundID string) ([]Standing, error)
	// Ping reports whether the store can serve.
	Ping(ctx context.Context) error

	// ClaimSeat makes a new writer epoch for the player's log, newer than
	// any before, and returns it: from then on appends with an older epoch
	// fail with ErrStaleWriter. A node that takes over a player's seat (the
	// player reconnected to it) claims the seat before its first append.
	ClaimSeat(ctx context.Context, roundID, playerID string) (epoch uint64, err error)
	// CloseRound ends the round in the store: every Append after it fails
	// with ErrRoundClosed, except a retry of an entry already in the log,
	// which still answers as a retry. SetStanding still works. Closing a
	// closed round is a no-op.
	CloseRound(ctx context.Context, roundID string) error
	// Keep makes the round's logs and standings live until at least
	// until, however long ago they were last written; a store whose data
	// does not expire has nothing to do. An attempt at a challenge is
	// published at the challenge's close, which may come long after the
	// attempt's last move.
	Keep(ctx context.Context, roundID string, until time.Time) error
}
