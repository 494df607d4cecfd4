package main

import (
	"encoding/json"

	"klondike/engine"
)

// The frames a bot sends and the parts of the server's frames it reads, as
// docs/protocol.md describes them. Only what a bot needs is decoded.

type helloOut struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
}

type settingsOut struct {
	Draw       int     `json:"draw"`
	Passes     int     `json:"passes"`
	Rounds     int     `json:"rounds"`
	MaxPlayers int     `json:"max_players"`
	TimeLimitS int     `json:"time_limit_s"`
	CountdownS int     `json:"countdown_s"`
	Seed       *string `json:"seed,omitempty"`
}

type lobbyOut struct {
	Type     string       `json:"type"`
	ID       string       `json:"id"`
	Settings *settingsOut `json:"settings,omitempty"`
	MatchID  string       `json:"match_id,omitempty"`
	Code     string       `json:"code,omitempty"`
}

type moveOut struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	RoundID string `json:"round_id"`
	Seq     int    `json:"seq"`
	Move    string `json:"move"`
}

type resignOut struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	RoundID string `json:"round_id"`
}

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
	ID      string `json:"id"`
	Code    string `json:"code"`
	Host    string `json:"host"`
	State   string `json:"state"`
	Round   int    `json:"round"`
	RoundID string `json:"round_id"`
	Quick   bool   `json:"quick"`
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
