package solver

import "klondike/engine"

// Cards are 0..51 (suit·13 + rank − 1, the engine's Card.Index); noCard
// marks "nothing". The tables below answer in one lookup what the search
// asks of a card.

const (
	nPiles   = 7
	maxPile  = 6 + 13 // six face-down cards under a king-to-ace run
	talonMax = 24
	nCards   = 52
	noCard   = 52
	king     = 13
)

// allCards is the set of the 52 cards.
const allCards = 1<<nCards - 1

// Card tables, indexed by card 0..52 (52 is noCard: rank 0).
var (
	cRank [nCards + 1]int8
	cSuit [nCards + 1]uint8
	cRed  [nCards + 1]bool
)

// kingSet is the set of the kings.
var kingSet uint64

// gameRules are what the solver needs to know of one game it plays. The
// games differ in the tableau only, whose rules are card sets here, so
// that the search asks them in one lookup: Klondike builds down in
// alternate colours and fills an empty pile with a king; Thumb and Pouch
// builds down on any other suit and fills an empty pile with any card or
// run. They also differ in what the search can rely on and in the
// schedule that suits them.
type gameRules struct {
	// onto[c] is the set of the cards that go on c; aboveSet[c] that of
	// the cards c goes on. Both are empty for noCard.
	onto, aboveSet [nCards + 1]uint64
	// empty is the set of the cards an empty pile takes.
	empty uint64
	// anyToEmpty: an empty pile takes any card, and so any upper part of
	// a run, which the search then moves there as well.
	anyToEmpty bool
	// twins: two cards of one rank and colour take the same cards and go
	// on the same cards, so that the twin-stack reduction holds (Klondike
	// only: in Thumb and Pouch no two cards take the same cards).
	twins bool
	// anySuit: a card of rank r is safe to send up once every other
	// foundation holds r − 2 (see search.safe).
	anySuit bool
	// phases are the incomplete searches run before the complete one
	// (see schedule).
	phases []phase
}

// The rules of the games the solver plays.
var (
	klondikeRules gameRules
	pouchRules    gameRules
)

// rulesOf returns the rules of game v, or nil for a game the solver does
// not play (see Supports).
func rulesOf(v engine.Variant) *gameRules {
	switch v {
	case engine.Klondike:
		return &klondikeRules
	case engine.ThumbAndPouch:
		return &pouchRules
	}
	return nil
}

// init fills the card tables, then the Zobrist keys (hash.go), whose twin
// terms read them.
func init() {
	fillCardTables()
	fillZobrist()
}

// fillCardTables fills the tables above.
func fillCardTables() {
	for c := range nCards {
		cRank[c] = int8(c%13 + 1)
		cSuit[c] = uint8(c / 13)
		cRed[c] = cSuit[c] == 1 || cSuit[c] == 2
		if cRank[c] == king {
			kingSet |= 1 << c
		}
	}
	klondikeRules.fill(goesOn, kingSet)
	klondikeRules.twins = true
	klondikeRules.phases = schedule
	pouchRules.fill(goesOnOtherSuit, allCards)
	pouchRules.anyToEmpty = true
	pouchRules.anySuit = true
	pouchRules.phases = pouchSchedule
}

// fill sets b's card sets from the rule goes (does c go on t) and the set
// of the cards an empty pile takes.
func (b *gameRules) fill(goes func(c, t uint8) bool, empty uint64) {
	b.empty = empty
	for t := range uint8(nCards) {
		for c := range uint8(nCards) {
			if goes(c, t) {
				b.onto[t] |= 1 << c
				b.aboveSet[c] |= 1 << t
			}
		}
	}
}

func cardOf(rank int, suit uint8) uint8 { return suit*13 + uint8(rank-1) }

// goesOn reports whether c may be built on t in Klondike's tableau: one
// rank lower, the other colour.
func goesOn(c, t uint8) bool { return cRank[c]+1 == cRank[t] && cRed[c] != cRed[t] }

// goesOnOtherSuit reports whether c may be built on t in Thumb and Pouch's
// tableau: one rank lower, another suit.
func goesOnOtherSuit(c, t uint8) bool { return cRank[c]+1 == cRank[t] && cSuit[c] != cSuit[t] }

// twin returns the card of c's rank and colour of the other suit.
func twin(c uint8) uint8 { return cardOf(int(cRank[c]), partner(cSuit[c])) }

// partner returns the other suit of the same colour: clubs and spades,
// diamonds and hearts.
func partner(s uint8) uint8 { return 3 - s }
