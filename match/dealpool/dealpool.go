// Package dealpool keeps, for the match setting "deals: winnable", a few
// numbered deals per rule set that the solver has proved winnable, so that a
// round can start on one at once.
//
// A Pool runs a small number of background workers (one by default). Each
// picks a random deal number (from crypto/rand unless Config.Seeds says
// otherwise), solves it under the rule set whose store is the shortest, and
// keeps it if the solver proves it winnable within the per-deal budget.
// Take never waits for a solve: when the store of a rule set is empty it
// says so, and the caller deals any deal instead and tells the players the
// deal was not checked.
//
//	pool := dealpool.New(ctx, dealpool.Config{
//		Rules: []engine.Rules{engine.DefaultRules()}, // warm these up first
//	})
//	defer pool.Close()
//	…
//	seed, ok := pool.Take(rules)
//	if !ok {
//		seed = randomSeed() // not verified: say so in the round's announcement
//	}
//	deal := engine.NumberedDealFor(rules.Game, seed)
//
// Only the rules that change the game's tree matter: the game, Draw, Passes
// and FoundationToTableau (see KeyOf). The undo policy and the scoring do not
// change which deals can be won, so rule sets that differ only in them share
// a store.
//
// Costs are bounded: each worker holds one solver search at a time, whose
// memory the per-deal node budget bounds, and uses at most one core while a
// store is short; when every store is full the workers sleep until a Take
// empties a place. A rule set first met by Take is added to those kept, so
// the pool learns which rule sets the matches use; there are only twelve a
// game. Rules of a game the solver does not play (solver.Supports) are
// never kept, and Take has no deal for them.
package dealpool

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"sync"
	"time"

	"klondike/engine"
	"klondike/engine/solver"
)

// Defaults of a Config's zero fields.
const (
	// DefaultSize is how many proved deals a store keeps per rule set:
	// enough for a burst of round starts. Refilling one takes a fraction
	// of a second of one core with unlimited passes (about four deals in
	// five are winnable and most solve in milliseconds), and a few
	// seconds in the rarest variant (draw 3 with one pass: under three
	// deals in a hundred can be won).
	DefaultSize = 8
	// DefaultWorkers is the number of background solvers.
	DefaultWorkers = 1
	// DefaultNodes and DefaultTime are the per-deal budget: about a second
	// of one core, which decides all but a few deals in a hundred (a deal
	// the solver does not decide is simply not kept). The node budget also
	// bounds the search's memory (its table holds at most a few million
	// positions).
	DefaultNodes = 1_000_000
	DefaultTime  = 2 * time.Second
)

// A Key is what a store is kept for: the rules that decide which deals can
// be won.
type Key struct {
	Game                engine.Variant
	Draw                int  // 1 or 3
	Passes              int  // 1, 3 or 0 (unlimited)
	FoundationToTableau bool // Fs-Tn moves allowed
}

// KeyOf returns the key of rules r.
func KeyOf(r engine.Rules) Key {
	return Key{Game: r.Game, Draw: r.Draw, Passes: r.Passes, FoundationToTableau: r.FoundationToTableau}
}

// rules returns engine rules with k's options (and the defaults for the
// others, which make no difference to the solver).
func (k Key) rules() engine.Rules {
	r := engine.DefaultRulesFor(k.Game)
	r.Draw, r.Passes, r.FoundationToTableau = k.Draw, k.Passes, k.FoundationToTableau
	return r
}

// Config configures a Pool. The zero value is a pool with the defaults
// that learns its rule sets from Take.
type Config struct {
	// Rules are rule sets to fill from the start, in order. Invalid rules,
	// and those of a game the solver does not play, are ignored.
	Rules []engine.Rules
	// Size is how many deals to keep per rule set (0: DefaultSize).
	Size int
	// Workers is how many deals are solved at once (0: DefaultWorkers).
	Workers int
	// Budget bounds each solve (zero: DefaultNodes and DefaultTime).
	Budget solver.Budget
	// Seeds returns the next deal number to try (nil: uniformly random
	// 64-bit numbers from crypto/rand). It is called by the workers, one
	// call at a time.
	Seeds func() uint64
	// Solve decides a deal (nil: solver.Solve). Tests put a fake here.
	Solve func(engine.Deal, engine.Rules, solver.Budget) solver.Result
}

// A Pool keeps proved winnable deals per rule set. Its methods are safe for
// concurrent use.
type Pool struct {
	size   int
	budget solver.Budget
	seeds  func() uint64
	solve  func(engine.Deal, engine.Rules, solver.Budget) solver.Result

	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	order   []Key             // rule sets in the order they were added
	stores  map[Key][]uint64  // proved deals, oldest first
	pending map[Key]int       // solves under way per rule set
	wake    chan struct{}     // closed (and replaced) when work may have appeared
	stats   map[Key]*KeyStats // counts per rule set
	seedMu  sync.Mutex        // serialises calls of seeds
}

