package main

import "sync"

// A group is the bots that play one match in code mode: the first creates
// it and publishes its invite code; the others join with it.
type group struct {
	host, size int
	mu         sync.Mutex
	entries    map[int]*codeEntry // by match generation
}

// A codeEntry is one match's invite code; done is closed once the code
// is published.
type codeEntry struct {
	done chan struct{}
	code string
	once sync.Once
}

// groupOf returns bot idx's group: PerMatch bots in index order.
func (r *runner) groupOf(idx int) *group {
	gi := idx / r.cfg.PerMatch
	r.groupsMu.Lock()
	defer r.groupsMu.Unlock()
	g := r.groups[gi]
	if g == nil {
		host := gi * r.cfg.PerMatch
		g = &group{host: host, size: min(r.cfg.PerMatch, r.cfg.Players-host), entries: map[int]*codeEntry{}}
		r.groups[gi] = g
	}
	return g
}

// entry returns the code entry of the group's match generation gen.
func (g *group) entry(gen int) *codeEntry {
	g.mu.Lock()
	defer g.mu.Unlock()
	e := g.entries[gen]
	if e == nil {
		e = &codeEntry{done: make(chan struct{})}
		g.entries[gen] = e
	}
	return e
}

// publish gives the bots waiting on generation gen the invite code; the
// first code published wins.
func (g *group) publish(gen int, code string) {
	e := g.entry(gen)
	e.once.Do(func() {
		e.code = code
		close(e.done)
	})
}
