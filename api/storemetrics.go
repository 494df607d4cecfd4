package api

import (
	"context"
	"errors"
	"time"

	"klondike/match"
)

// instrumentedStore times every store operation and counts its errors.
type instrumentedStore struct {
	s match.Store
	m *Metrics
}

var _ match.Store = instrumentedStore{}

func instrument(s match.Store, m *Metrics) match.Store { return instrumentedStore{s, m} }

// observe records one operation. The store's answers about sequence
// numbers, writers and missing rounds are answers, not failures: only the
// rest (the store unreachable, slow or broken) counts as an error.
func (is instrumentedStore) observe(op string, start time.Time, err error) {
	is.m.StoreSeconds.WithLabelValues(op).Observe(time.Since(start).Seconds())
	switch {
	case err == nil, errors.Is(err, match.ErrSeqConflict), errors.Is(err, match.ErrSeqGap),
		errors.Is(err, match.ErrStaleWriter), errors.Is(err, match.ErrNotFound), errors.Is(err, match.ErrRoundClosed):
	default:
		is.m.StoreErrors.WithLabelValues(op).Inc()
	}
}

func (is instrumentedStore) Append(ctx context.Context, roundID string, epoch uint64, e match.LogEntry, st match.Standing) error {
	start := time.Now()
	err := is.s.Append(ctx, roundID, epoch, e, st)
	is.observe("append", start, err)
	return err
}

func (is instrumentedStore) SetStanding(ctx context.Context, roundID string, st match.Standing) error {
	start := time.Now()
	err := is.s.SetStanding(ctx, roundID, st)
	is.observe("set_standing", start, err)
	return err
}

func (is instrumentedStore) Log(ctx context.Context, roundID, playerID string) ([]match.LogEntry, error) {
	start := time.Now()
	l, err := is.s.Log(ctx, roundID, playerID)
	is.observe("log", start, err)
	return l, err
}

func (is instrumentedStore) Standings(ctx context.Context, roundID string) ([]match.Standing, error) {
	start := time.Now()
	st, err := is.s.Standings(ctx, roundID)
	is.observe("standings", start, err)
	return st, err
}

func (is instrumentedStore) Ping(ctx context.Context) error {
	start := time.Now()
	err := is.s.Ping(ctx)
	is.observe("ping", start, err)
	return err
}

func (is instrumentedStore) ClaimSeat(ctx context.Context, roundID, playerID string) (uint64, error) {
	start := time.Now()
	epoch, err := is.s.ClaimSeat(ctx, roundID, playerID)
	is.observe("claim_seat", start, err)
	return epoch, err
}

func (is instrumentedStore) CloseRound(ctx context.Context, roundID string) error {
	start := time.Now()
	err := is.s.CloseRound(ctx, roundID)
	is.observe("close_round", start, err)
	return err
}

func (is instrumentedStore) Keep(ctx context.Context, roundID string, until time.Time) error {
	start := time.Now()
	err := is.s.Keep(ctx, roundID, until)
	is.observe("keep", start, err)
	return err
}
