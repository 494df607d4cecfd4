package memstore

import (
	"context"
	"sync"
	"time"

	"klondike/lobby"
)

// maxAllowanceKeys bounds the keys Allowances remembers: past it, the keys whose
// bucket is full again and whose holds have all lapsed are forgotten
// first, then arbitrary ones (whoever holds that many keys gets nothing
// from a limit per key anyway).
const maxAllowanceKeys = 100_000

// Allowances is the memory implementation of lobby.Allowances, for one process.
type Allowances struct {
	mu    sync.Mutex
	full  map[string]time.Time            // when each bucket is full again
	holds map[string]map[string]time.Time // key -> member -> until
	last  time.Time                       // the last sweep
}

var _ lobby.Allowances = (*Allowances)(nil)

// NewAllowances returns limits that count nothing yet.
func NewAllowances() *Allowances {
	return &Allowances{full: map[string]time.Time{}, holds: map[string]map[string]time.Time{}}
}

// Take spends one use of key's bucket (lobby.Allowances), as the generic cell
// rate algorithm does: one time a key, when its bucket is full again.
func (l *Allowances) Take(_ context.Context, key string, n int, period time.Duration, now time.Time) (bool, error) {
	if n < 1 {
		return true, nil
	}
	every := period / time.Duration(n)
	burst := every * time.Duration(n-1)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.makeRoom(now)
	full := l.full[key]
	if full.Before(now) {
		full = now
	}
	if full.Sub(now) > burst {
		return false, nil
	}
	l.full[key] = full.Add(every)
	return true, nil
}

// Hold holds member of key (lobby.Allowances).
func (l *Allowances) Hold(_ context.Context, key, member string, max int, until, now time.Time) (bool, error) {
	if max < 1 {
		return false, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.makeRoom(now)
	hs := l.holds[key]
	for m, u := range hs {
		if !u.After(now) {
			delete(hs, m)
		}
	}
	if _, held := hs[member]; !held && len(hs) >= max {
		return false, nil
	}
	if hs == nil {
		hs = map[string]time.Time{}
		l.holds[key] = hs
	}
	hs[member] = until
	return true, nil
}

// Release drops member's hold of key (lobby.Allowances).
func (l *Allowances) Release(_ context.Context, key, member string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if hs := l.holds[key]; hs != nil {
		delete(hs, member)
		if len(hs) == 0 {
			delete(l.holds, key)
		}
	}
	return nil
}

// makeRoom forgets, once the keys reach maxAllowanceKeys, those that count for
// nothing now (at most once a second: each sweep reads them all), then
// arbitrary ones. The caller holds l.mu.
func (l *Allowances) makeRoom(now time.Time) {
	if len(l.full)+len(l.holds) < maxAllowanceKeys {
		return
	}
	if now.Sub(l.last) >= time.Second {
		l.last = now
		for k, full := range l.full {
			if !full.After(now) {
				delete(l.full, k)
			}
		}
		for k, hs := range l.holds {
			for m, u := range hs {
				if !u.After(now) {
					delete(hs, m)
				}
			}
			if len(hs) == 0 {
				delete(l.holds, k)
			}
		}
	}
	for k := range l.full {
		if len(l.full)+len(l.holds) < maxAllowanceKeys {
			return
		}
		delete(l.full, k)
	}
	for k := range l.holds {
		if len(l.full)+len(l.holds) < maxAllowanceKeys {
			return
		}
		delete(l.holds, k)
	}
}
