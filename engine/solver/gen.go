package solver

import "math/bits"

// Move priorities: a move with a higher score is tried first.
const (
	scoreReveal     int16 = 1000
	scoreRevealDown int16 = 10 // per face-down card of the pile
	scoreTalonUp    int16 = 700
	scoreTalonPile  int16 = 600
	scorePartialUp  int16 = 450
	scoreTalonKing  int16 = 400
	scoreTalonEmpty int16 = 200 // a talon card other than a king to an empty pile
	scorePileUp     int16 = 350
	scoreEmptyPile  int16 = 150
	scorePartial    int16 = 5
	scoreFoundDown  int16 = 0
	// limitedRecycle is taken off a talon move that needs a recycle when
	// the passes are limited: a recycle spent is gone for good.
	limitedRecycle int16 = 500
	// limitedDrawPenalty is taken off a talon move for each draw (or
	// recycle) it needs when the passes are limited: the cards it draws
	// past are out of reach until a recycle. With unlimited passes a draw
	// costs nothing, since every card comes round again.
	limitedDrawPenalty int16 = 15
)

// gen appends the moves of the position, best first: those that the
// obligation ob allows of the moves to the foundations and of runs that
// uncover a card to an empty pile (genUp), from pile to pile (genTableau),
// where an empty pile takes any card of parts of runs to one (genParts),
// from the talon (genTalon) and from the foundations (genFoundDown).
func (x *search) gen(out []move, ob oblig) []move {
	start := len(out)
	var c genCtx
	x.sources(&c)
	// With an obligation, gen skips the parts whose moves the obligation
	// never allows (allows still has the last word, so the list is the
	// same as that of every move filtered). After a card came to a pile
	// (obOnto) no card goes up, and a run that uncovers a card on its way
	// to an empty pile is no lazy move; after a pile was emptied (obEmpty)
	// only moves to an empty pile are allowed, and genTableau makes none;
	// after a card came to a pile from the talon, only moves onto it are,
	// and after a part of a run left a card, only moves onto that card or
	// up: genParts makes none of those.
	onlyPile := -1
	skipUp := ob.kind == obOnto && !x.opts.fullGen
	skipTab := ob.kind == obEmpty && !x.opts.fullGen
	if ob.kind == obOnto && !ob.f2t && !x.opts.fullGen {
		onlyPile = int(ob.j)
	}
	if !skipUp {
		out = x.genUp(out, &c)
	}
	if !skipTab {
		out = x.genTableau(out, &c, ob, onlyPile)
	}
	if x.gr.anyToEmpty && c.empty >= 0 && onlyPile < 0 && (ob.kind != obPartial || x.opts.fullGen) {
		out = x.genParts(out, &c)
	}
	out = x.genTalon(out, &c)
	if c.f2t {
		out = x.genFoundDown(out, &c)
	}
	if ob.kind != obNone {
		out = x.keepAllowed(out, start, ob)
	}
	x.order(out[start:])
	return out
}

// genCtx is what gen's steps share: where cards can be taken from right
// now (face up on the tableau, reachable in the talon, on top of a
// foundation) and where a card can go to an empty pile. A lazy move is
// made only if a card can use it at once. The face-up cards are state.up,
// their places state.loc and state.pos, and state.topOf tells the pile a
// card tops.
type genCtx struct {
	empty      int    // the first empty pile, or −1
	emptyHeads uint64 // cards an empty pile takes heading a face-up run over face-down cards (kings in Klondike)
	talon      uint64 // the talon cards D and R can bring to the top
	foundTops  uint64 // the foundations' top cards, when they may come down
	avail      uint64 // every card that can be taken: face up, talon or foundation top
	emptyReady bool   // a card could go to a pile that a move empties
	f2t        bool   // cards may come down from the foundations
	tps        []talonPos
}

// sources fills c for the current position.
func (x *search) sources(c *genCtx) {
	s := &x.s
	c.empty = -1
	for i := range s.p {
		p := &s.p[i]
		if p.n == 0 {
			if c.empty < 0 {
				c.empty = i
			}
			continue
		}
		if p.down > 0 && x.gr.empty&(1<<p.c[p.down]) != 0 {
			c.emptyHeads |= 1 << p.c[p.down]
		}
	}
	c.tps = x.talonPositions()
	c.talon = x.talonSet(c.tps)
	c.f2t = x.f2t && !x.stream
	if c.f2t {
		for su := range uint8(4) {
			if s.f[su] > 0 {
				c.foundTops |= 1 << cardOf(int(s.f[su]), su)
			}
		}
	}
	c.avail = s.up | c.talon | c.foundTops
	// Where an empty pile takes any card, so much can use one (a run
	// that uncovers a card, a part of a run that frees the card under it,
	// a talon or foundation card) that the search always counts on it.
	c.emptyReady = x.gr.anyToEmpty || (c.emptyHeads|(c.talon|c.foundTops)&x.gr.empty) != 0
}

