// Package storemetrics times every operation of a match.Store and tells
// whether it failed, to an Observer the caller's metrics provide (the api's
// klondike_store_operation_duration_seconds{op} and
// klondike_store_errors_total{op}).
package storemetrics

import (
	"context"
	"errors"
	"time"

	"klondike/match"
)

// Ops are the operations' names, one a method of match.Store, as an
// Observer is told them.
var Ops = []string{"append", "set_standing", "log", "standings", "ping", "claim_seat", "close_round", "keep"}

// An Observer is told of every operation: its name (one of Ops), how long
// it took, and whether it failed. It is called on the goroutine of the
// operation's caller, on the path of every move: it must be safe for
// concurrent use and cheap.
type Observer func(op string, seconds float64, failed bool)

// store times every operation of s and tells observe.
type store struct {
	s       match.Store
	observe Observer
}

var _ match.Store = store{}

// Wrap returns a Store that does what s does and tells observe of each
// operation.
func Wrap(s match.Store, observe Observer) match.Store { return store{s, observe} }

// failed reports whether err is a failure of the store. Its answers about
// sequence numbers, writers and missing or closed rounds are answers, not
// failures: only the rest (the store unreachable, slow or broken) fails.
func failed(err error) bool {
	switch {
	case err == nil, errors.Is(err, match.ErrSeqConflict), errors.Is(err, match.ErrSeqGap),
		errors.Is(err, match.ErrStaleWriter), errors.Is(err, match.ErrNotFound), errors.Is(err, match.ErrRoundClosed):
		return false
	}
	return true
}

// done tells the observer of one operation.
func (ts store) done(op string, start time.Time, err error) {
	ts.observe(op, time.Since(start).Seconds(), failed(err))
}

func (ts store) Append(ctx context.Context, roundID string, epoch uint64, e match.LogEntry, st match.Standing) error {
	start := time.Now()
	err := ts.s.Append(ctx, roundID, epoch, e, st)
	ts.done("append", start, err)
	return err
}

func (ts store) SetStanding(ctx context.Context, roundID string, st match.Standing) error {
	start := time.Now()
	err := ts.s.SetStanding(ctx, roundID, st)
	ts.done("set_standing", start, err)
	return err
}

func (ts store) Log(ctx context.Context, roundID, playerID string) ([]match.LogEntry, error) {
	start := time.Now()
	l, err := ts.s.Log(ctx, roundID, playerID)
	ts.done("log", start, err)
	return l, err
}

func (ts store) Standings(ctx context.Context, roundID string) ([]match.Standing, error) {
	start := time.Now()
	st, err := ts.s.Standings(ctx, roundID)
	ts.done("standings", start, err)
	return st, err
}

func (ts store) Ping(ctx context.Context) error {
	start := time.Now()
	err := ts.s.Ping(ctx)
	ts.done("ping", start, err)
	return err
}

func (ts store) ClaimSeat(ctx context.Context, roundID, playerID string) (uint64, error) {
	start := time.Now()
	epoch, err := ts.s.ClaimSeat(ctx, roundID, playerID)
	ts.done("claim_seat", start, err)
	return epoch, err
}

func (ts store) CloseRound(ctx context.Context, roundID string) error {
	start := time.Now()
	err := ts.s.CloseRound(ctx, roundID)
	ts.done("close_round", start, err)
	return err
}

func (ts store) Keep(ctx context.Context, roundID string, until time.Time) error {
	start := time.Now()
	err := ts.s.Keep(ctx, roundID, until)
	ts.done("keep", start, err)
	return err
}
