package lobby

import (
	"context"
	"sync"
	"time"
)

// Sessions keep the players' sessions where every server node can find
// them, so a player can resume with their token on any node.
type Sessions interface {
	// Save stores a session under its token, to live idle long after its
	// last use.
	Save(ctx context.Context, s Session, idle time.Duration) error
	// Resume returns the session of a token and restarts its idle clock;
	// ErrUnknownToken when there is none (never made, or expired).
	Resume(ctx context.Context, token string, idle time.Duration) (Session, error)
}

// memSessions is the embedded Sessions: a map with idle expiry, checked on
// use and swept by the lobby's janitor.
type memSessions struct {
	mu sync.Mutex
	m  map[string]memSession
}

type memSession struct {
	s       Session
	expires time.Time
}

func newMemSessions() *memSessions { return &memSessions{m: map[string]memSession{}} }

func (ms *memSessions) Save(_ context.Context, s Session, idle time.Duration) error {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.m[s.Token] = memSession{s, time.Now().Add(idle)}
	return nil
}

func (ms *memSessions) Resume(_ context.Context, token string, idle time.Duration) (Session, error) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	e, ok := ms.m[token]
	if !ok || time.Now().After(e.expires) {
		delete(ms.m, token)
		return Session{}, ErrUnknownToken
	}
	e.expires = time.Now().Add(idle)
	ms.m[token] = e
	return e.s, nil
}

// sweep forgets expired sessions.
func (ms *memSessions) sweep(now time.Time) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for tok, e := range ms.m {
		if now.After(e.expires) {
			delete(ms.m, tok)
		}
	}
}
