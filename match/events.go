package match

import (
	"time"

	"klondike/engine"
)

// A Sink delivers a match's events to players' connections: the api
// implements it, and writes each event in its wire protocol (once for all
// of to). Send must not block; it drops (and the api disconnects as slow)
// what a full queue cannot take. It must not keep to, nor change ev.
type Sink interface {
	Send(to []string, ev Event)
}

// An Event is what a match tells its players and spectators: MatchUpdate,
// RoundStarting, RoundStarted, Leaderboard, RoundOver or MatchOver, and for
// challenges GhostUpdate and AttemptOver. The match does not choose how an
// event travels; its Sink does. Events are plain values with JSON of their
// own, which a record keeps and nodes tell each other (EventKind and
// DecodeEvent).
type Event interface{ event() }

// MatchUpdate is the match's snapshot: sent to every member and spectator
// after each change, and to a player who catches up.
type MatchUpdate struct {
	Info *MatchInfo `json:"info"`
}

// RoundStarting announces a dealt round to the match's players and
// spectators; the round opens at StartsAt.
type RoundStarting struct {
	MatchID  string           `json:"match_id"`
	RoundID  string           `json:"round_id"`
	Round    int              `json:"round"`
	StartsAt time.Time        `json:"starts_at"`
	EndsAt   time.Time        `json:"ends_at"`
	Rules    engine.Rules     `json:"rules"`
	Deal     DealAnnouncement `json:"deal"`
}

// RoundStarted gives one player their own view when the round opens, and
// again when they resume during it.
type RoundStarted struct {
	MatchID  string       `json:"match_id"`
	RoundID  string       `json:"round_id"`
	Round    int          `json:"round"`
	StartsAt time.Time    `json:"starts_at"`
	EndsAt   time.Time    `json:"ends_at"`
	Rules    engine.Rules `json:"rules"`
	// Deal repeats RoundStarting's, for a player who resumes after
	// missing it.
	Deal    DealAnnouncement `json:"deal"`
	View    engine.View      `json:"view"`     // the player's
	LastSeq int              `json:"last_seq"` // the seq of the player's last accepted move
	Resumed bool             `json:"resumed,omitempty"`
	// Kind is set for an attempt at a challenge: its kind
	// (lobby/challenge.KindChallenge or KindDaily); MatchID is then the
	// challenge's id.
	Kind string `json:"kind,omitempty"`
}

// DealAnnouncement is what a round tells of its deal before play: the
// commitment to a secret deal, or the number of a known deal. It never
// holds a secret deal's seed or salt.
type DealAnnouncement struct {
	Commitment string `json:"commitment,omitempty"` // empty for a known deal
	Known      bool   `json:"known,omitempty"`
	Seed       uint64 `json:"seed,omitempty"` // a known deal's number; 0 for a secret deal
	// Winnable, in a match whose deals are "winnable", says whether this
	// deal was proved winnable (false: the server had none ready); nil in
	// any other match.
	Winnable *bool `json:"winnable,omitempty"`
}

// Leaderboard is a round's standings at one moment.
type Leaderboard struct {
	MatchID string  `json:"match_id"`
	RoundID string  `json:"round_id"`
	Entries []Entry `json:"entries"`
}

// RoundOver ends a round: its results, its deal revealed, and the match
// totals after it.
type RoundOver struct {
	MatchID string      `json:"match_id"`
	RoundID string      `json:"round_id"`
	Round   int         `json:"round"`
	Results []Entry     `json:"results"`
	Deal    FairDeal    `json:"deal"` // revealed: seed and salt are public now
	Layout  engine.Deal `json:"layout"`
	Totals  []Total     `json:"totals"`
	// Void, when set, says why the round does not count: the results are
	// what was known, and the totals leave the round out.
	Void string `json:"void,omitempty"`
}

// MatchOver ends a match with its final totals.
type MatchOver struct {
	MatchID string  `json:"match_id"`
	Totals  []Total `json:"totals"`
	Void    string  `json:"void,omitempty"` // why the match ended early, void
}

// GhostUpdate tells a player of a challenge how the players
// ahead of them stood at the same time of their own clocks.
type GhostUpdate struct {
	RoundID   string  `json:"round_id"` // the attempt's round
	ElapsedMs int64   `json:"elapsed_ms"`
	Ghosts    []Ghost `json:"ghosts"`
}

// AttemptOver ends a player's attempt at a challenge: their entry on the
// board, with its rank, and the board's counts; or, when Void says why,
// an attempt that does not count (Result then names only the player).
type AttemptOver struct {
	RoundID     string     `json:"round_id"` // the attempt's round
	ChallengeID string     `json:"async_round_id"`
	Result      BoardEntry `json:"result"`
	Players     int        `json:"players"`
	Finished    int        `json:"finished"`
	Void        string     `json:"void,omitempty"`
}

func (GhostUpdate) event()   {}
func (AttemptOver) event()   {}
func (MatchUpdate) event()   {}
func (RoundStarting) event() {}
func (RoundStarted) event()  {}
func (Leaderboard) event()   {}
func (RoundOver) event()     {}
func (MatchOver) event()     {}
