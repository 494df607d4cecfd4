package challenge

import (
	"time"

	"klondike/engine"
	"klondike/match"
)

// The kinds of challenges (Info.Kind, match.RoundStarted.Kind).
const (
	KindChallenge = "challenge" // made by a player, shared as a link
	KindDaily     = "daily"     // made by the server, one a UTC day and variant
)

// An Info is what anyone may know of a challenge: all of its Record but
// the seed and the salt, which it carries only once the window has closed
// (a known deal's number is no secret), and its counts. The api sends it
// as protocol.AsyncInfo.
type Info struct {
	RoundID     string       `json:"round_id"`
	Kind        string       `json:"kind"`
	Variant     string       `json:"variant"`
	Rules       engine.Rules `json:"rules"`
	Mode        match.Mode   `json:"mode"`
	LimitMs     int64        `json:"limit_ms"`
	OpensAt     time.Time    `json:"opens_at"`
	ClosesAt    time.Time    `json:"closes_at"`
	Day         string       `json:"day,omitempty"`
	CreatorID   string       `json:"creator_id,omitempty"`
	CreatorName string       `json:"creator_name,omitempty"`
	Commitment  string       `json:"commitment,omitempty"`
	KnownDeal   bool         `json:"known_deal,omitempty"`
	Winnable    bool         `json:"winnable,omitempty"`
	Closed      bool         `json:"closed"`
	ClosedEarly bool         `json:"closed_early,omitempty"`
	Seed        string       `json:"seed,omitempty"`
	Salt        string       `json:"salt,omitempty"`
	Players     int          `json:"players"`  // attempts started
	Finished    int          `json:"finished"` // attempts on the board
}
