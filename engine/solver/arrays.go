package solver

import (
	"math/bits"
	"sync"
	"time"
)

// The arrays of tables that are done with are kept for the tables that
// come after them in this process (the next restart, the next solve), by
// size: fresh memory costs a page fault for every page the search first
// touches, at random, a large part of the time of a solve whose table
// grows to millions of slots, while clearing a kept array is cheap by
// comparison. At most arrayCacheBytes are kept, and no array of more than
// arrayCacheSlots (the tables of searches of tens of millions of
// positions: rare, and they would hold their memory twice); arrays unused
// for arrayCacheIdle are let go, so an idle process gives the memory back.
const (
	arrayCacheBytes = 512 << 20
	arrayCacheSlots = 1 << 22
	arrayCacheIdle  = 10 * time.Second
)

var arrays = arrayCache{max: arrayCacheBytes, maxSlots: arrayCacheSlots, idle: arrayCacheIdle}

func getArrays(n int) ([]uint64, []uint32) { return arrays.get(n) }
func putArrays(keys []uint64, bs []uint32) { arrays.put(keys, bs) }

// arrayCache keeps tables' arrays by their size (a power of two).
type arrayCache struct {
	max      int           // bytes kept at most
	maxSlots int           // the largest arrays kept
	idle     time.Duration // how long an array is kept unused

	mu    sync.Mutex
	free  [26][]tableArrays // by log2 of the slots
	bytes int
	trim  *time.Timer
}

type tableArrays struct {
	keys []uint64
	bits []uint32
	at   time.Time // when it was put back
}

func arraysBytes(n int) int { return n * 12 }

// get returns cleared arrays of n slots, n a power of two.
func (c *arrayCache) get(n int) ([]uint64, []uint32) {
	l := bits.Len(uint(n)) - 1
	c.mu.Lock()
	if k := len(c.free[l]); k > 0 {
		a := c.free[l][k-1]
		c.free[l][k-1] = tableArrays{}
		c.free[l] = c.free[l][:k-1]
		c.bytes -= arraysBytes(n)
		c.mu.Unlock()
		clear(a.keys)
		clear(a.bits)
		return a.keys, a.bits
	}
	c.mu.Unlock()
	return make([]uint64, n), make([]uint32, n)
}

// put keeps a table's arrays for get, if there is room.
func (c *arrayCache) put(keys []uint64, bs []uint32) {
	n := len(keys)
	l := bits.Len(uint(n)) - 1
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.maxSlots || c.bytes+arraysBytes(n) > c.max {
		return
	}
	c.free[l] = append(c.free[l], tableArrays{keys: keys, bits: bs, at: time.Now()})
	c.bytes += arraysBytes(n)
	if c.trim == nil {
		c.trim = time.AfterFunc(c.idle, c.trimIdle)
	}
}

// trimIdle lets go of the arrays kept unused for c.idle, and runs again
// while any are kept.
func (c *arrayCache) trimIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trimBefore(time.Now().Add(-c.idle))
	if c.bytes > 0 {
		c.trim.Reset(c.idle)
	} else {
		c.trim = nil
	}
}

// trimBefore lets go of the arrays put back before t (c.mu held).
func (c *arrayCache) trimBefore(t time.Time) {
	for l := range c.free {
		kept := c.free[l][:0]
		for _, a := range c.free[l] {
			if a.at.After(t) {
				kept = append(kept, a)
			} else {
				c.bytes -= arraysBytes(len(a.keys))
			}
		}
		clear(c.free[l][len(kept):])
		c.free[l] = kept
	}
}
