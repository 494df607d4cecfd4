package match

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"klondike/engine"
)

// Errors of a round's moves; the api maps each to a wire code.
var (
	ErrRoundNotRunning = errors.New("the round is not running")
	ErrNotInRound      = errors.New("you are not playing in this round")
)

// roundState is a round's phase.
type roundState int32

const (
	roundPending roundState = iota // dealt, counting down
	roundRunning
	roundOver
)

// phaseNames name a round's phases in its record.
var phaseNames = [...]string{roundPending: "pending", roundRunning: "running", roundOver: "over"}

// A Round is one deal played by the players of a match, each on their own
// game. Moves of different players run in parallel: each seat has its own
// lock; the round's phase is read atomically and the server's clock decides.
//
// With several server nodes, each node has its own Round object for the
// round and seats only for the players connected to it: a seat is made the
// first time it is needed, by replaying the player's log from the store,
// under a writer epoch newer than any before (Store.ClaimSeat), so a seat
// left behind on another node can no longer write. Standings, leaderboards,
// results and replays come from the store, which every node shares.
type Round struct {
	ID       string
	MatchID  string
	Number   int
	Rules    engine.Rules
	Mode     Mode
	Deal     engine.Deal
	Fair     FairDeal
	StartsAt time.Time
	EndsAt   time.Time
	Players  []Player // seat order

	store    Store
	state    atomic.Int32
	dirty    atomic.Bool   // standings changed since the last leaderboard
	urgent   atomic.Bool   // and a change among them is urgent (see TakeDirty)
	finished chan struct{} // a player's game ended (capacity 1, never blocks)
	onFinish atomic.Pointer[func()]
	endMs    atomic.Int64 // the round's clock when it ended; set before the state turns over

	mu    sync.Mutex // guards seats
	seats map[string]*seat
}

// A RoundRecord is what every node knows of a round: everything but the
// games, which live in the store's logs.
type RoundRecord struct {
	ID       string       `json:"id"`
	MatchID  string       `json:"match_id"`
	Number   int          `json:"number"`
	Rules    engine.Rules `json:"rules"`
	Mode     Mode         `json:"mode"`
	Fair     FairDeal     `json:"fair"`
	StartsAt time.Time    `json:"starts_at"`
	EndsAt   time.Time    `json:"ends_at"`
	Players  []Player     `json:"players"`
	Phase    string       `json:"phase"`
	EndMs    int64        `json:"end_ms"`
}

// NewRound deals a round for the players (ids and names in seat order).
func NewRound(id, matchID string, number int, rules engine.Rules, mode Mode, fair FairDeal,
	startsAt time.Time, limit time.Duration, players []Player, store Store) (*Round, error) {
	return RoundFromRecord(RoundRecord{
		ID: id, MatchID: matchID, Number: number, Rules: rules, Mode: mode, Fair: fair,
		StartsAt: startsAt, EndsAt: startsAt.Add(limit), Players: players, Phase: phaseNames[roundPending],
	}, store)
}

// RoundFromRecord makes this node's Round object for a round from its
// record; it also serves the leaderboard and the replay of a round played
// on another node.
func RoundFromRecord(rec RoundRecord, store Store) (*Round, error) {
	if err := rec.Rules.Validate(); err != nil {
		return nil, err
	}
	r := &Round{
		ID: rec.ID, MatchID: rec.MatchID, Number: rec.Number, Rules: rec.Rules, Mode: rec.Mode,
		Deal: engine.NumberedDealFor(rec.Rules.Game, rec.Fair.Seed), Fair: rec.Fair, StartsAt: rec.StartsAt, EndsAt: rec.EndsAt,
		Players: rec.Players, store: store, finished: make(chan struct{}, 1), seats: map[string]*seat{},
	}
	r.setPhase(rec.Phase, rec.EndMs)
	r.markDirty(true)
	return r, nil
}

// Record returns the round's record.
func (r *Round) Record() RoundRecord {
	return RoundRecord{
		ID: r.ID, MatchID: r.MatchID, Number: r.Number, Rules: r.Rules, Mode: r.Mode, Fair: r.Fair,
		StartsAt: r.StartsAt, EndsAt: r.EndsAt, Players: r.Players,
		Phase: phaseNames[r.state.Load()], EndMs: r.endMs.Load(),
	}
}

// setPhase brings the round to a phase its record gives. A round that is
// over stays over; the games of this node's seats still being played time
// out then.
func (r *Round) setPhase(phase string, endMs int64) {
	switch phase {
	case phaseNames[roundRunning]:
		r.state.CompareAndSwap(int32(roundPending), int32(roundRunning))
	case phaseNames[roundOver]:
		if r.Over() {
			return
		}
		r.endMs.Store(endMs)
		r.state.Store(int32(roundOver))
		r.mu.Lock()
		for _, s := range r.seats {
			s.mu.Lock()
			if s.game.TimeOut() {
				s.standing.Status = engine.TimedOut
				s.standing.FinishedMs = endMs
			}
			s.mu.Unlock()
		}
		r.mu.Unlock()
		r.markDirty(true)
	}
}

