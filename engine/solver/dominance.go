package solver

// key returns the position's hash for the transposition table, without
// the waste size (see wasteBits). With a limit on passes the recycles made
// are part of it; without one they make no difference.
func (x *search) key() uint64 { return x.keyOf(x.s.h, x.s.rec) }

// keyOf is key for a position of hash h with rec recycles made.
func (x *search) keyOf(h uint64, rec int32) uint64 {
	if x.recLimit >= 0 {
		return h ^ zRec[rec&63]
	}
	return h
}

// allWaste is the bit set of every waste size.
const allWaste = 1<<(talonMax+2) - 1

// cycleBit stands for every waste size of the recycling cycle with
// unlimited passes (see wasteBits).
const cycleBit = 1 << (talonMax + 1)

// wasteBits returns the bit of the waste size for the transposition table,
// and the bits of the waste sizes that dominate it: positions alike but for
// the waste size, from which the draws and recycles reach every talon card
// this one reaches (playing a talon card leads to the same position from
// either). With waste size w of n talon cards in draw d, D reaches
// w, w+d, w+2d, ... and n in this pass, and after a recycle d, 2d, ... and
// n. So a smaller waste size w − kd reaches all that w reaches, and w = n
// reaches the least. With unlimited passes every multiple of d and n lead
// to the same cycle: one bit stands for them all (in draw 1, every waste
// size), and any waste size reaches at least as much.
func (x *search) wasteBits() (bit, dom uint32) { return x.wasteBitsOf(x.s.w, x.s.tn) }

// wasteBitsOf is wasteBits for waste size w of n talon cards.
func (x *search) wasteBitsOf(w, n uint8) (bit, dom uint32) {
	d := x.draw
	if x.opts.ref {
		return 1 << w, 1 << w
	}
	if x.recLimit < 0 && (w%d == 0 || w == n) {
		return cycleBit, allWaste
	}
	if w == n {
		return 1 << w, allWaste
	}
	if d <= 3 {
		return 1 << w, wasteDom[d][w]
	}
	for p := int(w); p >= 0; p -= int(d) {
		dom |= 1 << p
	}
	return 1 << w, dom
}

// wasteDom[d][w] is the set of waste sizes w, w − d, w − 2d, … down to 0.
var wasteDom = func() (t [4][talonMax + 1]uint32) {
	for d := 1; d <= 3; d++ {
		for w := range talonMax + 1 {
			for p := w; p >= 0; p -= d {
				t[d][w] |= 1 << p
			}
		}
	}
	return t
}()

// dominated reports whether a position at least as good as the current one
// (which has obligation ob, and whose waste size is dominated by the waste
// sizes dom) was reached before, other than the same position with the same
// obligation (which visit checks): the same position with no obligation,
// which allows every move; or, with a limit on passes, the same cards with
// fewer recycles made. With fewer recycles made, a waste size that reaches
// the same cards in this pass does, and so does any waste size if this one
// only reaches cards of the recycling cycle (a multiple of the draw, or the
// whole talon), which the spare recycle reaches.
func (x *search) dominated(ob oblig, dom uint32) bool {
	return x.dominatedAt(x.s.h, x.s.rec, x.s.w, ob, dom)
}

// dominatedAt is dominated for a position of hash h, with rec recycles
// made and waste size w.
func (x *search) dominatedAt(h uint64, rec int32, w uint8, ob oblig, dom uint32) bool {
	if x.opts.ref {
		return false
	}
	if ob.kind != obNone && x.tt.seen(x.keyOf(h, rec), dom) {
		return true
	}
	if x.recLimit < 0 || rec == 0 {
		return false
	}
	lower := dom
	if w%x.draw == 0 {
		lower = allWaste
	}
	for r := int32(0); r < rec; r++ {
		k := h ^ zRec[r&63]
		if x.tt.seen(k^ob.hash(), lower) || (ob.kind != obNone && x.tt.seen(k, lower)) {
			return true
		}
	}
	return false
}
