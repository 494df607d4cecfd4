package fast

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// maxID is the longest id in these tests: the protocol's.
const maxID = 64

// moveFrame is a move as the bots send it.
var moveFrame = []byte(`{"type":"move","id":"m41","round_id":"5f0c2a9be1d34c77","seq":41,"move":"T3-T5"}`)

// plainMove reads frame the plain way, as api does whatever ScanMove
// leaves: encoding/json reads the type and the id (the frame must be an
// object, with a non-empty string type and a string id of at most maxIDLen
// bytes), then a move's fields. ok is false where that path refuses the
// frame.
func plainMove(frame []byte, maxIDLen int) (f Scanned, ok bool) {
	var head struct {
		Type json.RawMessage `json:"type"`
		ID   json.RawMessage `json:"id"`
	}
	if t := bytes.TrimLeft(frame, " \t\n\r"); len(t) == 0 || t[0] != '{' || json.Unmarshal(frame, &head) != nil {
		return f, false
	}
	if head.ID != nil && (json.Unmarshal(head.ID, &f.ID) != nil || len(f.ID) > maxIDLen) {
		return f, false
	}
	if head.Type == nil || json.Unmarshal(head.Type, &f.Type) != nil || f.Type == "" {
		return f, false
	}
	var m struct {
		RoundID string `json:"round_id"`
		Seq     int    `json:"seq"`
		Move    string `json:"move"`
	}
	if json.Unmarshal(frame, &m) != nil {
		return f, false
	}
	f.Move = MoveFields{RoundID: m.RoundID, Seq: m.Seq, Move: m.Move}
	return f, true
}

// checkScan fails when ScanMove reads frame otherwise than plainMove.
func checkScan(t *testing.T, frame []byte) (scanned bool) {
	t.Helper()
	got, ok := ScanMove(frame, maxID)
	if !ok {
		return false // the plain path reads it
	}
	want, wok := plainMove(frame, maxID)
	if !wok || got != want {
		t.Fatalf("ScanMove(%q) = %+v; encoding/json reads %+v (accepted %v)", frame, got, want, wok)
	}
	return true
}

// BenchmarkScanMove is the reading of one incoming move's fields.
func BenchmarkScanMove(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if f, ok := ScanMove(moveFrame, maxID); !ok || f.Move.Seq != 41 {
			b.Fatal(f, ok)
		}
	}
}

// BenchmarkScanMoveJSON is the same through encoding/json: the baseline
// for the ratio.
func BenchmarkScanMoveJSON(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if f, ok := plainMove(moveFrame, maxID); !ok || f.Move.Seq != 41 {
			b.Fatal(f, ok)
		}
	}
}

