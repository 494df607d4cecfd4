package lobby

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"klondike/match"
)

// Errors of the lobby; the api maps each to a wire code.
var (
	ErrBadName        = errors.New("a name is 1 to 24 letters, digits, spaces or - _ . ' with at least one letter")
	ErrUnknownToken   = errors.New("unknown or expired token")
	ErrNoSuchMatch    = errors.New("no such match")
	ErrNoSuchPlayer   = errors.New("no such player")
	ErrNoSuchRound    = errors.New("no such round")
	ErrInAnotherMatch = errors.New("you are playing in another match: leave it first")
	ErrShuttingDown   = errors.New("the server is shutting down")
	// ErrNotReady: the node has not yet read the shared state's data
	// epoch, without which it could not tell that the state lost its data
	// since (see Config.DataEpochEvery); it serves no match until then.
	ErrNotReady = fmt.Errorf("%w: the server has not reached its store yet; try again", match.ErrUnavailable)
	// ErrTooManyOpenFromAddr: the players of one address have made
	// Config.MaxOpenPerIP open matches on this node.
	ErrTooManyOpenFromAddr = errors.New("too many open matches from your address: start or leave one first")
	// ErrTooManyOpen: this node holds Config.MaxOpen open matches.
	ErrTooManyOpen = errors.New("the server has too many open matches; try again later")
	// ErrTooManyNewSessions: one address started Config.NewSessionsPerMinute
	// sessions in the last minute.
	ErrTooManyNewSessions = errors.New("too many new players from your address; try again in a minute")
)

// Config holds the lobby's dependencies and settings. Store, Coord,
// Players and Sink are required: the caller chooses the backends (the
// memory ones of lobby/memstore for one process, the Redis ones of
// lobby/redisstore for several nodes). Zero durations take the defaults
// named beside them.
type Config struct {
	// Store keeps the rounds' move logs and standings.
	Store match.Store
	// Coord holds the matches' records and the lobby's indexes, shared by
	// every node.
	Coord Coord
	// Players keep the players and their credentials.
	Players Players
	Sink    match.Sink
	Logger  *slog.Logger
	// Match is the configuration template for every match (its Store, Sink,
	// Logger, NewID, OnRound and OnChange are set by the lobby).
	Match match.Config
	// MatchRetention is how long a finished match stays listed for its
	// players (default 30 min); RoundRetention how long a finished round's
	// leaderboard and replay stay available (default 24 h); PlayerIdle how
	// long a player not seen lives, with its credentials (default 400
	// days).
	MatchRetention time.Duration
	RoundRetention time.Duration
	PlayerIdle     time.Duration
	// DataEpochEvery is how often the Coord's data epoch is checked
	// (default 2 s): when it changes, the shared state lost its data, and
	// the matches this node serves are voided (match.Match.Void).
	DataEpochEvery time.Duration
	// AbandonedAfter is how long an open match stays open once none of
	// its members is connected (default 2 min): then it is closed (over),
	// as when its last member leaves, and leaves the list.
	AbandonedAfter time.Duration
	// MaxOpen bounds the open matches made on this node, quick ones
	// included (default 1000); MaxOpenPerIP those of them made by players
	// whose hello came from one address (default 10; quick matches, made
	// for whoever asks with the same rules, are not counted per address).
	// A match stops counting when it leaves the open state. Negative: no
	// cap.
	MaxOpen      int
	MaxOpenPerIP int
	// NewSessionsPerMinute bounds the sessions one address may start
	// (hello without a token; default 30): a token bucket per address
	// that holds that many and refills at that rate a minute, kept in
	// Allowances. Resuming a session is never limited. Negative: no limit.
	NewSessionsPerMinute int
	// Allowances count the limits per address (NewSessionsPerMinute)
	// across every node that shares them: the backends' (required).
	Allowances Allowances
	// AttemptRound returns the round of a player's attempt at a challenge
	// by its round id (match.SplitAttemptRoundID): the lobby serves only
	// race rounds, and hands these to lobby/challenge
	// (challenge.Service.Round). nil: no such round.
	AttemptRound func(ctx context.Context, id string) (*match.Round, error)
	// OnRoundResults is called in the background with a finished race
	// round's results, for the players' records
	// (challenge.Service.CountRound). May be nil.
	OnRoundResults func(r *match.Round, results []match.Entry)
	// OnDataLost is called when the node finds that the shared state lost
	// its data (see DataEpochEvery), as it voids its matches: the
	// challenge service voids its attempts (challenge.Service.DataLost).
	// May be nil.
	OnDataLost func()
	// OnSignedOut is called with a player whose credentials were all
	// revoked, through this node or another: its connections must close
	// (the api's Hub.SignedOut). May be nil.
	OnSignedOut func(playerID string)
	// OnRoundDealt and OnRoundOver count rounds for metrics; may be nil.
	OnRoundDealt func()
	OnRoundOver  func()
	// Ratings keep the players' ratings, for rated matches (the
	// backends'). nil: no match is rated, and quick matches are casual.
	Ratings Ratings
	// OnRated is called once a rated round is rated (true) or found to
	// rate nobody (false); OnQuickSeated when a rated quick match starts,
	// with how long its first player waited and the spread of its
	// players' ratings (highest less lowest). For metrics; may be nil.
	OnRated       func(rated bool)
	OnQuickSeated func(wait time.Duration, spread float64)
}

