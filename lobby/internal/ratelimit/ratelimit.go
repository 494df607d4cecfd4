// Package ratelimit holds token buckets by key, the limits the lobby
// (new sessions an address) and lobby/challenge (challenges a player) put
// on what one key may do in a period.
package ratelimit

import (
	"sync"
	"time"
)

// maxKeys bounds the keys whose budget is remembered. A key whose bucket
// is full again is forgotten (it is as good as new); past the bound, an
// arbitrary one is: whoever holds that many keys gets nothing from a limit
// per key anyway.
const maxKeys = 100_000

// Buckets are the budgets of each key, kept as the generic cell rate
// algorithm does: one time a key, when its bucket is full again, in whole
// durations (no rounding drift).
type Buckets struct {
	every time.Duration // one use's worth of refill; 0: no limit
	burst time.Duration // how far ahead of now a key's time may run: the bucket's size less one

	mu        sync.Mutex
	full      map[string]time.Time // when each key's bucket is full again
	lastSweep time.Time
}

// New returns buckets that hold n and refill at n a period; n ≤ 0: no
// limit.
func New(n int, period time.Duration) *Buckets {
	b := &Buckets{full: map[string]time.Time{}}
	if n > 0 {
		b.every = period / time.Duration(n)
		b.burst = b.every * time.Duration(n-1)
	}
	return b
}

// Take spends one of key's uses at now, if it has one left.
func (b *Buckets) Take(key string, now time.Time) bool {
	if b.every == 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	full, ok := b.full[key]
	if !ok && len(b.full) >= maxKeys {
		b.makeRoom(now)
	}
	if full.Before(now) {
		full = now
	}
	if full.Sub(now) > b.burst {
		return false
	}
	b.full[key] = full.Add(b.every)
	return true
}

// makeRoom forgets the keys whose bucket is full again, at most once a
// second (each time reads them all); then, if none was, an arbitrary one.
func (b *Buckets) makeRoom(now time.Time) {
	if now.Sub(b.lastSweep) >= time.Second {
		b.sweepLocked(now)
	}
	for key := range b.full {
		if len(b.full) < maxKeys {
			return
		}
		delete(b.full, key)
	}
}

// Sweep forgets the keys whose bucket is full again.
func (b *Buckets) Sweep(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sweepLocked(now)
}

func (b *Buckets) sweepLocked(now time.Time) {
	b.lastSweep = now
	for key, full := range b.full {
		if !full.After(now) {
			delete(b.full, key)
		}
	}
}
