package storetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The Coord's leases and nodes' liveness, part of RunCoord.

func (h *coordHarness) lease(name, holder string, ttl time.Duration, want bool) {
	h.t.Helper()
	ok, err := h.c.Lease(h.ctx, name, holder, ttl)
	if err != nil || ok != want {
		h.t.Fatalf("Lease(%s, %s) = %v, %v; want %v", name, holder, ok, err, want)
	}
}

func (h *coordHarness) keepNode(node string, ttl time.Duration, want bool) {
	h.t.Helper()
	kept, err := h.c.KeepNode(h.ctx, node, ttl)
	if err != nil || kept != want {
		h.t.Fatalf("KeepNode(%s) = %v, %v; want %v", node, kept, err, want)
	}
}

func testLease(t *testing.T, h *coordHarness) {
	const ttl = 300 * time.Millisecond
	h.keepNode("node-a", long, false)
	h.keepNode("node-b", long, false)
	h.lease("clock:m1", "node-a", ttl, true)
	taken := time.Now()
	h.lease("clock:m1", "node-b", ttl, false)
	h.lease("clock:m2", "node-b", long, true) // another lease
	// Another holder gets it only once it expired.
	for {
		ok, err := h.c.Lease(h.ctx, "clock:m1", "node-b", long)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Since(taken) > 5*time.Second {
			t.Fatal("the lease did not expire within 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if d := time.Since(taken); d < ttl-20*time.Millisecond {
		t.Fatalf("another holder took the lease %v after it was taken for %v", d, ttl)
	}
	h.lease("clock:m1", "node-a", ttl, false)
	// Releasing: only by the holder.
	if err := h.c.ReleaseLease(h.ctx, "clock:m1", "node-a"); err != nil {
		t.Fatal(err)
	}
	h.lease("clock:m1", "node-a", ttl, false)
	if err := h.c.ReleaseLease(h.ctx, "clock:m1", "node-b"); err != nil {
		t.Fatal(err)
	}
	h.lease("clock:m1", "node-a", long, true)
	h.lease("clock:m2", "node-a", long, false)
	// Releasing a lease nobody has is fine.
	if err := h.c.ReleaseLease(h.ctx, "clock:none", "node-a"); err != nil {
		t.Fatal(err)
	}
}

// The holder's renewal extends its lease: another holder cannot take it
// past the first expiry, only past the renewed one.
func testLeaseRenewal(t *testing.T, h *coordHarness) {
	const ttl = time.Second
	h.keepNode("node-a", long, false)
	h.keepNode("node-b", long, false)
	h.lease("l", "node-a", ttl, true)
	time.Sleep(600 * time.Millisecond)
	h.lease("l", "node-a", ttl, true)
	renewed := time.Now()
	time.Sleep(600 * time.Millisecond) // past the first expiry
	ok, err := h.c.Lease(h.ctx, "l", "node-b", ttl)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(renewed); ok && d < ttl-100*time.Millisecond {
		t.Fatalf("another holder took the lease %v after its renewal for %v", d, ttl)
	}
	h.eventually("the renewed lease expires", func() bool {
		ok, err := h.c.Lease(h.ctx, "l", "node-b", long)
		return err == nil && ok
	})
}

func testConcurrentLease(t *testing.T, h *coordHarness) {
	const takers = 16
	for i := range takers {
		h.keepNode(fmt.Sprintf("node-%d", i), long, false)
	}
	var wins atomic.Int64
	var wg sync.WaitGroup
	for i := range takers {
		wg.Go(func() {
			ok, err := h.c.Lease(h.ctx, "l", fmt.Sprintf("node-%d", i), long)
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if n := wins.Load(); n != 1 {
		t.Fatalf("%d of %d takers got one lease", n, takers)
	}
}

// A node is live for the TTL of its last KeepNode, and KeepNode says
// whether it was live until then.
func testNodeLiveness(t *testing.T, h *coordHarness) {
	const ttl = 300 * time.Millisecond
	h.keepNode("n1", ttl, false) // never kept before
	h.keepNode("n1", ttl, true)
	h.keepNode("n2", long, false) // another node's liveness is its own
	time.Sleep(ttl + 150*time.Millisecond)
	h.keepNode("n1", ttl, false) // lapsed
	h.keepNode("n1", ttl, true)
	h.keepNode("n2", long, true)
}

// A lease whose holder's node is no longer live goes to another node at
// once, though the lease itself has not expired; while the holder's node
// is live, nobody else gets it.
func testLeaseOfNodeNotLive(t *testing.T, h *coordHarness) {
	const ttl = 300 * time.Millisecond
	h.keepNode("node-a", ttl, false)
	h.keepNode("node-b", long, false)
	h.lease("clock", "node-a", long, true)
	h.lease("clock", "node-b", long, false)
	h.keepNode("node-a", ttl, true)
	kept := time.Now()
	h.eventually("node-b takes the lease of a node not live", func() bool {
		ok, err := h.c.Lease(h.ctx, "clock", "node-b", long)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	})
	if d := time.Since(kept); d < ttl-20*time.Millisecond {
		t.Fatalf("node-b took the lease %v after node-a was kept live for %v", d, ttl)
	}
	// node-a is live again, and finds it lapsed; the lease stays node-b's.
	h.keepNode("node-a", long, false)
	h.lease("clock", "node-a", long, false)
	h.lease("clock", "node-b", long, true)
}
