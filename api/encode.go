package api

import (
	"encoding/json"
	"strconv"

	"klondike/engine"
)

// The answer to every move is built here by hand: encoding/json would spend
// most of its time on reflection and on checking again the view, which the
// engine has just written as compact JSON. TestMoveOKEncoding holds the
// output to what encoding/json gives for moveOKMsg, byte for byte.

// appendMoveOK appends the move_ok message: type, re (when not empty),
// round_id, seq, view (written as it is: it must be compact JSON), events,
// and duplicate when true.
func appendMoveOK(b []byte, re, roundID string, seq int, view []byte, ev engine.Events, duplicate bool) []byte {
	b = append(b, `{"type":"move_ok"`...)
	if re != "" {
		b = append(b, `,"re":`...)
		b = appendJSONString(b, re)
	}
	b = append(b, `,"round_id":`...)
	b = appendJSONString(b, roundID)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, int64(seq), 10)
	b = append(b, `,"view":`...)
	b = append(b, view...)
	b = append(b, `,"events":[`...)
	for i, name := range ev.Names() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, name)
	}
	b = append(b, ']')
	if duplicate {
		b = append(b, `,"duplicate":true`...)
	}
	return append(b, '}')
}

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
		key, j, ok := plainString(data, i)
		if !ok {
			return f, false
		}
		i = skipSpace(data, j)
		if i >= len(data) || data[i] != ':' {
			return f, false
		}
		i = skipSpace(data, i+1)
		var bit uint8
		switch key {
		case "type", "id", "round_id", "move":
			v, j, ok := plainString(data, i)
			if !ok {
				return f, false
			}
			switch key {
			case "type":
				f.typ, bit = v, 1
			case "id":
				f.id, bit = v, 2
			case "round_id":
				f.msg.RoundID, bit = v, 4
			default:
				f.msg.Move, bit = v, 8
			}
			i = j
		case "seq":
			n, j, ok := plainInt(data, i)
			if !ok {
				return f, false
			}
			f.msg.Seq, bit, i = n, 16, j
		default:
			return f, false
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
	if skipSpace(data, i+1) != len(data) || f.typ == "" || len(f.id) > maxIDLen {
		return f, false
	}
	return f, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// plainString reads a string of printable ASCII without escapes at
// data[i:], and returns it and the index after it.
func plainString(data []byte, i int) (string, int, bool) {
	if i >= len(data) || data[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			return string(data[i+1 : j]), j + 1, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", i, false
		}
	}
	return "", i, false
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
