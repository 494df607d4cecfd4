package solver

import "unsafe"

// table is the transposition table: the positions already reached. A key
// leaves out the waste size; its entry keeps a bit set of the waste sizes
// searched with it, so that a position can be skipped when one searched
// with the same cards and a waste size that reaches at least the same talon
// cards dominates it (see search.wasteBits). Keys and bit sets live in an
// open-addressing array with linear probing that grows by doubling up to
// maxSlots; past that it reports that it is full, and the search stops with
// Unknown rather than forget a position (forgetting would only cost time,
// but could let the search walk in circles).
type table struct {
	keys  []uint64
	bits  []uint32
	mask  uint64
	count int
	limit int // count at which to grow (or stop)
	max   int // most slots
}

const (
	minSlots = 1 << 14
	// maxSlots bounds the table at 2^25 entries of 12 bytes: 384 MiB,
	// grown into only by searches of tens of millions of positions.
	maxSlots = 1 << 25
)

func (t *table) reset(maxSlots int) {
	if len(t.keys) == 0 || len(t.keys) > minSlots*16 {
		t.release()
		t.keys, t.bits = getArrays(minSlots)
	} else {
		clear(t.keys)
		clear(t.bits)
	}
	t.mask = uint64(len(t.keys) - 1)
	t.count = 0
	t.limit = len(t.keys) / 10 * 7
	t.max = maxSlots
}

// variantMask is the part of a key that the variants of one position
// change: the recycles made (zRec) and the obligation (oblig.hash) are
// XORed into the low 32 bits only, so that every variant of a position
// keeps the high 32 bits of the position's hash, which choose the slot.
// The variants then sit side by side in the table, mostly in one cache
// line, and the probes of one child (the dominance checks for the same
// position without obligation or with fewer recycles, then its own entry)
// miss the caches once instead of up to six times. A key is still 64 bits
// of hash: 32 from the position, 32 from the position and its variant.
// TestVariantsDistinct checks that no two variants share their low bits.
const variantMask = 1<<32 - 1

// slot returns the index of k's entry, or of the empty slot where it would
// go: from k's high 32 bits, shared by the variants of a position.
func (t *table) slot(k uint64) uint64 {
	i := (k >> 32) & t.mask
	for t.keys[i] != 0 && t.keys[i] != k {
		i = (i + 1) & t.mask
	}
	return i
}

// prefetchSlots is the size from which a table is larger than the
// processor's caches, and prefetch worth its cost.
const prefetchSlots = 1 << 16

// prefetch asks the processor for the cache lines of the slot of a
// position whose hash (the key's high 32 bits) is h, where its probes will
// start: the search calls it for all the children of a position as soon as
// their moves are known, so that the misses of their probes, which come
// one after the other, overlap instead. Only a hint: the search is the
// same without it.
func (t *table) prefetch(h uint64) {
	i := (h >> 32) & t.mask
	prefetch(uintptr(unsafe.Pointer(&t.keys[i])))
	prefetch(uintptr(unsafe.Pointer(&t.bits[i])))
}

// visit records waste size bit b for key k unless one of the waste sizes in
// dom was already recorded for it; it reports whether the position is new.
// full reports that the table could not take it.
func (t *table) visit(k uint64, b, dom uint32) (added, full bool) {
	if k == 0 {
		k = 1 // 0 marks an empty slot
	}
	i := t.slot(k)
	if t.keys[i] == k {
		if t.bits[i]&dom != 0 {
			return false, false
		}
		t.bits[i] |= b
		return true, false
	}
	if t.count >= t.limit {
		if len(t.keys) >= t.max {
			return false, true
		}
		t.grow()
		i = t.slot(k)
	}
	t.keys[i] = k
	t.bits[i] = b
	t.count++
	return true, false
}

// seen reports whether k was recorded with one of the waste sizes in dom.
func (t *table) seen(k uint64, dom uint32) bool {
	if k == 0 {
		k = 1
	}
	i := t.slot(k)
	return t.keys[i] == k && t.bits[i]&dom != 0
}

func (t *table) grow() {
	oldK, oldB := t.keys, t.bits
	t.keys, t.bits = getArrays(2 * len(oldK))
	t.mask = uint64(len(t.keys) - 1)
	t.limit = len(t.keys) / 10 * 7
	for j, k := range oldK {
		if k == 0 {
			continue
		}
		i := t.slot(k)
		t.keys[i] = k
		t.bits[i] = oldB[j]
	}
	putArrays(oldK, oldB)
}

// release gives the table's arrays back for later tables; the table is
// empty and unusable until reset.
func (t *table) release() {
	if t.keys != nil {
		putArrays(t.keys, t.bits)
	}
	t.keys, t.bits, t.mask, t.count, t.limit = nil, nil, 0, 0, 0
}
