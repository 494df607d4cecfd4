package api

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"klondike/api/protocol"
)

// moveFrame is a move as the bots send it.
var moveFrame = []byte(`{"type":"move","id":"m41","round_id":"5f0c2a9be1d34c77","seq":41,"move":"T3-T5"}`)

// BenchmarkDecodeMove is the decoding of one incoming move, as the
// service does it.
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
// and then the move's fields, as without fast.ScanMove: the baseline for
// the ratio.
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

func TestDecodeEnvelope(t *testing.T) {
	env, _, problem := decodeEnvelope([]byte(`{"type":"move","id":"7","seq":3}`))
	if env == nil || env.Type != "move" || env.ID != "7" || string(env.Raw) != `{"type":"move","id":"7","seq":3}` {
		t.Fatalf("%+v %q", env, problem)
	}
	env, _, _ = decodeEnvelope([]byte(`{"type":"list_matches"}`))
	if env == nil || env.ID != "" {
		t.Fatalf("%+v", env)
	}
	for _, tc := range []struct{ frame, re string }{
		{``, ""}, {`{}`, ""}, {`{"id":"x"}`, "x"}, {`{"type":null,"id":"y"}`, "y"},
		{`{"type":"a","id":{}}`, ""}, {`7`, ""},
	} {
		env, re, problem := decodeEnvelope([]byte(tc.frame))
		if env != nil || re != tc.re || problem == "" {
			t.Errorf("%q: %+v %q %q", tc.frame, env, re, problem)
		}
	}
}

// TestMoveTakesTheFastPath: a move written as protocol.Move, as the Go
// clients write one, has its fields read by fast.ScanMove, the same as
// the handler's decoding of protocol.Move reads them.
func TestMoveTakesTheFastPath(t *testing.T) {
	want := protocol.Move{Type: protocol.TypeMove, ID: "m41", RoundID: "5f0c2a9be1d34c77", Seq: 41, Move: "T3-T5"}
	frame, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	env, _, problem := decodeEnvelope(frame)
	if env == nil || env.move == nil {
		t.Fatalf("decodeEnvelope(%s) = %+v %q; want the move's fields read", frame, env, problem)
	}
	got := protocol.Move{Type: env.Type, ID: env.ID, RoundID: env.move.RoundID, Seq: env.move.Seq, Move: env.move.Move}
	if got != want {
		t.Fatalf("decodeEnvelope(%s) read %+v, want %+v", frame, got, want)
	}
}

// TestCommandContextSecondUse: a message handled twice gets a context of
// its own the second time, since the first may still be held.
func TestCommandContextSecondUse(t *testing.T) {
	var env Envelope
	c1 := env.commandContext(context.Background(), time.Now().Add(time.Hour))
	c1.Cancel()
	c2 := env.commandContext(context.Background(), time.Now().Add(time.Hour))
	defer c2.Cancel()
	if c1 == c2 || c1.Err() == nil || c2.Err() != nil {
		t.Fatalf("a second handling shares the first's context: %p %p, %v %v", c1, c2, c1.Err(), c2.Err())
	}
}
