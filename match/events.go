package match

import (
	"time"

	"klondike/engine"
)

// A Sink delivers messages to players' connections: the api implements it.
// Send must not block; it drops (and the api disconnects as slow) what a
// full queue cannot take.
type Sink interface {
	Send(playerID string, msg []byte)
}

// An Event is what a match tells its players and spectators: MatchUpdate,
// RoundStarting, RoundStarted, Leaderboard, RoundOver or MatchOver. The
// match does not choose how an event travels; its Config.Encode does.
type Event interface{ event() }

// An Encoder turns an event into the message its recipients are sent (the
// api's is api/protocol.Encode). A match encodes each event once for all
// of its recipients, keeps the bytes of round_over and match_over in its
// record (for a player who resumes) and publishes them to the other nodes,
// so every node of a deployment must encode alike. It runs on the match's
// goroutine and on players' connections (a leaderboard a move made due), so
// it must be safe for concurrent use, and it cannot fail: an event holds
// nothing that does not encode.
type Encoder func(Event) []byte

// MatchUpdate is the match's snapshot: sent to every member and spectator
// after each change, and to a player who catches up.
type MatchUpdate struct {
	Info *MatchInfo
}

// RoundStarting announces a dealt round to the match's players and
// spectators; the round opens at StartsAt.
type RoundStarting struct {
	MatchID  string
	RoundID  string
	Round    int
	StartsAt time.Time
	EndsAt   time.Time
	Rules    engine.Rules
	Deal     DealAnnouncement
}

// RoundStarted gives one player their own view when the round opens, and
// again when they resume during it.
type RoundStarted struct {
	MatchID  string
	RoundID  string
	Round    int
	StartsAt time.Time
	EndsAt   time.Time
	Rules    engine.Rules
	// Deal repeats RoundStarting's, for a player who resumes after
	// missing it.
	Deal DealAnnouncement
	// View is the player's view as the engine writes it (compact JSON,
	// engine.Game.AppendViewJSON).
	View    []byte
	LastSeq int // the seq of the player's last accepted move
	Resumed bool
	// Kind is set for an attempt at an asynchronous round: its kind
	// (KindChallenge or KindDaily); MatchID is then the asynchronous
	// round's id.
	Kind string
}

// DealAnnouncement is what a round tells of its deal before play: the
// commitment to a secret deal, or the number of a known deal. It never
// holds a secret deal's seed or salt.
type DealAnnouncement struct {
	Commitment string // empty for a known deal
	Known      bool
	Seed       uint64 // a known deal's number; 0 for a secret deal
	// Winnable, in a match whose deals are "winnable", says whether this
	// deal was proved winnable (false: the server had none ready); nil in
	// any other match.
	Winnable *bool
}

// Leaderboard is a round's standings at one moment.
type Leaderboard struct {
	MatchID string
	RoundID string
	Entries []Entry
}

// RoundOver ends a round: its results, its deal revealed, and the match
// totals after it.
type RoundOver struct {
	MatchID string
	RoundID string
	Round   int
	Results []Entry
	Deal    FairDeal // revealed: seed and salt are public now
	Layout  engine.Deal
	Totals  []Total
	// Void, when set, says why the round does not count: the results are
	// what was known, and the totals leave the round out.
	Void string
}

// MatchOver ends a match with its final totals.
type MatchOver struct {
	MatchID string
	Totals  []Total
	Void    string // why the match ended early, void
}

// GhostUpdate tells a player of an asynchronous round how the players
// ahead of them stood at the same time of their own clocks.
type GhostUpdate struct {
	RoundID   string // the attempt's round
	ElapsedMs int64
	Ghosts    []Ghost
}

// AttemptOver ends a player's attempt at an asynchronous round: their
// entry on the board, with its rank, and the board's counts.
type AttemptOver struct {
	RoundID      string // the attempt's round
	AsyncRoundID string
	Result       BoardEntry
	Players      int
	Finished     int
}

func (GhostUpdate) event()   {}
func (AttemptOver) event()   {}
func (MatchUpdate) event()   {}
func (RoundStarting) event() {}
func (RoundStarted) event()  {}
func (Leaderboard) event()   {}
func (RoundOver) event()     {}
func (MatchOver) event()     {}