// FuzzScanMove checks that whatever ScanMove reads, encoding/json reads
// the same way: the same type, id and fields, without an error.
func FuzzScanMove(f *testing.F) {
	for _, s := range []string{
		string(moveFrame), `{"type":"move","seq":-0}`, ` {"type" : "ready" } `, `{"type":"move","seq":1e2}`,
		`{"type":"move","Seq":3}`, `{"type":"move","seq":3,"seq":4}`, `{"type":"move","move":"T1\u002dF"}`,
		`{"type":"","id":"x"}`, `{"type":"move","id":"` + strings.Repeat("x", 65) + `"}`, `{"type":"move"}x`,
		`{"type":"move","seq":123456789012345678}`, `{"type":"move","seq":01}`, `{}`, `{"type":"move",}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) { checkScan(t, frame) })
}

// TestScanMoveReadsMoves checks that the frames clients send do take the
// fast path, and that its near misses do not.
func TestScanMoveReadsMoves(t *testing.T) {
	f, ok := ScanMove(moveFrame, maxID)
	if want := (Scanned{Type: "move", ID: "m41", Move: MoveFields{RoundID: "5f0c2a9be1d34c77", Seq: 41, Move: "T3-T5"}}); !ok || f != want {
		t.Fatalf("ScanMove(%s) = %+v, %v; want %+v", moveFrame, f, ok, want)
	}
	for _, s := range []string{`{"type":"move","Seq":3}`, `{"type":"move","seq":3,"seq":4}`, `{"type":"move","seq":"3"}`,
		`{"type":"move","seq":3.0}`, `{"type":"mo\u0076e"}`, `{"type":"move"} {}`, `{"type":"move","extra":1}`,
		`{"type":"move","id":"` + strings.Repeat("x", maxID+1) + `"}`} {
		if f, ok := ScanMove([]byte(s), maxID); ok {
			t.Errorf("ScanMove(%s) = %+v, want the plain path", s, f)
		}
	}
	// The id's bound is the caller's.
	long := []byte(`{"type":"x","id":"` + strings.Repeat("x", 10) + `"}`)
	if _, ok := ScanMove(long, 9); ok {
		t.Errorf("ScanMove(%s, 9) read an id of 10 bytes", long)
	}
	if _, ok := ScanMove(long, 10); !ok {
		t.Errorf("ScanMove(%s, 10) refused an id of 10 bytes", long)
	}
}

// TestScanMoveMatchesJSON is FuzzScanMove on a fixed table: frames put
// together from the keys a move has and their near misses, string values
// plain and escaped, numbers in every form, whitespace, repeated keys and
// trailing bytes. ScanMove must read each as encoding/json does, and read
// the frames written the way clients write them.
func TestScanMoveMatchesJSON(t *testing.T) {
	keys := []string{`"type"`, `"id"`, `"round_id"`, `"seq"`, `"move"`,
		`"Type"`, `"SEQ"`, `"extra"`, `"typ"`, `"round_id "`, `"\u0074ype"`, `type`}
	strs := []string{`"move"`, `"ready"`, `""`, `"m41"`, `"5f0c2a9be1d34c77"`, `"T3-T5"`, `"D"`,
		`"T1\u002dF"`, `"a\"b"`, `"é"`, "\"\x01\"", `"` + strings.Repeat("x", maxID) + `"`,
		`"` + strings.Repeat("x", maxID+1) + `"`, `null`, `7`, `{}`, `[]`, `true`}
	nums := []string{`0`, `-0`, `41`, `-5`, `01`, `1e2`, `3.0`, `123456789012345678`, `1234567890123456789`,
		`"3"`, `null`, `- 1`, `+1`, `99999999999999999999`}
	spaces := []string{``, ``, ``, ` `, "\n", "\t ", "\r"}
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	var b strings.Builder
	scanned, canonical := 0, 0
	const frames = 40000
	for i := range frames {
		b.Reset()
		// A quarter of the frames are what a client writes: the five
		// keys, each once, plain values. Another quarter keep to the
		// five keys, in any order and number, repeats included, with
		// any value: ScanMove's edges. The others take any key.
		clean, exact := i%4 == 0, i%4 == 1
		b.WriteString(pick(spaces) + "{" + pick(spaces))
		n := rng.IntN(6)
		if exact {
			n = 1 + rng.IntN(6)
		}
		if clean {
			n = 5
		}
		for k := range n {
			if k > 0 {
				b.WriteString(pick(spaces) + "," + pick(spaces))
			}
			name := pick(keys)
			switch {
			case clean:
				name = keys[k]
			case exact && k == 0 && rng.IntN(2) == 0:
				name = keys[0] // most have a type, as the fast path needs
			case exact:
				name = keys[rng.IntN(5)]
			}
			b.WriteString(name + pick(spaces) + ":" + pick(spaces))
			switch {
			case clean && name == `"seq"`:
				b.WriteString(`41`)
			case clean && name == `"type"`:
				b.WriteString(`"move"`)
			case clean:
				b.WriteString(`"T3-T5"`)
			case exact && rng.IntN(3) > 0 && name == `"seq"`:
				b.WriteString(pick(nums[:4])) // a plain integer
			case exact && rng.IntN(3) > 0:
				b.WriteString(pick(strs[:7])) // a plain string
			case name == `"seq"` || rng.IntN(5) == 0:
				b.WriteString(pick(nums))
			default:
				b.WriteString(pick(strs))
			}
		}
		if !clean && rng.IntN(8) == 0 {
			b.WriteString(",")
		}
		b.WriteString(pick(spaces) + "}" + pick(spaces))
		if !clean && rng.IntN(10) == 0 {
			b.WriteString(pick([]string{`x`, `}`, `{}`, `,`}))
		}
		frame := []byte(b.String())
		if checkScan(t, frame) {
			scanned++
			if clean {
				canonical++
			}
		} else if clean {
			t.Fatalf("ScanMove(%q) refused a frame written as clients write one", frame)
		}
	}
	t.Logf("%d of %d frames read by ScanMove, %d of them written as clients write", scanned, frames, canonical)
	if scanned <= canonical {
		t.Errorf("ScanMove read no frame but the clients' (%d): the table tests none of its edges", canonical)
	}
}
