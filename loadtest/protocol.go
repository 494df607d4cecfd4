package main

import (
	"encoding/json"
	"strconv"

	"klondike/api/protocol"
	"klondike/engine"
	"klondike/match"
)

// The parts of the server's frames a bot reads, in the protocol of
// klondike/api/protocol: one type for every frame a bot reads (inMsg),
// decoded in one pass with only the fields a bot needs. A bot sends the
// protocol's own client messages.

// inMsg is any server frame, with the fields of every type a bot reads.
type inMsg struct {
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
	Match *matchIn `json:"match"`

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

	at int64 // when the frame was read (monotonic nanoseconds of the run clock)
}

type matchIn struct {
	ID      string      `json:"id"`
	Code    string      `json:"code"`
	Host    string      `json:"host"`
	State   match.State `json:"state"`
	Round   int         `json:"round"`
	RoundID string      `json:"round_id"`
	Quick   bool        `json:"quick"`
	Players []struct {
		PlayerID string `json:"player_id"`
	} `json:"players"`
	Settings struct {
		Rounds     int `json:"rounds"`
		MaxPlayers int `json:"max_players"`
	} `json:"settings"`
	NextMatch string `json:"next_match"`
}

// typeOnly reads a frame's type without the rest, for frames a bot only
// counts.
type typeOnly struct {
	Type string `json:"type"`
}

// peekType returns the "type" of a frame cheaply when it is the first key
// (the server writes it first); otherwise it decodes the frame's type.
func peekType(b []byte) string {
	const prefix = `{"type":"`
	if len(b) > len(prefix) && string(b[:len(prefix)]) == prefix {
		for i := len(prefix); i < len(b) && i < len(prefix)+32; i++ {
			if b[i] == '"' {
				return string(b[len(prefix):i])
			}
		}
	}
	var t typeOnly
	_ = json.Unmarshal(b, &t)
	return t.Type
}

// replayIn is the part of GET /api/v1/rounds/{id}/replay the check reads.
type replayIn struct {
	RoundID string `json:"round_id"`
	Players []struct {
		PlayerID string `json:"player_id"`
		Moves    []struct {
			Seq  int    `json:"seq"`
			Move string `json:"move"`
		} `json:"moves"`
	} `json:"players"`
}

// parseMoveOK reads a move_ok frame written exactly as the server writes
// one (protocol.AppendMoveOK: type, re when not empty, round_id, seq, view,
// events, duplicate when true; no spaces; strings of printable ASCII without
// escapes) into m, the view with engine.ParseViewJSON. It reports false for
// any other frame, which encoding/json then reads: for every frame it
// accepts, m is what json.Unmarshal gives (TestParseMoveOK). A bot reads one
// a move, and encoding/json's reflection was a seventh of the load
// generator's CPU.
func parseMoveOK(b []byte, m *inMsg) bool {
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
	n, ok := engine.ParseViewJSON(b[i:], v)
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
