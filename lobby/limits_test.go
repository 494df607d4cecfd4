package lobby_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// epochCoord is a Coord whose data epoch fails while down is set, and is
// epoch when that is set.
type epochCoord struct {
	lobby.Coord
	down  atomic.Bool
	mu    sync.Mutex
	epoch string
}

func (c *epochCoord) DataEpoch(ctx context.Context) (string, error) {
	if c.down.Load() {
		return "", fmt.Errorf("%w: the store is down (test)", match.ErrUnavailable)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != "" {
		return c.epoch, nil
	}
	return c.Coord.DataEpoch(ctx)
}

func (c *epochCoord) setEpoch(e string) {
	c.mu.Lock()
	c.epoch = e
	c.mu.Unlock()
}

// newLobbyWith is newLobby with a Config of the test's (its backends and
// Sink taken from newLobby's when unset, its Logger and Match always).
func newLobbyWith(t *testing.T, cfg lobby.Config) *lobby.Lobby {
	if cfg.Store == nil {
		cfg.Store = memstore.New()
	}
	if cfg.Coord == nil {
		cfg.Coord = memstore.NewCoord()
	}
	if cfg.Players == nil {
		cfg.Players = memstore.NewPlayers()
	}
	if cfg.Allowances == nil {
		cfg.Allowances = memstore.NewAllowances()
	}
	if cfg.Sink == nil {
		cfg.Sink = &sink{}
	}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Match = match.Config{QuickWait: time.Second, Intermission: time.Second}
	l := lobby.New(cfg)
	t.Cleanup(l.Close)
	return l
}

func helloFrom(t *testing.T, l *lobby.Lobby, addr, name string) lobby.Session {
	t.Helper()
	s, _, err := l.HelloFrom(context.Background(), addr, name, "")
	if err != nil {
		t.Fatalf("hello from %s: %v", addr, err)
	}
	return s
}

// openList returns the ids on the Coord's list of open matches.
func openList(t *testing.T, co lobby.Coord) []string {
	t.Helper()
	list, err := co.OpenMatches(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, o := range list {
		ids = append(ids, o.ID)
	}
	return ids
}

// TestNotReadyUntilTheDataEpochIsRead: a lobby whose store does not give
// its data epoch serves no match, made or looked up, and says it is not
// ready; once the store answers, it is ready within the retry's pause and
// serves matches.
func TestNotReadyUntilTheDataEpochIsRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		co := &epochCoord{Coord: memstore.NewCoord()}
		co.down.Store(true)
		l := newLobbyWith(t, lobby.Config{Coord: co})
		if l.Ready() {
			t.Fatal("ready without the data epoch")
		}
		a := hello(t, l, "alice")
		for what, err := range map[string]error{
			"create_match": func() error { _, err := l.CreateMatch(ctx, a.PlayerID, match.PartialSettings{}); return err }(),
			"quick_match":  func() error { _, err := l.QuickMatch(ctx, a.PlayerID, match.PartialSettings{}); return err }(),
			"match":        func() error { _, err := l.Match(ctx, "someid"); return err }(),
			"round":        func() error { _, err := l.Round(ctx, "someid"); return err }(),
		} {
			if !errors.Is(err, match.ErrUnavailable) || !errors.Is(err, lobby.ErrNotReady) {
				t.Errorf("%s before the data epoch is read = %v, want ErrNotReady (unavailable)", what, err)
			}
		}
		if ids := openList(t, co); len(ids) != 0 {
			t.Fatalf("matches made before the epoch was read: %v", ids)
		}
		time.Sleep(5 * time.Second) // still down: still retrying
		if l.Ready() {
			t.Fatal("ready while the store is down")
		}
		co.down.Store(false)
		time.Sleep(2 * time.Second) // the retries' longest pause
		synctest.Wait()
		if !l.Ready() {
			t.Fatal("not ready once the store answers")
		}
		if _, err := l.CreateMatch(ctx, a.PlayerID, match.PartialSettings{}); err != nil {
			t.Fatalf("create_match once ready: %v", err)
		}
	})
}

