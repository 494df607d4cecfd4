package match_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby/memstore"
	"klondike/match"
)

// leaseCoord counts a Coord's lease calls, and fails KeepNode while down.
type leaseCoord struct {
	*memstore.Coord
	leases, keeps atomic.Int64
	down          atomic.Bool
}

func (c *leaseCoord) Lease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	c.leases.Add(1)
	return c.Coord.Lease(ctx, name, holder, ttl)
}

func (c *leaseCoord) KeepNode(ctx context.Context, node string, ttl time.Duration) (bool, error) {
	c.keeps.Add(1)
	if c.down.Load() {
		return false, match.ErrUnavailable
	}
	return c.Coord.KeepNode(ctx, node, ttl)
}

// runningMatch starts a two-player match with the time limit on coord,
// its round running when it returns. It deals deal 1: a random deal is at
// times stuck from the start, and such a round is over as it begins.
func runningMatch(t *testing.T, id string, coord match.Coord, nl *match.NodeLease, sk *sink, limitS int) *match.Match {
	t.Helper()
	s := match.DefaultSettings()
	s.TimeLimitS, s.Seed = limitS, "1"
	cfg := matchConfig(memstore.New(), coord, sk)
	cfg.Node, cfg.NodeLease = "node-1", nl
	m := startedMatch(t, id, s, cfg)
	if m.Info().State != match.StateRunning {
		t.Fatalf("state %s after the countdown, want running", m.Info().State)
	}
	return m
}

// startedMatch makes a match of alice and bob, starts it and returns once
// its countdown is over. It runs inside a synctest bubble.
func startedMatch(t *testing.T, id string, s match.Settings, cfg match.Config) *match.Match {
	t.Helper()
	ctx := context.Background()
	m, err := match.New(id, id+"CODE", s, false, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	for _, p := range []match.Player{alice, bob} {
		if err := m.Join(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Start(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Duration(s.CountdownS)*time.Second + time.Millisecond)
	synctest.Wait()
	return m
}

// The matches of a node that drive their clocks renew one key, the node's
// liveness, and take their leases again only every half a minute.
func TestClockLeasesRestOnTheNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		coord := &leaseCoord{Coord: memstore.NewCoord()}
		nl := match.NewNodeLease(coord, "node-1", 0, quiet)
		runningMatch(t, "m1", coord, nl, newSink(), 600)
		runningMatch(t, "m2", coord, nl, newSink(), 600)
		leases, keeps := coord.leases.Load(), coord.keeps.Load()
		time.Sleep(time.Minute)
		synctest.Wait()
		// A minute: each match takes its lease again twice, and the node's
		// liveness is renewed every LeaseTTL/3 for both.
		if n := coord.leases.Load() - leases; n > 4 {
			t.Errorf("%d lease calls in a minute by two matches, want at most 4", n)
		}
		perMinute := int64(time.Minute / (match.DefaultLeaseTTL / 3))
		if n := coord.keeps.Load() - keeps; n < perMinute/2 || n > perMinute+2 {
			t.Errorf("%d renewals of the node's liveness in a minute, want about %d", n, perMinute)
		}
	})
}

// A node that cannot renew its liveness loses its clocks to a live node,
// does not take them back while that node lives, and takes them again
// once it is gone.
func TestClockLeaseFollowsTheNodesLiveness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		coord := &leaseCoord{Coord: memstore.NewCoord()}
		nl := match.NewNodeLease(coord, "node-1", 0, quiet)
		sk := newSink()
		runningMatch(t, "m1", coord, nl, sk, 60)

		if ok, err := coord.Coord.KeepNode(ctx, "node-2", time.Hour); err != nil || ok {
			t.Fatalf("node-2's first KeepNode = %v, %v", ok, err)
		}
		if ok, _ := coord.Lease(ctx, "match:m1", "node-2", time.Hour); ok {
			t.Fatal("node-2 took the lease of a live node")
		}
		coord.down.Store(true)
		time.Sleep(2 * match.DefaultLeaseTTL)
		synctest.Wait()
		if ok, _ := coord.Lease(ctx, "match:m1", "node-2", time.Hour); !ok {
			t.Fatal("node-2 could not take the lease of a node not live")
		}
		coord.down.Store(false)

		// node-2 holds the clock (and, being this test, never runs it):
		// node-1, live again, leaves it alone past the time limit.
		time.Sleep(time.Minute)
		synctest.Wait()
		if over := received[match.RoundOver](t, sk, "a"); len(over) != 0 {
			t.Fatalf("node-1 ended the round while node-2 held its clock: %+v", over)
		}
		// node-2 dies: node-1 takes the clock and ends the round.
		if _, err := coord.Coord.KeepNode(ctx, "node-2", time.Millisecond); err != nil {
			t.Fatal(err)
		}
		time.Sleep(match.DefaultLeaseTTL)
		synctest.Wait()
		if over := received[match.RoundOver](t, sk, "a"); len(over) != 1 {
			t.Fatalf("round_over %d times once node-2 died, want once", len(over))
		}
	})
}

// A node whose liveness the Coord lost while the node thought itself live
// (a failover that lost the key) finds out at its next renewal, and then
// leaves its clocks to the node that took them meanwhile.
func TestClockLeaseAfterTheNodesKeyWasLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		coord := &leaseCoord{Coord: memstore.NewCoord()}
		nl := match.NewNodeLease(coord, "node-1", 0, quiet)
		sk := newSink()
		runningMatch(t, "m1", coord, nl, sk, 20) // ends before the lease is taken again

		// The key is lost: it lapses at once, unknown to node-1.
		if _, err := coord.Coord.KeepNode(ctx, "node-1", time.Nanosecond); err != nil {
			t.Fatal(err)
		}
		if _, err := coord.Coord.KeepNode(ctx, "node-2", time.Hour); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		if ok, _ := coord.Lease(ctx, "match:m1", "node-2", time.Hour); !ok {
			t.Fatal("node-2 could not take the lease of a node whose key was lost")
		}
		time.Sleep(21 * time.Second)
		synctest.Wait()
		if over := received[match.RoundOver](t, sk, "a"); len(over) != 0 {
			t.Fatalf("node-1 ended the round while node-2 held its clock: %+v", over)
		}
		if _, err := coord.Coord.KeepNode(ctx, "node-2", time.Nanosecond); err != nil {
			t.Fatal(err)
		}
		time.Sleep(match.DefaultLeaseTTL)
		synctest.Wait()
		if over := received[match.RoundOver](t, sk, "a"); len(over) != 1 {
			t.Fatalf("round_over %d times once node-2 died, want once", len(over))
		}
	})
}
