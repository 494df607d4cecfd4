package main

import (
	"encoding/json"
	"time"

	"klondike/engine"
)

// The protocol's messages as the client reads them. They mirror the wire
// format of docs/protocol.md and are declared apart from the server's types,
// so that the client is held to the documented format rather than to the
// server's code; the board is engine.View, the one type the protocol shares
// with the engine. The shapes, phases and close codes play reads are kept
// together in this file so that they can be swapped as one for a shared
// protocol package.
type (
	wireEnvelope struct {
		Type string `json:"type"`
		Re   string `json:"re"`
	}
	wireWelcome struct {
		PlayerID   string    `json:"player_id"`
		Name       string    `json:"name"`
		Token      string    `json:"token"`
		ServerTime time.Time `json:"server_time"`
		Resumed    bool      `json:"resumed"`
		MatchID    string    `json:"match_id"`
	}
	wireSettings struct {
		Draw                int    `json:"draw"`
		Passes              int    `json:"passes"`
		Scoring             string `json:"scoring"`
		Undo                string `json:"undo"`
		FoundationToTableau bool   `json:"foundation_to_tableau"`
		Mode                string `json:"mode"`
		Rounds              int    `json:"rounds"`
		MaxPlayers          int    `json:"max_players"`
		TimeLimitS          int    `json:"time_limit_s"`
		Public              bool   `json:"public"`
		Seed                string `json:"seed,omitempty"`
		CountdownS          int    `json:"countdown_s"`
	}
	wireMember struct {
		PlayerID  string `json:"player_id"`
		Name      string `json:"name"`
		Ready     bool   `json:"ready"`
		Connected bool   `json:"connected"`
	}
	wireMatch struct {
		ID         string       `json:"id"`
		Code       string       `json:"code"`
		Host       string       `json:"host"`
		Settings   wireSettings `json:"settings"`
		Players    []wireMember `json:"players"`
		State      string       `json:"state"`
		Round      int          `json:"round"`
		RoundID    string       `json:"round_id"`
		Spectators int          `json:"spectators"`
		Quick      bool         `json:"quick"`
		Totals     []wireTotal  `json:"totals"`
		NextMatch  string       `json:"next_match"`
	}
	wireMatchMessage struct {
		Match *wireMatch `json:"match"`
	}
	wireEntry struct {
		PlayerID   string `json:"player_id"`
		Name       string `json:"name"`
		Rank       int    `json:"rank"`
		Score      int    `json:"score"`
		Foundation int    `json:"foundation"`
		Moves      int    `json:"moves"`
		Status     string `json:"status"`
		FinishedMs *int64 `json:"finished_ms"`
	}
	wireTotal struct {
		PlayerID string `json:"player_id"`
		Name     string `json:"name"`
		Total    int    `json:"total"`
		Wins     int    `json:"wins"`
		GamesWon int    `json:"games_won"`
		Placings []int  `json:"placings"`
		Rank     int    `json:"rank"`
	}
	wireRoundStarting struct {
		MatchID    string       `json:"match_id"`
		RoundID    string       `json:"round_id"`
		Round      int          `json:"round"`
		StartsAt   time.Time    `json:"starts_at"`
		EndsAt     time.Time    `json:"ends_at"`
		Commitment string       `json:"commitment"`
		KnownDeal  bool         `json:"known_deal"`
		Seed       string       `json:"seed"`
		Rules      engine.Rules `json:"rules"`
	}
	wireRoundStarted struct {
		MatchID  string       `json:"match_id"`
		RoundID  string       `json:"round_id"`
		Round    int          `json:"round"`
		StartsAt time.Time    `json:"starts_at"`
		EndsAt   time.Time    `json:"ends_at"`
		Rules    engine.Rules `json:"rules"`
		View     engine.View  `json:"view"`
		LastSeq  int          `json:"last_seq"`
		Resumed  bool         `json:"resumed"`
	}
	wireMoveOK struct {
		RoundID   string      `json:"round_id"`
		Seq       int         `json:"seq"`
		View      engine.View `json:"view"`
		Events    []string    `json:"events"`
		Duplicate bool        `json:"duplicate"`
	}
	wireMoveRejected struct {
		RoundID  string `json:"round_id"`
		Seq      int    `json:"seq"`
		Code     string `json:"code"`
		Reason   string `json:"reason"`
		Expected int    `json:"expected"`
	}
	wireLeaderboard struct {
		MatchID string      `json:"match_id"`
		RoundID string      `json:"round_id"`
		Entries []wireEntry `json:"entries"`
	}
	wireDeal struct {
		Seed       string          `json:"seed"`
		Salt       string          `json:"salt"`
		Commitment string          `json:"commitment"`
		KnownDeal  bool            `json:"known_deal"`
		Layout     json.RawMessage `json:"layout"`
	}
	wireRoundOver struct {
		MatchID   string      `json:"match_id"`
		RoundID   string      `json:"round_id"`
		Round     int         `json:"round"`
		Results   []wireEntry `json:"results"`
		Deal      wireDeal    `json:"deal"`
		ReplayURL string      `json:"replay_url"`
		Totals    []wireTotal `json:"totals"`
	}
	wireMatchOver struct {
		MatchID string      `json:"match_id"`
		Totals  []wireTotal `json:"totals"`
	}
	wireMatches struct {
		Matches    []wireMatch `json:"matches"`
		NextCursor string      `json:"next_cursor"` // more matches follow: ask with this cursor
	}
	wireError struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	wireResigned struct {
		RoundID string `json:"round_id"`
	}
)

// Match phases, as the protocol names them.
const (
	stateOpen     = "open"
	stateStarting = "starting"
	stateRunning  = "running"
	stateBetween  = "between"
	stateOver     = "over"
)

// closeReplaced is the close code of a connection whose session said hello
// again on another connection.
const closeReplaced = 4000
