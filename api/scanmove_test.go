package api

import (
	"encoding/json"
	"strings"
	"testing"

	"klondike/api/protocol"
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
		var m protocol.Move
		if err := decode(env, &m); err != nil || m.Seq != 41 {
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
		var m protocol.Move
		err := decode(env, &m)
		if read := (moveFields{RoundID: m.RoundID, Seq: m.Seq, Move: m.Move}); err != nil || (got.typ == "move" && read != got.msg) {
			t.Fatalf("%q: scanMove read %+v; encoding/json %+v %v", frame, got.msg, m, err)
		}
	})
}

// TestScanMoveReadsMoves checks that the frames clients send do take the
// fast path, and that its near misses do not.
func TestScanMoveReadsMoves(t *testing.T) {
	f, ok := scanMove(moveFrame)
	if !ok || f.typ != "move" || f.id != "m41" || f.msg != (moveFields{RoundID: "5f0c2a9be1d34c77", Seq: 41, Move: "T3-T5"}) {
		t.Fatalf("%+v %v", f, ok)
	}
	// A move written as protocol.Move, as the Go clients write one.
	frame, err := json.Marshal(protocol.Move{Type: protocol.TypeMove, ID: "m41", RoundID: "5f0c2a9be1d34c77", Seq: 41, Move: "T3-T5"})
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := scanMove(frame); !ok || g != f {
		t.Fatalf("protocol.Move %s: scanMove read %+v %v, want %+v", frame, g, ok, f)
	}
	for _, s := range []string{`{"type":"move","Seq":3}`, `{"type":"move","seq":3,"seq":4}`, `{"type":"move","seq":"3"}`,
		`{"type":"move","seq":3.0}`, `{"type":"mo\u0076e"}`, `{"type":"move"} {}`, `{"type":"move","extra":1}`} {
		if f, ok := scanMove([]byte(s)); ok {
			t.Errorf("%s: read %+v", s, f)
		}
	}
}
