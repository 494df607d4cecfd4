package api_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"klondike/api/servertest"
	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// stallCoord is a memory Coord whose next save of one match, once stall
// is called, blocks until release, as a call to a Redis that is down does
// up to its own timeout.
type stallCoord struct {
	lobby.Coord
	mu      sync.Mutex
	id      string
	entered chan struct{} // closed when the save of id is stuck
	gate    chan struct{} // closed by release
}

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
		c.id = ""
		close(c.entered)
	}
	c.mu.Unlock()
	if stuck {
		<-c.gate // deaf to ctx, as a call that only its own timeout ends
	}
	return c.Coord.SaveMatch(ctx, id, prev, rec, open, ttl)
}

// TestServerShutdownKeepsItsDeadline: Server.Shutdown returns ctx's error
// at ctx's deadline while a match is stuck in a store call, instead of
// waiting for the call; Close then waits for the match to end.
func TestServerShutdownKeepsItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		co := &stallCoord{Coord: memstore.NewCoord(), entered: make(chan struct{}), gate: make(chan struct{})}
		srv := servertest.New(servertest.Config{Coord: co, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		a, _, err := srv.Lobby.Hello(ctx, "alice", "")
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := srv.Lobby.Hello(ctx, "bob", "")
		if err != nil {
			t.Fatal(err)
		}
		info, err := srv.Lobby.CreateMatch(ctx, a.PlayerID, match.PartialSettings{})
		if err != nil {
			t.Fatal(err)
		}
		co.stall(info.ID)
		joined := make(chan error, 1)
		go func() {
			_, err := srv.Lobby.JoinMatch(ctx, b.PlayerID, info.ID, "")
			joined <- err
		}()
		<-co.entered

		const grace = time.Second
		sctx, cancel := context.WithTimeout(ctx, grace)
		defer cancel()
		start := time.Now()
		if err := srv.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Shutdown with a match stuck in a save = %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d != grace {
			t.Errorf("Shutdown returned after %v, want at its deadline, %v", d, grace)
		}

		closed := make(chan struct{})
		go func() {
			srv.Close()
			close(closed)
		}()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("Close returned while a match was stuck in a save")
		default:
		}
		co.release()
		<-closed
		if err := <-joined; err != nil {
			t.Errorf("the join whose save was stuck = %v, want nil", err)
		}
	})
}
