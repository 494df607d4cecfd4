package client

import "klondike/engine"

// parseView reads the view at the start of b written exactly as the
// server writes one (api/internal/fast.AppendViewJSON), of any game: its keys in that order, no spaces, canonical
// card tokens, no leading zeros. It returns the bytes the view took, or
// ok == false for anything else (v is then partly written), which
// encoding/json reads instead. A client that reads a view with every move
// (the load generator's bots) saves encoding/json's reflection with it;
// for any input it accepts, it gives what encoding/json gives
// (TestParseView).
func parseView(b []byte, v *engine.View) (n int, ok bool) {
	r := viewReader{b: b, ok: true}
	// One array for every card of the view: a view shows at most the 52
	// cards face up and 3 of the waste.
	cards := make([]engine.Card, 0, engine.NumCards+3)
	r.lit(`{"tableau":[`)
	for i := range v.Tableau {
		if i > 0 {
			r.lit(",")
		}
		r.lit(`{"down":`)
		v.Tableau[i].Down = int(r.int())
		r.lit(`,"up":`)
		v.Tableau[i].Up, cards = r.cards(cards)
		r.lit("}")
	}
	v.MorePiles = v.MorePiles[:0]
	if r.has(",") {
		// Double Klondike's piles 8 and 9.
		for i := engine.NumPiles; i < engine.MaxPiles; i++ {
			if i > engine.NumPiles {
				r.lit(",")
			}
			var p engine.PileView
			r.lit(`{"down":`)
			p.Down = int(r.int())
			r.lit(`,"up":`)
			p.Up, cards = r.cards(cards)
			r.lit("}")
			v.MorePiles = append(v.MorePiles, p)
		}
	}
	if len(v.MorePiles) == 0 {
		v.MorePiles = nil
	}
	r.lit(`],"stock":`)
	v.Stock = int(r.int())
	r.lit(`,"waste":`)
	v.Waste, _ = r.cards(cards)
	r.lit(`,"waste_size":`)
	v.WasteSize = int(r.int())
	r.lit(`,"foundations":{"C":`)
	v.Foundations.C = int(r.int())
	r.lit(`,"D":`)
	v.Foundations.D = int(r.int())
	r.lit(`,"H":`)
	v.Foundations.H = int(r.int())
	r.lit(`,"S":`)
	v.Foundations.S = int(r.int())
	r.lit(`}`)
	v.Foundations2, v.FoundationBase = nil, 0
	if r.has(`,"foundations2":{"C":`) {
		f := new(engine.FoundationCounts)
		f.C = int(r.int())
		r.lit(`,"D":`)
		f.D = int(r.int())
		r.lit(`,"H":`)
		f.H = int(r.int())
		r.lit(`,"S":`)
		f.S = int(r.int())
		r.lit(`}`)
		v.Foundations2 = f
	} else if r.has(`,"foundation_base":`) {
		v.FoundationBase = int(r.int())
		if v.FoundationBase == 0 {
			r.ok = false // encoding/json would leave it out
		}
	}
	r.lit(`,"score":`)
	v.Score = int(r.int())
	r.lit(`,"moves":`)
	v.Moves = int(r.int())
	r.lit(`,"passes_used":`)
	v.PassesUsed = int(r.int())
	r.lit(`,"passes_left":`)
	if r.has("null") {
		v.PassesLeft = nil
	} else {
		left := int(r.int())
		v.PassesLeft = &left
	}
	r.lit(`,"status":"`)
	v.Status = r.status()
	r.lit(`","elapsed_ms":`)
	v.ElapsedMs = r.int()
	r.lit("}")
	return r.i, r.ok
}

// viewReader reads parseView's input; ok turns false at the first byte
// that is not what the server would have written, and stays false.
type viewReader struct {
	b  []byte
	i  int
	ok bool
}

// lit reads s.
func (r *viewReader) lit(s string) {
	if !r.ok || len(r.b)-r.i < len(s) || string(r.b[r.i:r.i+len(s)]) != s {
		r.ok = false
		return
	}
	r.i += len(s)
}

// has reads s if it comes next and reports whether it did.
func (r *viewReader) has(s string) bool {
	if r.ok && len(r.b)-r.i >= len(s) && string(r.b[r.i:r.i+len(s)]) == s {
		r.i += len(s)
		return true
	}
	return false
}

// int reads an integer as strconv.AppendInt writes it, of at most 18 digits.
func (r *viewReader) int() int64 {
	if !r.ok {
		return 0
	}
	neg := r.i < len(r.b) && r.b[r.i] == '-'
	if neg {
		r.i++
	}
	start := r.i
	var n int64
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' && r.i-start < 18 {
		n = n*10 + int64(r.b[r.i]-'0')
		r.i++
	}
	digits := r.i - start
	if digits == 0 || digits > 1 && r.b[start] == '0' || neg && n == 0 ||
		r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.ok = false
		return 0
	}
	if neg {
		n = -n
	}
	return n
}

// cards reads a list of card tokens into the end of buf and returns the
// list (capped at its length, so that appending to it cannot overwrite
// the next list) and buf with it.
func (r *viewReader) cards(buf []engine.Card) (list, rest []engine.Card) {
	r.lit("[")
	start := len(buf)
	for r.ok && !r.has("]") {
		if len(buf) > start {
			r.lit(",")
		}
		c := r.card()
		if !r.ok {
			break
		}
		buf = append(buf, c)
	}
	return buf[start:len(buf):len(buf)], buf
}

// card reads a quoted canonical card token, such as "TD".
func (r *viewReader) card() engine.Card {
	if !r.ok || len(r.b)-r.i < 4 || r.b[r.i] != '"' || r.b[r.i+3] != '"' {
		r.ok = false
		return engine.NoCard
	}
	c := cardOfToken[r.b[r.i+1]][suitIndex(r.b[r.i+2])]
	if c == engine.NoCard {
		r.ok = false
	}
	r.i += 4
	return c
}

// status reads a status name up to its closing quote (not read).
func (r *viewReader) status() engine.Status {
	if !r.ok {
		return engine.Playing
	}
	for s, name := range statusNames {
		if len(r.b)-r.i > len(name) && string(r.b[r.i:r.i+len(name)]) == name && r.b[r.i+len(name)] == '"' {
			r.i += len(name)
			return engine.Status(s)
		}
	}
	r.ok = false
	return engine.Playing
}

// statusNames are the names of the statuses, by value: engine.ParseStatus
// reads every name there is.
var statusNames = func() (names []string) {
	for s := engine.Playing; ; s++ {
		name := s.String()
		if _, err := engine.ParseStatus(name); err != nil {
			return names
		}
		names = append(names, name)
	}
}()

// suitIndex returns the index in cardOfToken of a canonical suit letter,
// or 4 for any other byte.
func suitIndex(b byte) int {
	switch b {
	case 'C':
		return 0
	case 'D':
		return 1
	case 'H':
		return 2
	case 'S':
		return 3
	}
	return 4
}

// cardOfToken[rank letter][suit index] is the card of a canonical token,
// or NoCard.
var cardOfToken = func() (t [256][5]engine.Card) {
	for i := range engine.NumCards {
		c := engine.CardAt(i)
		tok := c.String()
		t[tok[0]][suitIndex(tok[1])] = c
	}
	return t
}()
