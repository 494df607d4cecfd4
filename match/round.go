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

// ErrNoHints: hints are for solo practice, never for a round with rivals.
var ErrNoHints = errors.New("hints are for solo practice: a round of one player")

// A HintFunc finds a winning line from a game's position, seeing every
// card (engine/solver.Hint behind it): the line's moves in the notation,
// or none, and the verdict on the position ("winnable", "unwinnable" or
// "unknown"). It may take a while; it must not keep g.
type HintFunc func(g *engine.Game) (line []string, verdict string)

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
	endMs    atomic.Int64  // the round's clock when it ended; set before the state turns over

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

// A seat is one player's place in a round, on the node that serves the
// player.
type seat struct {
	mu       sync.Mutex
	game     *engine.Game
	log      []LogEntry
	standing Standing
	epoch    uint64
	stale    bool     // replaced: the next use makes a new seat
	hintLine []string // the winning line of the last hint, from log entry hintAt on
	hintAt   int
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
		Deal: engine.NumberedDeal(rec.Fair.Seed), Fair: rec.Fair, StartsAt: rec.StartsAt, EndsAt: rec.EndsAt,
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
	if s := r.seats[playerID]; s != nil && !s.stale {
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
		m, err := engine.ParseMove(e.Move)
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
		s.stale = true
		delete(r.seats, playerID)
	}
	r.mu.Unlock()
}

// A MoveResult is the answer to an accepted move.
type MoveResult struct {
	Seq       int
	Duplicate bool          // the seq was already applied: nothing changed
	Events    engine.Events // what the move did (none for a duplicate)
	View      []byte        // the player's view after the move, as JSON (nil from MoveReply)

	// From MoveReply, during ack only: the game the view is written from,
	// still under the seat's lock, and the round's clock of the move.
	game *engine.Game
	at   int64
}

// AppendView appends the player's view after the move, as JSON, to b: View,
// or, in the ack of MoveReply, the view written straight from the game.
func (res MoveResult) AppendView(b []byte) []byte {
	if res.game != nil {
		return res.game.AppendViewJSON(b, res.at)
	}
	return append(b, res.View...)
}

// Move plays the player's move number seq, given in the notation. A seq
// already applied answers again with the current view and changes nothing;
// a seq beyond the next gets *OutOfOrderError. A refused move returns an
// error matching engine.ErrIllegal (or engine.ErrSyntax) and changes
// nothing. The move is acknowledged only after the store took it; if the
// store fails, the game is rolled back and the error matches ErrUnavailable.
func (r *Round) Move(ctx context.Context, playerID string, seq int, text string, now time.Time) (MoveResult, error) {
	return r.moveAck(ctx, playerID, seq, text, now, nil, false)
}

// MoveAck is Move that calls ack with the result of an accepted move (or a
// duplicate) while the player's seat is still locked. The end of the round
// takes every local seat's lock before its results go out, so a reply
// queued in ack reaches the player before the round's results.
func (r *Round) MoveAck(ctx context.Context, playerID string, seq int, text string, now time.Time, ack func(MoveResult)) (MoveResult, error) {
	return r.moveAck(ctx, playerID, seq, text, now, ack, false)
}

// MoveReply is MoveAck for a caller that needs the view only to write it
// into its reply, in ack: the MoveResult passed to ack and the one
// returned have no View, and in ack (only) res.AppendView writes the view
// straight from the game, saving a copy of it.
func (r *Round) MoveReply(ctx context.Context, playerID string, seq int, text string, now time.Time, ack func(MoveResult)) (MoveResult, error) {
	return r.moveAck(ctx, playerID, seq, text, now, ack, true)
}

