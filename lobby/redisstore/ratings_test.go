package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/lobby/rating"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/lobby/storetest"
	"klondike/match"
)

// TestRatingsConformance runs the ratings' suite on one server, each
// subtest through a client of its own, as a node has.
func TestRatingsConformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	storetest.RunRatings(t, func(t *testing.T) lobby.Ratings {
		return redisstore.NewRatings(srv.Client(t), prefix)
	})
}

// TestRatingsConformanceCluster runs the suite through a cluster client on
// the package's one-node cluster, which refuses a script whose keys are in
// different slots.
func TestRatingsConformanceCluster(t *testing.T) {
	t.Parallel()
	prefix := redistest.Prefix(t)
	storetest.RunRatings(t, func(t *testing.T) lobby.Ratings {
		return redisstore.NewRatings(clusterClient(t), prefix)
	})
}

// TestRatingsConformanceRealCluster runs the suite on the shared cluster
// of three masters.
func TestRatingsConformanceRealCluster(t *testing.T) {
	t.Parallel()
	cl := redistest.SharedCluster(t)
	prefix := redistest.Prefix(t)
	storetest.RunRatings(t, func(t *testing.T) lobby.Ratings {
		return redisstore.NewRatings(cl.Client(t), prefix)
	})
}

// testRatedRound is a round of two players from new ratings at at, the
// first established after it and the second not.
func testRatedRound(id, key string, at time.Time) lobby.RatedRound {
	return lobby.RatedRound{RoundID: id, MatchID: "m1", Key: key, At: at, Changes: []lobby.RatedPlayer{
		{PlayerID: "p1", Name: "One", Place: 1, Before: rating.New(), After: rating.Rating{Rating: 1600, Deviation: 100, Volatility: 0.06, Rounds: 1, At: at}},
		{PlayerID: "p2", Name: "Two", Place: 2, Before: rating.New(), After: rating.Rating{Rating: 1400, Deviation: 200, Volatility: 0.06, Rounds: 1, At: at}},
	}}
}

// TestRatingsKeys: a rated round's keys are where the type's doc says,
// the record and the round's key expire after lobby.RatedRoundRetention,
// and the rest stays. A Redis that is down is unavailable.
func TestRatingsKeys(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	c := rs.Client(t)
	prefix := redistest.Prefix(t)
	r := redisstore.NewRatings(c, prefix)
	ctx := context.Background()
	at := time.Date(2031, 3, 14, 0, 0, 0, 0, time.UTC)
	if _, applied, err := r.Apply(ctx, testRatedRound("r1", "klondike/3", at)); err != nil || !applied {
		t.Fatalf("Apply = %v, %v", applied, err)
	}
	tag := prefix + "{rating:klondike/3}:"
	for key, typ := range map[string]string{
		tag + "ratings": "hash", tag + "ladder": "zset", tag + "lapses": "zset",
		tag + "hist:p1": "list", tag + "hist:p2": "list", tag + "round:r1": "string",
		prefix + "{ratedround:r1}:key": "string",
		prefix + "{player:p1}:ratings": "set", prefix + "{player:p2}:ratings": "set",
	} {
		if got := c.Type(ctx, key).Val(); got != typ {
			t.Errorf("%s is a %q; want a %s", key, got, typ)
		}
	}
	for _, key := range []string{tag + "round:r1", prefix + "{ratedround:r1}:key"} {
		if ttl := c.PTTL(ctx, key).Val(); ttl < lobby.RatedRoundRetention-time.Minute || ttl > lobby.RatedRoundRetention {
			t.Errorf("%s's TTL = %v; want %v", key, ttl, lobby.RatedRoundRetention)
		}
	}
	for _, key := range []string{tag + "ratings", tag + "ladder", tag + "hist:p1", prefix + "{player:p1}:ratings"} {
		if ttl := c.PTTL(ctx, key).Val(); ttl != -1 {
			t.Errorf("%s's TTL = %v; want none", key, ttl)
		}
	}
	// Only the established player is on the ladder, scored minus the rating.
	if got := c.ZRangeWithScores(ctx, tag+"ladder", 0, -1).Val(); len(got) != 1 || got[0].Member != "p1" || got[0].Score != -1600 {
		t.Errorf("the ladder = %+v; want p1 at -1600", got)
	}

	rs.Kill()
	now := at.Add(time.Hour)
	calls := map[string]func() error{
		"Get":     func() error { _, err := r.Get(ctx, "klondike/3", []string{"p1"}); return err },
		"Apply":   func() error { _, _, err := r.Apply(ctx, testRatedRound("r2", "klondike/3", at)); return err },
		"Round":   func() error { _, err := r.Round(ctx, "r1"); return err },
		"Ladder":  func() error { _, _, err := r.Ladder(ctx, "klondike/3", 0, 10, now); return err },
		"Place":   func() error { _, err := r.Place(ctx, "klondike/3", "p1", now); return err },
		"History": func() error { _, err := r.History(ctx, "klondike/3", "p1", 10); return err },
		"Of":      func() error { _, err := r.Of(ctx, "p1"); return err },
		"Forget":  func() error { return r.Forget(ctx, "p1") },
	}
	// At once: each waits for its dial to fail.
	var wg sync.WaitGroup
	for name, call := range calls {
		wg.Go(func() {
			if err := call(); !errors.Is(err, match.ErrUnavailable) {
				t.Errorf("%s with Redis down = %v; want match.ErrUnavailable", name, err)
			}
		})
	}
	wg.Wait()
}