// Defaults of Config.
const (
	DefaultMatchRetention = 30 * time.Minute
	DefaultRoundRetention = 24 * time.Hour
	DefaultPlayerIdle     = 400 * 24 * time.Hour
	DefaultDataEpochEvery = 2 * time.Second
	DefaultAbandonedAfter = 2 * time.Minute
	DefaultMaxOpen        = 1000
	DefaultMaxOpenPerIP   = 10
	// DefaultNewSessionsPerMinute lets a household or an office behind
	// one address in, not a script minting identities.
	DefaultNewSessionsPerMinute = 30
	// VoidReason is what players are told of a match voided because the
	// shared state lost its data.
	VoidReason = "the server's store lost its data: this match does not count"
)

// A Lobby is a node's door to the matches: it finds them through the
// Coord (made on this node or another), keeps this node's replica of each
// match its players are in, and routes what other nodes publish about a
// match to the replica.
type Lobby struct {
	cfg Config

	mu      sync.Mutex
	closed  bool
	store   Players
	players map[string]*known // the players who said hello here, by id
	matches map[string]*entry // this node's replicas, by match id
	rounds  map[string]*roundEntry

	// seating serializes what seats a player in a match or takes them out
	// (create, join, quick match, rematch, leave), per player: the check
	// that the player is free and the seating that follows must not
	// interleave with another seating of the same player, or a rematch
	// could seat someone in a new match at the moment their quick match
	// started another, dealing them into two rounds at once. A request
	// holds one player's lock at a time, never two.
	seating map[string]*seatLock

	// quick holds the node's waiting quick-match requests, by the settings
	// they asked for (see quick.go).
	quick map[match.Settings]*quickQueue
	// waiters are the players alone in a rated quick match this node
	// seated, by player id (see quickrated.go); nil when none.
	waiters map[string]*ratedWaiter

	// open counts the open matches made on this node (see caps.go).
	open openCount
	// ready is set once the data epoch is read (epoch.go).
	ready atomic.Bool

	stop    chan struct{}
	done    chan struct{}
	bg      sync.WaitGroup // the goroutines besides the janitor that Close waits for
	stopped chan struct{}  // closed once Close's work is done (see shutdown.go)
}

// New makes a lobby and starts its janitor; Close or Shutdown stops it.
// It panics when cfg lacks a Store, a Coord, Players, Allowances or a
// Sink.
func New(cfg Config) *Lobby {
	if cfg.Store == nil || cfg.Coord == nil || cfg.Players == nil || cfg.Allowances == nil || cfg.Sink == nil {
		panic("lobby: Config needs a Store, a Coord, Players, Allowances and a Sink")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MatchRetention <= 0 {
		cfg.MatchRetention = DefaultMatchRetention
	}
	if cfg.RoundRetention <= 0 {
		cfg.RoundRetention = DefaultRoundRetention
	}
	if cfg.PlayerIdle <= 0 {
		cfg.PlayerIdle = DefaultPlayerIdle
	}
	if cfg.DataEpochEvery <= 0 {
		cfg.DataEpochEvery = DefaultDataEpochEvery
	}
	if cfg.AbandonedAfter <= 0 {
		cfg.AbandonedAfter = DefaultAbandonedAfter
	}
	if cfg.MaxOpen == 0 {
		cfg.MaxOpen = DefaultMaxOpen
	}
	if cfg.MaxOpenPerIP == 0 {
		cfg.MaxOpenPerIP = DefaultMaxOpenPerIP
	}
	if cfg.NewSessionsPerMinute == 0 {
		cfg.NewSessionsPerMinute = DefaultNewSessionsPerMinute
	}
	if cfg.Match.Node == "" {
		cfg.Match.Node = "node-" + randomHex(6)
	}
	if cfg.Match.NodeLease == nil {
		// One for all the node's matches: their clocks' leases rest on it.
		cfg.Match.NodeLease = match.NewNodeLease(cfg.Coord, cfg.Match.Node, cfg.Match.LeaseTTL, cfg.Logger)
	}
	if cfg.Match.RecordTTL <= 0 {
		cfg.Match.RecordTTL = match.DefaultRecordTTL
	}
	l := &Lobby{
		cfg: cfg, store: cfg.Players, players: map[string]*known{},
		matches: map[string]*entry{}, rounds: map[string]*roundEntry{}, seating: map[string]*seatLock{},
		quick: map[match.Settings]*quickQueue{},
		open:  openCount{byAddr: map[string]int{}},
		stop:  make(chan struct{}), done: make(chan struct{}), stopped: make(chan struct{}),
	}
	// The data epoch is read first (see watchEpoch), at the same time as
	// the subscription is made: a store that is down delays the start by
	// the subscription's wait alone.
	tried := make(chan struct{})
	l.bg.Add(1)
	go l.watchEpoch(tried)
	subscribed := make(chan struct{})
	go l.subscribe(subscribed)
	select {
	case <-subscribed:
	case <-time.After(2 * time.Second):
		cfg.Logger.Warn("not yet subscribed to the other nodes' events; retrying in the background")
	}
	<-tried
	if !l.ready.Load() {
		cfg.Logger.Warn("the store's data epoch is not read yet: serving no match until it is; retrying in the background")
	}
	go l.janitor()
	return l
}

// subscribe listens to what the other nodes publish about matches, trying
// again until it works or the lobby closes.
func (l *Lobby) subscribe(subscribed chan<- struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-l.stop; cancel() }()
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		err := l.cfg.Coord.Subscribe(ctx, l.onBusMessage)
		if err == nil {
			close(subscribed)
			return
		}
		l.cfg.Logger.Warn("subscribing to the other nodes' events failed", "err", err)
		select {
		case <-l.stop:
			return
		case <-time.After(wait):
		}
	}
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("lobby: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}
