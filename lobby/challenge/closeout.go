package challenge

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Attempts end on the node that serves them (attempt.go), but a player may
// walk away and never come back, and a challenge may close early while
// others play on other nodes. Once a challenge's window has closed, the
// first reader of its board on each node closes it out: every attempt not
// yet on the board ends as it stands (its store round closed, so no move
// lands later) and goes on. Each node does it once a challenge.

// closeOutBatch is how many attempts closing out reads at a time.
const closeOutBatch = 500

// closedOut remembers the closed challenges this node has closed out, and
// waits for one being closed out.
type closedOut struct {
	mu   sync.Mutex
	done map[string]*closingOut
}

type closingOut struct {
	ready chan struct{}
	err   error
	at    time.Time
}

// closeOut closes out a closed challenge once on this node; one still open
// needs nothing.
func (s *Service) closeOut(ctx context.Context, rec *Record, now time.Time) error {
	if !rec.Closed(now) {
		return nil
	}
	s.closedOut.mu.Lock()
	if s.closedOut.done == nil {
		s.closedOut.done = map[string]*closingOut{}
	}
	c := s.closedOut.done[rec.ID]
	mine := c == nil
	if mine {
		c = &closingOut{ready: make(chan struct{}), at: now}
		s.closedOut.done[rec.ID] = c
	}
	s.closedOut.mu.Unlock()
	if mine {
		c.err = s.closeOutAttempts(ctx, rec, now)
		if c.err != nil {
			s.closedOut.mu.Lock()
			delete(s.closedOut.done, rec.ID) // the next reader tries again
			s.closedOut.mu.Unlock()
		}
		close(c.ready)
		return c.err
	}
	select {
	case <-c.ready:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closeOutAttempts ends every attempt of the challenge not yet on its
// board.
func (s *Service) closeOutAttempts(ctx context.Context, rec *Record, now time.Time) error {
	cursor := ""
	for {
		page, next, err := s.cfg.Challenges.Attempts(ctx, rec.ID, cursor, closeOutBatch)
		if err != nil {
			return err
		}
		for _, a := range page {
			if a.Finished {
				continue
			}
			// One voided here does not count: it stays off the board.
			if _, err := s.finishAttempt(ctx, s.attemptOf(rec, a), now); err != nil && !errors.Is(err, ErrAttemptVoid) {
				return err
			}
		}
		if next == "" {
			return nil
		}
		cursor = next
	}
}

// forgetClosedOut drops what the node remembers of challenges closed out
// longer than the retention ago: their records are gone from the store by
// then.
func (s *Service) forgetClosedOut(now time.Time) {
	s.closedOut.mu.Lock()
	defer s.closedOut.mu.Unlock()
	for id, c := range s.closedOut.done {
		if now.Sub(c.at) > s.cfg.Retention {
			delete(s.closedOut.done, id)
		}
	}
}
