package solver

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

// onto[c] is the set of the two cards that go on c in the tableau, below[c]
// the same two cards (noCard for an ace), above[c] the two cards c goes on
// (noCard for a king); kingSet is the set of the kings. below and above
// of noCard are noCard.
var (
	onto     [nCards + 1]uint64
	below    [nCards + 1][2]uint8
	above    [nCards + 1][2]uint8
	aboveSet [nCards + 1]uint64
	kingSet  uint64
)

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
	}
	for c := range below {
		below[c] = [2]uint8{noCard, noCard}
		above[c] = [2]uint8{noCard, noCard}
	}
	for t := range uint8(nCards) {
		if cRank[t] == king {
			kingSet |= 1 << t
		}
		for c := range uint8(nCards) {
			if goesOn(c, t) {
				onto[t] |= 1 << c
				if below[t][0] == noCard {
					below[t][0] = c
				} else {
					below[t][1] = c
				}
				aboveSet[c] |= 1 << t
				if above[c][0] == noCard {
					above[c][0] = t
				} else {
					above[c][1] = t
				}
			}
		}
	}
}

func cardOf(rank int, suit uint8) uint8 { return suit*13 + uint8(rank-1) }

// goesOn reports whether c may be built on t in the tableau.
func goesOn(c, t uint8) bool { return cRank[c]+1 == cRank[t] && cRed[c] != cRed[t] }

// twin returns the card of c's rank and colour of the other suit.
func twin(c uint8) uint8 { return cardOf(int(cRank[c]), partner(cSuit[c])) }

// partner returns the other suit of the same colour: clubs and spades,
// diamonds and hearts.
func partner(s uint8) uint8 { return 3 - s }
