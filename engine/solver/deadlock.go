package solver

// deadlocked reports a position that can never be won because some card
// can never leave its pile. The cards that must leave a pile by themselves
// are the face-down ones and the bottom card of the face-up run (nothing
// under them carries them away); call them leavers. A leaver can leave
// only once every leaver above it has left. In a relaxed game, where
// face-up cards above a run's bottom move freely, any card in the talon is
// at hand and a king always finds an empty pile, the topmost leaver A of a
// pile can leave once
//
//   - every card of its suit below it that is not yet up is reachable
//     (then A can go up), or
//   - a card A could be built on is reachable, or is on a foundation and
//     may come back down (then A can go onto it),
//
// where a card is reachable when every leaver above it has left (so no card
// under A is). Letting leavers leave until none can leaves only those that
// can never leave in the real game either; each must still reach a
// foundation, so the position is lost.
//
// In the last pass (no recycle left) the waste is such a pile too: every
// waste card is a leaver, and it can leave only after the cards above it;
// the stock stays at hand. Unlike a pile's leaver, a card still in the
// waste takes no card onto it, so a waste card is reachable only once it
// has left (see "The dead-end test" in docs/solver.md).
//
// Where an empty pile takes any card (Thumb and Pouch), every leaver is
// like a king: in the relaxed game each can always leave, so the test
// finds nothing there and is not made (docs/solver.md, "Thumb and
// Pouch").
func (x *search) deadlocked() bool {
	if x.gr.anyToEmpty {
		return false
	}
	s := &x.s
	// unreach is the set of the cards that are not reachable: at first the
	// face-down ones (under the face-up run's bottom, the topmost leaver of
	// its pile) and, in the last pass, the waste's. top[i] is the index of
	// pile i's topmost leaver that has not left, or −1; top[nPiles] is the
	// waste's. A pile's card becomes reachable when the leaver above it
	// has left (it is then the pile's topmost leaver), a waste card when it
	// has left itself. Which leavers can leave in the end does not depend
	// on the order they are tried in: leaving only makes cards reachable.
	unreach := s.tab &^ s.up
	any := unreach != 0
	var top [nPiles + 1]int8
	for i := range s.p {
		top[i] = -1
		if s.p[i].down > 0 {
			top[i] = int8(s.p[i].down)
		}
	}
	top[nPiles] = -1
	if x.lastPass() && s.w > 0 {
		for k := range s.w {
			unreach |= 1 << s.t[k]
		}
		top[nPiles] = int8(s.w) - 1
		any = true
	}
	if !any {
		return false
	}
	// The cards a leaver may go onto where they lie: on the tableau or in
	// the talon, and with worrying back on the foundations too (unreach
	// never holds a foundation card).
	onOK := ^uint64(0)
	if !x.f2t {
		for su := range uint8(4) {
			onOK &^= (1<<(su*13+s.f[su]) - 1) &^ (1<<(su*13) - 1)
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range nPiles {
			p := &s.p[i]
			for top[i] >= 0 && canLeave(p.c[top[i]], unreach, onOK) {
				top[i]--
				if top[i] >= 0 {
					unreach &^= 1 << p.c[top[i]]
				}
				changed = true
			}
		}
		for top[nPiles] >= 0 && canLeave(s.t[top[nPiles]], unreach, onOK) {
			unreach &^= 1 << s.t[top[nPiles]]
			top[nPiles]--
			changed = true
		}
	}
	for i := range top {
		if top[i] >= 0 {
			return true
		}
	}
	return false
}

// lastPass reports whether no recycle is left: the waste can then only be
// played from the top down.
func (x *search) lastPass() bool {
	return x.recLimit >= 0 && x.s.rec >= x.recLimit
}

// canLeave is deadlocked's test for a leaver a whose leavers above have
// left; unreach is the set of the cards not reachable (never a foundation
// card), onOK that of the cards a may go onto when reachable (with
// worrying back every card, else every card not on a foundation). a can
// leave if it is a king, if every card of its suit below it that is not
// up is reachable (it can go up), or if a card it could be built on is
// reachable, or on a foundation and may come back down.
//
// Only Klondike's positions get the test (see deadlocked), so it builds by
// Klondike's rule.
func canLeave(a uint8, unreach, onOK uint64) bool {
	return kingSet&(1<<a) != 0 || suitBelow[a]&unreach == 0 || klondikeRules.aboveSet[a]&^unreach&onOK != 0
}

// suitBelow[c] is the set of the cards of c's suit of lower rank.
var suitBelow = func() (t [nCards]uint64) {
	for c := range uint8(nCards) {
		t[c] = (1<<c - 1) &^ (1<<(c/13*13) - 1)
	}
	return t
}()
