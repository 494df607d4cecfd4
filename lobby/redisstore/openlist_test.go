package redisstore

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/lobby/redisstore/redistest"
)

// openIDs returns the ids of the whole open list.
func openIDs(ctx context.Context, c *Coord) ([]string, error) {
	ms, err := c.OpenMatches(ctx, 0, 0)
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids, err
}

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
		got, err := openIDs(ctx, c)
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

// TestOpenListSkipAcrossNodes: a node leaves the list update out of saves
// that keep the match as open as its own last save did, and only those: a
// save by another node in between, or a change of the flag, updates it.
func TestOpenListSkipAcrossNodes(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	a := NewCoord(srv.Client(t), Config{Prefix: prefix})
	b := NewCoord(srv.Client(t), Config{Prefix: prefix})
	ctx := context.Background()
	list := func(want ...string) {
		t.Helper()
		got, err := openIDs(ctx, a)
		if err != nil || !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("OpenMatches = %q, %v; want %q", got, err, want)
		}
	}
	listVersion := func() int64 {
		t.Helper()
		v, err := a.c.HGet(ctx, a.openKeys()[1], "m").Int64()
		if err != nil {
			t.Fatalf("the list's version of m: %v", err)
		}
		return v
	}
	save := func(c *Coord, prev int64, open bool) {
		t.Helper()
		if _, err := c.SaveMatch(ctx, "m", prev, []byte(fmt.Sprint("v", prev+1)), open, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	save(a, 0, true)
	list("m")
	if v := listVersion(); v != 1 {
		t.Fatalf("list at version %d after the first save, want 1", v)
	}
	save(a, 1, true) // same node, same flag: left out
	if v := listVersion(); v != 1 {
		t.Fatalf("list at version %d after a save that changed nothing for it, want 1 (left out)", v)
	}
	save(b, 2, false) // another node closes it
	list()
	save(a, 3, true) // a did not save v3: it updates, though the flag is that of its own last save
	list("m")
	if v := listVersion(); v != 4 {
		t.Fatalf("list at version %d after a save following another node's, want 4", v)
	}
	save(a, 4, false) // the flag changes: updated
	list()
	save(b, 5, false) // b's own last save was v3: it updates
	if v := listVersion(); v != 6 {
		t.Fatalf("list at version %d, want 6", v)
	}
	save(b, 6, true)
	list("m")
}

// TestOpenListPlacesWithoutCounter: a list whose last place given is lost
// (or was never kept, by an older version) still gives places above every
// one on it, and counts on from there.
func TestOpenListPlacesWithoutCounter(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := NewCoord(srv.Client(t), Config{Prefix: redistest.Prefix(t)})
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		if _, err := c.SaveMatch(ctx, id, 0, []byte(id), true, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.c.Del(ctx, c.openKey("seq")).Err(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c", "d"} {
		if _, err := c.SaveMatch(ctx, id, 0, []byte(id), true, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := c.OpenMatches(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []lobby.OpenMatch{{ID: "a", Seq: 1}, {ID: "b", Seq: 2}, {ID: "c", Seq: 3}, {ID: "d", Seq: 4}}
	if !slices.Equal(ms, want) {
		t.Fatalf("OpenMatches = %v, want %v", ms, want)
	}
}