// genUp appends the moves from the tableau to the foundations, and those
// of runs to an empty pile when they uncover a card (all empty piles are
// alike; in Klondike only king-headed runs go there). There are none when
// no pile's top is the next card of its foundation and no such run can go
// to an empty pile.
func (x *search) genUp(out []move, c *genCtx) []move {
	s := &x.s
	if s.nxt&s.tops == 0 && (c.empty < 0 || c.emptyHeads == 0) {
		return out
	}
	for i := range s.p {
		p := &s.p[i]
		if p.n == 0 {
			continue
		}
		if x.next(p.c[p.n-1]) {
			sc := scorePileUp
			if p.n-1 == p.down && p.down > 0 {
				sc = scoreReveal + scoreRevealDown*int16(p.down)
			}
			out = append(out, move{kind: mPileUp, from: uint8(i), score: sc})
		}
		if c.empty >= 0 && p.down > 0 && c.emptyHeads&(1<<p.c[p.down]) != 0 {
			out = append(out, move{kind: mPilePile, from: uint8(i), to: uint8(c.empty), at: p.down,
				score: scoreReveal + scoreRevealDown*int16(p.down) - 5})
		}
	}
	return out
}

// genTableau appends the moves from pile to pile: onto each pile's top
// (only pile onlyPile's, if it is not −1), the cards that fit (two in
// Klondike, three in Thumb and Pouch), if face up elsewhere, with the
// cards above them. A move that uncovers nothing useful is left out.
func (x *search) genTableau(out []move, c *genCtx, ob oblig, onlyPile int) []move {
	s := &x.s
	gr := x.gr
	tabUp := s.up
	for j := range s.p {
		q := &s.p[j]
		if q.n == 0 || onlyPile >= 0 && j != onlyPile {
			continue
		}
		// The cards that fit, in the order of their numbers.
		for fit := gr.onto[q.c[q.n-1]] & tabUp; fit != 0; fit &= fit - 1 {
			u := uint8(bits.TrailingZeros64(fit))
			if int(s.loc[u]) == j {
				continue
			}
			i := int(s.loc[u])
			p := &s.p[i]
			at := s.pos[u]
			var sc int16
			switch {
			case at == p.down && p.down > 0:
				sc = scoreReveal + scoreRevealDown*int16(p.down)
			case at == p.down:
				if !c.emptyReady && !x.opts.ref {
					continue
				}
				sc = scoreEmptyPile
			case x.next(p.c[at-1]):
				sc = scorePartialUp
			default:
				// With the twin reduction a part of a run only moves to
				// let the card under it go up, or to meet an obligation
				// (a card brought to pile j must be covered): otherwise
				// the position it leads to has the key of this one, and
				// the same obligation, none.
				if x.twins() {
					if ob.kind == obNone {
						continue
					}
				} else if gr.onto[p.c[at-1]]&^(1<<u)&c.avail == 0 && !x.opts.ref {
					continue
				}
				sc = scorePartial
			}
			out = append(out, move{kind: mPilePile, from: uint8(i), to: uint8(j), at: at, score: sc})
		}
	}
	return out
}

