package engine

import (
	"bytes"
	"encoding/json"
)

// A View is what a player may see of their game, and nothing more: the
// face-up cards, how many cards are face down in each pile, how many are in
// the stock (never their order), the visible top of the waste and the
// foundations' counts. Its JSON is the protocol's "view" object:
//
//	{"tableau":[{"down":0,"up":["KS"]},…],"stock":24,"waste":["4D","AH"],
//	 "waste_size":2,"foundations":{"C":0,"D":0,"H":1,"S":0},"score":0,
//	 "moves":0,"passes_used":0,"passes_left":null,"status":"playing","elapsed_ms":0}
//
// Double Klondike's view lists its nine piles in "tableau" and adds
// "foundations2", the second foundation of each suit, after "foundations";
// Whitehead's adds "foundation_base", the rank the foundations start at.
// Klondike's and Thumb and Pouch's have neither.
type View struct {
	Tableau [NumPiles]PileView `json:"tableau"`
	// MorePiles are the piles after the seventh (Double Klondike's 8 and 9),
	// listed in the JSON's "tableau" after the others.
	MorePiles   []PileView       `json:"-"`
	Stock       int              `json:"stock"`       // cards left in the stock
	Waste       []Card           `json:"waste"`       // the visible waste cards, top last
	WasteSize   int              `json:"waste_size"`  // all cards in the waste
	Foundations FoundationCounts `json:"foundations"` // cards on each foundation (the first of a suit's two in Double Klondike)
	// Foundations2 counts the cards on the second foundation of each suit
	// in Double Klondike, and is nil (left out) in the other games.
	Foundations2 *FoundationCounts `json:"foundations2,omitempty"`
	// FoundationBase is the rank every foundation starts at in Whitehead
	// (1..13), and 0 (left out; the ace) in the other games.
	FoundationBase int    `json:"foundation_base,omitempty"`
	Score          int    `json:"score"`       // running move points, no time adjustment
	Moves          int    `json:"moves"`       // moves accepted, undos included
	PassesUsed     int    `json:"passes_used"` // recycles made
	PassesLeft     *int   `json:"passes_left"` // recycles left; nil (null) when unlimited
	Status         Status `json:"status"`
	ElapsedMs      int64  `json:"elapsed_ms"` // on the server's clock, given by the caller
}

// Piles returns the number of tableau piles the view shows: 7, or 9 in
// Double Klondike.
func (v *View) Piles() int { return NumPiles + len(v.MorePiles) }

// Pile returns pile n (1-based).
func (v *View) Pile(n int) PileView {
	if n <= NumPiles {
		return v.Tableau[n-1]
	}
	return v.MorePiles[n-1-NumPiles]
}

// viewJSON is a View without its methods: encoding/json writes and reads it
// as it always wrote and read a View, which keeps Klondike's view JSON as it
// was; the view's own methods only add Double Klondike's piles 8 and 9.
type viewJSON View

// MarshalJSON writes the view as encoding/json writes its fields, with the
// piles after the seventh (Double Klondike's) listed in "tableau" after the
// others.
func (v View) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(viewJSON(v))
	if err != nil || len(v.MorePiles) == 0 {
		return b, err
	}
	more, err := json.Marshal(v.MorePiles)
	if err != nil {
		return nil, err
	}
	// The tableau's list ends where "stock" starts: nothing before it can
	// hold those bytes.
	end := bytes.Index(b, []byte(`],"stock":`))
	out := make([]byte, 0, len(b)+len(more))
	out = append(out, b[:end]...)
	out = append(out, ',')
	out = append(out, more[1:len(more)-1]...)
	return append(out, b[end:]...), nil
}

// UnmarshalJSON reads a view as encoding/json reads its fields, the piles
// of "tableau" after the seventh going to MorePiles.
func (v *View) UnmarshalJSON(b []byte) error {
	w := struct {
		*viewJSON
		Tableau []PileView `json:"tableau"`
	}{viewJSON: (*viewJSON)(v)}
	w.Tableau = append(append(make([]PileView, 0, NumPiles+len(v.MorePiles)), v.Tableau[:]...), v.MorePiles...)
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	n := copy(v.Tableau[:], w.Tableau)
	clear(v.Tableau[n:])
	v.MorePiles = nil
	if len(w.Tableau) > NumPiles {
		v.MorePiles = w.Tableau[NumPiles:]
	}
	return nil
}

// A PileView is one tableau pile as a player sees it.
type PileView struct {
	Down int    `json:"down"` // face-down cards
	Up   []Card `json:"up"`   // face-up cards, bottom first
}

// FoundationCounts holds how many cards each suit's foundation has.
type FoundationCounts struct {
	C int `json:"C"`
	D int `json:"D"`
	H int `json:"H"`
	S int `json:"S"`
}

