package lobby_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// TestNewNeedsBackends: a lobby is not made without its backends, rather
// than made on some of its own choosing.
func TestNewNeedsBackends(t *testing.T) {
	mem := memstore.NewBackends()
	full := lobby.Config{Store: mem.Store, Coord: mem.Coord, Players: mem.Players, Allowances: mem.Allowances, Sink: &sink{}}
	for name, drop := range map[string]func(*lobby.Config){
		"Store":      func(c *lobby.Config) { c.Store = nil },
		"Coord":      func(c *lobby.Config) { c.Coord = nil },
		"Players":    func(c *lobby.Config) { c.Players = nil },
		"Allowances": func(c *lobby.Config) { c.Allowances = nil },
		"Sink":       func(c *lobby.Config) { c.Sink = nil },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := full
			drop(&cfg)
			defer func() {
				if recover() == nil {
					t.Errorf("lobby.New without a %s did not panic", name)
				}
			}()
			lobby.New(cfg).Close()
		})
	}
}

// downPlayers cannot be reached while down is set.
type downPlayers struct {
	lobby.Players
	down bool
}

func (s *downPlayers) Resume(ctx context.Context, cred string, idle time.Duration) (lobby.Player, error) {
	if s.down {
		return lobby.Player{}, fmt.Errorf("%w: the players are down (test)", match.ErrUnavailable)
	}
	return s.Players.Resume(ctx, cred, idle)
}

// TestPlayersAcrossLobbies: two lobbies that share their players, as two
// nodes share Redis's, resume each other's players; a rename on one is seen
// on the other, and a hello with another name renames nothing; an unknown
// token is ErrUnknownToken, and players that cannot be reached are
// unavailable, not an unknown token.
func TestPlayersAcrossLobbies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		shared := &downPlayers{Players: memstore.NewPlayers()}
		newNode := func() *lobby.Lobby {
			mem := memstore.NewBackends()
			l := lobby.New(lobby.Config{
				Store: mem.Store, Coord: mem.Coord, Players: shared, Allowances: mem.Allowances, Sink: &sink{},
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			})
			t.Cleanup(l.Close)
			return l
		}
		a, b := newNode(), newNode()
		s := hello(t, a, "alice")
		got, resumed, err := b.Hello(ctx, "", s.Token)
		if err != nil || !resumed || got != s {
			t.Fatalf("resume on the other node = %+v, %v, %v; want %+v", got, resumed, err, s)
		}
		if got, _, err := b.Hello(ctx, "mallory", s.Token); err != nil || got.Name != "alice" {
			t.Fatalf("hello with another name = %+v, %v; want the name kept", got, err)
		}
		if _, err := b.Rename(ctx, s.PlayerID, "alice2"); err != nil {
			t.Fatal(err)
		}
		if got, _, err := a.Hello(ctx, "", s.Token); err != nil || got.Name != "alice2" {
			t.Errorf("name after a rename on the other node = %q, %v; want alice2", got.Name, err)
		}
		if _, _, err := a.Hello(ctx, "x", "nope"); !errors.Is(err, lobby.ErrUnknownToken) {
			t.Errorf("unknown token = %v, want ErrUnknownToken", err)
		}
		shared.down = true
		if _, _, err := a.Hello(ctx, "", s.Token); !errors.Is(err, match.ErrUnavailable) || errors.Is(err, lobby.ErrUnknownToken) {
			t.Errorf("resume with the players down = %v, want match.ErrUnavailable", err)
		}
	})
}