// TestEpochChangedRightAfterStartVoids: the data epoch is read as the
// lobby starts, so a loss of the shared state before the first periodic
// check (the epoch changes) voids the matches being served, instead of
// being taken for the first reading.
func TestEpochChangedRightAfterStartVoids(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		co := &epochCoord{Coord: memstore.NewCoord()}
		l := newLobbyWith(t, lobby.Config{Coord: co})
		a, b := hello(t, l, "alice"), hello(t, l, "bob")
		zero := 0
		info, err := l.CreateMatch(ctx, a.PlayerID, match.PartialSettings{CountdownS: &zero})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.JoinMatch(ctx, b.PlayerID, info.ID, ""); err != nil {
			t.Fatal(err)
		}
		m, _ := l.Match(ctx, info.ID)
		if err := m.Start(ctx, a.PlayerID); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		co.setEpoch("lost-and-restarted") // before the first check, 2 s after the start
		time.Sleep(lobby.DefaultDataEpochEvery + time.Second)
		synctest.Wait()
		if st := m.State(); st != match.StateOver {
			t.Fatalf("state %v after the data epoch changed, want over (voided)", st)
		}
	})
}

// TestAbandonedOpenMatchesClosed: open matches whose members have all
// been disconnected for the grace are closed and leave the list; one whose
// member came back in time stays.
func TestAbandonedOpenMatchesClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		co := memstore.NewCoord()
		l := newLobbyWith(t, lobby.Config{Coord: co})
		pub := true
		var gone []string
		for i := range 200 {
			p := hello(t, l, fmt.Sprintf("p%d", i))
			info, err := l.CreateMatch(ctx, p.PlayerID, match.PartialSettings{Public: &pub})
			if err != nil {
				t.Fatal(err)
			}
			l.Connected(ctx, p.PlayerID, false)
			gone = append(gone, info.ID)
		}
		back := hello(t, l, "back")
		kept, err := l.CreateMatch(ctx, back.PlayerID, match.PartialSettings{Public: &pub})
		if err != nil {
			t.Fatal(err)
		}
		l.Connected(ctx, back.PlayerID, false)
		if n := len(openList(t, co)); n != 201 {
			t.Fatalf("%d open matches listed, want 201", n)
		}
		time.Sleep(lobby.DefaultAbandonedAfter / 2)
		l.Connected(ctx, back.PlayerID, true)
		time.Sleep(lobby.DefaultAbandonedAfter/2 + 15*time.Second) // the grace and a check
		synctest.Wait()
		if ids := openList(t, co); !slices.Equal(ids, []string{kept.ID}) {
			t.Fatalf("listed after the grace: %d matches, want only the one whose player came back", len(ids))
		}
		for _, id := range gone {
			m, err := l.Match(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if st := m.State(); st != match.StateOver {
				t.Fatalf("abandoned match %s: state %v, want over", id, st)
			}
		}
		if open, _ := l.Counts(); open != 1 {
			t.Errorf("%d open matches on the node, want 1", open)
		}
	})
}

