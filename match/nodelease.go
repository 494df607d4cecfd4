package match

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// leaseHold is how long a match's clock lease lasts in the Coord without
// being taken again. While its node lives a lease needs no renewal (see
// NodeLease); the holder takes it again every leaseHold/2 all the same, so
// that a lease left behind (a node stopped between two calls) expires, and
// so that two nodes that both took it in a race see it within that time.
const leaseHold = time.Minute

// A NodeLease is a node's liveness in the Coord, which the leases of its
// matches' clocks rest on: a match's lease names its node, and another
// node takes it over only once it expired or that node is no longer live.
// So a node renews one key every LeaseTTL/3, not one a match, and a match
// that drives its clock makes no store call for it while its node lives.
//
// The matches of a node share one (Config.NodeLease). It has no goroutine:
// the ticks of the matches that have a clock renew it when it is due, one
// of them at a time. Its methods are safe for concurrent use.
type NodeLease struct {
	coord  Coord
	node   string
	ttl    time.Duration
	logger *slog.Logger

	busy   atomic.Bool   // a renewal is under way
	keptAt atomic.Int64  // when the last renewal that worked began, Unix ns; 0 before any
	gen    atomic.Uint64 // bumped when the node was found not live: its leases may be others' now
}

// NewNodeLease returns the liveness of the named node in c, which lapses
// ttl after its last renewal (DefaultLeaseTTL when ttl is 0); logger takes
// the renewals' failures (slog.Default() when nil).
func NewNodeLease(c Coord, node string, ttl time.Duration, logger *slog.Logger) *NodeLease {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &NodeLease{coord: c, node: node, ttl: ttl, logger: logger}
}

// keep renews the node's liveness if a third of its TTL has passed since
// the last renewal and no other caller is renewing it. It reports whether
// the node is live (renewed less than a TTL ago) and the lease's
// generation: a match's lease taken in an older generation may have
// passed to another node.
func (n *NodeLease) keep(ctx context.Context, now time.Time) (live bool, gen uint64) {
	if n.due(now) && n.busy.CompareAndSwap(false, true) {
		kept, err := n.coord.KeepNode(ctx, n.node, n.ttl)
		switch {
		case err != nil:
			n.logger.Warn("renewing the node's liveness failed", "err", err)
		default:
			if !kept {
				n.gen.Add(1)
			}
			n.keptAt.Store(now.UnixNano())
		}
		n.busy.Store(false)
	}
	at := n.keptAt.Load()
	return at != 0 && now.Sub(time.Unix(0, at)) < n.ttl, n.gen.Load()
}

// due reports whether a renewal is due: a third of the TTL has passed
// since the last one, or there was none.
func (n *NodeLease) due(now time.Time) bool {
	at := n.keptAt.Load()
	return at == 0 || now.Sub(time.Unix(0, at)) >= n.ttl/3
}
