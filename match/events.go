package match

import (
	"encoding/json"
	"time"

	"klondike/engine"
)

// A Sink delivers messages to players' connections: the api implements it.
// Send must not block; it drops (and the api disconnects as slow) what a
// full queue cannot take.
type Sink interface {
	Send(playerID string, msg []byte)
}

// MatchInfo is the protocol's "match" object.
type MatchInfo struct {
	ID         string       `json:"id"`
	Code       string       `json:"code"`
	Host       string       `json:"host"`
	Settings   Settings     `json:"settings"`
	Players    []MemberInfo `json:"players"`
	State      State        `json:"state"`
	Round      int          `json:"round"`
	RoundID    string       `json:"round_id,omitempty"`
	Spectators int          `json:"spectators"`
	Quick      bool         `json:"quick,omitempty"`
	Totals     []Total      `json:"totals,omitempty"`
	NextMatch  string       `json:"next_match,omitempty"` // the rematch, once made
}

// MemberInfo is one player of a match.
type MemberInfo struct {
	PlayerID  string `json:"player_id"`
	Name      string `json:"name"`
	Ready     bool   `json:"ready"`
	Connected bool   `json:"connected"`
}

// A Total is one player's line of the match totals.
type Total struct {
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`
	Total    int    `json:"total"`     // sum of round scores
	Wins     int    `json:"wins"`      // rounds ranked first
	GamesWon int    `json:"games_won"` // rounds whose game the player won (every card home)
	Placings []int  `json:"placings"`  // rank in each round so far
	Rank     int    `json:"rank"`
}

// State is a match's phase.
type State string

// The phases of a match.
const (
	StateOpen     State = "open"     // gathering players
	StateStarting State = "starting" // a round is counting down
	StateRunning  State = "running"  // a round is being played
	StateBetween  State = "between"  // between two rounds
	StateOver     State = "over"     // all rounds played (or abandoned)
)

// Outgoing messages, encoded once and sent to every recipient.

type matchMsg struct {
	Type  string     `json:"type"`
	Match *MatchInfo `json:"match"`
}

type roundStartingMsg struct {
	Type       string       `json:"type"`
	MatchID    string       `json:"match_id"`
	RoundID    string       `json:"round_id"`
	Round      int          `json:"round"`
	StartsAt   time.Time    `json:"starts_at"`
	EndsAt     time.Time    `json:"ends_at"`
	Commitment string       `json:"commitment,omitempty"`
	KnownDeal  bool         `json:"known_deal,omitempty"`
	Seed       string       `json:"seed,omitempty"` // only for a known deal
	Rules      engine.Rules `json:"rules"`
	// Winnable, for a match with deals "winnable", says whether this deal
	// was proved winnable (false: the server had none ready).
	Winnable *bool `json:"winnable,omitempty"`
}

// RoundStartedMsg is sent to each player with their own view when the
// round opens, and again on resume.
type RoundStartedMsg struct {
	Type     string       `json:"type"`
	MatchID  string       `json:"match_id"`
	RoundID  string       `json:"round_id"`
	Round    int          `json:"round"`
	StartsAt time.Time    `json:"starts_at"`
	EndsAt   time.Time    `json:"ends_at"`
	Rules    engine.Rules `json:"rules"`
	// Commitment, KnownDeal and Seed repeat round_starting's, for a player
	// who resumes after missing it.
	Commitment string          `json:"commitment,omitempty"`
	KnownDeal  bool            `json:"known_deal,omitempty"`
	Seed       string          `json:"seed,omitempty"` // only for a known deal
	View       json.RawMessage `json:"view"`
	LastSeq    int             `json:"last_seq"`
	Resumed    bool            `json:"resumed,omitempty"`
	Winnable   *bool           `json:"winnable,omitempty"` // as in round_starting
}

type leaderboardMsg struct {
	Type    string  `json:"type"`
	MatchID string  `json:"match_id"`
	RoundID string  `json:"round_id"`
	Entries []Entry `json:"entries"`
}

// DealReveal is the round_over's "deal": what proves the deal was fixed.
type DealReveal struct {
	Seed       string      `json:"seed"`
	Salt       string      `json:"salt,omitempty"`
	Commitment string      `json:"commitment,omitempty"`
	KnownDeal  bool        `json:"known_deal,omitempty"`
	Layout     engine.Deal `json:"layout"`
}

type roundOverMsg struct {
	Type      string     `json:"type"`
	MatchID   string     `json:"match_id"`
	RoundID   string     `json:"round_id"`
	Round     int        `json:"round"`
	Results   []Entry    `json:"results"`
	Deal      DealReveal `json:"deal"`
	ReplayURL string     `json:"replay_url"`
	Totals    []Total    `json:"totals"`
	// Void, when set, says why the round does not count: the results are
	// what was known, and the totals leave the round out.
	Void string `json:"void,omitempty"`
}

type matchOverMsg struct {
	Type    string  `json:"type"`
	MatchID string  `json:"match_id"`
	Totals  []Total `json:"totals"`
	Void    string  `json:"void,omitempty"` // why the match ended early, void
}

// encode marshals an outgoing message; the types above cannot fail to encode.
func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("match: encoding an outgoing message: " + err.Error())
	}
	return b
}
