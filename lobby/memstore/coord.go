package memstore

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"slices"
	"sync"
	"time"

	"klondike/lobby"
	"klondike/match"
)

// busQueue is how many messages a subscriber may have waiting for its
// callback; beyond that the bus drops new messages for it (delivery is best
// effort, as on Redis).
const busQueue = 1 << 16

// sweepEvery is how often a write looks for expired entries to forget.
const sweepEvery = time.Minute

// Coord is the memory implementation of match.Coord and lobby.Coord: the
// state one process shares with itself. Records, codes, player matches,
// round records and leases expire like their Redis counterparts; the bus
// delivers every message to each subscriber on a goroutine of its own, in
// publish order.
// Its zero value is not usable: call NewCoord.
type Coord struct {
	epoch string

	mu        sync.Mutex
	matches   map[string]*matchRec
	open      map[string]int64 // open match -> its place on the list
	openSeq   int64            // the last place given
	codes     map[string]expiring[string]
	players   map[string]expiring[string]
	rounds    map[string]expiring[[]byte]
	leases    map[string]expiring[string]
	nodes     map[string]expiring[struct{}] // live nodes (KeepNode)
	lastSweep time.Time

	busMu sync.Mutex
	subs  map[*subscriber]struct{}
}

var _ lobby.Coord = (*Coord)(nil) // and so match.Coord, which it embeds

type matchRec struct {
	rec     []byte
	version int64
	expires time.Time
}

// expiring is a value that is gone at expires.
type expiring[T any] struct {
	val     T
	expires time.Time
}

func (e expiring[T]) live(now time.Time) bool { return now.Before(e.expires) }

// NewCoord returns an empty Coord with a new random data epoch.
func NewCoord() *Coord {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails
	return &Coord{
		epoch:     hex.EncodeToString(b[:]),
		matches:   map[string]*matchRec{},
		open:      map[string]int64{},
		codes:     map[string]expiring[string]{},
		players:   map[string]expiring[string]{},
		rounds:    map[string]expiring[[]byte]{},
		leases:    map[string]expiring[string]{},
		nodes:     map[string]expiring[struct{}]{},
		lastSweep: time.Now(),
		subs:      map[*subscriber]struct{}{},
	}
}

// sweep forgets expired entries, at most once a sweepEvery; c.mu is held.
func (c *Coord) sweep(now time.Time) {
	if now.Sub(c.lastSweep) < sweepEvery {
		return
	}
	c.lastSweep = now
	for id, m := range c.matches {
		if !now.Before(m.expires) {
			delete(c.matches, id)
			delete(c.open, id)
		}
	}
	maps.DeleteFunc(c.codes, func(_ string, e expiring[string]) bool { return !e.live(now) })
	maps.DeleteFunc(c.players, func(_ string, e expiring[string]) bool { return !e.live(now) })
	maps.DeleteFunc(c.rounds, func(_ string, e expiring[[]byte]) bool { return !e.live(now) })
	maps.DeleteFunc(c.leases, func(_ string, e expiring[string]) bool { return !e.live(now) })
	maps.DeleteFunc(c.nodes, func(_ string, e expiring[struct{}]) bool { return !e.live(now) })
}

// liveMatch returns the match's record unless it is missing or expired;
// c.mu is held.
func (c *Coord) liveMatch(id string, now time.Time) *matchRec {
	m := c.matches[id]
	if m == nil || !now.Before(m.expires) {
		return nil
	}
	return m
}

// LoadMatch implements match.Coord.
func (c *Coord) LoadMatch(_ context.Context, id string) ([]byte, int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.liveMatch(id, time.Now())
	if m == nil {
		return nil, 0, match.ErrNotFound
	}
	return bytes.Clone(m.rec), m.version, nil
}

// MatchVersion implements match.Coord.
func (c *Coord) MatchVersion(_ context.Context, id string) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.liveMatch(id, time.Now())
	if m == nil {
		return 0, match.ErrNotFound
	}
	return m.version, nil
}

// SaveMatch implements match.Coord. As on Redis, a save of the very record
// that is already stored as version prev+1 answers prev+1 (a retry of a save
// whose reply was lost) and changes nothing but the open list.
func (c *Coord) SaveMatch(_ context.Context, id string, prev int64, rec []byte, open bool, ttl time.Duration) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.sweep(now)
	var cur int64
	m := c.liveMatch(id, now)
	if m != nil {
		cur = m.version
	} else {
		delete(c.open, id) // an expired record's place in the list
	}
	switch {
	case cur == prev:
		m = &matchRec{rec: bytes.Clone(rec), version: prev + 1, expires: now.Add(ttl)}
		c.matches[id] = m
	case m != nil && cur == prev+1 && bytes.Equal(m.rec, rec):
	default:
		return 0, match.ErrVersionConflict
	}
	if !open {
		delete(c.open, id)
	} else if _, ok := c.open[id]; !ok {
		c.openSeq++
		c.open[id] = c.openSeq
	}
	return m.version, nil
}

