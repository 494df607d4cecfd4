package solver

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
		t.keys = make([]uint64, minSlots)
		t.bits = make([]uint32, minSlots)
	} else {
		clear(t.keys)
		clear(t.bits)
	}
	t.mask = uint64(len(t.keys) - 1)
	t.count = 0
	t.limit = len(t.keys) / 10 * 7
	t.max = maxSlots
}

// slot returns the index of k's entry, or of the empty slot where it would go.
func (t *table) slot(k uint64) uint64 {
	i := (k ^ k>>32) & t.mask
	for t.keys[i] != 0 && t.keys[i] != k {
		i = (i + 1) & t.mask
	}
	return i
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
	t.keys = make([]uint64, 2*len(oldK))
	t.bits = make([]uint32, 2*len(oldK))
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
}