// TestOneOpenMatchAPlayer: creating or joining a match takes the player
// out of the open match they were in, so a player holds one at most.
func TestOneOpenMatchAPlayer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		co := memstore.NewCoord()
		l := newLobbyWith(t, lobby.Config{Coord: co})
		a, b := hello(t, l, "alice"), hello(t, l, "bob")
		pub := true
		var made []string
		for range 5 {
			info, err := l.CreateMatch(ctx, a.PlayerID, match.PartialSettings{Public: &pub})
			if err != nil {
				t.Fatal(err)
			}
			made = append(made, info.ID)
		}
		if ids := openList(t, co); !slices.Equal(ids, made[4:]) {
			t.Fatalf("after five create_match: listed %v, want only the last, %s", ids, made[4])
		}
		other, err := l.CreateMatch(ctx, b.PlayerID, match.PartialSettings{Public: &pub})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.JoinMatch(ctx, a.PlayerID, other.ID, ""); err != nil {
			t.Fatal(err)
		}
		if ids := openList(t, co); !slices.Equal(ids, []string{other.ID}) {
			t.Fatalf("after joining another: listed %v, want only %s", ids, other.ID)
		}
		q, err := l.QuickMatch(ctx, a.PlayerID, match.PartialSettings{})
		if err != nil {
			t.Fatal(err)
		}
		m, _ := l.Match(ctx, other.ID)
		if got := m.Info().Players; len(got) != 1 || got[0].PlayerID != b.PlayerID {
			t.Fatalf("after quick_match, the match alice joined has players %v, want bob alone", got)
		}
		if cur := l.Current(ctx, a.PlayerID); cur != q.ID {
			t.Fatalf("alice's current match %s, want the quick match %s", cur, q.ID)
		}
	})
}

// TestOpenMatchesCapPerAddress: the players of one address make at most
// MaxOpenPerIP open matches; a match stops counting when it starts or
// ends, and an IPv6 address counts by its /64.
func TestOpenMatchesCapPerAddress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		l := newLobbyWith(t, lobby.Config{MaxOpenPerIP: 2})
		p1, p2, p3 := helloFrom(t, l, "192.0.2.1", "p1"), helloFrom(t, l, "192.0.2.1", "p2"), helloFrom(t, l, "192.0.2.1", "p3")
		m1, err := l.CreateMatch(ctx, p1.PlayerID, match.PartialSettings{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.CreateMatch(ctx, p2.PlayerID, match.PartialSettings{}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.CreateMatch(ctx, p3.PlayerID, match.PartialSettings{}); !errors.Is(err, lobby.ErrTooManyOpenFromAddr) {
			t.Fatalf("a third open match from one address = %v, want ErrTooManyOpenFromAddr", err)
		}
		if _, err := l.CreateMatch(ctx, helloFrom(t, l, "192.0.2.2", "q").PlayerID, match.PartialSettings{}); err != nil {
			t.Fatalf("another address: %v", err)
		}
		// p1's match starts: it no longer counts.
		m, _ := l.Match(ctx, m1.ID)
		if err := m.Start(ctx, p1.PlayerID); err != nil {
			t.Fatal(err)
		}
		if _, err := l.CreateMatch(ctx, p3.PlayerID, match.PartialSettings{}); err != nil {
			t.Fatalf("once one started: %v", err)
		}
		// p2 leaves theirs, which ends: it no longer counts.
		if err := l.LeaveMatch(ctx, p2.PlayerID, l.Current(ctx, p2.PlayerID)); err != nil {
			t.Fatal(err)
		}
		if _, err := l.CreateMatch(ctx, p2.PlayerID, match.PartialSettings{}); err != nil {
			t.Fatalf("once one ended: %v", err)
		}
		// One IPv6 subscriber's addresses are one address.
		v1, v2, v3 := helloFrom(t, l, "2001:db8:1:2::1", "v1"), helloFrom(t, l, "2001:db8:1:2::2", "v2"), helloFrom(t, l, "2001:db8:1:2:ffff::3", "v3")
		for _, p := range []lobby.Session{v1, v2} {
			if _, err := l.CreateMatch(ctx, p.PlayerID, match.PartialSettings{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := l.CreateMatch(ctx, v3.PlayerID, match.PartialSettings{}); !errors.Is(err, lobby.ErrTooManyOpenFromAddr) {
			t.Fatalf("a third open match from one IPv6 /64 = %v, want ErrTooManyOpenFromAddr", err)
		}
	})
}

// TestOpenMatchesCapInAll: a node holds at most MaxOpen open matches,
// quick ones included; a match that starts frees its place.
func TestOpenMatchesCapInAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		l := newLobbyWith(t, lobby.Config{MaxOpen: 3})
		one := 1
		var first *match.MatchInfo
		for i := range 2 {
			info, err := l.CreateMatch(ctx, helloFrom(t, l, fmt.Sprintf("192.0.2.%d", i+1), "p").PlayerID, match.PartialSettings{})
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = info
			}
		}
		q, err := l.QuickMatch(ctx, helloFrom(t, l, "192.0.2.9", "q").PlayerID, match.PartialSettings{Draw: &one})
		if err != nil {
			t.Fatal(err)
		}
		late := helloFrom(t, l, "192.0.2.10", "late")
		if _, err := l.CreateMatch(ctx, late.PlayerID, match.PartialSettings{}); !errors.Is(err, lobby.ErrTooManyOpen) {
			t.Fatalf("a fourth open match = %v, want ErrTooManyOpen", err)
		}
		if _, err := l.QuickMatch(ctx, late.PlayerID, match.PartialSettings{}); !errors.Is(err, lobby.ErrTooManyOpen) {
			t.Fatalf("a fourth, quick = %v, want ErrTooManyOpen", err)
		}
		// A quick match with a free seat still takes players.
		if info, err := l.QuickMatch(ctx, late.PlayerID, match.PartialSettings{Draw: &one}); err != nil || info.ID != q.ID {
			t.Fatalf("joining the open quick match at the cap = %v, %v", info, err)
		}
		m, _ := l.Match(ctx, first.ID)
		if err := m.Start(ctx, first.Host); err != nil {
			t.Fatal(err)
		}
		if _, err := l.CreateMatch(ctx, helloFrom(t, l, "192.0.2.11", "next").PlayerID, match.PartialSettings{}); err != nil {
			t.Fatalf("once one started: %v", err)
		}
	})
}

