package engine

// mt19937 is the 32-bit Mersenne Twister of Matsumoto and Nishimura, seeded
// as CPython's random.Random seeds it from a non-negative integer. It is only
// used to reproduce PySolFC's deals for seeds of 32000 and up (see
// NumberedDeal and docs/deals.md).
//
// The zero value is not useful; call seed first. The state lives inline (2.5
// KB), so an mt19937 held in a local variable costs no allocation.
type mt19937 struct {
	mt [mtN]uint32
	i  int // index of the next word to twist and temper
}

const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// initGenrand is MT19937's init_genrand(s).
func (r *mt19937) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		p := r.mt[i-1]
		r.mt[i] = 1812433253*(p^(p>>30)) + uint32(i)
	}
	r.i = 0
}

// seed seeds the generator exactly as CPython's random.Random(n) does for an
// integer n ≥ 0: init_by_array over the 32-bit words of n, least significant
// first, with at least one word (so 0 gives the key [0]).
func (r *mt19937) seed(n uint64) {
	var key [2]uint32
	key[0] = uint32(n)
	key[1] = uint32(n >> 32)
	keyLen := 1
	if key[1] != 0 {
		keyLen = 2
	}
	r.initByArray(key[:keyLen])
}

// initByArray is MT19937's init_by_array(key), as in CPython's _randommodule.c.
func (r *mt19937) initByArray(key []uint32) {
	r.initGenrand(19650218)
	mt := &r.mt
	i, j := 1, 0
	k := max(mtN, len(key))
	for ; k > 0; k-- {
		p := mt[i-1]
		mt[i] = (mt[i] ^ ((p ^ (p >> 30)) * 1664525)) + key[j] + uint32(j) // non-linear
		i++
		j++
		if i >= mtN {
			mt[0] = mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = mtN - 1; k > 0; k-- {
		p := mt[i-1]
		mt[i] = (mt[i] ^ ((p ^ (p >> 30)) * 1566083941)) - uint32(i) // non-linear
		i++
		if i >= mtN {
			mt[0] = mt[mtN-1]
			i = 1
		}
	}
	mt[0] = 0x80000000 // MSB is 1, assuring a non-zero initial array
	r.i = 0
}

// next returns the next 32-bit output (genrand_uint32).
//
// Rather than regenerating all 624 words at once, it twists one word per call.
// Word i's new value depends on old words i+1 and i+397 (mod 624) and, past
// index 227, on already-twisted ones, exactly as in the batch loop, so the
// outputs are identical; a deal needs only 102 of them.
func (r *mt19937) next() uint32 {
	i := r.i
	i1 := i + 1
	if i1 == mtN {
		i1 = 0
	}
	im := i + mtM
	if im >= mtN {
		im -= mtN
	}
	y := r.mt[i]&mtUpperMask | r.mt[i1]&mtLowerMask
	v := r.mt[im] ^ y>>1
	if y&1 != 0 {
		v ^= mtMatrixA
	}
	r.mt[i] = v
	r.i = i1

	// Tempering.
	v ^= v >> 11
	v ^= v << 7 & 0x9d2c5680
	v ^= v << 15 & 0xefc60000
	v ^= v >> 18
	return v
}

// random returns a float64 in [0, 1) with 53 random bits, as CPython's
// random() (genrand_res53) does: (a·2²⁶ + b) / 2⁵³ with a = next>>5 and
// b = next>>6. The integer is below 2⁵³ and the divisor a power of two, so the
// result is exact.
func (r *mt19937) random() float64 {
	a := uint64(r.next() >> 5)
	b := uint64(r.next() >> 6)
	return float64(a<<26|b) * (1.0 / 9007199254740992.0)
}

// randint returns int(random() * (n+1)) as Python computes it: one IEEE double
// multiplication, then truncation. For n+1 ≤ 2⁵³ the product is always
// below n+1, so the result lies in 0..n.
func (r *mt19937) randint(n int) int {
	return int(r.random() * float64(n+1))
}