// KeyStats counts a rule set's solves.
type KeyStats struct {
	Kept      int // deals at hand now
	Taken     int // deals handed out by Take
	Misses    int // Takes that found the store empty
	Solved    int // deals solved for it
	Winnable  int // of those, proved winnable
	Discarded int // of those, unwinnable or undecided within the budget
}

// New starts a pool whose workers run until ctx is done or Close is called.
func New(ctx context.Context, cfg Config) *Pool {
	p := &Pool{
		size:    cfg.Size,
		budget:  cfg.Budget,
		seeds:   cfg.Seeds,
		solve:   cfg.Solve,
		stores:  make(map[Key][]uint64),
		pending: make(map[Key]int),
		stats:   make(map[Key]*KeyStats),
		wake:    make(chan struct{}),
	}
	if p.size <= 0 {
		p.size = DefaultSize
	}
	if p.budget == (solver.Budget{}) {
		p.budget = solver.Budget{Nodes: DefaultNodes, Time: DefaultTime}
	}
	if p.seeds == nil {
		p.seeds = randomSeed
	}
	if p.solve == nil {
		p.solve = solver.Solve
	}
	for _, r := range cfg.Rules {
		if r.Validate() == nil && solver.Supports(r.Game) {
			p.addLocked(KeyOf(r))
		}
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}
	ctx, p.cancel = context.WithCancel(ctx)
	for range workers {
		p.wg.Go(func() { p.work(ctx) })
	}
	return p
}

// Close stops the workers and waits for them: a solve under way finishes
// first, so Close can take up to one per-deal budget. Take still hands out
// the deals kept.
func (p *Pool) Close() {
	p.cancel()
	p.wg.Wait()
}

// Take hands out a proved winnable deal number for rules r and forgets it,
// so no two callers get the same one. It never blocks on a solve: ok is
// false when no deal is at hand for r (or r is not valid, or of a game the
// solver does not play), and the caller then deals any deal and says that
// it was not checked. A rule set Take has not seen before is kept from
// then on.
func (p *Pool) Take(r engine.Rules) (seed uint64, ok bool) {
	if r.Validate() != nil || !solver.Supports(r.Game) {
		return 0, false
	}
	k := KeyOf(r)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, known := p.stats[k]; !known {
		p.addLocked(k)
	}
	st := p.stats[k]
	s := p.stores[k]
	if len(s) == 0 {
		st.Misses++
		return 0, false
	}
	seed = s[0]
	p.stores[k] = s[1:]
	st.Taken++
	p.signalLocked()
	return seed, true
}

// Len returns how many deals are at hand for rules r.
func (p *Pool) Len(r engine.Rules) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.stores[KeyOf(r)])
}

// Stats returns the counts of every rule set kept.
func (p *Pool) Stats() map[Key]KeyStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[Key]KeyStats, len(p.stats))
	for k, st := range p.stats {
		s := *st
		s.Kept = len(p.stores[k])
		out[k] = s
	}
	return out
}

// addLocked adds rule set k to those kept and wakes the workers.
func (p *Pool) addLocked(k Key) {
	if _, ok := p.stats[k]; ok {
		return
	}
	p.order = append(p.order, k)
	p.stats[k] = &KeyStats{}
	p.signalLocked()
}

// signalLocked wakes every sleeping worker.
func (p *Pool) signalLocked() {
	close(p.wake)
	p.wake = make(chan struct{})
}

// nextLocked picks the rule set to solve a deal for: the one whose store,
// counting the solves under way, is shortest (the first added among equals).
// It reports false when every store is full, and returns the channel to wait
// on then.
func (p *Pool) nextLocked() (Key, bool, <-chan struct{}) {
	best, found, bestN := Key{}, false, p.size
	for _, k := range p.order {
		if n := len(p.stores[k]) + p.pending[k]; n < bestN {
			best, found, bestN = k, true, n
		}
	}
	return best, found, p.wake
}

// work is one worker: it solves deals for the shortest store until ctx is
// done, and sleeps while every store is full.
func (p *Pool) work(ctx context.Context) {
	for {
		p.mu.Lock()
		k, ok, wake := p.nextLocked()
		if ok {
			p.pending[k]++
		}
		p.mu.Unlock()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-wake:
				continue
			}
		}
		if ctx.Err() != nil {
			p.mu.Lock()
			p.pending[k]--
			p.mu.Unlock()
			return
		}
		p.seedMu.Lock()
		seed := p.seeds()
		p.seedMu.Unlock()
		res := p.solve(engine.NumberedDealFor(k.Game, seed), k.rules(), p.budget)
		p.mu.Lock()
		p.pending[k]--
		st := p.stats[k]
		st.Solved++
		if res.Verdict == solver.Winnable {
			st.Winnable++
			p.stores[k] = append(p.stores[k], seed)
		} else {
			st.Discarded++
		}
		p.mu.Unlock()
	}
}

// randomSeed returns a uniformly random deal number from crypto/rand.
func randomSeed() uint64 {
	var b [8]byte
	rand.Read(b[:]) // never fails (see crypto/rand.Read)
	return binary.LittleEndian.Uint64(b[:])
}
