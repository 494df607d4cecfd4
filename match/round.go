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

// Errors of a round's moves; the api maps each to a wire code.
var (
	ErrRoundNotRunning = errors.New("the round is not running")
	ErrNotInRound      = errors.New("you are not playing in this round")
)

// An OutOfOrderError reports a move whose seq is beyond the next expected.
type OutOfOrderError struct{ Expected int }

func (e *OutOfOrderError) Error() string {
	return fmt.Sprintf("out of order: expected seq %d", e.Expected)
}

// roundState is a round's phase.
type roundState int32

const (
	roundPending roundState = iota // dealt, counting down
	roundRunning
	roundOver
)

// A Round is one deal played by the players of a match, each on their own
// game. Moves of different players run in parallel: each seat has its own
// lock; the round's phase is read atomically and the server's clock decides.
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

	store    Store
	state    atomic.Int32
	dirty    atomic.Bool   // standings changed since the last leaderboard
	finished chan struct{} // a player's game ended (capacity 1, never blocks)

	seats map[string]*seat // fixed at creation
	order []*seat
	endMs int64 // the round's clock when it ended; set before the state turns over
}

// A seat is one player's place in a round.
type seat struct {
	mu       sync.Mutex
	game     *engine.Game
	log      []LogEntry
	standing Standing
	epoch    uint64
}

// NewRound deals a round for the players (ids and names in seat order).
func NewRound(id, matchID string, number int, rules engine.Rules, mode Mode, fair FairDeal,
	startsAt time.Time, limit time.Duration, players []Player, store Store) (*Round, error) {
	deal := engine.NumberedDeal(fair.Seed)
	r := &Round{
		ID: id, MatchID: matchID, Number: number, Rules: rules, Mode: mode, Deal: deal, Fair: fair,
		StartsAt: startsAt, EndsAt: startsAt.Add(limit), store: store,
		finished: make(chan struct{}, 1), seats: make(map[string]*seat, len(players)),
	}
	for i, p := range players {
		g, err := engine.NewGame(deal, rules)
		if err != nil {
			return nil, err
		}
		s := &seat{game: g, standing: Standing{
			PlayerID: p.ID, Name: p.Name, Join: i, Status: g.Status(), FinishedMs: -1,
			Points: g.Score(), Foundation: g.FoundationTotal(),
		}}
		if g.Status().Over() { // a deal stuck from the start
			s.standing.FinishedMs = 0
		}
		r.seats[p.ID] = s
		r.order = append(r.order, s)
	}
	r.dirty.Store(true)
	return r, nil
}

// A Player is a member of a match as a round sees it.
type Player struct {
	ID   string `json:"player_id"`
	Name string `json:"name"`
}

// Running reports whether the round takes moves now.
func (r *Round) Running(now time.Time) bool {
	return roundState(r.state.Load()) == roundRunning && now.Before(r.EndsAt)
}

// Over reports whether the round has ended.
func (r *Round) Over() bool { return roundState(r.state.Load()) == roundOver }

// Finished is signalled (without blocking) when a player's game ends.
func (r *Round) Finished() <-chan struct{} { return r.finished }

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
func (r *Round) HasPlayer(id string) bool { _, ok := r.seats[id]; return ok }

// A MoveResult is the answer to an accepted move.
type MoveResult struct {
	Seq       int
	Duplicate bool          // the seq was already applied: nothing changed
	Events    engine.Events // what the move did (none for a duplicate)
	View      []byte        // the player's view after the move, as JSON
}

