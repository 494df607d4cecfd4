package fast

import (
	"encoding/json"
	"strconv"
	"sync"

	"klondike/engine"
)

// The answer to every move is written here by hand: encoding/json would
// spend most of its time on reflection and on checking again the view,
// which the engine has just written as compact JSON. TestMoveOKEncoding
// holds the output to what encoding/json gives for MoveOK, byte for byte.

// AppendMoveOK appends the move_ok message: type, re (when not empty),
// round_id, seq, view (written as it is: it must be compact JSON), events,
// and duplicate when true.
func AppendMoveOK(b []byte, re, roundID string, seq int, view []byte, ev engine.Events, duplicate bool) []byte {
	b = appendMoveOKHead(b, re, roundID, seq)
	b = append(b, view...)
	return appendMoveOKTail(b, ev, duplicate)
}

// EncodeMoveOK returns the move_ok message that answers a move, with the
// view after it: AppendMoveOK's bytes, made in one allocation of just their
// length. Head and tail are written on the stack first, so the view, valid
// only while its buffer is, is copied once.
func EncodeMoveOK(re, roundID string, seq int, ev engine.Events, duplicate bool, view []byte) []byte {
	var head, tail [moveOKScratch]byte
	h := appendMoveOKHead(head[:0], re, roundID, seq)
	t := appendMoveOKTail(tail[:0], ev, duplicate)
	msg := make([]byte, 0, len(h)+len(view)+len(t))
	msg = append(msg, h...)
	msg = append(msg, view...)
	return append(msg, t...)
}

// MoveOK returns the move_ok that answers a move, with the player's view
// v after it: EncodeMoveOK of v's JSON, which is written into a scratch
// buffer first, so the message is the one allocation.
func MoveOK(re, roundID string, seq int, ev engine.Events, duplicate bool, v *engine.View) []byte {
	bp := viewScratch.Get().(*[]byte)
	view := AppendViewJSON((*bp)[:0], v)
	msg := EncodeMoveOK(re, roundID, seq, ev, duplicate, view)
	*bp = view[:0]
	viewScratch.Put(bp)
	return msg
}

// viewScratch holds the buffers MoveOK writes views into.
var viewScratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// moveOKScratch is the room EncodeMoveOK gives the head and the tail of
// move_ok on the stack: enough for ids of MaxIDLen and the usual events; a
// longer one grows on the heap.
const moveOKScratch = 256

// appendMoveOKHead appends move_ok up to its view: what AppendMoveOK
// writes before the view.
func appendMoveOKHead(b []byte, re, roundID string, seq int) []byte {
	b = append(b, `{"type":"move_ok"`...)
	if re != "" {
		b = append(b, `,"re":`...)
		b = appendJSONString(b, re)
	}
	b = append(b, `,"round_id":`...)
	b = appendJSONString(b, roundID)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, int64(seq), 10)
	return append(b, `,"view":`...)
}

// appendMoveOKTail appends the rest of move_ok after its view: what
// AppendMoveOK writes after the view.
func appendMoveOKTail(b []byte, ev engine.Events, duplicate bool) []byte {
	b = append(b, `,"events":[`...)
	first := true
	for i := range eventNames {
		if ev&(1<<i) == 0 || eventNames[i] == "" {
			continue // not set, or not an event Names knows
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, eventNames[i])
	}
	b = append(b, ']')
	if duplicate {
		b = append(b, `,"duplicate":true`...)
	}
	return append(b, '}')
}

// eventNames names each bit of engine.Events, as Events.Names does (which
// lists the names of the bits set, from the lowest): without the slice
// Names makes for every move.
var eventNames = func() (t [16]string) {
	for i := range t {
		if names := (engine.Events(1) << i).Names(); len(names) == 1 {
			t[i] = names[0]
		}
	}
	return t
}()

// appendJSONString appends s as a JSON string, as encoding/json writes it.
// Printable ASCII without quotes, backslashes or the characters
// encoding/json escapes for HTML (< > &) goes as it is; anything else takes
// encoding/json's own path.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
