package match

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"klondike/engine"
)

// Config holds what a match needs from its surroundings. A zero duration
// takes the default named beside it.
type Config struct {
	Store Store
	// Coord holds the match's record, shared by every node (required; the
	// memory one of lobby/memstore serves a single process).
	Coord  Coord
	Sink   Sink
	Logger *slog.Logger
	// Node names this server node in leases (default: a random name).
	Node string
	// RecordTTL is how long a match's record lives after its last change
	// (default 7 days).
	RecordTTL time.Duration
	// LeaseTTL is how long the node that drives the match's clock holds
	// its lease without renewing it (default 5 s): when that node dies,
	// another takes the clock over within about this time.
	LeaseTTL time.Duration
	// NodeLease is this node's liveness, shared by the node's matches
	// (NewNodeLease with Coord, Node and LeaseTTL); when nil, the match
	// makes one of its own.
	NodeLease *NodeLease
	// NewID returns a fresh unguessable id for a round.
	NewID func() string
	// OnRound is called (on the match's goroutine) when a round is dealt,
	// so the lobby can find it by id; may be nil.
	OnRound func(*Round)
	// OnRoundOver is called (on the match's goroutine) when a round ends;
	// may be nil.
	OnRoundOver func(r *Round, results []Entry)
	// OnChange is called (on the match's goroutine) after every change,
	// with the new snapshot; may be nil.
	OnChange func(*MatchInfo)
	// LeaderboardEvery is the coalescing interval of leaderboards: at most
	// one a round per interval, only when something changed, and only to
	// the viewers whose last board showed something else (default 500 ms).
	// A board that a player's move makes due leaves with its move_ok; one
	// due otherwise goes at the match's next tick, every LeaderboardEvery.
	LeaderboardEvery time.Duration
	// LeaderboardMinorEvery is how old the last leaderboard must be before
	// a minor change of the standings (a move that sends no card to or
	// from a foundation and ends no game: only a player's moves and points
	// change) sends another (default 1 s, at least LeaderboardEvery).
	// Changes that can reorder a race go once the last board is
	// LeaderboardEvery old. Under load most moves are minor, and
	// leaderboards would otherwise be most of what a node writes.
	LeaderboardMinorEvery time.Duration
	// Intermission is the pause between a round's end and the next round's
	// countdown (default 5 s).
	Intermission time.Duration
	// QuickWait is how long a quick match with at least two players waits
	// for more before it starts by itself (default 10 s).
	QuickWait time.Duration
	// Inbox is how many commands may wait for the match (default 256); past
	// that, commands fail with ErrBusy.
	Inbox int
	// Winnable hands out deals proved winnable, for matches with deals
	// "winnable" (match/dealpool); nil deals them any deal, said so.
	Winnable WinnableDeals
}

// WinnableDeals is a source of deals proved winnable: Take returns one for
// the rules at once, or false when it has none ready.
type WinnableDeals interface {
	Take(engine.Rules) (seed uint64, ok bool)
}

// Defaults of Config.
const (
	DefaultLeaderboardEvery = 500 * time.Millisecond
	DefaultLeaderboardMinor = time.Second
	DefaultIntermission     = 5 * time.Second
	DefaultQuickWait        = 10 * time.Second
	DefaultInbox            = 256
	DefaultRecordTTL        = 7 * 24 * time.Hour
	DefaultLeaseTTL         = 5 * time.Second
)

func (c *Config) setDefaults() error {
	if c.Coord == nil || c.Store == nil || c.Sink == nil {
		return errors.New("match: Config needs a Store, a Coord and a Sink")
	}
	if c.LeaderboardEvery <= 0 {
		c.LeaderboardEvery = DefaultLeaderboardEvery
	}
	if c.LeaderboardMinorEvery <= 0 {
		c.LeaderboardMinorEvery = DefaultLeaderboardMinor
	}
	c.LeaderboardMinorEvery = max(c.LeaderboardMinorEvery, c.LeaderboardEvery)
	if c.Intermission <= 0 {
		c.Intermission = DefaultIntermission
	}
	if c.QuickWait <= 0 {
		c.QuickWait = DefaultQuickWait
	}
	if c.Inbox <= 0 {
		c.Inbox = DefaultInbox
	}
	if c.RecordTTL <= 0 {
		c.RecordTTL = DefaultRecordTTL
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = DefaultLeaseTTL
	}
	if c.Node == "" {
		var b [6]byte
		_, _ = randomReader.Read(b[:])
		c.Node = fmt.Sprintf("node-%x", b)
	}
	switch {
	case c.NodeLease == nil:
		c.NodeLease = NewNodeLease(c.Coord, c.Node, c.LeaseTTL, c.Logger)
	case c.NodeLease.node != c.Node || c.NodeLease.ttl != c.LeaseTTL:
		return errors.New("match: Config.NodeLease is not of the Config's Node and LeaseTTL")
	}
	if c.NewID == nil {
		c.NewID = func() string {
			var b [8]byte
			_, _ = randomReader.Read(b[:])
			return fmt.Sprintf("%x", b)
		}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}
