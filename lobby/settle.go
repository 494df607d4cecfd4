package lobby

import (
	"context"
	"sync"
	"time"

	"klondike/match"
)

// Attempts end on the node that serves them (attempt.go), but a player may
// walk away and never come back, and a challenge may close early while
// others play on other nodes. Once a round's window has closed, the first
// reader of its board on each node settles it: every attempt not yet on
// the board ends as it stands (its store round closed, so no move lands
// later) and goes on. Each node does it once a round.

// settleBatch is how many attempts settling reads at a time.
const settleBatch = 500

// settled remembers the closed rounds this node has settled, and waits
// for one being settled.
type settled struct {
	mu   sync.Mutex
	done map[string]*settling
}

type settling struct {
	ready chan struct{}
	err   error
	at    time.Time
}

// settleAsync settles a closed round once on this node; a round still open
// needs nothing.
func (l *Lobby) settleAsync(ctx context.Context, rec *match.AsyncRecord, now time.Time) error {
	if !rec.Closed(now) {
		return nil
	}
	l.settled.mu.Lock()
	if l.settled.done == nil {
		l.settled.done = map[string]*settling{}
	}
	s := l.settled.done[rec.ID]
	mine := s == nil
	if mine {
		s = &settling{ready: make(chan struct{}), at: now}
		l.settled.done[rec.ID] = s
	}
	l.settled.mu.Unlock()
	if mine {
		s.err = l.settleAttempts(ctx, rec, now)
		if s.err != nil {
			l.settled.mu.Lock()
			delete(l.settled.done, rec.ID) // the next reader tries again
			l.settled.mu.Unlock()
		}
		close(s.ready)
		return s.err
	}
	select {
	case <-s.ready:
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// settleAttempts ends every attempt of the round not yet on its board.
func (l *Lobby) settleAttempts(ctx context.Context, rec *match.AsyncRecord, now time.Time) error {
	cursor := ""
	for {
		page, next, err := l.cfg.Async.Attempts(ctx, rec.ID, cursor, settleBatch)
		if err != nil {
			return err
		}
		for _, a := range page {
			if a.Finished {
				continue
			}
			if _, err := l.finishAttempt(ctx, l.attemptOf(rec, a), now); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		cursor = next
	}
}

// forgetSettled drops what the node remembers of rounds settled longer
// than the retention ago: their records are gone from the store by then.
func (l *Lobby) forgetSettled(now time.Time) {
	l.settled.mu.Lock()
	defer l.settled.mu.Unlock()
	for id, s := range l.settled.done {
		if now.Sub(s.at) > l.cfg.AsyncRetention {
			delete(l.settled.done, id)
		}
	}
}
