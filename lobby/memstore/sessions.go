package memstore

import (
	"context"
	"sync"
	"time"

	"klondike/lobby"
	"klondike/match"
)

// Sessions keep the players' sessions in memory, for the lobby of one
// process: a map by token whose entries expire after their idle time,
// checked on use and swept at most once a sweepEvery by a Save. Its zero
// value is not usable: call NewSessions.
type Sessions struct {
	mu        sync.Mutex
	m         map[string]expiring[lobby.Session]
	lastSweep time.Time
}

var _ lobby.Sessions = (*Sessions)(nil)

// NewSessions returns empty sessions.
func NewSessions() *Sessions {
	return &Sessions{m: map[string]expiring[lobby.Session]{}, lastSweep: time.Now()}
}

// Save stores s under its token for idle after its last use; it never
// fails.
func (ss *Sessions) Save(_ context.Context, s lobby.Session, idle time.Duration) error {
	now := time.Now()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.sweep(now)
	ss.m[s.Token] = expiring[lobby.Session]{s, now.Add(idle)}
	return nil
}

// Resume returns the session of token and restarts its idle clock;
// match.ErrNotFound when there is none (never saved, or expired).
func (ss *Sessions) Resume(_ context.Context, token string, idle time.Duration) (lobby.Session, error) {
	now := time.Now()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	e, ok := ss.m[token]
	if !ok || !e.live(now) {
		delete(ss.m, token)
		return lobby.Session{}, match.ErrNotFound
	}
	e.expires = now.Add(idle)
	ss.m[token] = e
	e.val.Token = token
	return e.val, nil
}

// sweep forgets expired sessions, at most once a sweepEvery; ss.mu is held.
func (ss *Sessions) sweep(now time.Time) {
	if now.Sub(ss.lastSweep) < sweepEvery {
		return
	}
	ss.lastSweep = now
	for tok, e := range ss.m {
		if !e.live(now) {
			delete(ss.m, tok)
		}
	}
}
