package client

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"klondike/api/protocol"
	"klondike/engine"
)

// moveOKFrames returns move_ok frames as the server writes them (the
// server's hand-written encoder gives encoding/json's bytes), around the views of random games: with and
// without re, with 0 to 2 events, some duplicates.
func moveOKFrames(t testing.TB) [][]byte {
	rng := rand.New(rand.NewPCG(5, 6))
	events := []engine.Events{0, engine.Drew, engine.Revealed | engine.ToTableau, engine.Recycled}
	var out [][]byte
	for _, draw := range []int{1, 3} {
		r := engine.DefaultRules()
		r.Draw = draw
		for deal := uint64(1); deal <= 6; deal++ {
			g, err := engine.NewGame(engine.NumberedDeal(deal), r)
			if err != nil {
				t.Fatal(err)
			}
			var moves []engine.Move
			for step := 0; step < 150 && g.Status() == engine.Playing; step++ {
				re := ""
				if step%3 != 0 {
					re = strconv.Itoa(step * 7)
				}
				view, err := json.Marshal(g.View(int64(step) * 1000))
				if err != nil {
					t.Fatal(err)
				}
				roundID := "r-" + strconv.Itoa(int(deal)) + "-x9"
				frame, err := json.Marshal(protocol.MoveOK{Type: protocol.TypeMoveOK, Re: re, RoundID: roundID, Seq: step,
					View: view, Events: events[step%len(events)].Names(), Duplicate: step%5 == 4})
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, frame)
				moves = g.LegalMoves(moves[:0])
				if len(moves) == 0 {
					break
				}
				if _, err := g.Apply(moves[rng.IntN(len(moves))]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return out
}

// TestParseMoveOK: parseMoveOK reads the server's move_ok frames as
// encoding/json does; it refuses other forms (spaces, escapes, more keys,
// a cut frame); whatever it accepts of a damaged frame, encoding/json
// reads the same way.
func TestParseMoveOK(t *testing.T) {
	frames := moveOKFrames(t)
	for k, f := range frames {
		var fast, slow Message
		if !parseMoveOK(f, &fast) {
			t.Fatalf("frame %d refused: %s", k, f)
		}
		if err := json.Unmarshal(f, &slow); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("frame %d: %s\nfast %+v\njson %+v", k, f, fast, slow)
		}
	}
	for _, f := range []string{
		`{"type":"move_ok", "round_id":"r","seq":1}`,
		`{"type":"move_ok","re":"a\"b","round_id":"r","seq":1}`,
		`{"type":"move_ok","round_id":"r\u00e9","seq":1}`,
		`{"type":"move_ok","round_id":"r","seq":01}`,
		`{"type":"move_ok","round_id":"r","seq":1,"view":null,"events":[]}`,
		`{"type":"move_rejected","round_id":"r","seq":1}`,
	} {
		var m Message
		if parseMoveOK([]byte(f), &m) {
			t.Errorf("accepted %s", f)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	accepted := 0
	for k, f := range frames {
		if k%25 != 0 {
			continue
		}
		var m Message
		for cut := range len(f) {
			if parseMoveOK(f[:cut], &m) {
				t.Fatalf("frame %d cut at %d accepted", k, cut)
			}
		}
		if parseMoveOK(append(append([]byte{}, f[:len(f)-1]...), `,"x":1}`...), &m) {
			t.Fatalf("frame %d with one more key accepted", k)
		}
		for range 300 {
			d := damage(f, rng)
			var fast, slow Message
			if !parseMoveOK(d, &fast) {
				continue
			}
			accepted++
			if err := json.Unmarshal(d, &slow); err != nil {
				t.Fatalf("accepted %s, which encoding/json refuses: %v", d, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%s\nfast %+v\njson %+v", d, fast, slow)
			}
		}
	}
	if accepted == 0 {
		t.Error("no damaged frame was still a frame: the check above checked nothing")
	}
}

func BenchmarkDecodeMoveOK(b *testing.B) {
	frames := moveOKFrames(b)
	b.Run("parseMoveOK", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			var m Message
			if !parseMoveOK(frames[i%len(frames)], &m) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			var m Message
			if err := json.Unmarshal(frames[i%len(frames)], &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestDecodeMessage: the server's move_ok frames take the fast path, any
// other frame encoding/json, and both give what encoding/json gives.
func TestDecodeMessage(t *testing.T) {
	frames := moveOKFrames(t)[:20]
	frames = append(frames,
		[]byte(`{"type":"welcome","re":"1","player_id":"p1"}`),
		[]byte(`{"type":"move_ok", "round_id":"r","seq":1}`),
		[]byte(`{"re":"2","type":"error","code":"rate_limited","message":"slow down"}`))
	for k, f := range frames {
		var m, want Message
		m.Re = "left over"
		fast, err := DecodeMessage(f, &m)
		if err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
		if wantFast := k < 20; fast != wantFast {
			t.Errorf("frame %d: fast %v, want %v: %s", k, fast, wantFast, f)
		}
		if err := json.Unmarshal(f, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m, want) {
			t.Fatalf("frame %d: %s\ngot  %+v\nwant %+v", k, f, m, want)
		}
	}
	if _, err := DecodeMessage([]byte(`{"type":`), new(Message)); err == nil {
		t.Error("a cut frame decoded")
	}
}
