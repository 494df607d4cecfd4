// Package memstore is the embedded, in-memory implementation of the
// server's backends: the match package's Store and Coord, and what the
// lobby asks of the same (lobby.Coord, lobby.Players):
// one process, nothing durable, no set-up. NewBackends makes them all.
package memstore

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"time"

	"klondike/match"
)

// Store keeps move logs and standings in memory. Its zero value is not
// usable: call New.
type Store struct {
	mu     sync.Mutex
	rounds map[string]*round
	closed map[string]bool // rounds closed by CloseRound
}

type round struct {
	logs      map[string][]match.LogEntry
	epochs    map[string]uint64
	standings map[string]match.Standing
}

var _ match.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store { return &Store{rounds: make(map[string]*round), closed: make(map[string]bool)} }

// ErrEpochsExhausted is ClaimSeat's error when the player's epoch is
// already the largest uint64 and no newer one can be made.
var ErrEpochsExhausted = errors.New("memstore: no writer epoch is newer than 2⁶⁴−1")

// epochFor returns the player's writer epoch in r, a round that may be
// nil, and whether there is one.
func (r *round) epochFor(playerID string) (uint64, bool) {
	if r == nil {
		return 0, false
	}
	e, ok := r.epochs[playerID]
	return e, ok
}

func (s *Store) round(id string) *round {
	r := s.rounds[id]
	if r == nil {
		r = &round{logs: map[string][]match.LogEntry{}, epochs: map[string]uint64{}, standings: map[string]match.Standing{}}
		s.rounds[id] = r
	}
	return r
}

// Append implements match.Store. Its checks run in the order of the Redis
// store's script: a stale writer first, then a closed round (where only a
// retry of an entry in the log answers nil), then a claimed writer the
// round has no epoch for (ErrDataLost: memory loses nothing, but the two
// stores answer alike), then the seq.
func (s *Store) Append(_ context.Context, roundID string, epoch uint64, e match.LogEntry, st match.Standing) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rounds[roundID]
	if r != nil && epoch < r.epochs[st.PlayerID] {
		return match.ErrStaleWriter
	}
	if s.closed[roundID] {
		// A closed round takes nothing, not even a newer writer; only a
		// retry of an entry in the log still answers as a retry.
		if r != nil {
			log := r.logs[st.PlayerID]
			if e.Seq >= 1 && e.Seq <= len(log) && log[e.Seq-1] == e {
				return nil
			}
		}
		return match.ErrRoundClosed
	}
	if _, known := r.epochFor(st.PlayerID); !known && epoch > 0 && e.Seq > 1 {
		return match.ErrDataLost
	}
	r = s.round(roundID)
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

// ClaimSeat implements match.Store: the player's epoch goes up by one.
func (s *Store) ClaimSeat(_ context.Context, roundID, playerID string) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.round(roundID)
	cur := r.epochs[playerID]
	if cur == math.MaxUint64 {
		return 0, ErrEpochsExhausted
	}
	r.epochs[playerID] = cur + 1
	return cur + 1, nil
}

// CloseRound implements match.Store.
func (s *Store) CloseRound(_ context.Context, roundID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed[roundID] = true
	return nil
}

// Keep implements match.Store: the memory store keeps everything for the
// process's life.
func (s *Store) Keep(context.Context, string, time.Time) error { return nil }
