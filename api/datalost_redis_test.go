package api_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// TestMoveAfterRedisEmptied: a move after the Redis store was emptied
// (FLUSHALL) is refused as round_not_running, with words that say why,
// however often the client tries it again, and nothing of the game is
// written back into the empty store. (The data epoch is checked hourly
// here, so that the move, not the match's void, is what answers.)
func TestMoveAfterRedisEmptied(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	c := rs.Client(t)
	store := redisstore.New(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	srv := servertest.New(servertest.Config{
		Store: store, DataEpochEvery: time.Hour,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits: api.Limits{MsgRate: 10000, MsgBurst: 10000},
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close(); store.Close() })
	a, _, sa, _ := startRace(t, hs.URL, protocol.PartialSettings{Seed: new("1"), CountdownS: new(0), MaxPlayers: new(2)})
	for seq := 1; seq <= 3; seq++ {
		moveOK(t, a, sa.RoundID, seq, "D")
	}
	if _, err := rs.Do("FLUSHALL"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		ans := a.Move(sa.RoundID, 4, "D")
		rej := apitest.Decode[protocol.MoveRejected](t, ans)
		if rej.Type != protocol.TypeMoveRejected || rej.Code != protocol.CodeRoundNotRunning || rej.Reason != match.ErrDataLost.Error() {
			t.Fatalf("move 4 after FLUSHALL = %s; want move_rejected round_not_running, %q", ans, match.ErrDataLost)
		}
	}
	if log, err := store.Log(context.Background(), sa.RoundID, a.PlayerID); len(log) != 0 || !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("alice's log after the refused moves: %d entries, %v; want none, not found", len(log), err)
	}
}
