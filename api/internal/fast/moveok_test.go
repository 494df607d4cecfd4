package fast

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"klondike/api/protocol"
	"klondike/engine"
)

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
	v := g.View(61_250)
	return AppendViewJSON(nil, &v)
}

// BenchmarkEncodeMoveOK is the encoding of one move_ok.
func BenchmarkEncodeMoveOK(b *testing.B) {
	view := testView(b)
	ev := engine.Events(0)
	b.ReportAllocs()
	for b.Loop() {
		if len(AppendMoveOK(nil, "m41", "5f0c2a9be1d34c77", 41, view, ev, false)) == 0 {
			b.Fatal("empty")
		}
	}
}

// TestMoveOKEncoding checks the hand-written move_ok against encoding/json
// on protocol.MoveOK, with ids that need escaping.
func TestMoveOKEncoding(t *testing.T) {
	view := testView(t)
	for _, re := range []string{"", "m1", `a"b\c`, "<&>", "é\u2028\x01", strings.Repeat("x", 64), "\xff"} {
		for _, ev := range []engine.Events{0, 1, 1<<3 | 1<<1, ^engine.Events(0)} {
			for _, dup := range []bool{false, true} {
				want, err := json.Marshal(protocol.MoveOK{Type: protocol.TypeMoveOK, Re: re, RoundID: "r" + re, Seq: 12, View: view, Events: ev.Names(), Duplicate: dup})
				if err != nil {
					t.Fatal(err)
				}
				got := AppendMoveOK(nil, re, "r"+re, 12, view, ev, dup)
				if string(got) != string(want) {
					t.Errorf("re %q events %v dup %v:\n got %s\nwant %s", re, ev, dup, got, want)
				}
			}
		}
	}
}

// BenchmarkEncodeMoveOKJSON is the same message through encoding/json, the
// way AppendMoveOK spares: the baseline for the ratio.
func BenchmarkEncodeMoveOKJSON(b *testing.B) {
	view := testView(b)
	ev := engine.Events(0)
	b.ReportAllocs()
	for b.Loop() {
		out, err := json.Marshal(protocol.MoveOK{Type: protocol.TypeMoveOK, Re: "m41", RoundID: "5f0c2a9be1d34c77", Seq: 41, View: view, Events: ev.Names()})
		if err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

// TestEncodeMoveOK holds moveOK, which writes a match.MoveResult and
// its view into a message of their length, to AppendMoveOK: the same
// bytes, and a message of its own each time, which outlives the view.
func TestEncodeMoveOK(t *testing.T) {
	view := testView(t)
	var first []byte
	for _, re := range []string{"", "m1", `a"b`} {
		for _, ev := range []engine.Events{0, engine.Drew, engine.ToFoundation | engine.Revealed | engine.GameWon, ^engine.Events(0)} {
			for _, dup := range []bool{false, true} {
				scratch := bytes.Clone(view)
				got := EncodeMoveOK(re, "r1", 7, ev, dup, scratch)
				clear(scratch) // as Round.Move reuses the view's buffer
				if want := AppendMoveOK(nil, re, "r1", 7, view, ev, dup); !bytes.Equal(got, want) {
					t.Fatalf("moveOK:\n%s\nwant\n%s", got, want)
				}
				if first == nil {
					first = got
				}
			}
		}
	}
	if want := AppendMoveOK(nil, "", "r1", 7, view, 0, false); !bytes.Equal(first, want) {
		t.Fatalf("a later moveOK changed an earlier message:\n%s", first)
	}
	ev := engine.ToFoundation | engine.Revealed
	if n := testing.AllocsPerRun(100, func() { _ = EncodeMoveOK("m41", "5f0c2a9be1d34c77", 41, ev, false, view) }); n != 1 {
		t.Errorf("moveOK makes %v allocations, want 1 (the message)", n)
	}
}

// TestMoveOKOfView: MoveOK writes the view itself, as AppendMoveOK writes
// the view's JSON, in one allocation.
func TestMoveOKOfView(t *testing.T) {
	g, err := engine.NewGame(engine.NumberedDeal(7), engine.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	v := g.View(61_250)
	view, _ := json.Marshal(v)
	ev := engine.ToFoundation | engine.Revealed
	if got, want := MoveOK("m41", "r1", 41, ev, true, &v), AppendMoveOK(nil, "m41", "r1", 41, view, ev, true); !bytes.Equal(got, want) {
		t.Fatalf("MoveOK:\n%s\nwant\n%s", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { _ = MoveOK("m41", "r1", 41, ev, false, &v) }); n != 1 {
		t.Errorf("MoveOK makes %v allocations, want 1 (the message)", n)
	}
}
