package engine

import (
	"errors"
	"fmt"
)

// A Suit is one of the four suits, in the canonical order clubs, diamonds,
// hearts, spades. Clubs and spades are black; diamonds and hearts are red.
type Suit uint8

// The suits in canonical order.
const (
	Clubs Suit = iota
	Diamonds
	Hearts
	Spades
)

// NumSuits is the number of suits; NumRanks the number of ranks in a suit.
const (
	NumSuits = 4
	NumRanks = 13
	NumCards = NumSuits * NumRanks
)

const suitLetters = "CDHS"

// String returns the suit's letter: C, D, H or S.
func (s Suit) String() string {
	if s >= NumSuits {
		return "?"
	}
	return suitLetters[s : s+1]
}

// Red reports whether the suit is red (diamonds or hearts).
func (s Suit) Red() bool { return s == Diamonds || s == Hearts }

// ParseSuit parses a suit letter (C, D, H, S, either case) or symbol (♣ ♦ ♥ ♠).
func ParseSuit(s string) (Suit, error) {
	switch s {
	case "C", "c", "♣", "♧":
		return Clubs, nil
	case "D", "d", "♦", "♢":
		return Diamonds, nil
	case "H", "h", "♥", "♡":
		return Hearts, nil
	case "S", "s", "♠", "♤":
		return Spades, nil
	}
	return 0, fmt.Errorf("bad suit %q: want C, D, H or S", s)
}

// A Card is one card of the deck in one byte. The zero Card means "no card";
// the others are 1 + suit·13 + (rank−1), so the 52 cards are 1..52.
type Card uint8

// NoCard is the zero Card.
const NoCard Card = 0

// NewCard returns the card of the given rank (1 = ace .. 13 = king) and suit.
// It returns NoCard when rank or suit is out of range.
func NewCard(rank int, s Suit) Card {
	if rank < 1 || rank > NumRanks || s >= NumSuits {
		return NoCard
	}
	return Card(1 + int(s)*NumRanks + rank - 1)
}

// Valid reports whether c is one of the 52 cards.
func (c Card) Valid() bool { return c >= 1 && c <= NumCards }

// Rank returns the card's rank, 1 (ace) to 13 (king), or 0 for NoCard.
func (c Card) Rank() int { return int(cardInfo[c].rank) }

// Suit returns the card's suit. It is meaningless for NoCard.
func (c Card) Suit() Suit { return cardInfo[c].suit }

// Red reports whether the card is red.
func (c Card) Red() bool { return cardInfo[c].red }

// Index returns the card's index 0..51 (suit·13 + rank − 1), for bit sets and tables.
func (c Card) Index() int { return int(c) - 1 }

// CardAt returns the card with the given Index.
func CardAt(i int) Card { return Card(i + 1) }

const rankLetters = "A23456789TJQK"

// cardInfo holds each byte value's rank, suit and colour, so the hot paths
// of move checking need no division. Values past the 52 cards are zero: no
// rank, clubs, black.
var cardInfo = func() (t [256]struct {
	rank uint8
	suit Suit
	red  bool
}) {
	for c := 1; c <= NumCards; c++ {
		t[c].rank = uint8((c-1)%NumRanks + 1)
		t[c].suit = Suit((c - 1) / NumRanks)
		t[c].red = t[c].suit.Red()
	}
	return t
}()

// String returns the card's canonical token: rank then suit, such as "AS",
// "TD" or "KH"; "--" for NoCard.
func (c Card) String() string {
	if !c.Valid() {
		return "--"
	}
	return cardTokens[c-1]
}

var cardTokens = func() (t [NumCards]string) {
	for i := range t {
		c := CardAt(i)
		t[i] = rankLetters[c.Rank()-1:c.Rank()] + c.Suit().String()
	}
	return t
}()

// ErrBadCard is wrapped by every error of ParseCard.
var ErrBadCard = errors.New("bad card token")

// ParseCard parses a card token: a rank (A 2..9 T J Q K, or 10 for T) followed by
// a suit (C D H S or ♣ ♦ ♥ ♠), in either case, such as "AS", "10h" or "Q♥".
func ParseCard(s string) (Card, error) {
	c, ok := parseCard(s)
	if !ok {
		return NoCard, fmt.Errorf("%w %q: want rank (A,2-9,T,J,Q,K) then suit (C,D,H,S)", ErrBadCard, s)
	}
	return c, nil
}

// parseCard is ParseCard without the allocation of an error.
func parseCard(s string) (Card, bool) {
	if len(s) < 2 {
		return NoCard, false
	}
	rank, n := parseRank(s)
	if rank == 0 {
		return NoCard, false
	}
	var suit Suit
	switch rest := s[n:]; rest {
	case "C", "c", "♣", "♧":
		suit = Clubs
	case "D", "d", "♦", "♢":
		suit = Diamonds
	case "H", "h", "♥", "♡":
		suit = Hearts
	case "S", "s", "♠", "♤":
		suit = Spades
	default:
		return NoCard, false
	}
	return NewCard(rank, suit), true
}

// parseRank reads a rank at the start of s and returns it with the bytes it used,
// or 0 when s starts with no rank.
func parseRank(s string) (rank, n int) {
	switch b := s[0]; {
	case b >= '2' && b <= '9':
		return int(b - '0'), 1
	case b == '1' && len(s) > 1 && s[1] == '0':
		return 10, 2
	}
	switch s[0] | 0x20 {
	case 'a':
		return 1, 1
	case 't':
		return 10, 1
	case 'j':
		return 11, 1
	case 'q':
		return 12, 1
	case 'k':
		return 13, 1
	}
	return 0, 0
}

// MarshalText returns the canonical token.
func (c Card) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("engine: cannot marshal invalid card %d", uint8(c))
	}
	return []byte(cardTokens[c-1]), nil
}

// UnmarshalText parses a token as ParseCard does.
func (c *Card) UnmarshalText(b []byte) error {
	v, err := ParseCard(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}
