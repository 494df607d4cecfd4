package match

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"klondike/engine"
)

// A seat is one player's place in a round, on the node that serves the
// player.
type seat struct {
	mu       sync.Mutex
	game     *engine.Game
	log      []LogEntry
	standing Standing
	epoch    uint64
	stale    atomic.Bool // replaced: the next use makes a new seat (set without the seat's lock)
	hintLine []string    // the winning line of the last hint, from log entry hintAt on
	hintAt   int
}

// initialStanding is a player's standing before their first move.
func (r *Round) initialStanding(i int, g *engine.Game) Standing {
	st := Standing{
		PlayerID: r.Players[i].ID, Name: r.Players[i].Name, Join: i, Status: g.Status(), FinishedMs: -1,
		Points: g.Score(), Foundation: g.FoundationTotal(),
	}
	if g.Status().Over() { // a deal stuck from the start
		st.FinishedMs = 0
	}
	return st
}

// seat returns the player's seat on this node, making it if needed: the
// game is the player's log from the store replayed through the engine, and
// the seat takes the log over with a new writer epoch.
func (r *Round) seat(ctx context.Context, playerID string) (*seat, error) {
	i := r.join(playerID)
	if i < 0 {
		return nil, ErrNotInRound
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.seats[playerID]; s != nil && !s.stale.Load() {
		return s, nil
	}
	g, err := engine.NewGame(r.Deal, r.Rules)
	if err != nil {
		return nil, err
	}
	s := &seat{game: g, standing: r.initialStanding(i, g)}
	log, err := r.store.Log(ctx, r.ID, playerID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	for _, e := range log {
		m, err := r.Rules.Game.ParseMove(e.Move)
		if err == nil {
			_, err = g.Apply(m)
		}
		if err != nil {
			return nil, fmt.Errorf("round %s, player %s: the stored move %d (%q) does not replay: %w", r.ID, playerID, e.Seq, e.Move, err)
		}
		s.log = append(s.log, e)
		s.standing = r.standingAfterMove(s, e.AtMs)
	}
	{
		// The standing the store holds has what the log cannot say: a
		// resignation, a time-out, the finish time, a hint asked for.
		if sts, err := r.store.Standings(ctx, r.ID); err == nil {
			for _, st := range sts {
				if st.PlayerID == playerID && st.Moves == len(s.log) {
					st.Join = i
					s.standing = st
					if st.Status == engine.Resigned {
						_ = g.Resign()
					}
				}
			}
		}
	}
	if r.Over() && s.game.TimeOut() {
		s.standing.Status = engine.TimedOut
		s.standing.FinishedMs = r.endMs.Load()
	}
	if s.epoch, err = r.store.ClaimSeat(ctx, r.ID, playerID); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	r.seats[playerID] = s
	return s, nil
}

// Reseat forgets this node's seat of the player: the next use replays the
// log from the store again. A player who reconnects may have played on
// another node since this one last served them.
func (r *Round) Reseat(playerID string) {
	r.mu.Lock()
	if s := r.seats[playerID]; s != nil {
		s.stale.Store(true)
		delete(r.seats, playerID)
	}
	r.mu.Unlock()
}

// Resync makes sure this node's seat of the player is the game the store
// holds, at the cost of one read of the round's standings whatever the
// log's length: a seat whose log has as many moves as the store's standing
// of the player, and the same status, is kept; any other is forgotten, as
// by Reseat, so that the next use replays the log from the store. A player
// who resumes may have played on another node since this one last served
// them; that node's moves show in the standing. A newer writer that played
// no move yet is caught by the seat's next move, which the store refuses
// as stale and which then reseats (Move). A standing that cannot be read
// forgets the seat too, and the next use reports the store's error.
func (r *Round) Resync(ctx context.Context, playerID string) {
	r.mu.Lock()
	s := r.seats[playerID]
	r.mu.Unlock()
	if s == nil {
		return
	}
	sts, err := r.store.Standings(ctx, r.ID)
	if err == nil {
		s.mu.Lock()
		moves, status, stale := len(s.log), s.standing.Status, s.stale.Load()
		s.mu.Unlock()
		for _, st := range sts {
			if st.PlayerID == playerID && st.Moves == moves && st.Status == status && !stale {
				return
			}
		}
	}
	r.mu.Lock()
	if r.seats[playerID] == s {
		s.stale.Store(true)
		delete(r.seats, playerID)
	}
	r.mu.Unlock()
}

// View returns the player's current view and the seq of their last accepted move.
func (r *Round) View(ctx context.Context, playerID string, now time.Time) (view engine.View, lastSeq int, err error) {
	s, err := r.seat(ctx, playerID)
	if err != nil {
		return engine.View{}, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.game.View(r.elapsedMs(now)), len(s.log), nil
}
