package engine_test

// Fuzz targets for the parsers and for Apply. Their seed corpora run with
// every go test; fuzz one with, for example,
//
//	go test ./engine -run '^$' -fuzz '^FuzzParseMove$' -fuzztime 20s
//
// FuzzApply runs a few milliseconds an input, so the fuzzer's default minute
// of minimizing each new input stalls it: add -fuzzminimizetime 5s.

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"klondike/engine"
)

// fzSwapCase swaps the case of the ASCII letters of s.
func fzSwapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case c >= 'A' && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{
		"D", "r", "u", "W-T1", "w-f", "T7-F", "T1-T2", "t3:4-t5", "T1:13-T7", "T1:1-T1", "FH-T3", "fs-t1",
		" D ", "\tT1-T2\n", "T1:0-T2", "T1:14-T2", "T1:01-T2", "T1:013-T2", "T1:0013-T2", "T8-T1", "W-T0",
		"", " ", "-", "T", "T1", "T1-", "T1-T", "T1:-T2", "T1:1-F", "W-T12", "FX-T1", "F♥-T1", "Ｄ", "DD",
		"T1-F ", "t1-f", "W -F", "T1 - T2", "U\x00", "\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := engine.ParseMove(s)
		if err != nil {
			var pe *engine.ParseError
			if !errors.Is(err, engine.ErrSyntax) || !errors.As(err, &pe) || pe.Input != s {
				t.Fatalf("ParseMove(%q) error %#v: want a *ParseError of the input wrapping ErrSyntax", s, err)
			}
			if m != (engine.Move{}) {
				t.Fatalf("ParseMove(%q) failed but returned %#v", s, m)
			}
			if m2, err := engine.ParseMove(fzSwapCase(s)); err == nil {
				t.Fatalf("ParseMove(%q) fails but its case swap parses to %v", s, m2)
			}
			return
		}
		str := m.String()
		if str == "?" || m.Kind == engine.NoMove {
			t.Fatalf("ParseMove(%q) = %#v, which does not write", s, m)
		}
		m2, err := engine.ParseMove(str)
		if err != nil || m2 != m || m2.String() != str {
			t.Fatalf("ParseMove(%q) = %#v; its String %q parses to %#v, %v", s, m, str, m2, err)
		}
		if got := string(m.AppendText([]byte("x"))); got != "x"+str {
			t.Fatalf("AppendText = %q, want %q", got, "x"+str)
		}
		if b, err := m.MarshalText(); err != nil || string(b) != str {
			t.Fatalf("MarshalText = %q, %v", b, err)
		}
		var um engine.Move
		if err := um.UnmarshalText([]byte(s)); err != nil || um != m {
			t.Fatalf("UnmarshalText(%q) = %#v, %v", s, um, err)
		}
		for _, v := range []string{strings.ToLower(str), " \t" + strings.ToLower(str) + " \r\n", "\n" + str + " ", fzSwapCase(s)} {
			if mv, err := engine.ParseMove(v); err != nil || mv != m {
				t.Fatalf("ParseMove(%q) = %v, %v; want %v as for %q", v, mv, err, m, s)
			}
		}
	})
}