// TestNewSessionsPerAddress: an address starts NewSessionsPerMinute
// sessions at once, then one each 60/NewSessionsPerMinute s; resuming is
// never limited, and other addresses have their own budget.
func TestNewSessionsPerAddress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		l := newLobbyWith(t, lobby.Config{})
		const addr = "198.51.100.7"
		var first lobby.Session
		for i := range lobby.DefaultNewSessionsPerMinute {
			s := helloFrom(t, l, addr, fmt.Sprintf("p%d", i))
			if i == 0 {
				first = s
			}
		}
		if _, _, err := l.HelloFrom(ctx, addr, "one-too-many", ""); !errors.Is(err, lobby.ErrTooManyNewSessions) {
			t.Fatalf("new session %d from one address = %v, want ErrTooManyNewSessions", lobby.DefaultNewSessionsPerMinute+1, err)
		}
		if s, resumed, err := l.HelloFrom(ctx, addr, "", first.Token); err != nil || !resumed || s.PlayerID != first.PlayerID {
			t.Fatalf("resume at the limit = %v, %v, %v", s, resumed, err)
		}
		helloFrom(t, l, "198.51.100.8", "elsewhere")
		if _, _, err := l.HelloFrom(ctx, addr, "bad\x00name", ""); !errors.Is(err, lobby.ErrBadName) {
			t.Fatalf("a bad name at the limit = %v, want ErrBadName", err)
		}
		time.Sleep(time.Minute / lobby.DefaultNewSessionsPerMinute)
		helloFrom(t, l, addr, "refilled")
		if _, _, err := l.HelloFrom(ctx, addr, "again", ""); !errors.Is(err, lobby.ErrTooManyNewSessions) {
			t.Fatalf("after one refill and its use = %v, want ErrTooManyNewSessions", err)
		}
		time.Sleep(time.Minute)
		for i := range lobby.DefaultNewSessionsPerMinute {
			helloFrom(t, l, addr, fmt.Sprintf("later%d", i))
		}
	})
}
