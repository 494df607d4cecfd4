package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"klondike/api/protocol"
	"klondike/engine"
)

// verifyDeal checks a round's revealed deal: the commitment announced
// before the round (announced; "" if it was missed, then the one in the
// reveal is checked) must be the hex SHA-256 of "<salt>:<seed>" (a known
// deal has none, but must be the deal number announced, knownSeed, if
// seen); the layout must be that deal number's of the round's game (rules
// r); and the opening board seen (nil if not seen) must be that layout's
// under r. It returns the lines to print; a failed check's line starts
// with "WARNING".
func verifyDeal(announced, knownSeed string, d protocol.DealReveal, r engine.Rules, opening *engine.View) []string {
	var out []string
	seed, err := strconv.ParseUint(d.Seed, 10, 64)
	if err != nil {
		return []string{fmt.Sprintf("WARNING: the deal number %q is not a number: the deal cannot be checked", d.Seed)}
	}
	if d.KnownDeal {
		if knownSeed != "" && knownSeed != d.Seed {
			return []string{fmt.Sprintf("WARNING: DEAL NOT VERIFIED: deal #%s was announced, #%s revealed", clean(knownSeed), d.Seed)}
		}
		out = append(out, fmt.Sprintf("deal: known deal #%d (no commitment to check)", seed))
	} else {
		sum := sha256.Sum256([]byte(d.Salt + ":" + d.Seed))
		got := hex.EncodeToString(sum[:])
		want := announced
		if want == "" {
			want = d.Commitment
			out = append(out, "note: the commitment was not seen before the round (you came in during it); checking the one revealed")
		}
		if strings.EqualFold(got, want) && want != "" {
			out = append(out, "deal verified: commitment matches")
		} else {
			out = append(out,
				"WARNING: DEAL NOT VERIFIED: the commitment does not match the revealed seed and salt",
				"WARNING:   committed:            "+clean(want),
				"WARNING:   sha256(salt:seed) is: "+got)
		}
	}
	deal := engine.NumberedDealFor(r.Game, seed)
	layout, err := engine.ParseDeal(d.Layout)
	if err != nil {
		return append(out, fmt.Sprintf("WARNING: the revealed layout cannot be read: %v", err))
	}
	a, _ := json.Marshal(deal)
	b, _ := json.Marshal(layout)
	if !bytes.Equal(a, b) {
		return append(out, fmt.Sprintf("WARNING: the revealed layout is not deal #%d's", seed))
	}
	if opening != nil {
		if err := openingMatches(opening, &deal, r); err != nil {
			return append(out, "WARNING: the board you were dealt is not deal #"+d.Seed+"'s: "+err.Error())
		}
		out = append(out, fmt.Sprintf("layout checked: deal #%d, as dealt to you", seed))
	}
	return out
}

// openingMatches checks a board at move 0 against a deal under rules r:
// each pile's face-down count and face-up cards, the stock and the
// foundations (Whitehead's first stock card starts one) against the
// opening the engine deals.
func openingMatches(v *engine.View, d *engine.Deal, r engine.Rules) error {
	g, err := engine.NewGame(*d, r)
	if err != nil {
		return err
	}
	want := g.View(0)
	if v.Piles() != want.Piles() {
		return fmt.Errorf("%d piles, the deal has %d", v.Piles(), want.Piles())
	}
	for n := 1; n <= want.Piles(); n++ {
		p, q := v.Pile(n), want.Pile(n)
		if p.Down != q.Down || !slices.Equal(p.Up, q.Up) {
			return fmt.Errorf("pile %d differs", n)
		}
	}
	if v.Stock != want.Stock || v.WasteSize != 0 {
		return errors.New("the stock differs")
	}
	same2 := (v.Foundations2 == nil) == (want.Foundations2 == nil) && (v.Foundations2 == nil || *v.Foundations2 == *want.Foundations2)
	if v.Foundations != want.Foundations || !same2 || v.FoundationBase != want.FoundationBase {
		return errors.New("the foundations differ")
	}
	return nil
}
