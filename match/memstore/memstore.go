// Package memstore is the embedded, in-memory implementation of the match
// package's Store: one process, nothing durable, no set-up.
package memstore

import (
	"context"
	"slices"
	"sync"

	"klondike/match"
)

// Store keeps move logs and standings in memory. Its zero value is not
// usable: call New.
type Store struct {
	mu     sync.Mutex
	rounds map[string]*round
}

type round struct {
	logs      map[string][]match.LogEntry
	epochs    map[string]uint64
	standings map[string]match.Standing
}

var _ match.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store { return &Store{rounds: make(map[string]*round)} }

func (s *Store) round(id string) *round {
	r := s.rounds[id]
	if r == nil {
		r = &round{logs: map[string][]match.LogEntry{}, epochs: map[string]uint64{}, standings: map[string]match.Standing{}}
		s.rounds[id] = r
	}
	return r
}

// Append implements match.Store.
func (s *Store) Append(_ context.Context, roundID string, epoch uint64, e match.LogEntry, st match.Standing) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.round(roundID)
	if cur := r.epochs[st.PlayerID]; epoch < cur {
		return match.ErrStaleWriter
	}
	// A newer writer takes the log over even if its entry is refused below:
	// the old writer is fenced as soon as the new one shows.
	r.epochs[st.PlayerID] = epoch
	log := r.logs[st.PlayerID]
	switch {
	case e.Seq >= 1 && e.Seq <= len(log) && log[e.Seq-1] == e:
		return nil // a retry of an entry the log holds: nothing changes
	case e.Seq <= len(log):
		return match.ErrSeqConflict
	case e.Seq > len(log)+1:
		return match.ErrSeqGap
	}
	r.logs[st.PlayerID] = append(log, e)
	r.standings[st.PlayerID] = st
	return nil
}

// SetStanding implements match.Store.
func (s *Store) SetStanding(_ context.Context, roundID string, st match.Standing) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.round(roundID).standings[st.PlayerID] = st
	return nil
}

// Log implements match.Store.
func (s *Store) Log(_ context.Context, roundID, playerID string) ([]match.LogEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rounds[roundID]
	if r == nil {
		return nil, match.ErrNotFound
	}
	return slices.Clone(r.logs[playerID]), nil
}

// Standings implements match.Store.
func (s *Store) Standings(_ context.Context, roundID string) ([]match.Standing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rounds[roundID]
	if r == nil || len(r.standings) == 0 {
		return nil, match.ErrNotFound
	}
	out := make([]match.Standing, 0, len(r.standings))
	for _, st := range r.standings {
		out = append(out, st)
	}
	return out, nil
}

// Ping implements match.Store; memory is always there.
func (s *Store) Ping(context.Context) error { return nil }
