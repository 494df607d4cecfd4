package redisstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/lobby/storetest"
	"klondike/match"
)

// TestAllowancesConformance runs the allowances' suite on one server,
// each subtest through a client of its own, as a node has.
func TestAllowancesConformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	storetest.RunAllowances(t, func(t *testing.T) lobby.Allowances {
		return redisstore.NewAllowances(srv.Client(t), prefix)
	})
}

// TestAllowancesConformanceCluster runs the suite through a cluster
// client on the package's one-node cluster, which refuses a script whose
// keys are in different slots.
func TestAllowancesConformanceCluster(t *testing.T) {
	t.Parallel()
	prefix := redistest.Prefix(t)
	storetest.RunAllowances(t, func(t *testing.T) lobby.Allowances {
		return redisstore.NewAllowances(clusterClient(t), prefix)
	})
}

// TestAllowancesConformanceRealCluster runs the suite on the shared
// cluster of three masters.
func TestAllowancesConformanceRealCluster(t *testing.T) {
	t.Parallel()
	cl := redistest.SharedCluster(t)
	prefix := redistest.Prefix(t)
	storetest.RunAllowances(t, func(t *testing.T) lobby.Allowances {
		return redisstore.NewAllowances(cl.Client(t), prefix)
	})
}

// TestAllowancesKeys: a bucket's key and a set of holds are where the
// package doc says, and each expires when it counts for nothing: the
// bucket when it is full again, the holds with the last of them. A Redis
// that is down is unavailable, never an allowance.
func TestAllowancesKeys(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	c := rs.Client(t)
	prefix := redistest.Prefix(t)
	a := redisstore.NewAllowances(c, prefix)
	ctx := context.Background()
	now := time.Now()
	for range 3 {
		if ok, err := a.Take(ctx, "challenges:p1", 20, time.Hour, now); !ok || err != nil {
			t.Fatalf("Take = %v, %v", ok, err)
		}
	}
	// Three uses of 3 min each to come back.
	ttl := c.PTTL(ctx, prefix+"{allow:challenges:p1}:take").Val()
	if ttl < 8*time.Minute || ttl > 9*time.Minute {
		t.Errorf("the bucket's TTL = %v, want 9 min less the test's time", ttl)
	}
	if ok, err := a.Hold(ctx, "attempts:p1", "r1", 3, now.Add(time.Hour), now); !ok || err != nil {
		t.Fatalf("Hold = %v, %v", ok, err)
	}
	if ok, err := a.Hold(ctx, "attempts:p1", "r2", 3, now.Add(2*time.Hour), now); !ok || err != nil {
		t.Fatalf("Hold = %v, %v", ok, err)
	}
	key := prefix + "{allow:attempts:p1}:holds"
	if ttl := c.PTTL(ctx, key).Val(); ttl < 119*time.Minute || ttl > 2*time.Hour {
		t.Errorf("the holds' TTL = %v, want 2 h less the test's time", ttl)
	}
	if err := a.Release(ctx, "attempts:p1", "r2"); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(ctx, "attempts:p1", "r1"); err != nil {
		t.Fatal(err)
	}
	if n := c.Exists(ctx, key).Val(); n != 0 {
		t.Errorf("the holds' key is still there once every hold is released")
	}

	rs.Kill()
	for name, err := range map[string]error{
		"Take":    func() error { _, err := a.Take(ctx, "k", 1, time.Hour, now); return err }(),
		"Hold":    func() error { _, err := a.Hold(ctx, "k", "m", 1, now.Add(time.Hour), now); return err }(),
		"Release": a.Release(ctx, "k", "m"),
	} {
		if !errors.Is(err, match.ErrUnavailable) {
			t.Errorf("%s with Redis down = %v, want match.ErrUnavailable", name, err)
		}
	}
}
