package engine

import (
	"strconv"
)

// A View is what a player may see of their game, and nothing more: the
// face-up cards, how many cards are face down in each pile, how many are in
// the stock (never their order), the visible top of the waste and the
// foundations' counts. Its JSON is the protocol's "view" object:
//
//	{"tableau":[{"down":0,"up":["KS"]},…],"stock":24,"waste":["4D","AH"],
//	 "waste_size":2,"foundations":{"C":0,"D":0,"H":1,"S":0},"score":0,
//	 "moves":0,"passes_used":0,"passes_left":null,"status":"playing","elapsed_ms":0}
type View struct {
	Tableau     [NumPiles]PileView `json:"tableau"`
	Stock       int                `json:"stock"`       // cards left in the stock
	Waste       []Card             `json:"waste"`       // the visible waste cards, top last
	WasteSize   int                `json:"waste_size"`  // all cards in the waste
	Foundations FoundationCounts   `json:"foundations"` // cards on each foundation
	Score       int                `json:"score"`       // running move points, no time adjustment
	Moves       int                `json:"moves"`       // moves accepted, undos included
	PassesUsed  int                `json:"passes_used"` // recycles made
	PassesLeft  *int               `json:"passes_left"` // recycles left; nil (null) when unlimited
	Status      Status             `json:"status"`
	ElapsedMs   int64              `json:"elapsed_ms"` // on the server's clock, given by the caller
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
	v := View{
		Stock:     g.StockSize(),
		Waste:     append([]Card{}, g.talon[int(g.wasteN)-g.visibleWaste():g.wasteN]...),
		WasteSize: int(g.wasteN),
		Foundations: FoundationCounts{
			C: int(g.found[Clubs]), D: int(g.found[Diamonds]),
			H: int(g.found[Hearts]), S: int(g.found[Spades]),
		},
		Score:      int(g.score),
		Moves:      int(g.moves),
		PassesUsed: int(g.recycles),
		Status:     g.status,
		ElapsedMs:  elapsedMs,
	}
	for i := range g.tab {
		p := &g.tab[i]
		v.Tableau[i] = PileView{Down: int(p.down), Up: append([]Card{}, p.up()...)}
	}
	if left := g.PassesLeft(); left >= 0 {
		v.PassesLeft = &left
	}
	return v
}

// AppendViewJSON appends the JSON of g.View(elapsedMs) to b, byte for byte
// what encoding/json writes for it, without allocating when b has room.
func (g *Game) AppendViewJSON(b []byte, elapsedMs int64) []byte {
	b = append(b, `{"tableau":[`...)
	for i := range g.tab {
		p := &g.tab[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"down":`...)
		b = strconv.AppendInt(b, int64(p.down), 10)
		b = append(b, `,"up":`...)
		b = appendCardList(b, p.up())
		b = append(b, '}')
	}
	b = append(b, `],"stock":`...)
	b = strconv.AppendInt(b, int64(g.StockSize()), 10)
	b = append(b, `,"waste":`...)
	b = appendCardList(b, g.talon[int(g.wasteN)-g.visibleWaste():g.wasteN])
	b = append(b, `,"waste_size":`...)
	b = strconv.AppendInt(b, int64(g.wasteN), 10)
	b = append(b, `,"foundations":{"C":`...)
	b = strconv.AppendInt(b, int64(g.found[Clubs]), 10)
	b = append(b, `,"D":`...)
	b = strconv.AppendInt(b, int64(g.found[Diamonds]), 10)
	b = append(b, `,"H":`...)
	b = strconv.AppendInt(b, int64(g.found[Hearts]), 10)
	b = append(b, `,"S":`...)
	b = strconv.AppendInt(b, int64(g.found[Spades]), 10)
	b = append(b, `},"score":`...)
	b = strconv.AppendInt(b, int64(g.score), 10)
	b = append(b, `,"moves":`...)
	b = strconv.AppendInt(b, int64(g.moves), 10)
	b = append(b, `,"passes_used":`...)
	b = strconv.AppendInt(b, int64(g.recycles), 10)
	b = append(b, `,"passes_left":`...)
	if left := g.PassesLeft(); left >= 0 {
		b = strconv.AppendInt(b, int64(left), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"status":"`...)
	b = append(b, g.status.String()...)
	b = append(b, `","elapsed_ms":`...)
	b = strconv.AppendInt(b, elapsedMs, 10)
	return append(b, '}')
}

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

// LegalMoves returns the moves that are legal in the position the view
// shows, under rules r, in the order of Game.LegalMoves, appended to dst.
// A view cannot tell whether undo is allowed, so U is never listed. Bots and
// clients use it: it needs nothing a player cannot see.
func (v *View) LegalMoves(r Rules, dst []Move) []Move {
	if v.Status != Playing {
		return dst
	}
	s := surface{
		stock:      v.Stock,
		waste:      v.WasteSize,
		canRecycle: v.PassesLeft == nil || *v.PassesLeft > 0,
		f2t:        r.FoundationToTableau,
	}
	if len(v.Waste) > 0 {
		s.wasteTop = v.Waste[len(v.Waste)-1]
	}
	for i := range v.Tableau {
		s.up[i] = v.Tableau[i].Up
		s.down[i] = v.Tableau[i].Down
	}
	s.found = [NumSuits]uint8{
		clampCount(v.Foundations.C), clampCount(v.Foundations.D),
		clampCount(v.Foundations.H), clampCount(v.Foundations.S),
	}
	return s.appendMoves(dst)
}

func clampCount(n int) uint8 { return uint8(max(0, min(n, NumRanks))) }
