package match

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"klondike/engine"
)

// The kinds of asynchronous rounds.
const (
	KindChallenge = "challenge" // made by a player, shared as a link
	KindDaily     = "daily"     // made by the server, one a UTC day and variant
)

// Limits of an asynchronous round's window.
const (
	DefaultChallengeWindow = 24 * time.Hour
	MaxChallengeWindow     = 7 * 24 * time.Hour
	MinChallengeWindow     = time.Minute
)

// Errors of asynchronous rounds; the api maps each to a wire code.
var (
	// ErrAlreadyPlayed: the player has had their one attempt.
	ErrAlreadyPlayed = errors.New("you have played this round already: one attempt a player")
	// ErrWindowClosed: the round's window has closed, or not opened yet.
	ErrWindowClosed = errors.New("this round's window is closed")
)

// An AsyncRecord is an asynchronous round: one committed deal that any
// number of players each play once, on their own clock, between OpensAt
// and ClosesAt. Its seed and salt stay secret until the window closes.
type AsyncRecord struct {
	ID       string       `json:"id"`
	Kind     string       `json:"kind"`
	Variant  string       `json:"variant"`
	Rules    engine.Rules `json:"rules"`
	Mode     Mode         `json:"mode"`
	Fair     FairDeal     `json:"fair"`
	LimitMs  int64        `json:"limit_ms"` // each attempt's time limit
	OpensAt  time.Time    `json:"opens_at"`
	ClosesAt time.Time    `json:"closes_at"`
	// Day is the UTC date of a daily round ("2026-12-05"), empty otherwise.
	Day string `json:"day,omitempty"`
	// The player who made a challenge; empty for a daily round.
	CreatorID   string `json:"creator_id,omitempty"`
	CreatorName string `json:"creator_name,omitempty"`
	// ClosedEarly: the creator closed the window before its time.
	ClosedEarly bool `json:"closed_early,omitempty"`
}

// Open reports whether attempts may start at now.
func (a *AsyncRecord) Open(now time.Time) bool {
	return !now.Before(a.OpensAt) && now.Before(a.ClosesAt)
}

// Closed reports whether the window has closed at now: from then on the
// deal, the salt and every replay are public.
func (a *AsyncRecord) Closed(now time.Time) bool { return !now.Before(a.ClosesAt) }

// An Attempt is one player's single try at an asynchronous round.
type Attempt struct {
	PlayerID  string    `json:"player_id"`
	Name      string    `json:"name"`
	StartedAt time.Time `json:"started_at"`
	// Finished: the attempt's result is on the board.
	Finished bool `json:"finished,omitempty"`
}

// attemptSep joins an asynchronous round's id and a player's id into the
// id of the player's attempt, which is a Round of one player.
const attemptSep = "."

// AttemptRoundID returns the round id of a player's attempt.
func AttemptRoundID(asyncID, playerID string) string { return asyncID + attemptSep + playerID }

// SplitAttemptRoundID returns the asynchronous round and the player of an
// attempt's round id; ok is false for any other round id.
func SplitAttemptRoundID(roundID string) (asyncID, playerID string, ok bool) {
	asyncID, playerID, ok = strings.Cut(roundID, attemptSep)
	return asyncID, playerID, ok && asyncID != "" && playerID != ""
}

// AttemptRecord is the round record of a player's attempt: a round of one
// player that starts when they start and ends at their time limit or at the
// window's close, whichever is first. Moves, seats, resuming on another node
// and replays all work as in a race's round.
func (a *AsyncRecord) AttemptRecord(at Attempt) RoundRecord {
	ends := at.StartedAt.Add(time.Duration(a.LimitMs) * time.Millisecond)
	if a.ClosesAt.Before(ends) {
		ends = a.ClosesAt
	}
	return RoundRecord{
		ID: AttemptRoundID(a.ID, at.PlayerID), MatchID: a.ID, Rules: a.Rules, Mode: a.Mode, Fair: a.Fair,
		StartsAt: at.StartedAt, EndsAt: ends, Players: []Player{{ID: at.PlayerID, Name: at.Name}},
		Phase: phaseNames[roundRunning],
	}
}

// An AsyncInfo is what anyone may know of an asynchronous round: all of
// its record but the seed and the salt, which it carries only once the
// window has closed (a known deal's number is no secret), and its counts.
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

// Info returns the round's public description at now, with its counts.
func (a *AsyncRecord) Info(now time.Time, players, finished int) AsyncInfo {
	in := AsyncInfo{
		RoundID: a.ID, Kind: a.Kind, Variant: a.Variant, Rules: a.Rules, Mode: a.Mode, LimitMs: a.LimitMs,
		OpensAt: a.OpensAt, ClosesAt: a.ClosesAt, Day: a.Day, CreatorID: a.CreatorID, CreatorName: a.CreatorName,
		Commitment: a.Fair.Commitment, KnownDeal: a.Fair.Known, Winnable: a.Fair.Winnable,
		Closed: a.Closed(now), ClosedEarly: a.ClosedEarly, Players: players, Finished: finished,
	}
	if in.Closed || a.Fair.Known {
		in.Seed = strconv.FormatUint(a.Fair.Seed, 10)
	}
	if in.Closed {
		in.Salt = a.Fair.Salt
	}
	return in
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
