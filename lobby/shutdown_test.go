package lobby_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// stallCoord is a memory Coord whose saves of one match, once stall is
// called, block until release: a store call stuck as one to a Redis that
// is down is, up to its own timeout.
type stallCoord struct {
	lobby.Coord
	mu      sync.Mutex
	id      string
	entered chan struct{} // closed when a save of id is stuck
	gate    chan struct{} // closed by release
}

func newStallCoord() *stallCoord {
	return &stallCoord{Coord: memstore.NewCoord(), entered: make(chan struct{}), gate: make(chan struct{})}
}

// stall makes the next saves of match id block until release.
func (c *stallCoord) stall(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.id = id
}

func (c *stallCoord) release() { close(c.gate) }

func (c *stallCoord) SaveMatch(ctx context.Context, id string, prev int64, rec []byte, open bool, ttl time.Duration) (int64, error) {
	c.mu.Lock()
	stuck := id == c.id
	if stuck {
		c.id = "" // one stuck save is enough
		close(c.entered)
	}
	c.mu.Unlock()
	if stuck {
		<-c.gate // deaf to ctx, as a call that only its own timeout ends
	}
	return c.Coord.SaveMatch(ctx, id, prev, rec, open, ttl)
}

// TestShutdownKeepsItsDeadline: with a match's goroutine stuck in a store
// call, Shutdown returns ctx's error at ctx's deadline; the match keeps
// stopping in the background, and ends, as Close then sees, once the call
// returns.
func TestShutdownKeepsItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		co := newStallCoord()
		l := newLobbyOn(t, co)
		a, b := hello(t, l, "alice"), hello(t, l, "bob")
		info, err := l.CreateMatch(ctx, a.PlayerID, match.PartialSettings{})
		if err != nil {
			t.Fatal(err)
		}
		co.stall(info.ID)
		joined := make(chan error, 1)
		go func() {
			_, err := l.JoinMatch(ctx, b.PlayerID, info.ID, "")
			joined <- err
		}()
		<-co.entered // the match's goroutine is in the stuck save

		const grace = time.Second
		sctx, cancel := context.WithTimeout(ctx, grace)
		defer cancel()
		start := time.Now()
		if err := l.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Shutdown with a match stuck in a save = %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d != grace {
			t.Errorf("Shutdown returned after %v, want at its deadline, %v", d, grace)
		}

		closed := make(chan struct{})
		go func() {
			l.Close()
			close(closed)
		}()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("Close returned while a match was stuck in a save")
		default:
		}
		co.release()
		<-closed // the stuck match ended
		if err := <-joined; err != nil {
			t.Errorf("the join whose save was stuck = %v, want nil", err)
		}
		if err := l.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown of a stopped lobby = %v, want nil", err)
		}
	})
}
