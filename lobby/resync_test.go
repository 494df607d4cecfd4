package lobby_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// gappyCoord is a Coord whose subscription loses messages while dropping
// is set, and can say that it was made again (gap), as a Redis
// subscription does after its connection broke.
type gappyCoord struct {
	lobby.Coord
	mu       sync.Mutex
	dropping bool
	f        func([]byte)
}

func (c *gappyCoord) Subscribe(ctx context.Context, f func(msg []byte)) error {
	c.mu.Lock()
	c.f = f
	c.mu.Unlock()
	return c.Coord.Subscribe(ctx, func(msg []byte) {
		c.mu.Lock()
		drop := c.dropping
		c.mu.Unlock()
		if !drop {
			f(msg)
		}
	})
}

func (c *gappyCoord) drop(on bool) {
	c.mu.Lock()
	c.dropping = on
	c.mu.Unlock()
}

func (c *gappyCoord) gap() {
	c.mu.Lock()
	f := c.f
	c.mu.Unlock()
	f(nil)
}

func gappyNode(t *testing.T, mem memstore.Backends) (*lobby.Lobby, *gappyCoord) {
	co := &gappyCoord{Coord: mem.Coord}
	l := lobby.New(lobby.Config{
		Store: mem.Store, Coord: co, Players: mem.Players, Allowances: mem.Allowances, Sink: &sink{},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	t.Cleanup(l.Close)
	return l, co
}

func players(m *match.Match) []string {
	var ids []string
	for _, p := range m.Info().Players {
		ids = append(ids, p.Name)
	}
	return ids
}

// TestResyncAfterSubscriptionGap: a node that lost another node's news
// while its subscription was down catches up as soon as the subscription
// is back, without waiting for its periodic check; and news lost with no
// gap to tell of is caught by that check.
func TestResyncAfterSubscriptionGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		a, ca := gappyNode(t, mem)
		b, _ := gappyNode(t, mem)
		alice, bob, carol := hello(t, a, "alice"), hello(t, b, "bob"), hello(t, b, "carol")
		four := 4
		info, err := a.CreateMatch(ctx, alice.PlayerID, match.PartialSettings{MaxPlayers: &four})
		if err != nil {
			t.Fatal(err)
		}
		ma, err := a.Match(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()

		ca.drop(true)
		if _, err := b.JoinMatch(ctx, bob.PlayerID, info.ID, ""); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := players(ma); len(got) != 1 {
			t.Fatalf("node a, its news dropped: players %v, want alice alone", got)
		}
		ca.drop(false)
		ca.gap()
		synctest.Wait()
		if got := players(ma); len(got) != 2 {
			t.Fatalf("node a, right after the gap was told: players %v, want alice and bob", got)
		}

		ca.drop(true)
		if _, err := b.JoinMatch(ctx, carol.PlayerID, info.ID, ""); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		ca.drop(false)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := players(ma); len(got) != 2 {
			t.Fatalf("node a, 5 s after news it lost and was not told of: players %v, want alice and bob still", got)
		}
		time.Sleep(6 * time.Second)
		synctest.Wait()
		if got := players(ma); len(got) != 3 {
			t.Fatalf("node a, 11 s after news it lost: players %v, want carol too", got)
		}
	})
}
