package client

import (
	"encoding/json"
	"strconv"

	"klondike/api/protocol"
	"klondike/engine"
)

// A Message is any server frame a bot or an attack of the load generator
// reads, with the fields of every type they read, under the protocol's
// JSON names; the objects the protocol carries as match types (the match)
// are those types. It is one union rather than the protocol's message
// types so that a bot reads each frame in one pass, on the load
// generator's busiest path, whose CPU competes with the server it
// measures: the protocol's messages keep the view as raw JSON, which a bot
// would then decode a second time, and one type lets a reader hand every
// frame on as it is.
type Message struct {
	Type string `json:"type"`
	Re   string `json:"re"`

	// error, move_rejected
	Code     string `json:"code"`
	Message  string `json:"message"`
	Reason   string `json:"reason"`
	Expected int    `json:"expected"`

	// welcome
	PlayerID string `json:"player_id"`

	// match
	Match *protocol.MatchInfo `json:"match"`

	// round_starting, round_started, move_ok, round_over, match_over
	MatchID   string        `json:"match_id"`
	RoundID   string        `json:"round_id"`
	Round     int           `json:"round"`
	Rules     *engine.Rules `json:"rules"`
	View      *engine.View  `json:"view"`
	LastSeq   int           `json:"last_seq"`
	Seq       int           `json:"seq"`
	Duplicate bool          `json:"duplicate"`
	Events    []string      `json:"events"`
	ReplayURL string        `json:"replay_url"`

	// At is when the frame was read (Unix nanoseconds), set by the reader.
	At int64 `json:"-"`
}

// PeekType returns the "type" of a frame cheaply when it is the first key
// (the server writes it first); otherwise it decodes the frame's header.
func PeekType(b []byte) string {
	const prefix = `{"type":"`
	if len(b) > len(prefix) && string(b[:len(prefix)]) == prefix {
		for i := len(prefix); i < len(b) && i < len(prefix)+32; i++ {
			if b[i] == '"' {
				return string(b[len(prefix):i])
			}
		}
	}
	var h protocol.Header
	_ = json.Unmarshal(b, &h)
	return h.Type
}

// DecodeMessage reads a server frame into m (which it resets first). A
// move_ok frame written exactly as the server writes one takes a fast path
// (parseMoveOK), which gives what encoding/json gives; any other frame is
// read by encoding/json. fast reports whether the move_ok fast path read
// it, so that a caller can count the move_ok frames it did not.
func DecodeMessage(b []byte, m *Message) (fast bool, err error) {
	*m = Message{}
	if PeekType(b) == protocol.TypeMoveOK && parseMoveOK(b, m) {
		return true, nil
	}
	*m = Message{}
	return false, json.Unmarshal(b, m)
}

// parseMoveOK reads a move_ok frame written exactly as the server writes
// one (api/internal/fast.AppendMoveOK: type, re when not empty, round_id,
// seq, view, events, duplicate when true; no spaces; strings of printable
// ASCII without escapes) into m, the view with parseView. It reports false
// for any other frame, which encoding/json then reads: for every frame it
// accepts, m is what json.Unmarshal gives (TestParseMoveOK, on frames made
// as encoding/json writes protocol.MoveOK). A bot reads one every move:
// scanning the known layout spares the load generator encoding/json's
// reflection there, so that its own CPU takes less from the server it
// measures.
func parseMoveOK(b []byte, m *Message) bool {
	const head = `{"type":"` + protocol.TypeMoveOK + `"`
	if len(b) < len(head) || string(b[:len(head)]) != head {
		return false
	}
	i := len(head)
	lit := func(s string) bool {
		if len(b)-i >= len(s) && string(b[i:i+len(s)]) == s {
			i += len(s)
			return true
		}
		return false
	}
	str := func() (string, bool) {
		if i >= len(b) || b[i] != '"' {
			return "", false
		}
		for j := i + 1; j < len(b); j++ {
			switch c := b[j]; {
			case c == '"':
				s := string(b[i+1 : j])
				i = j + 1
				return s, true
			case c < 0x20 || c > 0x7e || c == '\\':
				return "", false
			}
		}
		return "", false
	}
	var ok bool
	if lit(`,"re":`) {
		if m.Re, ok = str(); !ok {
			return false
		}
	}
	if !lit(`,"round_id":`) {
		return false
	}
	if m.RoundID, ok = str(); !ok || !lit(`,"seq":`) {
		return false
	}
	j := i
	for j < len(b) && (b[j] >= '0' && b[j] <= '9' || j == i && b[j] == '-') {
		j++
	}
	if j-i > 18 || j > i && b[i] == '0' && j-i > 1 || j > i+1 && b[i] == '-' && b[i+1] == '0' {
		return false
	}
	seq, err := strconv.Atoi(string(b[i:j]))
	if err != nil {
		return false
	}
	m.Seq = seq
	i = j
	if !lit(`,"view":`) {
		return false
	}
	v := &engine.View{}
	n, ok := parseView(b[i:], v)
	if !ok {
		return false
	}
	m.View = v
	i += n
	if !lit(`,"events":[`) {
		return false
	}
	m.Events = []string{}
	for !lit("]") {
		if len(m.Events) > 0 && !lit(",") {
			return false
		}
		e, ok := str()
		if !ok {
			return false
		}
		m.Events = append(m.Events, e)
	}
	if lit(`,"duplicate":true`) {
		m.Duplicate = true
	}
	m.Type = protocol.TypeMoveOK
	return lit("}") && i == len(b)
}