// Move plays the player's move number seq, given in the notation. A seq
// already applied answers again with the current view and changes nothing;
// a seq beyond the next gets *OutOfOrderError. A refused move returns an
// error matching engine.ErrIllegal (or engine.ErrSyntax) and changes
// nothing. The move is acknowledged only after the store took it; if the
// store fails, the game is rolled back and the error matches ErrUnavailable.
func (r *Round) Move(ctx context.Context, playerID string, seq int, text string, now time.Time) (MoveResult, error) {
	s := r.seats[playerID]
	if s == nil {
		return MoveResult{}, ErrNotInRound
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at := r.elapsedMs(now)
	next := len(s.log) + 1
	switch {
	case seq < 1:
		return MoveResult{}, &OutOfOrderError{Expected: next}
	case seq < next:
		// A retry: the same move at the same seq gets the same answer. A
		// different move at a used seq is a client out of step.
		if m, err := engine.ParseMove(text); err != nil || m.String() != s.log[seq-1].Move {
			return MoveResult{}, &OutOfOrderError{Expected: next}
		}
		return MoveResult{Seq: seq, Duplicate: true, View: s.game.AppendViewJSON(nil, at)}, nil
	case seq > next:
		return MoveResult{}, &OutOfOrderError{Expected: next}
	case !r.Running(now):
		return MoveResult{}, ErrRoundNotRunning
	}
	m, err := engine.ParseMove(text)
	if err != nil {
		return MoveResult{}, err
	}
	cp := s.game.Checkpoint()
	ev, err := s.game.Apply(m)
	if err != nil {
		return MoveResult{}, err
	}
	st := r.standingAfterMove(s, at)
	e := LogEntry{Seq: seq, Move: m.String(), AtMs: at}
	err = r.store.Append(ctx, r.ID, s.epoch, e, st)
	if errors.Is(err, ErrSeqGap) && r.repair(ctx, s, playerID) == nil {
		err = r.store.Append(ctx, r.ID, s.epoch, e, st)
	}
	if err != nil {
		stored, ok := r.landedEarlier(ctx, playerID, e, err)
		if !ok {
			s.game.Rollback(cp)
			return MoveResult{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		// An earlier try of this very move reached the store though its
		// answer was lost: the store's entry, with its time, is the move.
		e = stored
		st = r.standingAfterMove(s, stored.AtMs)
	}
	s.log = append(s.log, e)
	s.standing = st
	r.dirty.Store(true)
	if st.Status.Over() {
		r.signalFinished()
	}
	return MoveResult{Seq: seq, Events: ev, View: s.game.AppendViewJSON(nil, at)}, nil
}

// repair writes back the tail of a seat's log that the store lost: a Redis
// killed with appendfsync everysec may come back without its last second of
// acknowledged writes, which this node still holds. It only extends the
// store's log when the store's log is a prefix of the seat's.
func (r *Round) repair(ctx context.Context, s *seat, playerID string) error {
	stored, err := r.store.Log(ctx, r.ID, playerID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if len(stored) >= len(s.log) {
		return ErrSeqConflict
	}
	for i, e := range stored {
		if e != s.log[i] {
			return ErrSeqConflict
		}
	}
	for _, e := range s.log[len(stored):] {
		if err := r.store.Append(ctx, r.ID, s.epoch, e, s.standing); err != nil {
			return err
		}
	}
	return nil
}

// landedEarlier reports whether an append that failed with err had in fact
// landed before: a try whose reply was lost (the caller rolled back and the
// client retried) finds the store holding the same move at that seq, with
// the earlier time. It returns the stored entry.
func (r *Round) landedEarlier(ctx context.Context, playerID string, e LogEntry, err error) (LogEntry, bool) {
	if !errors.Is(err, ErrSeqConflict) {
		return LogEntry{}, false
	}
	log, lerr := r.store.Log(ctx, r.ID, playerID)
	if lerr != nil || len(log) < e.Seq || log[e.Seq-1].Move != e.Move {
		return LogEntry{}, false
	}
	return log[e.Seq-1], true
}

func (r *Round) signalFinished() {
	select {
	case r.finished <- struct{}{}:
	default:
	}
}

// standingAfterMove computes the seat's standing once its game has moved.
func (r *Round) standingAfterMove(s *seat, at int64) Standing {
	st := s.standing
	g := s.game
	st.Moves = g.Moves()
	st.Status = g.Status()
	if st.Points != g.Score() || st.Foundation != g.FoundationTotal() {
		st.ReachedMs = at
	}
	st.Points = g.Score()
	st.Foundation = g.FoundationTotal()
	if st.Status.Over() && st.FinishedMs < 0 {
		st.FinishedMs = at
		st.ReachedMs = at
	}
	return st
}

// Resign ends the player's game as resigned, while the round is running.
func (r *Round) Resign(ctx context.Context, playerID string, now time.Time) error {
	return r.resign(ctx, playerID, now, false)
}

// Forfeit ends a player's game as resigned whether the round is counting
// down or running: a player who leaves the match gives up their game. It is
// a no-op for a game that has already ended.
func (r *Round) Forfeit(ctx context.Context, playerID string, now time.Time) error {
	return r.resign(ctx, playerID, now, true)
}

func (r *Round) resign(ctx context.Context, playerID string, now time.Time, forfeit bool) error {
	s := r.seats[playerID]
	if s == nil {
		return ErrNotInRound
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case forfeit && (r.Over() || s.game.Status().Over()):
		return nil
	case !forfeit && !r.Running(now):
		return ErrRoundNotRunning
	}
	cp := s.game.Checkpoint()
	if err := s.game.Resign(); err != nil {
		return err
	}
	st := s.standing
	st.Status = engine.Resigned
	st.FinishedMs = r.elapsedMs(now)
	if err := r.store.SetStanding(ctx, r.ID, st); err != nil {
		s.game.Rollback(cp)
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	s.standing = st
	r.dirty.Store(true)
	r.signalFinished()
	return nil
}

// Start opens the round for moves and records every seat's standing.
func (r *Round) Start(ctx context.Context) error {
	for _, s := range r.order {
		s.mu.Lock()
		st := s.standing
		s.mu.Unlock()
		if err := r.store.SetStanding(ctx, r.ID, st); err != nil {
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	r.state.Store(int32(roundRunning))
	return nil
}

// End closes the round: every game still being played times out at the
// round's clock (the time limit if it passed). Only the match's goroutine
// calls it; a second call does nothing. Standings that the store
// cannot take are still final in memory; End reports the first such error.
func (r *Round) End(ctx context.Context, now time.Time) error {
	if r.Over() {
		return nil // ended already; its end time stays
	}
	at := r.elapsedMs(now)
	r.endMs = at
	r.state.Store(int32(roundOver))
	var first error
	for _, s := range r.order {
		s.mu.Lock()
		if s.game.TimeOut() {
			s.standing.Status = engine.TimedOut
			s.standing.FinishedMs = at
		}
		// Every final standing is written again: the store may have lost
		// recent writes (see repair) and the results must not depend on it.
		if err := r.store.SetStanding(ctx, r.ID, s.standing); err != nil && first == nil {
			first = err
		}
		s.mu.Unlock()
	}
	r.dirty.Store(true)
	return first
}

// AllFinished reports whether every player's game has ended.
func (r *Round) AllFinished() bool {
	for _, s := range r.order {
		s.mu.Lock()
		over := s.game.Status().Over()
		s.mu.Unlock()
		if !over {
			return false
		}
	}
	return true
}

// Standings returns every seat's standing, in seat order.
func (r *Round) Standings() []Standing {
	out := make([]Standing, len(r.order))
	for i, s := range r.order {
		s.mu.Lock()
		out[i] = s.standing
		s.mu.Unlock()
	}
	return out
}

// Leaderboard ranks the round now (at its end, once it is over).
func (r *Round) Leaderboard(now time.Time) []Entry {
	at := r.elapsedMs(now)
	if r.Over() {
		at = r.endMs
	}
	return Rank(r.Mode, r.Rules, r.Standings(), at)
}

// TakeDirty reports whether standings changed since the last call.
func (r *Round) TakeDirty() bool { return r.dirty.Swap(false) }

// View returns the player's current view and the seq of their last accepted move.
func (r *Round) View(playerID string, now time.Time) (view []byte, lastSeq int, err error) {
	s := r.seats[playerID]
	if s == nil {
		return nil, 0, ErrNotInRound
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.game.AppendViewJSON(nil, r.elapsedMs(now)), len(s.log), nil
}

// A PlayerReplay is one player's part of a replay.
type PlayerReplay struct {
	PlayerID string     `json:"player_id"`
	Name     string     `json:"name"`
	Moves    []LogEntry `json:"moves"`
	Status   string     `json:"status"`
	Points   int        `json:"points"`
	Score    int        `json:"score"`
	Elapsed  int64      `json:"elapsed_ms"`
}

// A Replay is everything needed to verify a finished round.
type Replay struct {
	RoundID    string         `json:"round_id"`
	MatchID    string         `json:"match_id"`
	Round      int            `json:"round"`
	Seed       string         `json:"seed"`
	Salt       string         `json:"salt,omitempty"`
	Commitment string         `json:"commitment,omitempty"`
	KnownDeal  bool           `json:"known_deal,omitempty"`
	Rules      engine.Rules   `json:"rules"`
	Layout     engine.Deal    `json:"layout"`
	StartsAt   time.Time      `json:"starts_at"`
	Players    []PlayerReplay `json:"players"`
}

// Replay returns the round's replay, or ErrRoundNotRunning before it ends:
// the seed and the logs are secret until then.
func (r *Round) Replay() (Replay, error) {
	if !r.Over() {
		return Replay{}, ErrRoundNotRunning
	}
	rep := Replay{
		RoundID: r.ID, MatchID: r.MatchID, Round: r.Number, Seed: fmt.Sprint(r.Fair.Seed), Salt: r.Fair.Salt,
		Commitment: r.Fair.Commitment, KnownDeal: r.Fair.Known, Rules: r.Rules, Layout: r.Deal, StartsAt: r.StartsAt,
	}
	for _, s := range r.order {
		s.mu.Lock()
		st := s.standing
		at := r.endMs
		if st.Status == engine.Won {
			at = st.FinishedMs
		}
		rep.Players = append(rep.Players, PlayerReplay{
			PlayerID: st.PlayerID, Name: st.Name, Moves: append([]LogEntry{}, s.log...),
			Status: st.Status.String(), Points: st.Points, Score: RoundScore(r.Rules, st, r.endMs), Elapsed: at,
		})
		s.mu.Unlock()
	}
	return rep, nil
}
