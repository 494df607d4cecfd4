package redisstore_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/match"
	"klondike/match/memstore"
	"klondike/match/redisstore"
	"klondike/match/redisstore/redistest"
)

type nopSink struct{}

func (nopSink) Send(string, []byte) {}

// TestSessionsAcrossNodes says hello on one lobby and resumes with the
// token on another lobby that shares the Redis: as two nodes would.
func TestSessionsAcrossNodes(t *testing.T) {
	rs := redistest.Start(t)
	prefix := redistest.Prefix(t)
	newLobby := func() *lobby.Lobby {
		l := lobby.New(lobby.Config{
			Store: memstore.New(), Sink: nopSink{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Sessions: redisstore.NewSessions(rs.Client(t), prefix),
		})
		t.Cleanup(l.Close)
		return l
	}
	ctx := context.Background()
	a, b := newLobby(), newLobby()
	s, resumed, err := a.Hello(ctx, "alice", "")
	if err != nil || resumed {
		t.Fatalf("hello = %+v %v %v", s, resumed, err)
	}
	got, resumed, err := b.Hello(ctx, "", s.Token)
	if err != nil || !resumed || got.PlayerID != s.PlayerID || got.Name != "alice" {
		t.Fatalf("resume on the other node = %+v %v %v", got, resumed, err)
	}
	// A rename on resume is seen everywhere.
	if _, _, err := b.Hello(ctx, "alice2", s.Token); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := a.Hello(ctx, "", s.Token); got.Name != "alice2" {
		t.Errorf("name after a rename on the other node = %q", got.Name)
	}
	if _, _, err := a.Hello(ctx, "x", "nope"); !errors.Is(err, lobby.ErrUnknownToken) {
		t.Errorf("unknown token = %v", err)
	}
	// The token is not stored in clear.
	keys, _ := rs.Client(t).Keys(ctx, prefix+"*").Result()
	for _, k := range keys {
		if strings.Contains(k, s.Token) {
			t.Errorf("key %q holds the token", k)
		}
	}
	// Idle expiry.
	ss := redisstore.NewSessions(rs.Client(t), prefix)
	if err := ss.Save(ctx, lobby.Session{PlayerID: "p", Name: "n", Token: "t"}, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := ss.Resume(ctx, "t", time.Minute); !errors.Is(err, lobby.ErrUnknownToken) {
		t.Errorf("expired session = %v", err)
	}
	rs.Kill()
	if _, err := ss.Resume(ctx, "t", time.Minute); !errors.Is(err, match.ErrUnavailable) {
		t.Errorf("Redis down = %v, want ErrUnavailable", err)
	}
}
