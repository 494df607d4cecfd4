package solver

// An obligation restricts the moves of a position reached by a lazy move:
// a move whose only use is to expose or to place a card for a later move.
// Any winning line can be reordered so that a lazy move comes right before
// the first move that uses it (the moves in between do not touch what it
// changed), or dropped when nothing does; so the search makes a lazy move
// only when the very next move uses it:
//
//   - obPartial: the top part of a run went from pile i, off card y (now
//     i's top), onto a card z of y's rank (in Klondike, of y's colour too)
//     or, where an empty pile takes any card, to an empty pile. Next, y
//     goes up or a card goes onto y. (A next move that carries y or z on
//     to another pile, with or without the moved part, gives a position
//     that moving those cards first and the part after reaches as well.)
//     With the twin-stack reduction the move is made only when y goes up,
//     and y goes up in the same step, or to meet the position's own
//     obligation, and then the new position has none: no position keeps
//     this one.
//   - obEmpty: a whole run with nothing under it (in Klondike not headed
//     by a king) left pile i empty. Next, a card goes to an empty pile.
//   - obOnto: a card came to pile j from the talon (in draw 1 with
//     unlimited passes, where every talon card can be reached at any time)
//     or from a foundation. Next, a card goes onto it; after a foundation
//     card, any lazy move may come first (isLazy).
//
// One move can use two lazy moves: a card X brought down from its
// foundation onto a card W uses the move that brought down the card above
// X (X was under it) and the move that brought W (from a foundation or
// the talon, or without twin stacks a part of a run moved off W). Only
// one of the two can come right before it. So a card brought down from a
// foundation may be followed by any lazy move: a winning line then puts
// the lazy moves X's move uses, and those they use in turn, in an order
// that the obligations allow (docs/solver.md, "Lazy moves").
type oblig struct {
	kind uint8
	i, j uint8
	c    uint8 // obOnto: the card that came to pile j
	f2t  bool
}

const (
	obNone uint8 = iota
	obPartial
	obEmpty
	obOnto
)

func (o oblig) hash() uint64 {
	if o.kind == obNone {
		return 0
	}
	// obOnto is keyed by the card, not the pile: positions alike up to
	// piles' places or twin stacks (one key in the table) may hold that
	// card on different piles, and the obligation means the same card.
	j := o.j
	if o.kind == obOnto {
		j = o.c
	}
	v := uint64(o.kind) | uint64(o.i)<<8 | uint64(j)<<16
	if o.f2t {
		v |= 1 << 32
	}
	v = (v + 0x9E3779B97F4A7C15) * 0xBF58476D1CE4E5B9
	return (v ^ v>>29) & variantMask
}

// allows reports whether m, a move of the position, meets the obligation.
func (x *search) allows(o oblig, m move) bool {
	switch o.kind {
	case obPartial:
		if m.kind == mPileUp {
			return m.from == o.i
		}
		return m.to == o.i && !(m.kind == mTalon && m.to == toFound)
	case obEmpty:
		return m.kind != mPileUp && m.to != toFound && x.s.p[m.to].n == 0
	case obOnto:
		if m.kind == mPileUp || (m.kind == mTalon && m.to == toFound) {
			return false
		}
		return m.to == o.j || o.f2t && x.isLazy(m)
	}
	return true
}

// isLazy reports whether m, a move of the position, is itself a lazy
// move: one after which the position has an obligation. A part of a run
// moved off a face-up card is one only without the twin-stack reduction
// (with it, the new position keeps no obligation).
func (x *search) isLazy(m move) bool {
	switch m.kind {
	case mFoundDn:
		return true
	case mTalon:
		return m.to != toFound && x.draw == 1 && x.recLimit < 0
	case mPilePile:
		return m.at == 0 || m.at > x.s.p[m.from].down && !x.twins()
	}
	return false
}

// lazyKind classifies m before it is played: the obligation the position it
// leads to gets, or obNone.
func (x *search) lazyKind(m move) oblig {
	s := &x.s
	switch m.kind {
	case mPilePile:
		p := &s.p[m.from]
		if m.at > p.down {
			return oblig{kind: obPartial, i: m.from, j: m.to}
		}
		if m.at == 0 {
			return oblig{kind: obEmpty, i: m.from, j: m.to}
		}
	case mTalon:
		if m.to != toFound && x.draw == 1 && x.recLimit < 0 {
			return oblig{kind: obOnto, j: m.to, c: s.t[m.at-1]}
		}
	case mFoundDn:
		return oblig{kind: obOnto, i: m.from, j: m.to, c: cardOf(int(s.f[m.from]), m.from), f2t: true}
	}
	return oblig{}
}
