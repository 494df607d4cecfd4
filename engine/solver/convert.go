package solver

import (
	"fmt"
	"strconv"
	"strings"

	"klondike/engine"
)

// load sets the position from the engine's text form and the rules, of a
// game the solver plays.
func (x *search) load(text string, r engine.Rules) error {
	x.gr = rulesOf(r.Game)
	if x.gr == nil {
		return unsupported(r.Game)
	}
	f := strings.Fields(text)
	if len(f) != 5 {
		return fmt.Errorf("solver: want 5 fields in %q", text)
	}
	cards := func(s string) ([]uint8, error) {
		out := make([]uint8, 0, len(s)/2)
		for i := 0; i+2 <= len(s); i += 2 {
			c, err := engine.ParseCard(s[i : i+2])
			if err != nil {
				return nil, err
			}
			out = append(out, uint8(c.Index()))
		}
		return out, nil
	}
	piles := strings.Split(f[0], "/")
	if len(piles) != nPiles {
		return fmt.Errorf("solver: want 7 piles in %q", text)
	}
	s := &x.s
	*s = state{}
	for i, ps := range piles {
		downS, upS, _ := strings.Cut(ps, "|")
		down, err := cards(downS)
		if err != nil {
			return err
		}
		up, err := cards(upS)
		if err != nil {
			return err
		}
		p := &s.p[i]
		p.n = uint8(copy(p.c[:], down))
		p.down = p.n
		p.n += uint8(copy(p.c[p.n:], up))
	}
	wasteS, stockS, _ := strings.Cut(f[1], "|")
	waste, err := cards(wasteS)
	if err != nil {
		return err
	}
	stock, err := cards(stockS)
	if err != nil {
		return err
	}
	s.w = uint8(copy(s.t[:], waste))
	s.tn = s.w + uint8(copy(s.t[s.w:], stock))
	for su := range 4 {
		if ch := f[2][su]; ch != '-' {
			s.f[su] = uint8(strings.IndexByte("A23456789TJQK", ch) + 1)
			s.home += int32(s.f[su])
		}
	}
	rec, err := strconv.Atoi(f[3])
	if err != nil {
		return err
	}
	s.rec = int32(rec)
	s.zc = &zCardTwin
	if !x.twins() {
		s.zc = &zCard
	}
	s.rehash()
	x.draw = uint8(r.Draw)
	x.recLimit = int32(r.Recycles())
	x.f2t = r.FoundationToTableau
	return nil
}

// maxDrawsToReach bounds the D and R needed to bring a talon card to the
// top: through the rest of one pass and the whole of the next.
const maxDrawsToReach = 2*talonMax + 2

// solution turns the winning line in hist into engine moves, playing them
// on sim (a game in the position the search started from) and checking each.
// It reports false if the engine refuses one or the line does not win.
func (x *search) solution(sim *engine.Game) ([]engine.Move, bool) {
	out := make([]engine.Move, 0, 2*len(x.hist))
	play := func(m engine.Move) bool {
		if _, err := sim.Apply(m); err != nil {
			return false
		}
		out = append(out, m)
		return true
	}
	for _, a := range x.hist {
		m := a.m
		var em engine.Move
		switch m.kind {
		case mPileUp:
			em = engine.PileUp(int(m.from) + 1)
		case mPilePile:
			em = engine.PileToPile(int(m.from)+1, int(m.to)+1, 0)
			if x.gr.anyToEmpty {
				em.Count = partCount(sim, m, a.cnt)
			}
		case mTalon:
			for i := 0; sim.WasteSize() != int(m.at); i++ {
				if i > maxDrawsToReach {
					return nil, false
				}
				step := engine.DrawMove()
				if sim.StockSize() == 0 {
					step = engine.RecycleMove()
				}
				if !play(step) {
					return nil, false
				}
			}
			em = engine.WasteUp()
			if m.to != toFound {
				em = engine.WasteToPile(int(m.to) + 1)
			}
		case mFoundDn:
			em = engine.FoundationDown(engine.Suit(m.from), int(m.to)+1)
		}
		if !play(em) {
			return nil, false
		}
	}
	return out, sim.Status() == engine.Won
}

// partCount returns the count that the notation needs for the move m of
// cnt cards from pile to pile, played on sim: none onto a card, whose
// rank fixes the count, nor for the whole run to an empty pile; cnt for a
// part of a run to an empty pile that takes any card.
func partCount(sim *engine.Game, m move, cnt uint8) uint8 {
	if down, up := sim.Pile(int(m.to) + 1); down > 0 || len(up) > 0 {
		return 0
	}
	if _, up := sim.Pile(int(m.from) + 1); int(cnt) == len(up) {
		return 0
	}
	return cnt
}