// moveAck is MoveAck, or MoveReply with lazyView.
func (r *Round) moveAck(ctx context.Context, playerID string, seq int, text string, now time.Time, ack func(MoveResult), lazyView bool) (MoveResult, error) {
	res, err := r.move(ctx, playerID, seq, text, now, ack, lazyView)
	if err != nil {
		var ooo *OutOfOrderError
		if errors.Is(err, ErrStaleWriter) || errors.As(err, &ooo) && seq >= ooo.Expected {
			// The player's log moved on without this seat: they played on
			// another node, or a newer seat there took the log over. Replay
			// the log again and answer from it.
			r.Reseat(playerID)
			res, err = r.move(ctx, playerID, seq, text, now, ack, lazyView)
		}
		if errors.Is(err, ErrStaleWriter) {
			err = fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	return res, err
}

// viewBufs are scratch buffers a view is written into before it is copied
// out at its size: written into a buffer of its own, it would grow it
// several times.
var viewBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// reply makes the answer to an accepted move (or a duplicate), with the
// view after it, and gives it to ack, while the seat is locked (s.mu held).
func reply(s *seat, res MoveResult, at int64, ack func(MoveResult), lazyView bool) MoveResult {
	if lazyView {
		if ack != nil {
			lazy := res
			lazy.game, lazy.at = s.game, at
			ack(lazy)
		}
		return res
	}
	bp := viewBufs.Get().(*[]byte)
	v := s.game.AppendViewJSON((*bp)[:0], at)
	res.View = append(make([]byte, 0, len(v)), v...)
	*bp = v[:0]
	viewBufs.Put(bp)
	if ack != nil {
		ack(res)
	}
	return res
}

func (r *Round) move(ctx context.Context, playerID string, seq int, text string, now time.Time, ack func(MoveResult), lazyView bool) (MoveResult, error) {
	s, err := r.seat(ctx, playerID)
	if err != nil {
		return MoveResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stale {
		return MoveResult{}, ErrStaleWriter
	}
	at := r.elapsedMs(now)
	next := len(s.log) + 1
	switch {
	case seq < 1:
		return MoveResult{}, &OutOfOrderError{Expected: next}
	case seq < next:
		// A retry: the same move at the same seq gets the same answer. A
		// different move at a used seq is a client out of step.
		if m, err := engine.ParseMove(text); err != nil || moveText(m) != s.log[seq-1].Move {
			return MoveResult{}, &OutOfOrderError{Expected: next}
		}
		return reply(s, MoveResult{Seq: seq, Duplicate: true}, at, ack, lazyView), nil
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
	e := LogEntry{Seq: seq, Move: moveText(m), AtMs: at}
	err = r.store.Append(ctx, r.ID, s.epoch, e, st)
	if errors.Is(err, ErrSeqGap) && r.repair(ctx, s, playerID) == nil {
		err = r.store.Append(ctx, r.ID, s.epoch, e, st)
	}
	if err != nil {
		stored, ok := r.landedEarlier(ctx, playerID, e, err)
		if !ok {
			s.game.Rollback(cp)
			switch {
			case errors.Is(err, ErrRoundClosed):
				// The round ended on another node while this move was on
				// its way: it is not in the results.
				return MoveResult{}, ErrRoundNotRunning
			case errors.Is(err, ErrStaleWriter):
				s.stale = true
				return MoveResult{}, ErrStaleWriter
			}
			return MoveResult{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		// An earlier try of this very move reached the store though its
		// answer was lost: the store's entry, with its time, is the move.
		e = stored
		st = r.standingAfterMove(s, stored.AtMs)
	}
	s.log = append(s.log, e)
	urgent := st.Foundation != s.standing.Foundation || st.Status != s.standing.Status
	s.standing = st
	r.markDirty(urgent)
	if st.Status.Over() {
		r.signalFinished()
	}
	return reply(s, MoveResult{Seq: seq, Events: ev}, at, ack, lazyView), nil
}

// moveTexts holds the canonical notation of every well-formed move without
// a run length (Tn:k-Tm), by moveTextIndex: the moves of almost every log
// entry, which then need no string of their own.
var moveTexts = func() (t [(int(engine.Undo) + 1) * 64]string) {
	for k := range int(engine.Undo) + 1 {
		for from := range 8 {
			for to := range 8 {
				m := engine.Move{Kind: engine.MoveKind(k), From: uint8(from), To: uint8(to)}
				if b := m.AppendText(nil); len(b) > 0 {
					t[moveTextIndex(m)] = string(b)
				}
			}
		}
	}
	return t
}()

func moveTextIndex(m engine.Move) int { return int(m.Kind)<<6 | int(m.From)<<3 | int(m.To) }

// moveText is m.String(), without allocating for the moves in moveTexts.
func moveText(m engine.Move) string {
	if m.Count == 0 && m.Kind <= engine.Undo && m.From < 8 && m.To < 8 {
		if t := moveTexts[moveTextIndex(m)]; t != "" {
			return t
		}
	}
	return m.String()
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
	s, err := r.seat(ctx, playerID)
	if err != nil {
		return err
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
	r.markDirty(true)
	r.signalFinished()
	return nil
}

// Hint answers a solo player's request for a hint with the solver's next
// move from their position, and marks their game as played with help (the
// standing's Helped, shown in leaderboards and results). A round with more
// than one player gets ErrNoHints: the solver sees cards the players cannot.
func (r *Round) Hint(ctx context.Context, playerID string, now time.Time, hint HintFunc) (move, verdict string, err error) {
	if len(r.Players) != 1 {
		return "", "", ErrNoHints
	}
	s, err := r.seat(ctx, playerID)
	if err != nil {
		return "", "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !r.Running(now) || s.game.Status().Over() {
		return "", "", ErrRoundNotRunning
	}
	if !s.standing.Helped {
		st := s.standing
		st.Helped = true
		if err := r.store.SetStanding(ctx, r.ID, st); err != nil {
			return "", "", fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		s.standing = st
		r.markDirty(true)
	}
	// While the player follows the line of the last hint, its next move is
	// the hint: a fresh search from each position could choose another line
	// each time and send the player round the stock in circles.
	if at := s.hintAt; s.hintLine != nil && len(s.log) >= at && len(s.log)-at < len(s.hintLine) {
		followed := true
		for i, e := range s.log[at:] {
			followed = followed && e.Move == s.hintLine[i]
		}
		if followed {
			return s.hintLine[len(s.log)-at], "winnable", nil
		}
	}
	line, verdict := hint(s.game.Clone())
	s.hintLine, s.hintAt = nil, 0
	if len(line) == 0 {
		return "", verdict, nil
	}
	s.hintLine, s.hintAt = line, len(s.log)
	return line[0], verdict, nil
}

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

// Standings returns every player's standing from the store, in seat order;
// a player the store has none for yet stands as before their first move.
func (r *Round) Standings(ctx context.Context) ([]Standing, error) {
	stored, err := r.store.Standings(ctx, r.ID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	out := make([]Standing, len(r.Players))
	have := make([]bool, len(r.Players))
	for _, st := range stored {
		if i := r.join(st.PlayerID); i >= 0 {
			st.Join = i
			out[i], have[i] = st, true
		}
	}
	var g *engine.Game
	for i := range out {
		if !have[i] {
			if g == nil {
				if g, err = engine.NewGame(r.Deal, r.Rules); err != nil {
					return nil, err
				}
			}
			out[i] = r.initialStanding(i, g)
		}
	}
	return out, nil
}

// AllFinished reports whether every player's game has ended, by the store.
func (r *Round) AllFinished(ctx context.Context) (bool, error) {
	sts, err := r.Standings(ctx)
	if err != nil {
		return false, err
	}
	for _, st := range sts {
		if !st.Status.Over() {
			return false, nil
		}
	}
	return true, nil
}

// Leaderboard ranks the round now (at its end, once it is over).
func (r *Round) Leaderboard(ctx context.Context, now time.Time) ([]Entry, error) {
	at := r.elapsedMs(now)
	if r.Over() {
		at = r.endMs.Load()
	}
	sts, err := r.Standings(ctx)
	if err != nil {
		return nil, err
	}
	return Rank(r.Mode, r.Rules, sts, at), nil
}

// LocalLeaderboard is Leaderboard from this node's seats, without a read of
// the store, when every player has a live seat here: ok is false otherwise.
// It is as current as the store only while every player's moves go through
// this node (the caller knows: Match.watchedElsewhere); a player who took
// their seat over on another node shows here as they were, until this seat
// next writes.
func (r *Round) LocalLeaderboard(now time.Time) (entries []Entry, ok bool) {
	at := r.elapsedMs(now)
	if r.Over() {
		at = r.endMs.Load()
	}
	sts := make([]Standing, len(r.Players))
	r.mu.Lock()
	for i, p := range r.Players {
		s := r.seats[p.ID]
		if s == nil {
			r.mu.Unlock()
			return nil, false
		}
		s.mu.Lock()
		st, stale := s.standing, s.stale
		s.mu.Unlock()
		if stale {
			r.mu.Unlock()
			return nil, false
		}
		st.Join = i
		sts[i] = st
	}
	r.mu.Unlock()
	return Rank(r.Mode, r.Rules, sts, at), true
}

// markDirty records that the standings changed; urgent when the change is
// one the racers should see at once: a card to or from a foundation, a game
// ended, a round loaded. Other changes (moves and points) can wait for the
// slower leaderboard (Config.LeaderboardMinorEvery).
func (r *Round) markDirty(urgent bool) {
	if urgent {
		r.urgent.Store(true)
	}
	r.dirty.Store(true)
}

// TakeDirty reports whether the standings changed since the last call, and
// whether a change among them was urgent (see markDirty).
func (r *Round) TakeDirty() (changed, urgent bool) {
	urgent = r.urgent.Swap(false)
	changed = r.dirty.Swap(false) || urgent
	return changed, urgent
}

// View returns the player's current view and the seq of their last accepted move.
func (r *Round) View(ctx context.Context, playerID string, now time.Time) (view []byte, lastSeq int, err error) {
	s, err := r.seat(ctx, playerID)
	if err != nil {
		return nil, 0, err
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
	Helped   bool       `json:"helped,omitempty"`
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

// Replay returns the round's replay, from the store, or
// ErrRoundNotRunning before it ends: the seed and the logs are secret until
// then.
func (r *Round) Replay(ctx context.Context) (Replay, error) {
	if !r.Over() {
		return Replay{}, ErrRoundNotRunning
	}
	rep := Replay{
		RoundID: r.ID, MatchID: r.MatchID, Round: r.Number, Seed: fmt.Sprint(r.Fair.Seed), Salt: r.Fair.Salt,
		Commitment: r.Fair.Commitment, KnownDeal: r.Fair.Known, Rules: r.Rules, Layout: r.Deal, StartsAt: r.StartsAt,
	}
	sts, err := r.Standings(ctx)
	if err != nil {
		return Replay{}, err
	}
	endMs := r.endMs.Load()
	for _, st := range sts {
		log, err := r.store.Log(ctx, r.ID, st.PlayerID)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return Replay{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		at := endMs
		if st.Status == engine.Won {
			at = st.FinishedMs
		}
		rep.Players = append(rep.Players, PlayerReplay{
			PlayerID: st.PlayerID, Name: st.Name, Moves: append([]LogEntry{}, log...),
			Status: st.Status.String(), Points: st.Points, Score: RoundScore(r.Rules, st, endMs), Elapsed: at,
			Helped: st.Helped,
		})
	}
	return rep, nil
}
