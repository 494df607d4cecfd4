package backends_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/lobby/backends"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// exercise uses every backend of b once, so that one that is missing or
// does not work fails the test.
func exercise(t *testing.T, b *backends.Backends) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Store.Ping(ctx); err != nil {
		t.Fatalf("Store.Ping: %v", err)
	}
	if err := b.Store.SetStanding(ctx, "r1", match.Standing{PlayerID: "p", Name: "p", FinishedMs: -1}); err != nil {
		t.Fatalf("Store.SetStanding: %v", err)
	}
	if _, err := b.Coord.SaveMatch(ctx, "m1", 0, []byte("rec"), true, time.Minute); err != nil {
		t.Fatalf("Coord.SaveMatch: %v", err)
	}
	pl := lobby.Player{ID: "p", Name: "n", Created: time.Now()}
	if err := b.Players.Create(ctx, pl, "cred", time.Minute); err != nil {
		t.Fatalf("Players.Create: %v", err)
	}
	if got, err := b.Players.Resume(ctx, "cred", time.Minute); err != nil || got.ID != pl.ID || got.Name != pl.Name {
		t.Fatalf("Players.Resume = %+v, %v; want %+v", got, err, pl)
	}
	if _, err := b.Challenges.Load(ctx, "no-such-round"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("Challenges.Load(no-such-round) = %v, want match.ErrNotFound", err)
	}
	if recs, err := b.Records.Records(ctx, "p"); err != nil || len(recs) != 0 {
		t.Fatalf("Records.Records(p) = %v, %v; want none", recs, err)
	}
}

func TestOpenMemory(t *testing.T) {
	for _, durability := range []string{"", backends.DurabilityLocal} {
		b, err := backends.Open(context.Background(), "", backends.Options{Durability: durability})
		if err != nil {
			t.Fatalf("Open(\"\", Durability %q): %v", durability, err)
		}
		if b.Redis != nil {
			t.Errorf("Open(\"\") has a Redis client %T, want none", b.Redis)
		}
		exercise(t, b)
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// TestOpenMemoryIsPrivate: each Open of the memory backends has state of
// its own.
func TestOpenMemoryIsPrivate(t *testing.T) {
	ctx := context.Background()
	a, _ := backends.Open(ctx, "", backends.Options{})
	b, _ := backends.Open(ctx, "", backends.Options{})
	if err := a.Players.Create(ctx, lobby.Player{ID: "p"}, "cred", time.Minute); err != nil {
		t.Fatal(err)
	}
	if p, err := b.Players.Resume(ctx, "cred", time.Minute); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("another Open's player = %+v, %v; want match.ErrNotFound", p, err)
	}
}

func TestOpenRefuses(t *testing.T) {
	for _, tc := range []struct {
		url  string
		o    backends.Options
		want error // nil: any error
	}{
		{"", backends.Options{Durability: backends.DurabilityReplica}, backends.ErrNoReplica},
		{"", backends.Options{Durability: "disk"}, backends.ErrBadDurability},
		{"redis://127.0.0.1:1/0", backends.Options{Durability: "disk"}, backends.ErrBadDurability},
		{"redis://127.0.0.1:1/0", backends.Options{Prefix: "a{b}"}, backends.ErrBadPrefix},
		{"http://nope", backends.Options{}, nil},
		{"http://nope", backends.Options{Cluster: true}, nil},
		{"memory:", backends.Options{}, nil},
	} {
		b, err := backends.Open(context.Background(), tc.url, tc.o)
		if err == nil {
			b.Close()
			t.Errorf("Open(%q, %+v) did not fail", tc.url, tc.o)
		} else if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("Open(%q, %+v) = %v, want %v", tc.url, tc.o, err, tc.want)
		}
	}
}

// TestOpenRedis: two Opens of one Redis under one prefix share their
// state, as two nodes do; under another prefix they do not.
func TestOpenRedis(t *testing.T) {
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	ctx := context.Background()
	open := func(prefix string) *backends.Backends {
		b, err := backends.Open(ctx, srv.URL(), backends.Options{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		if b.Redis == nil {
			t.Fatal("the Redis backends have no client")
		}
		return b
	}
	a, b, other := open(prefix), open(prefix), open(prefix+"other:")
	exercise(t, a)
	if p, err := b.Players.Resume(ctx, "cred", time.Minute); err != nil || p.ID != "p" {
		t.Errorf("the player on another Open of the same prefix = %+v, %v; want p", p, err)
	}
	if p, err := other.Players.Resume(ctx, "cred", time.Minute); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("the player under another prefix = %+v, %v; want match.ErrNotFound", p, err)
	}
}

// syncBuffer is a log that the Redis client's goroutines may write too.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOpenWarns: with a Logger, a Redis that does not answer, or one with
// no replica under DurabilityReplica, is a warning and not an error.
func TestOpenWarns(t *testing.T) {
	srv := redistest.Start(t)
	for _, tc := range []struct {
		name, url, durability, want string
	}{
		{"Down", "redis://127.0.0.1:1/0", backends.DurabilityLocal, "Redis does not answer yet"},
		{"NoReplica", srv.URL(), backends.DurabilityReplica, "the Redis master has no replica"},
		{"Up", srv.URL(), backends.DurabilityLocal, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncBuffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			b, err := backends.Open(context.Background(), tc.url, backends.Options{Prefix: redistest.Prefix(t), Durability: tc.durability, Logger: log})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			b.Close()
			got := logs.String()
			if tc.want == "" && strings.Contains(got, "level=WARN") || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("Open(%s, durability %s) logged %q; want %q", tc.url, tc.durability, got, tc.want)
			}
		})
	}
}