func FuzzParseCard(f *testing.F) {
	for _, s := range []string{"AS", "as", "10h", "10H", "TD", "td", "Q♥", "K♠", "2♣", "9♦", "J♡", "A♤", "7♧", "3♢",
		"", "A", "1", "10", "1S", "11S", "0S", "ZS", "AX", "AS ", " AS", "ASS", "10♥x", "♥Q", "\xffS"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := engine.ParseCard(s)
		if err != nil {
			if !errors.Is(err, engine.ErrBadCard) || c != engine.NoCard {
				t.Fatalf("ParseCard(%q) = %v, %v: want NoCard and an error wrapping ErrBadCard", s, c, err)
			}
			if _, err := engine.ParseCard(fzSwapCase(s)); err == nil {
				t.Fatalf("ParseCard(%q) fails but its case swap parses", s)
			}
			return
		}
		if !c.Valid() || engine.NewCard(c.Rank(), c.Suit()) != c {
			t.Fatalf("ParseCard(%q) = %d, not a valid card", s, c)
		}
		tok := c.String()
		if len(tok) != 2 || !strings.Contains("A23456789TJQK", tok[:1]) || !strings.Contains("CDHS", tok[1:]) {
			t.Fatalf("ParseCard(%q) = %q, not a canonical token", s, tok)
		}
		for _, v := range []string{tok, strings.ToLower(tok), fzSwapCase(s)} {
			if c2, err := engine.ParseCard(v); err != nil || c2 != c {
				t.Fatalf("ParseCard(%q) = %v, %v; want %v as for %q", v, c2, err, c, s)
			}
		}
		if b, err := c.MarshalText(); err != nil || string(b) != tok {
			t.Fatalf("MarshalText = %q, %v", b, err)
		}
		var u engine.Card
		if err := u.UnmarshalText([]byte(s)); err != nil || u != c {
			t.Fatalf("UnmarshalText(%q) = %v, %v", s, u, err)
		}
	})
}

