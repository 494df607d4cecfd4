package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// NumPiles is the number of tableau piles; StockSize the number of cards left
// in the stock after the deal.
const (
	NumPiles  = 7
	StockSize = NumCards - NumPiles*(NumPiles+1)/2 // 24
)

// A Deal is a starting layout. Tableau[n] holds pile n+1's n+1 cards bottom
// first, so the last card of a pile is its face-up card; Stock lists the 24
// other cards in the order they are drawn (Stock[0] is turned first). The
// same layout serves Klondike, Thumb and Pouch and Whitehead (whose
// foundations start with Stock[0]); Double Klondike's has nine piles, the
// last two in MorePiles, and a 59-card stock, two decks in all.
//
// Its JSON form is the canonical layout:
//
//	{"tableau":[["QH"],["7H","TS"],…],"stock":["4H","AC",…]}
type Deal struct {
	Tableau [NumPiles][]Card `json:"tableau"`
	Stock   []Card           `json:"stock"`
	// MorePiles holds the piles after the seventh: Double Klondike's piles 8
	// and 9 (8 and 9 cards), and nothing in a 52-card deal. The JSON lists
	// them in "tableau" after the others.
	MorePiles [][]Card `json:"-"`
}

// Decks returns the number of decks the deal is made of: 2 when it has
// more than seven piles (Double Klondike's 104 cards), otherwise 1.
func (d *Deal) Decks() int {
	if len(d.MorePiles) > 0 {
		return 2
	}
	return 1
}

// pile returns pile i+1.
func (d *Deal) pile(i int) []Card {
	if i < NumPiles {
		return d.Tableau[i]
	}
	return d.MorePiles[i-NumPiles]
}

// ErrBadDeal is wrapped by every error that Deal.Validate and ParseDeal return.
var ErrBadDeal = errors.New("bad deal")

// Validate reports the first problem with the layout: a pile or stock with the
// wrong number of cards, a card that is not one of the 52, or a duplicate. A
// deal of nine piles (MorePiles holding piles 8 and 9) is Double Klondike's:
// two decks, each card twice, and a 59-card stock.
func (d *Deal) Validate() error {
	piles := NumPiles + len(d.MorePiles)
	if piles != NumPiles && piles != MaxPiles {
		return fmt.Errorf("%w: tableau has %d piles, want %d or %d", ErrBadDeal, piles, NumPiles, MaxPiles)
	}
	decks := d.Decks()
	// seen[k][i] is where copy k+1 of card i stands, as 1 + pile·32 +
	// position (pile number piles is the stock), or 0; the words are only
	// made for an error.
	var seen [2][NumCards]int
	where := func(at int) string {
		pile, pos := (at-1)/32, (at-1)%32+1
		if pile == piles {
			return fmt.Sprintf("stock card %d", pos)
		}
		return fmt.Sprintf("tableau pile %d card %d", pile+1, pos)
	}
	place := func(c Card, at int) error {
		if !c.Valid() {
			return fmt.Errorf("%w: %s is not a card", ErrBadDeal, where(at))
		}
		i := c.Index()
		if seen[0][i] == 0 {
			seen[0][i] = at
			return nil
		}
		if decks == 1 {
			return fmt.Errorf("%w: duplicate card %s (%s and %s)", ErrBadDeal, c, where(seen[0][i]), where(at))
		}
		if seen[1][i] == 0 {
			seen[1][i] = at
			return nil
		}
		return fmt.Errorf("%w: card %s three times (%s, %s and %s)", ErrBadDeal, c, where(seen[0][i]), where(seen[1][i]), where(at))
	}
	for i := range piles {
		pile := d.pile(i)
		if len(pile) != i+1 {
			return fmt.Errorf("%w: tableau pile %d has %d cards, want %d", ErrBadDeal, i+1, len(pile), i+1)
		}
		for j, c := range pile {
			if err := place(c, 1+i*32+j); err != nil {
				return err
			}
		}
	}
	stock := decks*NumCards - piles*(piles+1)/2
	if len(d.Stock) != stock {
		return fmt.Errorf("%w: stock has %d cards, want %d", ErrBadDeal, len(d.Stock), stock)
	}
	for j, c := range d.Stock {
		if err := place(c, 1+piles*32+j); err != nil {
			return err
		}
	}
	return nil
}

// dealJSON is the wire form, with tokens as strings so that a bad token can be
// reported with its place.
type dealJSON struct {
	Tableau []json.RawMessage `json:"tableau"`
	Stock   json.RawMessage   `json:"stock"`
}

// ParseDeal decodes and validates the canonical JSON form of a layout. Every
// error wraps ErrBadDeal and names the problem: malformed JSON, a bad token
// and where it stands, a wrong count or a duplicate card.
func ParseDeal(data []byte) (Deal, error) {
	var d Deal
	err := d.UnmarshalJSON(data)
	return d, err
}

// UnmarshalJSON decodes and validates a layout as ParseDeal does.
func (d *Deal) UnmarshalJSON(data []byte) error {
	var raw dealJSON
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("%w: %v", ErrBadDeal, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: text after the layout", ErrBadDeal)
	}
	if raw.Tableau == nil {
		return fmt.Errorf("%w: no \"tableau\"", ErrBadDeal)
	}
	if raw.Stock == nil {
		return fmt.Errorf("%w: no \"stock\"", ErrBadDeal)
	}
	if len(raw.Tableau) != NumPiles && len(raw.Tableau) != MaxPiles {
		return fmt.Errorf("%w: tableau has %d piles, want %d (or %d for Double Klondike)", ErrBadDeal, len(raw.Tableau), NumPiles, MaxPiles)
	}
	var out Deal
	for i, r := range raw.Tableau {
		cards, err := parseTokens(r, fmt.Sprintf("tableau pile %d", i+1))
		if err != nil {
			return err
		}
		if i < NumPiles {
			out.Tableau[i] = cards
		} else {
			out.MorePiles = append(out.MorePiles, cards)
		}
	}
	cards, err := parseTokens(raw.Stock, "stock")
	if err != nil {
		return err
	}
	out.Stock = cards
	if err := out.Validate(); err != nil {
		return err
	}
	*d = out
	return nil
}

func parseTokens(r json.RawMessage, where string) ([]Card, error) {
	var toks []string
	if err := json.Unmarshal(r, &toks); err != nil {
		return nil, fmt.Errorf("%w: %s is not a list of card tokens", ErrBadDeal, where)
	}
	cards := make([]Card, len(toks))
	for j, t := range toks {
		c, ok := parseCard(strings.TrimSpace(t))
		if !ok {
			return nil, fmt.Errorf("%w: bad card token %q at %s card %d", ErrBadDeal, t, where, j+1)
		}
		cards[j] = c
	}
	return cards, nil
}

// MarshalJSON writes the canonical layout with canonical tokens.
func (d Deal) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 400*d.Decks())
	b = append(b, `{"tableau":[`...)
	for i, pile := range d.Tableau {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCardList(b, pile)
	}
	for _, pile := range d.MorePiles {
		b = append(b, ',')
		b = appendCardList(b, pile)
	}
	b = append(b, `],"stock":`...)
	b = appendCardList(b, d.Stock)
	b = append(b, '}')
	return b, nil
}

// appendCardList appends a list of card tokens.
func appendCardList(b []byte, cards []Card) []byte {
	b = append(b, '[')
	for i, c := range cards {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, c.String()...)
		b = append(b, '"')
	}
	return append(b, ']')
}
