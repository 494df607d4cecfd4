package protocol

import (
	"encoding/json"
	"time"

	"klondike/engine"
)

// The messages the server sends. A reply to a client message carries its
// id as Re; pushes (match updates, round events, leaderboards) have none.
// The fields are in the order the server writes them.

// Welcome answers hello: the session, and whether it was resumed.
type Welcome struct {
	Type       string    `json:"type"`
	Re         string    `json:"re,omitempty"`
	PlayerID   string    `json:"player_id"`
	Name       string    `json:"name"`
	Tag        string    `json:"tag"`   // tells two players of one name apart: "#3F2A"
	Token      string    `json:"token"` // the device credential: hello with it resumes
	ServerTime time.Time `json:"server_time"`
	Resumed    bool      `json:"resumed"`
	MatchID    string    `json:"match_id,omitempty"` // the player's current match
}

// PlayingElsewhere tells a connection that another connection of the
// same player (a newer tab, or one that said play_here) plays the match
// now: this one gets no more of its events until it says play_here.
type PlayingElsewhere struct {
	Type    string `json:"type"`
	MatchID string `json:"match_id"`
}

// Match is a match's snapshot: the reply to the commands that name a
// match, and the push its members and spectators get on each change.
type Match struct {
	Type  string     `json:"type"`
	Re    string     `json:"re,omitempty"`
	Match *MatchInfo `json:"match"`
}

// Matches answers list_matches with a page of the open public matches.
type Matches struct {
	Type       string       `json:"type"`
	Re         string       `json:"re,omitempty"`
	Matches    []*MatchInfo `json:"matches"`
	NextCursor string       `json:"next_cursor,omitempty"` // absent on the last page
}

// Error says that a message failed: Code is one of the Code… constants,
// Message is for humans.
type Error struct {
	Type    string `json:"type"`
	Re      string `json:"re,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// MoveOK accepts a move: the player's view after it (engine.View's JSON)
// and what it did. A retried seq gets the current view, no events and
// Duplicate. The server writes it by hand (api/internal/fast), the same
// bytes as encoding/json.
type MoveOK struct {
	Type      string          `json:"type"`
	Re        string          `json:"re,omitempty"`
	RoundID   string          `json:"round_id"`
	Seq       int             `json:"seq"`
	View      json.RawMessage `json:"view"`
	Events    []string        `json:"events"`
	Duplicate bool            `json:"duplicate,omitempty"`
}

// MoveRejected refuses a move; Expected is the next seq the server wants
// (for CodeOutOfOrder).
type MoveRejected struct {
	Type     string `json:"type"`
	Re       string `json:"re,omitempty"`
	RoundID  string `json:"round_id"`
	Seq      int    `json:"seq"`
	Code     string `json:"code"`
	Reason   string `json:"reason"`
	Expected int    `json:"expected,omitempty"`
}

// Resigned answers resign.
type Resigned struct {
	Type    string `json:"type"`
	Re      string `json:"re,omitempty"`
	RoundID string `json:"round_id"`
}

// HintReply answers hint: the next move of a winning line, or none (null)
// with the verdict "unwinnable" or "unknown".
type HintReply struct {
	Type    string  `json:"type"`
	Re      string  `json:"re,omitempty"`
	RoundID string  `json:"round_id"`
	Move    *string `json:"move"`
	Verdict string  `json:"verdict"`
}

// RoundStarting announces a dealt round to players and spectators: it opens
// at StartsAt. A secret deal has its Commitment; a known deal has KnownDeal
// and its Seed instead.
type RoundStarting struct {
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

// RoundStarted gives a player their own view when the round opens, and
// again (Resumed) when they resume during it. It also answers
// start_attempt (with Re and Kind).
type RoundStarted struct {
	Type     string       `json:"type"`
	Re       string       `json:"re,omitempty"`
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
	View       json.RawMessage `json:"view"`           // engine.View's JSON
	LastSeq    int             `json:"last_seq"`       // the seq of the player's last accepted move
	Resumed    bool            `json:"resumed,omitempty"`
	Winnable   *bool           `json:"winnable,omitempty"` // as in round_starting
	// Kind, for an attempt at an asynchronous round (the answer to
	// start_attempt), is the round's kind: "challenge" or "daily"; MatchID
	// is then the asynchronous round's id.
	Kind string `json:"kind,omitempty"`
}

// Leaderboard is a round's standings, pushed while it runs.
type Leaderboard struct {
	Type    string  `json:"type"`
	MatchID string  `json:"match_id"`
	RoundID string  `json:"round_id"`
	Entries []Entry `json:"entries"`
}

// DealReveal is round_over's "deal": what proves the deal was fixed before
// play. Layout is the deal as docs/deals.md writes it, kept as the server
// sent it so that a client checks it itself (engine.ParseDeal).
type DealReveal struct {
	Seed       string          `json:"seed"`
	Salt       string          `json:"salt,omitempty"`
	Commitment string          `json:"commitment,omitempty"`
	KnownDeal  bool            `json:"known_deal,omitempty"`
	Layout     json.RawMessage `json:"layout"`
}

// RoundOver ends a round: the final standings, the deal revealed, where
// its replay is (a path on the same server) and the match totals after it.
type RoundOver struct {
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

// MatchOver ends a match with its final totals.
type MatchOver struct {
	Type    string  `json:"type"`
	MatchID string  `json:"match_id"`
	Totals  []Total `json:"totals"`
	Void    string  `json:"void,omitempty"` // why the match ended early, void
}
