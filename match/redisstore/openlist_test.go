package redisstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"klondike/match/redisstore/redistest"
)

// TestOpenListFollowsVersions plays the second steps of two saves in the
// wrong order, as two nodes may: the list keeps what the newer save said.
func TestOpenListFollowsVersions(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := NewCoord(srv.Client(t), Config{Prefix: redistest.Prefix(t)})
	ctx := context.Background()
	hour := time.Hour.Milliseconds()
	list := func(want ...string) {
		t.Helper()
		got, err := c.OpenMatches(ctx, 0)
		if err != nil || !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("OpenMatches = %q, %v; want %q", got, err, want)
		}
	}
	// Node A saves v1 open, node B saves v2 closed; B's list update comes
	// first, A's late.
	if _, err := c.SaveMatch(ctx, "m", 0, []byte("v1"), true, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SaveMatch(ctx, "m", 1, []byte("v2"), false, time.Hour); err != nil {
		t.Fatal(err)
	}
	list()
	if n, err := openListScript.Run(ctx, c.c, c.openKeys(), "m", 1, "1", hour).Int(); err != nil || n != 0 {
		t.Fatalf("late update of v1: %d, %v; want 0 (ignored)", n, err)
	}
	list()
	// The other way round: v3 open, then a late v2 closed.
	if _, err := c.SaveMatch(ctx, "m", 2, []byte("v3"), true, time.Hour); err != nil {
		t.Fatal(err)
	}
	if n, err := openListScript.Run(ctx, c.c, c.openKeys(), "m", 2, "0", hour).Int(); err != nil || n != 0 {
		t.Fatalf("late update of v2: %d, %v; want 0 (ignored)", n, err)
	}
	list("m")
}
