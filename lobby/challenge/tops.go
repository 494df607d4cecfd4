package challenge

import (
	"sync"
	"time"

	"klondike/match"
)

// The top of a big board is the costly part of reading it (a hundred
// entries), and every reader asks for the same one: a node reuses the top
// it read for topFresh, and reads only the asking player's own part
// afresh. A finish on this node forgets its round's top at once, so its
// player sees their own result there; others' finishes show within
// topFresh.

const (
	topFresh = time.Second
	maxTops  = 1024 // rounds whose top a node keeps
)

type tops struct {
	mu sync.Mutex
	m  map[string]topEntry
}

type topEntry struct {
	entries []match.BoardEntry // never changed once stored
	n       int                // how many were asked for
	at      time.Time
}

// get returns the first n entries of the round's board if a read of at
// least n is fresh.
func (t *tops) get(id string, n int, now time.Time) ([]match.BoardEntry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[id]
	if !ok || n > e.n || now.Sub(e.at) >= topFresh {
		return nil, false
	}
	return e.entries[:min(n, len(e.entries))], true
}

// put keeps the first n entries of the round's board, read at now.
func (t *tops) put(id string, n int, entries []match.BoardEntry, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.m[id]; ok && e.n > n && now.Sub(e.at) < topFresh {
		return // a longer fresh top stays
	}
	if t.m == nil || len(t.m) >= maxTops {
		t.m = map[string]topEntry{}
	}
	t.m[id] = topEntry{entries: entries, n: n, at: now}
}

// forget drops the round's top.
func (t *tops) forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, id)
}
