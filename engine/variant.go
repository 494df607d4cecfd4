package engine

import "fmt"

// A Variant is one of the games the engine plays: Klondike and the three
// variations of the rule book. Each is a rule set of the same engine; the
// zero Variant is Klondike.
type Variant uint8

// The variants.
const (
	// Klondike is the classic game (docs/rules.md).
	Klondike Variant = iota
	// ThumbAndPouch is Klondike in which a card goes on a card one rank
	// higher of any other suit, and an empty pile takes any card or run.
	ThumbAndPouch
	// Whitehead deals the tableau face up, starts every foundation at the
	// rank of the 29th card and builds by colour, moving runs of one suit;
	// it draws one card at a time with no redeal.
	Whitehead
	// DoubleKlondike is Klondike with two decks: nine piles and eight
	// foundations.
	DoubleKlondike
)

// NumVariants is the number of variants.
const NumVariants = 4

// The largest sizes over all variants, which the fixed arrays of a Game use.
const (
	// MaxPiles is the most tableau piles a game has (Double Klondike's 9).
	MaxPiles = 9
	// MaxCards is the most cards a game deals (Double Klondike's 104).
	MaxCards = 2 * NumCards
	// MaxStock is the most cards a game's stock starts with (Double
	// Klondike's 59).
	MaxStock = MaxCards - MaxPiles*(MaxPiles+1)/2
	// MaxFoundations is the most foundations a game has (Double Klondike's 8).
	MaxFoundations = 2 * NumSuits
)

var variantNames = [...]string{Klondike: "klondike", ThumbAndPouch: "thumb_and_pouch", Whitehead: "whitehead", DoubleKlondike: "double_klondike"}

// String returns the variant's name: klondike, thumb_and_pouch, whitehead or
// double_klondike.
func (v Variant) String() string {
	if int(v) < len(variantNames) {
		return variantNames[v]
	}
	return fmt.Sprintf("Variant(%d)", uint8(v))
}

// ParseVariant parses a variant's name.
func ParseVariant(s string) (Variant, error) {
	for i, n := range variantNames {
		if s == n {
			return Variant(i), nil
		}
	}
	return 0, fmt.Errorf("%w: game %q: want klondike, thumb_and_pouch, whitehead or double_klondike", ErrBadRules, s)
}

// MarshalText returns the variant's name.
func (v Variant) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText parses a variant's name.
func (v *Variant) UnmarshalText(b []byte) error {
	x, err := ParseVariant(string(b))
	*v = x
	return err
}

// Piles returns the number of tableau piles: 9 in Double Klondike, 7 in the others.
func (v Variant) Piles() int { return int(v.spec().piles) }

// Decks returns the number of decks: 2 in Double Klondike, 1 in the others.
func (v Variant) Decks() int { return int(v.spec().decks) }

// Cards returns the number of cards dealt: 104 in Double Klondike, 52 in the others.
func (v Variant) Cards() int { return int(v.spec().decks) * NumCards }

// Foundations returns the number of foundations: 8 in Double Klondike, 4 in the others.
func (v Variant) Foundations() int { return int(v.spec().decks) * NumSuits }

// StockSize returns the number of cards in the stock at the start: 24 in
// Klondike and Thumb and Pouch, 23 in Whitehead (the 29th card starts the
// foundations), 59 in Double Klondike.
func (v Variant) StockSize() int { return int(v.spec().stock) }

// A variantSpec is what the rules of one variant need on the move path, as
// tables so that checking a move needs no branch on the variant.
type variantSpec struct {
	piles, decks uint8
	stock        uint8 // stock cards at the start
	faceUp       bool  // the tableau is dealt face up
	// below[t] is the set of cards that go on t in the tableau; run[t]
	// those that stay in one movable run with t beneath them.
	below, run [256]uint64
	// empty is the set of cards an empty pile takes.
	empty uint64
	// buildRule is the refusal of a card that does not go on another.
	buildRule error
}