// OpenMatches implements lobby.Coord.
func (c *Coord) OpenMatches(_ context.Context, after int64, limit int) ([]lobby.OpenMatch, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	var out []lobby.OpenMatch
	for id, seq := range c.open {
		if c.liveMatch(id, now) == nil {
			delete(c.open, id)
			continue
		}
		if seq > after {
			out = append(out, lobby.OpenMatch{ID: id, Seq: seq})
		}
	}
	slices.SortFunc(out, func(a, b lobby.OpenMatch) int { return cmp.Compare(a.Seq, b.Seq) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// ClaimCode implements lobby.Coord. Claiming a code again for the match it
// already maps to reports ok (and changes nothing), as a retry on Redis does.
func (c *Coord) ClaimCode(_ context.Context, code, matchID string, ttl time.Duration) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.sweep(now)
	if e, ok := c.codes[code]; ok && e.live(now) {
		return e.val == matchID, nil
	}
	c.codes[code] = expiring[string]{matchID, now.Add(ttl)}
	return true, nil
}

// CodeMatch implements lobby.Coord.
func (c *Coord) CodeMatch(_ context.Context, code string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.codes[code]; ok && e.live(time.Now()) {
		return e.val, nil
	}
	return "", match.ErrNotFound
}

// SetPlayerMatch implements lobby.Coord.
func (c *Coord) SetPlayerMatch(_ context.Context, playerID, matchID string, ttl time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.sweep(now)
	if matchID == "" {
		delete(c.players, playerID)
		return nil
	}
	c.players[playerID] = expiring[string]{matchID, now.Add(ttl)}
	return nil
}

// PlayerMatch implements lobby.Coord.
func (c *Coord) PlayerMatch(_ context.Context, playerID string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.players[playerID]; ok && e.live(time.Now()) {
		return e.val, nil
	}
	return "", nil
}

// SaveRound implements match.Coord.
func (c *Coord) SaveRound(_ context.Context, roundID string, rec []byte, ttl time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.sweep(now)
	c.rounds[roundID] = expiring[[]byte]{bytes.Clone(rec), now.Add(ttl)}
	return nil
}

// LoadRound implements lobby.Coord.
func (c *Coord) LoadRound(_ context.Context, roundID string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.rounds[roundID]; ok && e.live(time.Now()) {
		return bytes.Clone(e.val), nil
	}
	return nil, match.ErrNotFound
}

// Lease implements match.Coord.
func (c *Coord) Lease(_ context.Context, name, holder string, ttl time.Duration) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.sweep(now)
	if e, ok := c.leases[name]; ok && e.live(now) && e.val != holder && c.nodes[e.val].live(now) {
		return false, nil
	}
	c.leases[name] = expiring[string]{holder, now.Add(ttl)}
	return true, nil
}

// KeepNode implements match.Coord.
func (c *Coord) KeepNode(_ context.Context, node string, ttl time.Duration) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	kept := c.nodes[node].live(now)
	c.nodes[node] = expiring[struct{}]{expires: now.Add(ttl)}
	return kept, nil
}

// ReleaseLease implements match.Coord.
func (c *Coord) ReleaseLease(_ context.Context, name, holder string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.leases[name]; ok && e.val == holder {
		delete(c.leases, name)
	}
	return nil
}

// DataEpoch implements lobby.Coord: a random value made by NewCoord, the
// same for the Coord's whole life.
func (c *Coord) DataEpoch(context.Context) (string, error) { return c.epoch, nil }

// A subscriber is one Subscribe call: a queue of messages and the goroutine
// that hands them to its callback.
type subscriber struct {
	mu   sync.Mutex
	q    [][]byte
	wake chan struct{} // capacity 1: the queue has something
}

func (s *subscriber) push(msg []byte) {
	s.mu.Lock()
	if len(s.q) < busQueue {
		s.q = append(s.q, bytes.Clone(msg))
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) take() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q
	s.q = nil
	return q
}

// Publish implements match.Coord: the message is queued for every
// subscriber before Publish returns, so messages reach every subscriber in
// one order, the order of the Publish calls. Publish never waits for a
// callback.
func (c *Coord) Publish(_ context.Context, msg []byte) error {
	c.busMu.Lock()
	defer c.busMu.Unlock()
	for s := range c.subs {
		s.push(msg)
	}
	return nil
}

// Subscribe implements lobby.Coord. Each subscriber gets a copy of each
// message. Once ctx is done, f is not called again (a call in progress
// finishes).
func (c *Coord) Subscribe(ctx context.Context, f func(msg []byte)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s := &subscriber{wake: make(chan struct{}, 1)}
	c.busMu.Lock()
	c.subs[s] = struct{}{}
	c.busMu.Unlock()
	go func() {
		defer func() {
			c.busMu.Lock()
			delete(c.subs, s)
			c.busMu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.wake:
			}
			for _, msg := range s.take() {
				if ctx.Err() != nil {
					return
				}
				f(msg)
			}
		}
	}()
	return nil
}