// visibleWaste returns how many waste cards a player sees: the top three in
// draw 3, the top one in draw 1.
func (g *Game) visibleWaste() int { return min(int(g.wasteN), g.rules.Draw) }

// View returns the player's view of the game; elapsedMs is the time on the
// server's clock since the round started. The view never holds a face-down
// card or the order of the stock.
func (g *Game) View(elapsedMs int64) View {
	var v View
	g.ViewInto(&v, elapsedMs)
	return v
}

// ViewInto writes the player's view of the game into v, as View returns
// it, reusing the room of v's lists: a caller that keeps one View for every
// move (the server's answer to each) makes no allocation for it.
func (g *Game) ViewInto(v *View, elapsedMs int64) {
	v.Stock = g.StockSize()
	v.Waste = reuseCards(v.Waste, g.talon[int(g.wasteN)-g.visibleWaste():g.wasteN])
	v.WasteSize = int(g.wasteN)
	v.Foundations = FoundationCounts{
		C: int(g.found[Clubs]), D: int(g.found[Diamonds]),
		H: int(g.found[Hearts]), S: int(g.found[Spades]),
	}
	v.Score, v.Moves, v.PassesUsed, v.Status, v.ElapsedMs = int(g.score), int(g.moves), int(g.recycles), g.status, elapsedMs
	more := v.MorePiles[:0]
	for i := range g.piles() {
		p := &g.tab[i]
		if i < NumPiles {
			v.Tableau[i] = PileView{Down: int(p.down), Up: reuseCards(v.Tableau[i].Up, p.up())}
			continue
		}
		var up []Card
		if len(more) < cap(more) {
			up = more[:len(more)+1][len(more)].Up
		}
		more = append(more, PileView{Down: int(p.down), Up: reuseCards(up, p.up())})
	}
	v.MorePiles = nil
	if len(more) > 0 {
		v.MorePiles = more
	}
	f2 := v.Foundations2
	v.Foundations2, v.FoundationBase = nil, 0
	switch g.rules.Game {
	case DoubleKlondike:
		if f2 == nil {
			f2 = new(FoundationCounts)
		}
		*f2 = FoundationCounts{
			C: int(g.found[4+Clubs]), D: int(g.found[4+Diamonds]),
			H: int(g.found[4+Hearts]), S: int(g.found[4+Spades]),
		}
		v.Foundations2 = f2
	case Whitehead:
		v.FoundationBase = int(g.base)
	}
	if left := g.PassesLeft(); left < 0 {
		v.PassesLeft = nil
	} else if v.PassesLeft != nil {
		*v.PassesLeft = left
	} else {
		v.PassesLeft = &left
	}
}

// reuseCards copies cards into dst's room: never nil, so that an empty
// list is written [] rather than null.
func reuseCards(dst, cards []Card) []Card {
	if dst == nil {
		dst = make([]Card, 0, len(cards))
	}
	return append(dst[:0], cards...)
}

// LegalMoves returns the moves that are legal in the position the view
// shows, under rules r, in the order of Game.LegalMoves, appended to dst.
// A view cannot tell whether undo is allowed, so U is never listed. Bots and
// clients use it: it needs nothing a player cannot see.
func (v *View) LegalMoves(r Rules, dst []Move) []Move {
	if v.Status != Playing {
		return dst
	}
	sp := r.Game.spec()
	s := surface{
		sp:         sp,
		piles:      min(int(sp.piles), v.Piles()),
		stock:      v.Stock,
		waste:      v.WasteSize,
		base:       1,
		canRecycle: v.PassesLeft == nil || *v.PassesLeft > 0,
		f2t:        r.FoundationToTableau,
	}
	if len(v.Waste) > 0 {
		s.wasteTop = v.Waste[len(v.Waste)-1]
	}
	for i := range min(s.piles, NumPiles) {
		s.up[i] = v.Tableau[i].Up
		s.down[i] = v.Tableau[i].Down
	}
	for i := NumPiles; i < s.piles; i++ {
		s.up[i] = v.MorePiles[i-NumPiles].Up
		s.down[i] = v.MorePiles[i-NumPiles].Down
	}
	s.found = [MaxFoundations]uint8{
		clampCount(v.Foundations.C), clampCount(v.Foundations.D),
		clampCount(v.Foundations.H), clampCount(v.Foundations.S),
	}
	if f := v.Foundations2; f != nil && sp.decks == 2 {
		s.found[4+Clubs], s.found[4+Diamonds] = clampCount(f.C), clampCount(f.D)
		s.found[4+Hearts], s.found[4+Spades] = clampCount(f.H), clampCount(f.S)
	}
	if b := v.FoundationBase; b >= 1 && b <= NumRanks {
		s.base = uint8(b)
	}
	return s.appendMoves(dst)
}

func clampCount(n int) uint8 { return uint8(max(0, min(n, NumRanks))) }
