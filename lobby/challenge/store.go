package challenge

import (
	"context"
	"time"

	"klondike/match"
)

// A Store keeps challenges, their attempts and their boards, shared by
// every node. The memory implementation (lobby/memstore) serves one
// process; the Redis one (lobby/redisstore) many nodes. Every method
// returns an error matching match.ErrUnavailable when the store cannot be
// reached.
type Store interface {
	// Create stores rec unless a challenge with its id exists; it returns
	// the record that stands and whether this call made it. Nodes that
	// race to make the same daily round so agree on one.
	Create(ctx context.Context, rec Record, ttl time.Duration) (stored Record, created bool, err error)
	// Load returns a challenge's record; match.ErrNotFound if none.
	Load(ctx context.Context, id string) (Record, error)
	// CloseEarly brings the challenge's close forward to at (never later)
	// and marks it closed early; it returns the record that stands.
	CloseEarly(ctx context.Context, id string, at time.Time) (Record, error)

	// StartAttempt records the player's attempt unless they have one; it
	// returns the attempt that stands (the earlier one, if any) and whether
	// this call started it. One attempt a player, across every node.
	StartAttempt(ctx context.Context, id string, a Attempt) (stored Attempt, fresh bool, err error)
	// Attempt returns the player's attempt; match.ErrNotFound if none.
	Attempt(ctx context.Context, id, playerID string) (Attempt, error)
	// Attempts returns up to limit attempts after cursor ("" for the first
	// page) and the cursor of the next page ("" after the last): every
	// attempt that exists throughout comes once.
	Attempts(ctx context.Context, id, cursor string, limit int) ([]Attempt, string, error)

	// Finish puts the player's entry on the board and marks their attempt
	// finished, in O(log N) work for N entries. The first entry of a player
	// stands: finishing again changes nothing and reports false.
	Finish(ctx context.Context, id string, e match.BoardEntry) (bool, error)
	// Board returns the counts, the first top entries and, when playerID
	// has an entry, the entries from around places before it to around
	// after it.
	Board(ctx context.Context, id string, top int, playerID string, around int) (BoardPage, error)
	// BoardRange returns the entries at ranks from to from+limit-1 (1 is
	// the first), fewer at the board's end.
	BoardRange(ctx context.Context, id string, from, limit int) ([]match.BoardEntry, error)
	// PlayerEntry returns the player's entry with its rank;
	// match.ErrNotFound if the player has none.
	PlayerEntry(ctx context.Context, id, playerID string) (match.BoardEntry, error)

	// Made returns up to limit of the challenges (KindChallenge) the player
	// created that the store still keeps, newest first: Create indexes a
	// challenge under its CreatorID for as long as it keeps the challenge.
	// Newest is by OpensAt (when a player's challenge opens, which is when
	// it was made), to the millisecond, then by id, greater first. Each
	// record is as the store has it now (closed early, say), its deal's
	// secrets included. A limit below 1 is an error.
	Made(ctx context.Context, creatorID string, limit int) ([]Record, error)
}

// A RecordStore keeps every player's records. Every method returns an
// error matching match.ErrUnavailable when the store cannot be reached.
type RecordStore interface {
	// AddResult counts g in the player's record of g.Variant
	// (VariantRecord.Add), once per g.GameID: counting the same game
	// again changes nothing and reports false.
	AddResult(ctx context.Context, playerID string, g GameResult) (bool, error)
	// Records returns the player's records, one per variant played, in
	// the order of their variants' names; none for a player with no game.
	Records(ctx context.Context, playerID string) ([]VariantRecord, error)
	// Recent returns up to limit of the player's last results, newest
	// first: AddResult keeps the last MaxRecent of each player. Last and
	// newest are by Finished, to the millisecond (then by the result's
	// JSON, greater first), whatever order the results were counted in: a
	// result counted late goes where its time puts it, or nowhere if
	// MaxRecent newer ones are kept. A limit below 1 is an error.
	Recent(ctx context.Context, playerID string, limit int) ([]GameResult, error)
	// DeleteRecords forgets the player's records and recent results (and
	// which games were counted: a game counted before counts again).
	DeleteRecords(ctx context.Context, playerID string) error
}

// MaxRecent is how many of a player's last results a RecordStore keeps.
const MaxRecent = 20
