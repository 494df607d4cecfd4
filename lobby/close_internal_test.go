package lobby

import (
	"testing"

	"klondike/lobby/memstore"
)

// TestCloseWhileAMatchIsBeingMade checks that Close skips a replica still
// being made (its entry has no match yet) instead of crashing on it, as it
// did when a node shut down in the middle of a quick-match rush.
func TestCloseWhileAMatchIsBeingMade(t *testing.T) {
	mem := memstore.NewBackends()
	l := New(Config{Store: mem.Store, Coord: mem.Coord, Sessions: mem.Sessions, Sink: nopSink{}, Async: mem.Async, Records: mem.Async})
	l.mu.Lock()
	l.matches["being-made"] = &entry{ready: make(chan struct{})}
	l.mu.Unlock()
	l.Close() // panicked on the nil match
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if !closed {
		t.Fatal("the lobby is not closed")
	}
}

type nopSink struct{}

func (nopSink) Send(string, []byte) {}
