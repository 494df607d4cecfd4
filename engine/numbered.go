package engine

// PySol's suit order, which differs from the canonical one: clubs, spades,
// hearts, diamonds.
var pysolSuits = [NumSuits]Suit{Clubs, Spades, Hearts, Diamonds}

// msSeedLimit is the first deal number that PySolFC shuffles with the Mersenne
// Twister instead of the Microsoft-C style linear congruential generator.
const msSeedLimit = 32000

// NumberedDeal returns the layout of deal number n: exactly the layout that
// PySolFC deals as Klondike game n, for every n. It is pure and allocates only
// the Deal's cards (one 52-card array that the piles and the stock slice).
//
// In outline (docs/deals.md has every detail): a deck in PySol order is
// shuffled with a generator chosen by n — below 32000 the Microsoft C rand()
// recurrence seeded with n over a deck first reordered by rank, from 32000 up
// the Mersenne Twister seeded as Python's random.Random(n) — by swapping a[k]
// with a[randint(0, k)] for k = 51 down to 1. The cards are then dealt from
// the end of the deck: six face-down rows, row r to piles 7 down to r+1, then
// a face-up row to piles 7 down to 1; the 24 left, still taken from the end,
// form the stock in drawing order.
func NumberedDeal(n uint64) Deal {
	var a [NumCards]Card
	if n < msSeedLimit {
		// The deck in PySol order, reordered by rank: A♣ A♦ A♥ A♠ 2♣ …,
		// which is new[4i+t] = old[i + (0,39,26,13)[t]] of the PySol deck.
		// (PySol order C S H D puts diamonds at 39, hearts at 26 and
		// spades at 13, so this is simply the canonical suits by rank.)
		for i := range NumRanks {
			for t := range NumSuits {
				a[NumSuits*i+t] = NewCard(i+1, Suit(t))
			}
		}
	} else {
		pysolDeck(a[:])
	}
	pysolShuffle(a[:], n)
	return dealFromDeck(&a)
}

// pysolDeck fills a with whole decks in PySol's order: clubs, spades,
// hearts, diamonds, each ace to king, deck after deck.
func pysolDeck(a []Card) {
	for i := range a {
		a[i] = NewCard(i%NumRanks+1, pysolSuits[i/NumRanks%NumSuits])
	}
}

// pysolShuffle shuffles a as PySolFC does for game number n: swapping a[k]
// with a[randint(0, k)] for k from the last index down to 1, with the
// Microsoft C rand() recurrence seeded with n below 32000, and the
// Mersenne Twister seeded as Python's random.Random(n) from there.
func pysolShuffle(a []Card, n uint64) {
	if n < msSeedLimit {
		x := uint32(n)
		for k := len(a) - 1; k > 0; k-- {
			x = x*214013 + 2531011
			j := int((x>>16)&0x7fff) % (k + 1)
			a[k], a[j] = a[j], a[k]
		}
		return
	}
	var r mt19937
	r.seed(n)
	for k := len(a) - 1; k > 0; k-- {
		j := r.randint(k)
		a[k], a[j] = a[j], a[k]
	}
}

// NumberedDouble returns deal number n of Double Klondike: exactly the
// layout that PySolFC deals as Double Klondike game n (and as Double
// Klondike by Threes, the same deal), for every n.
//
// In outline (docs/deals.md has every detail): two decks in PySol order, not
// reordered by rank (PySolFC reorders only a 52-card deck), are shuffled as
// NumberedDeal shuffles one, over all 104 cards. The cards are then dealt
// from the end of the deck, each row left to right: eight face-down rows,
// row r to piles r+1 up to 9, then a face-up row to piles 1 to 9; the 59
// left, still taken from the end, form the stock in drawing order.
func NumberedDouble(n uint64) Deal {
	back := new([MaxCards]Card)
	var a [MaxCards]Card
	pysolDeck(a[:])
	pysolShuffle(a[:], n)
	top := MaxCards - 1
	// start[p] is where pile p+1 starts in back: the piles in order, then
	// the stock.
	var start [MaxPiles + 1]int
	for p := 1; p <= MaxPiles; p++ {
		start[p] = start[p-1] + p
	}
	for r := 1; r < MaxPiles; r++ {
		for p := r + 1; p <= MaxPiles; p++ {
			back[start[p-1]+r-1] = a[top]
			top--
		}
	}
	for p := 1; p <= MaxPiles; p++ {
		back[start[p-1]+p-1] = a[top]
		top--
	}
	for i := start[MaxPiles]; top >= 0; i++ {
		back[i] = a[top]
		top--
	}
	var d Deal
	d.MorePiles = make([][]Card, MaxPiles-NumPiles)
	for p := range MaxPiles {
		lo, hi := start[p], start[p]+p+1
		if p < NumPiles {
			d.Tableau[p] = back[lo:hi:hi]
		} else {
			d.MorePiles[p-NumPiles] = back[lo:hi:hi]
		}
	}
	d.Stock = back[start[MaxPiles]:MaxCards:MaxCards]
	return d
}

// pileStart[p] is where pile p+1 starts in the backing array of a Deal made by
// dealFromDeck: the piles in order, then the stock.
var pileStart = [NumPiles + 1]int{0, 1, 3, 6, 10, 15, 21, 28}

// dealFromDeck deals the shuffled deck a, taking cards from its end, and
// returns the layout in one freshly allocated array.
func dealFromDeck(a *[NumCards]Card) Deal {
	back := new([NumCards]Card)
	top := NumCards - 1
	// Face-down rows: row r gives one card to piles 7, 6, …, r+1; the card
	// it gives pile p is that pile's card number r (counting from 1).
	for r := 1; r < NumPiles; r++ {
		for p := NumPiles; p > r; p-- {
			back[pileStart[p-1]+r-1] = a[top]
			top--
		}
	}
	// Face-up row: piles 7, 6, …, 1 get their top card.
	for p := NumPiles; p >= 1; p-- {
		back[pileStart[p-1]+p-1] = a[top]
		top--
	}
	// The stock: the rest, still from the end; the first taken is drawn first.
	for i := pileStart[NumPiles]; top >= 0; i++ {
		back[i] = a[top]
		top--
	}
	var d Deal
	for p := range NumPiles {
		lo, hi := pileStart[p], pileStart[p]+p+1
		d.Tableau[p] = back[lo:hi:hi]
	}
	d.Stock = back[pileStart[NumPiles]:NumCards:NumCards]
	return d
}

// NumberedDealFor returns deal number n of game v: NumberedDeal(n) for the
// 52-card games, whose deals PySolFC makes alike (Whitehead's foundations
// start with its first stock card), and Double Klondike's 104-card deal
// (see NumberedDouble).
func NumberedDealFor(v Variant, n uint64) Deal {
	if v == DoubleKlondike {
		return NumberedDouble(n)
	}
	return NumberedDeal(n)
}