func FuzzParseDeal(f *testing.F) {
	d1, _ := engine.NumberedDeal(1).MarshalJSON()
	d2, _ := engine.NumberedDeal(1 << 40).MarshalJSON()
	f.Add(d1)
	f.Add(d2)
	dd, _ := engine.NumberedDouble(1).MarshalJSON()
	f.Add(dd)
	f.Add(bytes.Replace(dd, []byte(`"6H"`), []byte(`"TH"`), 1)) // a third ten of hearts
	f.Add(bytes.ToLower(d1))
	f.Add(bytes.ReplaceAll(d1, []byte(`"T`), []byte(`"10`)))
	f.Add(bytes.ReplaceAll(d1, []byte(`,`), []byte(" ,\n ")))
	f.Add(bytes.ReplaceAll(d1, []byte(`"QH"`), []byte(`"Q♥"`)))
	f.Add(bytes.ReplaceAll(d1, []byte(`"QH"`), []byte(`" QH "`)))
	f.Add(bytes.Replace(d1, []byte(`"QH"`), []byte(`"AS"`), 1)) // a duplicate
	f.Add(bytes.Replace(d1, []byte(`"QH"`), []byte(`"XX"`), 1))
	f.Add(bytes.Replace(d1, []byte(`{`), []byte(`{"extra":1,`), 1))
	f.Add(append(slices.Clone(d1), " {}"...))
	f.Add(d1[:len(d1)/2])
	for _, s := range []string{"", "null", "{}", "[]", `{"tableau":null,"stock":[]}`, `{"tableau":[],"stock":[]}`,
		`{"tableau":[[],[],[],[],[],[],[]],"stock":null}`, `{"tableau":[1,2,3,4,5,6,7],"stock":"AS"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := engine.ParseDeal(data)
		if err != nil {
			if !errors.Is(err, engine.ErrBadDeal) {
				t.Fatalf("ParseDeal error %v does not wrap ErrBadDeal", err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("ParseDeal accepted a deal that does not Validate: %v", err)
		}
		b, err := d.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		d2, err := engine.ParseDeal(b)
		if err != nil {
			t.Fatalf("ParseDeal(MarshalJSON()) = %v\n%s", err, b)
		}
		if !reflect.DeepEqual(d, d2) {
			t.Fatalf("the deal changed in a round trip:\n%v\n%v", d, d2)
		}
		if b2, _ := d2.MarshalJSON(); !bytes.Equal(b, b2) {
			t.Fatalf("MarshalJSON is not a fixed point:\n%s\n%s", b, b2)
		}
		if jb, err := json.Marshal(d); err != nil || !bytes.Equal(jb, b) {
			t.Fatalf("json.Marshal = %s, %v; want %s", jb, err, b)
		}
		var d3 engine.Deal
		if err := json.Unmarshal(b, &d3); err != nil || !reflect.DeepEqual(d, d3) {
			t.Fatalf("json.Unmarshal = %v, %v", d3, err)
		}
		r := engine.DefaultRules()
		if d.Decks() == 2 {
			r = engine.DefaultRulesFor(engine.DoubleKlondike)
		}
		if _, err := engine.NewGame(d, r); err != nil {
			t.Fatalf("NewGame on an accepted deal: %v", err)
		}
	})
}

// fzConfigs are the rule combinations of every game, Klondike's first.
var fzConfigs = func() []engine.Rules {
	var rs []engine.Rules
	for v := range engine.Variant(engine.NumVariants) {
		rs = append(rs, propConfigs(v)...)
	}
	return rs
}()

// fzRules picks one of the rule combinations from a byte.
func fzRules(b byte) engine.Rules {
	return fzConfigs[int(b)%len(fzConfigs)]
}

func FuzzParseGame(f *testing.F) {
	g1, _ := engine.NewGame(engine.NumberedDeal(1), engine.DefaultRules())
	f.Add(g1.String(), byte(0))
	f.Add(strings.ToLower(g1.String()), byte(7))
	for _, s := range []string{
		"|QH/7H|TS/5D9S|5C/JCKCKH|4C/9HKDQCKS|3C/2D5HAD2SQD|AH/JD7C5S3H9DJS|AS |4HAC4D7S3STD4STH8H2CJH7D6D8S8DQS6C3D8CTC6S9C2H6H ---- 0 0",
		"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS JJJT 0 0",
		"|KS/|KH/|KD/|KC/|QS/|QH/|QD QC|JS JJJT 2 35",
		"|/|/|/|/|/|/| | KKKK 0 0",
		"|KSQH/|KH/|KD/|KC/|QS/|QH/| |QCJS JJJT 0 0",
		"2C3C4C5C6C7C8C|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS -JJT 0 0",
		"9C|KC/9D|KS/9H|QC/9S|QS/TDTH|JC/JDJH|JS/QDQH|TC |TSKDKH 8888 0 0",
		"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS JJJT 0 -5",
		"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS JJJT 99999999999 0",
		"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS jjjt 0 0",
		"", "| | | | |", "/ / / / /",
	} {
		f.Add(s, byte(len(s)))
	}
	f.Fuzz(func(t *testing.T, text string, rb byte) {
		r := fzRules(rb)
		g, err := engine.ParseGame(text, r)
		if err != nil {
			if !errors.Is(err, engine.ErrBadPosition) {
				t.Fatalf("ParseGame(%q) error %v does not wrap ErrBadPosition", text, err)
			}
			return
		}
		s := g.String()
		g2, err := engine.ParseGame(s, r)
		if err != nil {
			t.Fatalf("ParseGame(%q) accepted; its String %q is refused: %v", text, s, err)
		}
		if g2.String() != s || g2.Status() != g.Status() {
			t.Fatalf("round trip of %q: %q (%v), want %q (%v)", text, g2.String(), g2.Status(), s, g.Status())
		}
		if g.Moves() != 0 || g.CanUndo() {
			t.Fatalf("a parsed game has history: moves %d, can undo %v", g.Moves(), g.CanUndo())
		}
		p, err := parseRefPos(s, r.Game)
		if err != nil {
			t.Fatalf("the text form %q: %v", s, err)
		}
		// The position holds each of the 52 cards once (twice in Double
		// Klondike).
		var count [engine.NumCards]int
		for i := range p.down {
			for _, c := range append(slices.Clone(p.down[i]), p.up[i]...) {
				count[c.Index()]++
			}
		}
		for _, c := range append(slices.Clone(p.waste), p.stock...) {
			count[c.Index()]++
		}
		for f, n := range p.found {
			for k := 1; k <= n; k++ {
				count[engine.NewCard(p.rankOn(k), engine.Suit(f%4)).Index()]++
			}
		}
		for i, n := range count {
			if n != refDecks(r.Game) {
				t.Fatalf("ParseGame(%q) accepted %v %d times", text, engine.CardAt(i), n)
			}
		}
		// Whatever it accepts, the engine can work with: the view, the
		// legal moves, each of them applied and undone.
		if _, err := json.Marshal(g.View(0)); err != nil {
			t.Fatalf("json.Marshal(View): %v", err)
		}
		g.IsStuck()
		g.AutoComplete()
		legal := g.LegalMoves(nil)
		if g.Status() == engine.Playing {
			if want := p.legalList(r); !slices.Equal(legal, want) {
				t.Fatalf("LegalMoves in %q = [%s]\nrule book [%s]", s, propMovesString(legal), propMovesString(want))
			}
		}
		for _, m := range legal {
			c := g.Clone()
			if _, err := c.Apply(m); err != nil {
				t.Fatalf("Apply(%v) in %q: %v; LegalMoves lists it", m, s, err)
			}
			q := p.clone()
			q.apply(r, m)
			if got := textLayout(c.String()); got != q.layout() {
				t.Fatalf("%v in %q gives\n%s\nrule book\n%s", m, s, got, q.layout())
			}
			if c.CanUndo() {
				if _, err := c.Apply(engine.UndoMove()); err != nil || c.String() != s {
					t.Fatalf("%v then U in %q: %v, %q", m, s, err, c.String())
				}
			}
		}
	})
}

// FuzzApply reads moves from bytes and plays them on a fixed deal under the
// rules the first byte picks, each checked against the rule book's model as
// in the property test (propGame). A byte below 0x80 picks a legal move; up
// to 0xef, with the next byte, any well-formed move; from 0xf0, with the
// next four bytes, a raw Move that may not be well formed.
func FuzzApply(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{44, 0x80, 0, 0x81, 7, 0xf0, 1, 2, 3, 4, 0x7f, 0x7f, 0x7f})
	f.Add(bytes.Repeat([]byte{3, 0, 0x10, 0x30}, 60))
	rng := rand.New(rand.NewPCG(1, 1))
	for range 4 {
		b := make([]byte, 300)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		r := fzRules(data[0])
		g, err := engine.NewGame(engine.NumberedDealFor(r.Game, 617), r)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := parseRefPos(g.String(), r.Game)
		if err != nil {
			t.Fatal(err)
		}
		pg := &propGame{t: t, name: "fuzz", rng: rand.New(rand.NewPCG(2, 2)), r: r, g: g, ref: ref,
			score: newRefScore(r), stats: &propStats{}}
		pg.check(false, false)
		data = data[1:min(len(data), 400)] // at most a few hundred moves
		for len(data) > 0 {
			b := data[0]
			data = data[1:]
			switch {
			case b < 0x80:
				if g.Status() != engine.Playing {
					pg.refuse(engine.DrawMove())
					continue
				}
				legal := pg.legal
				if len(legal) == 0 {
					pg.fatalf("a game in play has no legal move")
				}
				pg.apply(legal[int(b)%len(legal)])
			case b < 0xf0:
				if len(data) == 0 {
					return
				}
				m := propCandidates[(int(b-0x80)<<8|int(data[0]))%len(propCandidates)]
				data = data[1:]
				ok, _ := pg.ref.legal(r, m)
				switch m.Kind {
				case engine.Undo:
					ok = pg.expectCanUndo()
				case engine.Redo:
					ok = pg.expectCanRedo()
				}
				if ok && g.Status() == engine.Playing {
					pg.apply(m)
				} else {
					pg.refuse(m)
				}
			default:
				if len(data) < 4 {
					return
				}
				m := engine.Move{Kind: engine.MoveKind(data[0] % 12), From: data[1] % 10, To: data[2] % 10, Count: data[3] % 16}
				data = data[4:]
				if m.Kind == engine.Undo && m != engine.UndoMove() {
					continue // Apply takes it for U: see TestApplyMalformedUndo
				}
				ok := false // not well formed
				if slices.Contains(propCandidates, m) {
					ok, _ = pg.ref.legal(r, m)
					switch m.Kind {
					case engine.Undo:
						ok = pg.expectCanUndo()
					case engine.Redo:
						ok = pg.expectCanRedo()
					}
				}
				if ok && g.Status() == engine.Playing {
					pg.apply(m)
				} else {
					pg.refuse(m)
				}
			}
			pg.check(false, false)
		}
		pg.check(true, false)
	})
}
