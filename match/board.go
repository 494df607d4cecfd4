package match

import (
	"context"
	"time"

	"klondike/engine"
)

// A BoardEntry is one finished attempt on an asynchronous round's board.
type BoardEntry struct {
	PlayerID   string        `json:"player_id"`
	Name       string        `json:"name"`
	Rank       int           `json:"rank"` // 1 first; set when read from the board
	Score      int           `json:"score"`
	Foundation int           `json:"foundation"`
	Moves      int           `json:"moves"`
	Status     engine.Status `json:"status"`
	ElapsedMs  int64         `json:"elapsed_ms"` // on the player's own clock: the finish, or the end of the attempt
	ReachedMs  int64         `json:"reached_ms"`
	// Key orders the board: the smallest key ranks first (BoardKey).
	Key string `json:"-"`
}

// A BoardPage is what a reader of a board asks for at once: the counts,
// the top of the board and, for a player on it, their own entry among
// their neighbours.
type BoardPage struct {
	Players  int          `json:"players"`  // attempts started
	Finished int          `json:"finished"` // entries on the board
	Top      []BoardEntry `json:"top"`
	// Around is the player's entry with up to the asked number of
	// neighbours on each side, best first; empty when the player has no
	// entry.
	Around []BoardEntry `json:"around,omitempty"`
	Rank   int          `json:"rank,omitempty"` // the player's rank, 0 if none
}

// BoardEntryOf returns a finished attempt's entry: the standing ranked on
// the player's own clock, endMs being where that clock stopped (the time
// limit or the close for a game that did not end sooner).
func BoardEntryOf(a *AsyncRecord, st Standing, endMs int64) BoardEntry {
	at := endMs
	if st.FinishedMs >= 0 {
		at = st.FinishedMs
	}
	st.Join = 0 // the player id in the key breaks the last tie
	return BoardEntry{
		PlayerID: st.PlayerID, Name: st.Name, Score: RoundScore(a.Rules, st, endMs), Foundation: st.Foundation,
		Moves: st.Moves, Status: st.Status, ElapsedMs: at, ReachedMs: st.ReachedMs,
		Key: RankKey(a.Mode, a.Rules, st, endMs),
	}
}

// An AsyncStore keeps asynchronous rounds, their attempts and their boards,
// shared by every node. The memory implementation (memstore) serves one
// process; the Redis one (redisstore) many nodes. Every method returns an
// error matching ErrUnavailable when the store cannot be reached.
type AsyncStore interface {
	// CreateAsync stores rec unless a round with its id exists; it returns
	// the record that stands and whether this call made it. Nodes that
	// race to make the same daily round so agree on one.
	CreateAsync(ctx context.Context, rec AsyncRecord, ttl time.Duration) (stored AsyncRecord, created bool, err error)
	// LoadAsync returns a round's record; ErrNotFound if none.
	LoadAsync(ctx context.Context, id string) (AsyncRecord, error)
	// CloseAsync brings the round's close forward to at (never later) and
	// marks it closed early; it returns the record that stands.
	CloseAsync(ctx context.Context, id string, at time.Time) (AsyncRecord, error)

	// StartAttempt records the player's attempt unless they have one; it
	// returns the attempt that stands (the earlier one, if any) and whether
	// this call started it. One attempt a player, across every node.
	StartAttempt(ctx context.Context, id string, a Attempt) (stored Attempt, fresh bool, err error)
	// Attempt returns the player's attempt; ErrNotFound if none.
	Attempt(ctx context.Context, id, playerID string) (Attempt, error)
	// Attempts returns up to limit attempts after cursor ("" for the first
	// page) and the cursor of the next page ("" after the last): every
	// attempt that exists throughout comes once.
	Attempts(ctx context.Context, id, cursor string, limit int) ([]Attempt, string, error)

	// Finish puts the player's entry on the board and marks their attempt
	// finished, in O(log N) work for N entries. The first entry of a player
	// stands: finishing again changes nothing and reports false.
	Finish(ctx context.Context, id string, e BoardEntry) (bool, error)
	// Board returns the counts, the first top entries and, when playerID
	// has an entry, the entries from around places before it to around
	// after it.
	Board(ctx context.Context, id string, top int, playerID string, around int) (BoardPage, error)
	// BoardRange returns the entries at ranks from to from+limit-1 (1 is
	// the first), fewer at the board's end.
	BoardRange(ctx context.Context, id string, from, limit int) ([]BoardEntry, error)
	// PlayerEntry returns the player's entry with its rank; ErrNotFound if
	// the player has none.
	PlayerEntry(ctx context.Context, id, playerID string) (BoardEntry, error)
}