var specs = func() (s [NumVariants]variantSpec) {
	for v := range Variant(NumVariants) {
		sp := &s[v]
		sp.piles, sp.decks = NumPiles, 1
		sp.buildRule = ErrBuild
		sp.empty = kings
		switch v {
		case ThumbAndPouch:
			sp.empty = allCards
			sp.buildRule = ErrBuildSuit
		case Whitehead:
			sp.empty = allCards
			sp.faceUp = true
			sp.buildRule = ErrBuildColour
		case DoubleKlondike:
			sp.piles, sp.decks = MaxPiles, 2
		}
		sp.stock = uint8(int(sp.decks)*NumCards - int(sp.piles)*(int(sp.piles)+1)/2)
		if v == Whitehead {
			sp.stock--
		}
		for t := Card(1); t <= NumCards; t++ {
			r := t.Rank() - 1
			if r < 1 {
				continue
			}
			for su := range Suit(NumSuits) {
				c := NewCard(r, su)
				var goes, stays bool
				switch v {
				case ThumbAndPouch:
					goes = su != t.Suit()
					stays = goes
				case Whitehead:
					goes = c.Red() == t.Red()
					stays = su == t.Suit()
				default:
					goes = c.Red() != t.Red()
					stays = goes
				}
				if goes {
					sp.below[t] |= bitOf[c]
				}
				if stays {
					sp.run[t] |= bitOf[c]
				}
			}
		}
	}
	return s
}()

// allCards is the set of the 52 cards.
const allCards = 1<<NumCards - 1

func (v Variant) spec() *variantSpec {
	if int(v) < NumVariants {
		return &specs[v]
	}
	return &specs[Klondike]
}

// goesOn reports whether c may be placed on t in the tableau.
func (sp *variantSpec) goesOn(c, t Card) bool { return sp.below[t]&bitOf[c] != 0 }

// runLength returns the length of the movable run of a pile whose face-up
// cards are up, bottom first: the longest sequence at the top in which each
// card stays in a run on the one below it.
func (sp *variantSpec) runLength(up []Card) int {
	if len(up) == 0 {
		return 0
	}
	k := 1
	for i := len(up) - 1; i > 0 && sp.run[up[i-1]]&bitOf[up[i]] != 0; i-- {
		k++
	}
	return k
}

// fitLength returns how many cards of the movable run (the top run cards of
// up) Tn-Tm moves onto a pile whose top card is t (NoCard for an empty
// pile), or 0 when none fits. Onto a card at most one length fits: the
// target fixes the rank of the run's bottom card. An empty pile takes the
// whole run when its bottom card may go there; where an empty pile takes
// any card, a count may ask for fewer (see runFor).
func (sp *variantSpec) fitLength(up []Card, run int, t Card) int {
	n := len(up)
	if t == NoCard {
		if sp.empty&bitOf[up[n-run]] != 0 {
			return run
		}
		return 0
	}
	k := t.Rank() - up[n-1].Rank() // the run card one rank below t, counted from the top
	if k < 1 || k > run || sp.below[t]&bitOf[up[n-k]] == 0 {
		return 0
	}
	return k
}

// anyToEmpty reports whether an empty pile takes any card, so that a count
// may move part of a run there.
func (sp *variantSpec) anyToEmpty() bool { return sp.empty == allCards }

// foundRank[b][n] is the rank of the n-th card (1..13) of a foundation that
// starts at rank b, building up in suit and wrapping from king to ace; index
// 14 is 0, so that a full foundation takes nothing.
var foundRank = func() (t [NumRanks + 1][NumRanks + 2]uint8) {
	for b := 1; b <= NumRanks; b++ {
		for n := 1; n <= NumRanks; n++ {
			t[b][n] = uint8((b-1+n-1)%NumRanks + 1)
		}
	}
	return t
}()

// foundPos[b][r] is the place (1..13) of rank r on a foundation that starts
// at rank b.
var foundPos = func() (t [NumRanks + 1][NumRanks + 1]uint8) {
	for b := 1; b <= NumRanks; b++ {
		for n := 1; n <= NumRanks; n++ {
			t[b][foundRank[b][n]] = uint8(n)
		}
	}
	return t
}()
