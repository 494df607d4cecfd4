package api

import (
	"encoding/json"
	"strings"
	"testing"

	"klondike/engine"
)

// moveFrame is a move as the bots send it.
var moveFrame = []byte(`{"type":"move","id":"m41","round_id":"5f0c2a9be1d34c77","seq":41,"move":"T3-T5"}`)

// BenchmarkDecodeMove is the decoding of one incoming move, as the
// connection and the move handler do it.
func BenchmarkDecodeMove(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		env, _, problem := decodeEnvelope(moveFrame)
		if env == nil || env.move == nil || env.move.Seq != 41 {
			b.Fatal(problem)
		}
	}
}

// BenchmarkDecodeMoveJSON is the same through encoding/json, the envelope
// and then the move's fields, as before scanMove: the baseline for the ratio.
func BenchmarkDecodeMoveJSON(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		env, _, problem := decodeEnvelopeJSON(moveFrame)
		if env == nil {
			b.Fatal(problem)
		}
		var m moveMsg
		if err := decode(env, &m); err != nil || m.Seq != 41 {
			b.Fatal(err)
		}
	}
}

// testView is a player's view in the middle of a game.
func testView(tb testing.TB) []byte {
	tb.Helper()
	g, err := engine.NewGame(engine.NumberedDeal(7), engine.DefaultRules())
	if err != nil {
		tb.Fatal(err)
	}
	for range 12 {
		v := g.View(0)
		ms := v.LegalMoves(engine.DefaultRules(), nil)
		if len(ms) == 0 {
			break
		}
		if _, err := g.Apply(ms[0]); err != nil {
			tb.Fatal(err)
		}
	}
	return g.AppendViewJSON(nil, 61_250)
}

// BenchmarkEncodeMoveOK is the encoding of one move_ok.
func BenchmarkEncodeMoveOK(b *testing.B) {
	view := testView(b)
	ev := engine.Events(0)
	b.ReportAllocs()
	for b.Loop() {
		if len(appendMoveOK(nil, "m41", "5f0c2a9be1d34c77", 41, view, ev, false)) == 0 {
			b.Fatal("empty")
		}
	}
}

// TestMoveOKEncoding checks the hand-written move_ok against encoding/json
// on the struct it replaces, with ids that need escaping.
func TestMoveOKEncoding(t *testing.T) {
	view := testView(t)
	for _, re := range []string{"", "m1", `a"b\c`, "<&>", "é\u2028\x01", strings.Repeat("x", 64), "\xff"} {
		for _, ev := range []engine.Events{0, 1, 1<<3 | 1<<1, ^engine.Events(0)} {
			for _, dup := range []bool{false, true} {
				want, err := json.Marshal(moveOKMsg{Type: "move_ok", Re: re, RoundID: "r" + re, Seq: 12, View: view, Events: ev.Names(), Duplicate: dup})
				if err != nil {
					t.Fatal(err)
				}
				got := appendMoveOK(nil, re, "r"+re, 12, view, ev, dup)
				if string(got) != string(want) {
					t.Errorf("re %q events %v dup %v:\n got %s\nwant %s", re, ev, dup, got, want)
				}
			}
		}
	}
}

// BenchmarkEncodeMoveOKJSON is the same message through encoding/json, the
// way it was built before appendMoveOK: the baseline for the ratio.
func BenchmarkEncodeMoveOKJSON(b *testing.B) {
	view := testView(b)
	ev := engine.Events(0)
	b.ReportAllocs()
	for b.Loop() {
		out, err := json.Marshal(moveOKMsg{Type: "move_ok", Re: "m41", RoundID: "5f0c2a9be1d34c77", Seq: 41, View: view, Events: ev.Names()})
		if err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

// FuzzScanMove checks that whatever scanMove reads, encoding/json reads
// the same way: the same type and id, and for a move the same fields,
// without an error.
func FuzzScanMove(f *testing.F) {
	for _, s := range []string{
		string(moveFrame), `{"type":"move","seq":-0}`, ` {"type" : "ready" } `, `{"type":"move","seq":1e2}`,
		`{"type":"move","Seq":3}`, `{"type":"move","seq":3,"seq":4}`, `{"type":"move","move":"T1\u002dF"}`,
		`{"type":"","id":"x"}`, `{"type":"move","id":"` + strings.Repeat("x", 65) + `"}`, `{"type":"move"}x`,
		`{"type":"move","seq":123456789012345678}`, `{"type":"move","seq":01}`, `{}`, `{"type":"move",}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		got, ok := scanMove(frame)
		if !ok {
			return
		}
		env, _, problem := decodeEnvelopeJSON(frame)
		if env == nil || env.Type != got.typ || env.ID != got.id {
			t.Fatalf("%q: scanMove read %+v; encoding/json %+v %q", frame, got, env, problem)
		}
		var m moveMsg
		if err := decode(env, &m); err != nil || (got.typ == "move" && m != got.msg) {
			t.Fatalf("%q: scanMove read %+v; encoding/json %+v %v", frame, got.msg, m, err)
		}
	})
}

// TestScanMoveReadsMoves checks that the frames clients send do take the
// fast path, and that its near misses do not.
func TestScanMoveReadsMoves(t *testing.T) {
	f, ok := scanMove(moveFrame)
	if !ok || f.typ != "move" || f.id != "m41" || f.msg != (moveMsg{RoundID: "5f0c2a9be1d34c77", Seq: 41, Move: "T3-T5"}) {
		t.Fatalf("%+v %v", f, ok)
	}
	for _, s := range []string{`{"type":"move","Seq":3}`, `{"type":"move","seq":3,"seq":4}`, `{"type":"move","seq":"3"}`,
		`{"type":"move","seq":3.0}`, `{"type":"mo\u0076e"}`, `{"type":"move"} {}`, `{"type":"move","extra":1}`} {
		if f, ok := scanMove([]byte(s)); ok {
			t.Errorf("%s: read %+v", s, f)
		}
	}
}