// genTalon appends the moves of the talon cards that D and R can reach,
// to the foundations and to the tableau. With limited passes a move pays
// for the draws and the recycle it needs.
func (x *search) genTalon(out []move, c *genCtx) []move {
	s := &x.s
	gr := x.gr
	tps := c.tps
	if len(tps) == 0 {
		return out
	}
	// The talon cards that have a move: the next of their foundation, a
	// card an empty pile takes when a pile is empty, a card that goes on
	// a pile's top. The others are passed over at once (the lists are up
	// to 24 long).
	useful := s.nxt
	if c.empty >= 0 {
		useful |= gr.empty
	}
	for ts := s.tops; ts != 0; ts &= ts - 1 {
		useful |= gr.onto[bits.TrailingZeros64(ts)]
	}
	if useful&c.talon == 0 {
		return out // no talon card has a move
	}
	// In draw 1 with unlimited passes a talon card put on a pile is a
	// lazy move: made only when a card can go onto it.
	lazyTalon := x.draw == 1 && x.recLimit < 0 && !x.opts.ref
	for _, tp := range tps {
		card := s.t[tp.at-1]
		if useful&(1<<card) == 0 {
			continue
		}
		var pen int16
		if x.recLimit >= 0 {
			pen = int16(tp.draws) * limitedDrawPenalty
			if tp.rec {
				pen += limitedRecycle
			}
		}
		if x.next(card) {
			out = append(out, move{kind: mTalon, at: tp.at, rec: tp.rec, to: toFound, score: scoreTalonUp - pen})
		}
		if lazyTalon && gr.onto[card]&c.avail == 0 {
			continue
		}
		if c.empty >= 0 && gr.empty&(1<<card) != 0 {
			sc := scoreTalonKing
			if cRank[card] != king {
				sc = scoreTalonEmpty
			}
			out = append(out, move{kind: mTalon, at: tp.at, rec: tp.rec, to: uint8(c.empty), score: sc - pen})
		}
		for on := gr.aboveSet[card] & s.tops; on != 0; on &= on - 1 {
			j := s.loc[bits.TrailingZeros64(on)]
			out = append(out, move{kind: mTalon, at: tp.at, rec: tp.rec, to: j, score: scoreTalonPile - pen})
		}
	}
	return out
}

// genFoundDown appends the moves from the foundations to the tableau,
// unless the card would go straight back up or nothing could use it.
func (x *search) genFoundDown(out []move, c *genCtx) []move {
	s := &x.s
	gr := x.gr
	for su := range uint8(4) {
		if s.f[su] == 0 {
			continue
		}
		card := cardOf(int(s.f[su]), su)
		if !x.opts.ref && (x.safeDown(card) || (gr.onto[card]&c.avail == 0 && s.f[su] < 2)) {
			continue
		}
		if c.empty >= 0 && gr.empty&(1<<card) != 0 {
			out = append(out, move{kind: mFoundDn, from: su, to: uint8(c.empty), score: scoreFoundDown})
		}
		for on := gr.aboveSet[card] & s.tops; on != 0; on &= on - 1 {
			j := s.loc[bits.TrailingZeros64(on)]
			out = append(out, move{kind: mFoundDn, from: su, to: j, score: scoreFoundDown})
		}
	}
	return out
}

// genParts appends, where an empty pile takes any card (Thumb and Pouch),
// the moves of a part of a run, off a face-up card y, to the first empty
// pile (c.empty, which must be one). Like a part of a run moved onto a
// card, such a move is made only when y can go up or a card could go onto
// y; it is a lazy move (obPartial). A whole run goes to an empty pile in
// genUp, when it uncovers a card, and never otherwise.
func (x *search) genParts(out []move, c *genCtx) []move {
	s := &x.s
	for i := range s.p {
		p := &s.p[i]
		for at := p.down + 1; at < p.n; at++ {
			y := p.c[at-1]
			sc := scorePartial
			switch {
			case x.next(y):
				sc = scorePartialUp
			case x.gr.onto[y]&^(1<<p.c[at])&c.avail == 0 && !x.opts.ref:
				continue
			}
			out = append(out, move{kind: mPilePile, from: uint8(i), to: uint8(c.empty), at: at, score: sc})
		}
	}
	return out
}

// keepAllowed drops from out[start:] the moves that the obligation ob
// does not allow.
func (x *search) keepAllowed(out []move, start int, ob oblig) []move {
	k := start
	for _, m := range out[start:] {
		if x.allows(ob, m) {
			out[k] = m
			k++
		}
	}
	return out[:k]
}

// order sorts the moves ms best first, after shaking their priorities by
// the jitter, if any.
func (x *search) order(ms []move) {
	if x.jitter > 0 {
		for i := range ms {
			x.rng ^= x.rng << 13
			x.rng ^= x.rng >> 7
			x.rng ^= x.rng << 17
			ms[i].score += int16(x.rng % uint64(x.jitter))
		}
	}
	// Stable insertion sort by score, best first: the lists are short.
	for i := 1; i < len(ms); i++ {
		m := ms[i]
		j := i
		for j > 0 && ms[j-1].score < m.score {
			ms[j] = ms[j-1]
			j--
		}
		ms[j] = m
	}
}
