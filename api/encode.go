package api

import (
	"encoding/json"
	"strconv"

	"klondike/engine"
	"klondike/match"
)

// The answer to every move is built here by hand: encoding/json would spend
// most of its time on reflection and on checking again the view, which the
// engine has just written as compact JSON. TestMoveOKEncoding holds the
// output to what encoding/json gives for moveOKMsg, byte for byte.

// appendMoveOK appends the move_ok message: type, re (when not empty),
// round_id, seq, view (written as it is: it must be compact JSON), events,
// and duplicate when true.
func appendMoveOK(b []byte, re, roundID string, seq int, view []byte, ev engine.Events, duplicate bool) []byte {
	b = appendMoveOKHead(b, re, roundID, seq)
	b = append(b, view...)
	return appendMoveOKTail(b, ev, duplicate)
}

// moveOK returns the move_ok message that answers a move, with the view
// after it: appendMoveOK's bytes, made in one allocation of just their
// length. Head and tail are written on the stack first, so the view, valid
// only in Round.Move's ack, is copied once.
func moveOK(re, roundID string, res match.MoveResult, view []byte) []byte {
	var head, tail [moveOKScratch]byte
	h := appendMoveOKHead(head[:0], re, roundID, res.Seq)
	t := appendMoveOKTail(tail[:0], res.Events, res.Duplicate)
	msg := make([]byte, 0, len(h)+len(view)+len(t))
	msg = append(msg, h...)
	msg = append(msg, view...)
	return append(msg, t...)
}

// moveOKScratch is the room moveOK gives the head and the tail of move_ok on
// the stack: enough for ids of maxIDLen and the usual events; a longer one
// grows on the heap.
const moveOKScratch = 256

// appendMoveOKHead appends move_ok up to its view: what appendMoveOK
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
// appendMoveOK writes after the view.
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

// scanned is what scanMove read: the envelope and a move's fields.
type scanned struct {
	typ, id string
	msg     moveMsg
}

// scanMove reads, without reflection, the frames most of the traffic is:
// a flat JSON object whose keys are among type, id, round_id, seq and move,
// each at most once and spelt exactly so, with plain printable-ASCII
// strings (no escapes) and seq a plain integer, a non-empty type and an id
// of at most maxIDLen characters. It reports false for anything else, which
// then takes the general path (decodeEnvelope's encoding/json, then the
// handler's); FuzzScanMove holds it to what that path reads.
func scanMove(data []byte) (f scanned, ok bool) {
	// The strings' places in data, made strings at the end: all of them
	// slices of one copy of the frame, one allocation instead of four.
	var typ, id, roundID, move span
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return f, false
	}
	var seen uint8
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return f, false // no type: the general path says so
	}
	for {
		ks, j, ok := plainSpan(data, i)
		if !ok {
			return f, false
		}
		i = skipSpace(data, j)
		if i >= len(data) || data[i] != ':' {
			return f, false
		}
		i = skipSpace(data, i+1)
		var bit uint8
		switch string(data[ks.start:ks.end]) { // compared, not copied
		case "type":
			bit = 1
		case "id":
			bit = 2
		case "round_id":
			bit = 4
		case "move":
			bit = 8
		case "seq":
			bit = 16
		default:
			return f, false
		}
		if bit == 16 {
			n, j, ok := plainInt(data, i)
			if !ok {
				return f, false
			}
			f.msg.Seq, i = n, j
		} else {
			v, j, ok := plainSpan(data, i)
			if !ok {
				return f, false
			}
			switch bit {
			case 1:
				typ = v
			case 2:
				id = v
			case 4:
				roundID = v
			default:
				move = v
			}
			i = j
		}
		if seen&bit != 0 {
			return f, false
		}
		seen |= bit
		i = skipSpace(data, i)
		if i >= len(data) {
			return f, false
		}
		if data[i] == '}' {
			break
		}
		if data[i] != ',' {
			return f, false
		}
		i = skipSpace(data, i+1)
	}
	if skipSpace(data, i+1) != len(data) || typ.len() == 0 || id.len() > maxIDLen {
		return f, false
	}
	str := string(data)
	f.typ, f.id, f.msg.RoundID, f.msg.Move = typ.of(str), id.of(str), roundID.of(str), move.of(str)
	return f, true
}

// A span is the place of a string's text in a frame: data[start:end].
type span struct{ start, end int }

func (s span) len() int { return s.end - s.start }

// of returns the span's text in str, a copy of the frame.
func (s span) of(str string) string { return str[s.start:s.end] }

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// plainSpan reads a string of printable ASCII without escapes at data[i:],
// and returns the place of its text and the index after it.
func plainSpan(data []byte, i int) (span, int, bool) {
	if i >= len(data) || data[i] != '"' {
		return span{}, i, false
	}
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			return span{i + 1, j}, j + 1, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return span{}, i, false
		}
	}
	return span{}, i, false
}

// plainInt reads an integer of at most 18 digits, without fraction or
// exponent, at data[i:].
func plainInt(data []byte, i int) (int, int, bool) {
	j := i
	if j < len(data) && data[j] == '-' {
		j++
	}
	start := j
	n := 0
	for j < len(data) && data[j] >= '0' && data[j] <= '9' {
		n = n*10 + int(data[j]-'0')
		j++
	}
	digits := j - start
	if digits == 0 || digits > 18 || (digits > 1 && data[start] == '0') {
		return 0, i, false
	}
	if j < len(data) && (data[j] == '.' || data[j] == 'e' || data[j] == 'E') {
		return 0, i, false
	}
	if start > i {
		n = -n
	}
	return n, j, true
}
