package lobby_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// TestNewSessionsPerAddressAcrossNodes: two nodes that share their
// allowances, as two nodes share Redis's, let one address start
// NewSessionsPerMinute new players in all, not that many on each.
func TestNewSessionsPerAddressAcrossNodes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		shared := lobby.Config{Players: mem.Players, Allowances: mem.Allowances}
		a, b := newLobbyWith(t, shared), newLobbyWith(t, shared)
		const addr = "198.51.100.7"
		for i := range lobby.DefaultNewSessionsPerMinute {
			node := a
			if i%2 == 1 {
				node = b
			}
			helloFrom(t, node, addr, fmt.Sprintf("p%d", i))
		}
		for name, node := range map[string]*lobby.Lobby{"a": a, "b": b} {
			if _, _, err := node.HelloFrom(ctx, addr, "one-too-many", ""); !errors.Is(err, lobby.ErrTooManyNewSessions) {
				t.Errorf("new player %d from one address, on node %s = %v; want ErrTooManyNewSessions",
					lobby.DefaultNewSessionsPerMinute+1, name, err)
			}
		}
		// The same for a passkey sign-in's ceremony, which takes from the
		// same allowance.
		if err := b.AllowNew(ctx, addr); !errors.Is(err, lobby.ErrTooManyNewSessions) {
			t.Errorf("AllowNew at the limit = %v, want ErrTooManyNewSessions", err)
		}
		time.Sleep(time.Minute / lobby.DefaultNewSessionsPerMinute)
		helloFrom(t, b, addr, "refilled")
		if _, _, err := a.HelloFrom(ctx, addr, "again", ""); !errors.Is(err, lobby.ErrTooManyNewSessions) {
			t.Fatalf("after one refill, used on the other node = %v, want ErrTooManyNewSessions", err)
		}
	})
}

// downAllowances cannot be reached.
type downAllowances struct{ lobby.Allowances }

func (downAllowances) Take(context.Context, string, int, time.Duration, time.Time) (bool, error) {
	return false, fmt.Errorf("%w: the allowances are down (test)", match.ErrUnavailable)
}

// TestNewSessionsWithAllowancesDown: a new player is not let in uncounted
// when the allowances cannot be reached: the hello fails as unavailable;
// a resume, which takes nothing, still works, and so does a caller
// without an address.
func TestNewSessionsWithAllowancesDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		up := newLobbyWith(t, lobby.Config{Players: mem.Players})
		s := helloFrom(t, up, "198.51.100.7", "alice")
		down := newLobbyWith(t, lobby.Config{Players: mem.Players, Allowances: downAllowances{}})
		if _, _, err := down.HelloFrom(ctx, "198.51.100.7", "bob", ""); !errors.Is(err, match.ErrUnavailable) {
			t.Fatalf("new player with the allowances down = %v, want match.ErrUnavailable", err)
		}
		if err := down.AllowNew(ctx, "198.51.100.7"); !errors.Is(err, match.ErrUnavailable) {
			t.Fatalf("AllowNew with the allowances down = %v, want match.ErrUnavailable", err)
		}
		if got, resumed, err := down.HelloFrom(ctx, "198.51.100.7", "", s.Token); err != nil || !resumed || got.PlayerID != s.PlayerID {
			t.Fatalf("resume with the allowances down = %+v, %v, %v", got, resumed, err)
		}
		if _, _, err := down.Hello(ctx, "tool", ""); err != nil {
			t.Fatalf("hello without an address with the allowances down = %v", err)
		}
	})
}
