package match

// What the live rounds, the wire and the command-line client know of the
// challenges and daily rounds that lobby/challenge runs: their kinds, the
// limits of a challenge's window, their public description, the round id
// of a player's attempt (a Round of one player) and the variants that name
// daily rounds and records.

import (
	"fmt"
	"strings"
	"time"

	"klondike/engine"
)

// The kinds of challenges.
const (
	KindChallenge = "challenge" // made by a player, shared as a link
	KindDaily     = "daily"     // made by the server, one a UTC day and variant
)

// Limits of a challenge's window.
const (
	DefaultChallengeWindow = 24 * time.Hour
	MaxChallengeWindow     = 7 * 24 * time.Hour
	MinChallengeWindow     = time.Minute
)

// attemptSep joins a challenge's id and a player's id into the id of the
// player's attempt, which is a Round of one player.
const attemptSep = "."

// AttemptRoundID returns the round id of a player's attempt.
func AttemptRoundID(challengeID, playerID string) string { return challengeID + attemptSep + playerID }

// SplitAttemptRoundID returns the challenge and the player of an attempt's
// round id; ok is false for any other round id.
func SplitAttemptRoundID(roundID string) (challengeID, playerID string, ok bool) {
	challengeID, playerID, ok = strings.Cut(roundID, attemptSep)
	return challengeID, playerID, ok && challengeID != "" && playerID != ""
}

// An AsyncInfo is what anyone may know of a challenge: all of its record
// (lobby/challenge.Record) but the seed and the salt, which it carries only
// once the window has closed (a known deal's number is no secret), and its
// counts. It is here, under its wire name, because api/protocol sends it.
type AsyncInfo struct {
	RoundID     string       `json:"round_id"`
	Kind        string       `json:"kind"`
	Variant     string       `json:"variant"`
	Rules       engine.Rules `json:"rules"`
	Mode        Mode         `json:"mode"`
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

// Variant names the records a game counts in: the game for one other than
// Klondike, the draw, and the scoring when it is not standard ("draw3",
// "draw1", "draw3-vegas", "thumb_and_pouch-draw1", "whitehead-draw1-none").
func Variant(r engine.Rules) string {
	v := "draw1"
	if r.Draw == 3 {
		v = "draw3"
	}
	if r.Game != engine.Klondike {
		v = r.Game.String() + "-" + v
	}
	if r.Scoring != engine.ScoringStandard {
		v += "-" + r.Scoring.String()
	}
	return v
}

// ParseVariant returns the rules of a variant's name (Variant): its game
// (Klondike when it names none; "klondike-" is read too), draw and
// scoring, with the passes a match's settings default to (DefaultPasses),
// and the other options as a match's default settings have them (undo but
// of a reveal, foundation to tableau allowed).
func ParseVariant(name string) (engine.Rules, error) {
	r := engine.DefaultRules()
	r.Undo = engine.UndoNoReveal
	rest := name
	if first, after, ok := strings.Cut(name, "-"); ok {
		if g, err := engine.ParseVariant(first); err == nil {
			r.Game, rest = g, after
		}
	}
	draw, scoring, _ := strings.Cut(rest, "-")
	switch draw {
	case "draw1":
		r.Draw = 1
	case "draw3":
		r.Draw = 3
	default:
		return r, fmt.Errorf("%w: variant %q: want draw1 or draw3, optionally with -vegas or -none, after a game and a dash for a game other than Klondike (thumb_and_pouch-draw1)", ErrBadSettings, name)
	}
	if scoring != "" {
		sc, err := engine.ParseScoring(scoring)
		if err != nil || sc == engine.ScoringStandard {
			return r, fmt.Errorf("%w: variant %q: the scoring after the draw is vegas or none", ErrBadSettings, name)
		}
		r.Scoring = sc
	}
	r.Passes = DefaultPasses(r.Game, r.Draw, r.Scoring)
	if err := r.Validate(); err != nil {
		return r, fmt.Errorf("%w: variant %q: %v", ErrBadSettings, name, err)
	}
	return r, nil
}