// A Player is a member of a match as a round sees it.
type Player struct {
	ID   string `json:"player_id"`
	Name string `json:"name"`
	// Rating is the player's rating in the match's game and draw when they
	// were seated (or after its last rated round), in a rated match only;
	// Provisional marks one not yet established.
	Rating      int  `json:"rating,omitempty"`
	Provisional bool `json:"provisional,omitempty"`
}

// Running reports whether the round takes moves now.
func (r *Round) Running(now time.Time) bool {
	return roundState(r.state.Load()) == roundRunning && now.Before(r.EndsAt)
}

// Over reports whether the round has ended.
func (r *Round) Over() bool { return roundState(r.state.Load()) == roundOver }

// Finished is signalled (without blocking) when a player's game on this
// node ends.
func (r *Round) Finished() <-chan struct{} { return r.finished }

// ClockMs returns the round's clock at now: the time since it started, in
// milliseconds, stopped at its end.
func (r *Round) ClockMs(now time.Time) int64 { return r.elapsedMs(now) }

// elapsedMs is the round's clock.
func (r *Round) elapsedMs(now time.Time) int64 {
	if now.Before(r.StartsAt) {
		return 0
	}
	if now.After(r.EndsAt) {
		now = r.EndsAt
	}
	return now.Sub(r.StartsAt).Milliseconds()
}

// HasPlayer reports whether id has a seat in the round.
func (r *Round) HasPlayer(id string) bool { return r.join(id) >= 0 }

// join returns the player's seat order, or -1.
func (r *Round) join(id string) int {
	for i, p := range r.Players {
		if p.ID == id {
			return i
		}
	}
	return -1
}

func (r *Round) signalFinished() {
	select {
	case r.finished <- struct{}{}:
	default:
	}
	if f := r.onFinish.Load(); f != nil {
		(*f)()
	}
}

// OnFinish has f called each time a player's game ends, as Finished is
// signalled, for a caller that keeps no goroutine waiting on Finished. f
// runs on the goroutine of the move or resignation, with the player's seat
// locked: it must return at once and take no lock of the round.
func (r *Round) OnFinish(f func()) { r.onFinish.Store(&f) }

// Start opens the round for moves and records the standing of every
// player the store has none for yet (a player who left during the
// countdown has forfeited already). Running it again (a node that retries)
// writes nothing new.
func (r *Round) Start(ctx context.Context) error {
	stored, err := r.store.Standings(ctx, r.ID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	g, err := engine.NewGame(r.Deal, r.Rules)
	if err != nil {
		return err
	}
	for i, p := range r.Players {
		if slices.ContainsFunc(stored, func(st Standing) bool { return st.PlayerID == p.ID }) {
			continue
		}
		if err := r.store.SetStanding(ctx, r.ID, r.initialStanding(i, g)); err != nil {
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	r.state.CompareAndSwap(int32(roundPending), int32(roundRunning))
	if g.Status().Over() {
		// A deal stuck from the start: every game is over as it begins,
		// and no move will say so.
		r.signalFinished()
	}
	return nil
}

// End closes the round in the store, so that no move lands after it on any
// node, and returns the final standings: every game still being played
// times out at the round's clock (the time limit if it passed). The
// standings of this node's seats are written again, since the store may
// have lost its most recent writes (see repair). A round that is over
// already answers with its standings and its end time.
func (r *Round) End(ctx context.Context, now time.Time) ([]Standing, error) {
	if !r.Over() {
		if err := r.store.CloseRound(ctx, r.ID); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	at := r.elapsedMs(now)
	if r.Over() {
		at = r.endMs.Load()
	}
	sts, err := r.Standings(ctx)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	local := make(map[string]Standing, len(r.seats))
	for id, s := range r.seats {
		s.mu.Lock()
		local[id] = s.standing
		s.mu.Unlock()
	}
	r.mu.Unlock()
	for i, st := range sts {
		if l, ok := local[st.PlayerID]; ok && l.Moves > st.Moves {
			st = l
		}
		if !st.Status.Over() {
			st.Status = engine.TimedOut
			st.FinishedMs = at
		}
		if _, isLocal := local[st.PlayerID]; st != sts[i] || isLocal {
			if err := r.store.SetStanding(ctx, r.ID, st); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
			}
		}
		sts[i] = st
	}
	r.setPhase(phaseNames[roundOver], at)
	return sts, nil
}
