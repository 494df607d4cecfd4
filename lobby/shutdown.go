package lobby

import (
	"context"
	"sync"

	"klondike/match"
)

// Stopping the lobby. Each match's Close waits for its goroutine, which
// may be in the middle of a store call that lasts up to the call's own
// timeout when the store is down; Close waits for all of that, Shutdown
// only as long as its context allows.

// Close stops every match and the janitor, and waits until they have
// stopped, however long their store calls take. It may be called after
// Shutdown, to wait for what Shutdown left stopping.
func (l *Lobby) Close() {
	<-l.beginClose()
}

// Shutdown stops every match and the janitor, as Close does, but waits
// for them only until ctx ends: it then returns ctx's error, and they go
// on stopping in the background. Nothing is lost with them: a match
// acknowledges a move only once the store has it.
func (l *Lobby) Shutdown(ctx context.Context) error {
	stopped := l.beginClose()
	select {
	case <-stopped:
		return nil
	default:
	}
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// beginClose starts stopping the lobby, the first time it is called, and
// returns a channel closed once it has stopped.
func (l *Lobby) beginClose() <-chan struct{} {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return l.stopped
	}
	l.closed = true
	ms := l.madeMatches() // one being made: newMatch closes it, seeing l.closed
	l.mu.Unlock()
	close(l.stop)
	go l.stopAll(ms)
	return l.stopped
}

// stopAll waits for the janitor and the other background goroutines,
// then closes the matches ms, and closes l.stopped. The background
// goroutines go first, as they may be working on the matches (voiding
// them, closing abandoned ones).
func (l *Lobby) stopAll(ms []*match.Match) {
	defer close(l.stopped)
	<-l.done
	l.bg.Wait()
	// All at once: each match's Close waits for its goroutine, and one at
	// a time the matches of a busy node would take as long as all their
	// store calls together.
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(m.Close)
	}
	wg.Wait()
}

// background runs f on a goroutine of its own that Close waits for,
// unless the lobby is closing: then f does not run. The goroutine is
// counted under l.mu, so never after Close began to wait.
func (l *Lobby) background(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.bg.Add(1)
	go func() {
		defer l.bg.Done()
		f()
	}()
}
