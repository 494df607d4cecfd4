package lobby

import (
	"context"
	"time"
)

// Allowances count what players and addresses do, for the limits that protect
// resources every node shares: new players an address, challenges a
// player, attempts in play a player and an address. A store that several
// nodes share counts across all of them, so that a second node is not a
// second allowance. Keys are the caller's ("challenges:" and a player id,
// say); times are the caller's clock, so that every store counts alike.
// Every method returns an error matching match.ErrUnavailable when the
// store cannot be reached.
type Allowances interface {
	// Take spends one use of key's token bucket, which holds n and refills
	// at n every period, and reports whether one was left; a refused take
	// spends nothing. n < 1 has no limit.
	Take(ctx context.Context, key string, n int, period time.Duration, now time.Time) (bool, error)
	// Hold adds member to key's holds until until, unless key already has
	// max holds that last past now, and reports whether member is held.
	// Holding a member already held only moves its until (it never counts
	// twice). Holds past their until count for nothing. max < 1 holds
	// nothing.
	Hold(ctx context.Context, key, member string, max int, until, now time.Time) (bool, error)
	// Release drops member's hold of key, if any.
	Release(ctx context.Context, key, member string) error
}
