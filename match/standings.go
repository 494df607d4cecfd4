package match

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"klondike/engine"
)

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
	return r.localLeaderboard(now, lockWaiting)
}

// tryLocalLeaderboard is LocalLeaderboard without waiting: ok is also
// false when a seat is busy (its move may be waiting on the store).
func (r *Round) tryLocalLeaderboard(now time.Time) (entries []Entry, ok bool) {
	return r.localLeaderboard(now, (*sync.Mutex).TryLock)
}

// lockWaiting is Lock, as a TryLock that waits.
func lockWaiting(mu *sync.Mutex) bool {
	mu.Lock()
	return true
}

// localLeaderboard is LocalLeaderboard, taking each lock with lock
// (lockWaiting or TryLock).
func (r *Round) localLeaderboard(now time.Time, lock func(*sync.Mutex) bool) (entries []Entry, ok bool) {
	at := r.elapsedMs(now)
	if r.Over() {
		at = r.endMs.Load()
	}
	sts := make([]Standing, len(r.Players))
	if !lock(&r.mu) {
		return nil, false
	}
	for i, p := range r.Players {
		s := r.seats[p.ID]
		if s == nil || !lock(&s.mu) {
			r.mu.Unlock()
			return nil, false
		}
		st, stale := s.standing, s.stale.Load()
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

// dirtyNow reports whether the standings changed since the last TakeDirty,
// without taking the change.
func (r *Round) dirtyNow() bool { return r.dirty.Load() || r.urgent.Load() }