// TestRatingsLapseSweep: a ladder on which more players lapsed than one
// script run takes off is read exactly, all of them off; a page longer
// than one HMGET of the script is read whole.
func TestRatingsLapseSweep(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	r := redisstore.NewRatings(c, prefix)
	ctx := context.Background()
	at := time.Date(2031, 3, 14, 0, 0, 0, 0, time.UTC)
	tag := prefix + "{rating:klondike/1}:"
	// 2,500 players written as Apply leaves them, 2,497 lapsed a day after
	// at and three never.
	const n, kept = 2500, 3
	pipe := c.Pipeline()
	for i := range n {
		id := fmt.Sprintf("p%04d", i)
		lapse := fmt.Sprint(at.Add(24 * time.Hour).UnixMicro())
		if i < kept {
			lapse = "+inf"
		}
		pipe.HSet(ctx, tag+"ratings", id, fmt.Sprintf(`{"rating":%d,"deviation":60,"volatility":0.06,"rounds":9,"at":"2031-03-14T00:00:00Z","name":"%s"}`, 2000-i, id))
		pipe.ZAdd(ctx, tag+"ladder", redis.Z{Score: float64(i - 2000), Member: id})
		pipe.Do(ctx, "ZADD", tag+"lapses", lapse, id)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// A page longer than a script's HMGET reads, before the lapse.
	page, total, err := r.Ladder(ctx, "klondike/1", 1, n, at)
	if err != nil || total != n || len(page) != n-1 {
		t.Fatalf("Ladder(1, %d) = %d entries, %d, %v", n, len(page), total, err)
	}
	for i, e := range page {
		if id := fmt.Sprintf("p%04d", i+1); e.Place != i+1 || e.PlayerID != id || e.Name != id || e.Rating.Rating != float64(1999-i) {
			t.Fatalf("Ladder(1, %d)[%d] = %+v; want %s", n, i, e, id)
		}
	}
	page, total, err = r.Ladder(ctx, "klondike/1", 0, 10, at.Add(48*time.Hour))
	if err != nil || total != kept || len(page) != kept || page[0].PlayerID != "p0000" || page[0].Name != "p0000" || page[0].Rating.Rating != 2000 {
		t.Fatalf("Ladder after %d lapsed = %+v, %d, %v; want the %d kept", n-kept, page, total, err, kept)
	}
	if got := c.ZCard(ctx, tag+"lapses").Val(); got != kept {
		t.Fatalf("%d lapses left; want %d", got, kept)
	}
}
