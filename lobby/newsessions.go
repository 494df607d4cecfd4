package lobby

import (
	"net/netip"
	"sync"
	"time"
)

// New sessions are limited per address: every limit per player rests on
// identities, and a hello without a token mints one. Each address has a
// token bucket that holds Config.NewSessionsPerMinute and refills at that
// rate a minute; resuming a session with its token takes nothing.

// maxAddrBuckets bounds the addresses whose budget the lobby remembers. An
// address whose bucket is full again is forgotten (it is as good as new);
// past the bound, an arbitrary one is: whoever holds that many addresses
// gets nothing from the limit per address anyway.
const maxAddrBuckets = 100_000

// addrBuckets is the new-session budget of each address, kept as the
// generic cell rate algorithm does: one time an address, when its bucket
// is full again, in whole durations (no rounding drift).
type addrBuckets struct {
	every time.Duration // one session's worth of refill; 0: no limit
	burst time.Duration // how far ahead of now an address's time may run: the bucket's size less one

	mu        sync.Mutex
	full      map[string]time.Time // when each address's bucket is full again
	lastSweep time.Time
}

func newAddrBuckets(perMinute int) *addrBuckets { return newBuckets(perMinute, time.Minute) }

// newBuckets returns buckets that hold n and refill at n a period; n ≤ 0:
// no limit. The keys need not be addresses.
func newBuckets(n int, period time.Duration) *addrBuckets {
	b := &addrBuckets{full: map[string]time.Time{}}
	if n > 0 {
		b.every = period / time.Duration(n)
		b.burst = b.every * time.Duration(n-1)
	}
	return b
}

// take spends one of addr's new sessions at now, if it has one left.
func (b *addrBuckets) take(addr string, now time.Time) bool {
	if b.every == 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	full, ok := b.full[addr]
	if !ok && len(b.full) >= maxAddrBuckets {
		b.makeRoom(now)
	}
	if full.Before(now) {
		full = now
	}
	if full.Sub(now) > b.burst {
		return false
	}
	b.full[addr] = full.Add(b.every)
	return true
}

// makeRoom forgets the addresses whose bucket is full again, at most once
// a second (each time reads them all); then, if none was, an arbitrary one.
func (b *addrBuckets) makeRoom(now time.Time) {
	if now.Sub(b.lastSweep) >= time.Second {
		b.sweepLocked(now)
	}
	for addr := range b.full {
		if len(b.full) < maxAddrBuckets {
			return
		}
		delete(b.full, addr)
	}
}

// sweep forgets the addresses whose bucket is full again.
func (b *addrBuckets) sweep(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sweepLocked(now)
}

func (b *addrBuckets) sweepLocked(now time.Time) {
	b.lastSweep = now
	for addr, full := range b.full {
		if !full.After(now) {
			delete(b.full, addr)
		}
	}
}

// addrKey is the key of a client's address in the limits per address:
// the IP address, or for IPv6 its /64 prefix, which one subscriber of a
// provider usually holds whole; "" for none.
func addrKey(addr string) string {
	if addr == "" {
		return ""
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return ip.String()
	}
	return p.String()
}
