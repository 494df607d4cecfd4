package match

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"klondike/engine"
)

// An OutOfOrderError reports a move whose seq is beyond the next expected.
type OutOfOrderError struct{ Expected int }

func (e *OutOfOrderError) Error() string {
	return fmt.Sprintf("out of order: expected seq %d", e.Expected)
}

// MaxMoves is the most moves one player's game in a round may hold, undo
// and redo included: far above any game a person plays within the longest
// time limit, so that the log, the store's copy of it and a replay of it
// stay bounded whatever a client sends.
const MaxMoves = 20_000

// ErrMoveLimit: the player's game holds MaxMoves moves and takes no more;
// the player may still resign, or wait for the round's time to end.
var ErrMoveLimit = fmt.Errorf("this game has reached its %d-move limit: resign, or wait for its time to end", MaxMoves)

// A MoveResult is the answer to an accepted move, or to a retry of one.
type MoveResult struct {
	Seq       int
	Duplicate bool          // the seq was already applied: nothing changed
	Events    engine.Events // what the move did (none for a duplicate)
}

// Move plays the player's move number seq, given in the notation. The
// same move at a seq already applied (a retry) answers again, with the
// current view, and changes nothing; another move there, or a seq beyond
// the next, gets *OutOfOrderError. A refused move returns an error matching
// engine.ErrIllegal (or engine.ErrSyntax) and changes nothing. The move is
// acknowledged only after the store took it; if the store fails, the game
// is rolled back and the error matches ErrUnavailable, or ErrDataLost when
// the store lost the round's data.
//
// ack, when not nil, is called with the result of an accepted move (or of
// a retry) and the player's view after it, while the player's seat is
// still locked: the end of the round takes every local seat's lock before
// its results go out, so a reply queued in ack reaches the player before
// the round's results. The view is valid only until ack returns (it is
// reused), so ack copies what it keeps. With a nil ack no view is made.
func (r *Round) Move(ctx context.Context, playerID string, seq int, text string, now time.Time, ack func(res MoveResult, view *engine.View)) (MoveResult, error) {
	res, err := r.move(ctx, playerID, seq, text, now, ack)
	if err != nil {
		var ooo *OutOfOrderError
		if errors.Is(err, ErrStaleWriter) || errors.As(err, &ooo) && seq >= ooo.Expected {
			// The player's log moved on without this seat: they played on
			// another node, or a newer seat there took the log over. Replay
			// the log again and answer from it.
			r.Reseat(playerID)
			res, err = r.move(ctx, playerID, seq, text, now, ack)
		}
		if errors.Is(err, ErrStaleWriter) {
			err = fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	return res, err
}

// viewBufs are the views given to Move's ack, written again for each move
// so that a view costs no allocation of its own.
var viewBufs = sync.Pool{New: func() any { return new(engine.View) }}

// reply gives ack the answer to an accepted move (or a retry) and the view
// after it, while the seat is locked (s.mu held), and returns the answer.
func reply(s *seat, res MoveResult, at int64, ack func(MoveResult, *engine.View)) MoveResult {
	if ack != nil {
		v := viewBufs.Get().(*engine.View)
		s.game.ViewInto(v, at)
		ack(res, v)
		viewBufs.Put(v)
	}
	return res
}

// move is Move without the retry on a seat that lost its log.
func (r *Round) move(ctx context.Context, playerID string, seq int, text string, now time.Time, ack func(MoveResult, *engine.View)) (MoveResult, error) {
	s, err := r.seat(ctx, playerID)
	if err != nil {
		return MoveResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stale.Load() {
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
		if m, err := r.Rules.Game.ParseMove(text); err != nil || moveText(m) != s.log[seq-1].Move {
			return MoveResult{}, &OutOfOrderError{Expected: next}
		}
		return reply(s, MoveResult{Seq: seq, Duplicate: true}, at, ack), nil
	case seq > next:
		return MoveResult{}, &OutOfOrderError{Expected: next}
	case !r.Running(now):
		return MoveResult{}, ErrRoundNotRunning
	}
	m, err := r.Rules.Game.ParseMove(text)
	if err != nil {
		return MoveResult{}, err
	}
	if len(s.log) >= MaxMoves && !s.game.Status().Over() {
		return MoveResult{}, ErrMoveLimit
	}
	cp := s.game.Checkpoint()
	ev, err := s.game.Apply(m)
	if err != nil {
		return MoveResult{}, err
	}
	st := r.standingAfterMove(s, at)
	e := LogEntry{Seq: seq, Move: moveText(m), AtMs: at}
	err = r.store.Append(ctx, r.ID, s.epoch, e, st)
	if errors.Is(err, ErrSeqGap) {
		if rerr := r.repair(ctx, s, playerID); rerr == nil {
			err = r.store.Append(ctx, r.ID, s.epoch, e, st)
		} else if errors.Is(rerr, ErrDataLost) {
			err = rerr
		}
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
				s.stale.Store(true)
				return MoveResult{}, ErrStaleWriter
			case errors.Is(err, ErrDataLost):
				// Never written back into the emptied store: its start is gone.
				return MoveResult{}, ErrDataLost
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
	return reply(s, MoveResult{Seq: seq, Events: ev}, at, ack), nil
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

// moveTexts holds the canonical notation of every well-formed move without
// a run length (Tn:k-Tm), by moveTextIndex: the moves of almost every log
// entry, which then need no string of their own. Piles go up to 9 (Double
// Klondike).
var moveTexts = func() (t [(int(engine.Redo) + 1) * moveTextPiles * moveTextPiles]string) {
	for k := range int(engine.Redo) + 1 {
		for from := range moveTextPiles {
			for to := range moveTextPiles {
				m := engine.Move{Kind: engine.MoveKind(k), From: uint8(from), To: uint8(to)}
				if b := m.AppendText(nil); len(b) > 0 {
					t[moveTextIndex(m)] = string(b)
				}
			}
		}
	}
	return t
}()

// moveTextPiles bounds the From and To of the moves in moveTexts.
const moveTextPiles = engine.MaxPiles + 1

func moveTextIndex(m engine.Move) int {
	return (int(m.Kind)*moveTextPiles+int(m.From))*moveTextPiles + int(m.To)
}

// moveText is m.String(), without allocating for the moves in moveTexts.
func moveText(m engine.Move) string {
	if m.Count == 0 && m.Kind <= engine.Redo && m.From < moveTextPiles && m.To < moveTextPiles {
		if t := moveTexts[moveTextIndex(m)]; t != "" {
			return t
		}
	}
	return m.String()
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
