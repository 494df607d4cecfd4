package challenge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"time"

	"klondike/engine"
	"klondike/lobby"
	"klondike/match"
)

// Lobby is what the service needs of the live lobby: whether the node
// serves yet, and the players who said hello to it. *lobby.Lobby is one.
type Lobby interface {
	// Ready reports whether the node has read the shared state's data
	// epoch (lobby.Lobby.Ready); until then the service fails with
	// lobby.ErrNotReady.
	Ready() bool
	// Player returns a player who said hello on this node, or
	// lobby.ErrUnknownToken.
	Player(id string) (match.Player, error)
	// Deleted reports which of ids belong to deleted players
	// (lobby.Lobby.Deleted): their games are not counted.
	Deleted(ctx context.Context, ids []string) (map[string]bool, error)
	// PlayerFrom is Player with the key of the address of the player's
	// last hello on this node ("" for none), which the caps per address
	// count by.
	PlayerFrom(id string) (pl match.Player, addr string, err error)
}

// Config holds the service's dependencies and settings. Challenges,
// Records, Allowances, Store and Sink are required; zero durations take the defaults
// named beside them.
type Config struct {
	// Challenges keeps the challenges, their attempts and boards; Records
	// the players' records. lobby/memstore and lobby/redisstore implement
	// both.
	Challenges Store
	Records    RecordStore
	// Allowances count the limits per player and address across every
	// node that shares them (lobby.Allowances).
	Allowances lobby.Allowances
	// Store keeps the attempts' move logs and standings: the lobby's
	// (lobby.Config.Store), since an attempt is a match.Round.
	Store match.Store
	// Sink delivers the attempts' match.GhostUpdate and match.AttemptOver
	// (ghost_update and attempt_over on the wire).
	Sink match.Sink
	// Winnable hands out deals proved winnable for the daily rounds (the
	// matches' match.Config.Winnable); nil: any deal.
	Winnable match.WinnableDeals
	Logger   *slog.Logger
	// DailyVariants are the rules of the daily rounds, one round each a
	// UTC day (default draw 3 and draw 1, standard scoring; see
	// DefaultDailyVariants); DailyLimit is their time limit (default 15
	// min).
	DailyVariants []engine.Rules
	DailyLimit    time.Duration
	// Retention is how long a challenge's board and replays stay after
	// its window closes (default a week).
	Retention time.Duration
	// ChallengesPerHour bounds the challenges one player may make (default
	// 20): a token bucket that holds that many and refills at that rate an
	// hour. Negative: no limit.
	ChallengesPerHour int
	// GhostEvery is how often a player of a challenge is sent their ghosts
	// (default 1 s).
	GhostEvery time.Duration
	// MaxAttemptsPerPlayer bounds a player's attempts in play (default 3),
	// MaxAttemptsPerIP those of the players of one address (default 20),
	// both across the nodes that share Allowances; MaxAttempts the
	// attempts this node holds (default 2000). DailyAttemptsPerIP bounds
	// the players of one address who play a daily round (default 20), a
	// day's count across the nodes. Negative: no cap (caps.go).
	MaxAttemptsPerPlayer int
	MaxAttemptsPerIP     int
	MaxAttempts          int
	DailyAttemptsPerIP   int
	// Connected reports whether a player is connected to this node (the
	// api's Hub.Connected): an attempt whose player is not costs the node
	// only the timer of its end. nil: every player is.
	Connected func(playerID string) bool
	// OnEvent counts the events of challenges for metrics: kind is
	// KindChallenge or KindDaily, event "created" (a challenge this
	// node made), "started" (an attempt) or "finished" (an attempt this
	// node put on its board). May be nil.
	OnEvent func(kind, event string)
}

// Defaults of Config.
const (
	// DefaultRetention: a challenge's board and replays stay a week past
	// its close, so that last week's dailies can still be audited.
	DefaultRetention         = 7 * 24 * time.Hour
	DefaultChallengesPerHour = 20
	DefaultGhostEvery        = time.Second
)

// janitorEvery is how often the service forgets what it no longer needs.
const janitorEvery = time.Minute

// A Service is a node's door to the challenges: it makes them, starts and
// ends the attempts played on this node, sends their players ghosts, makes
// the daily rounds and reads boards and records. Every node runs one over
// the same stores.
type Service struct {
	cfg   Config
	lobby Lobby

	mu     sync.Mutex
	closed bool
	// attempts are the attempts this node holds, by their round ids;
	// active those of them whose player is connected here, which get
	// ghosts; voided those voided here when the store lost its data
	// (attempt.go, void.go).
	attempts  map[string]*attempt
	active    map[string]*attempt
	voided    map[string]voidedAttempt
	closedOut closedOut // closed challenges closed out here (closeout.go)
	// dailyMaking are the daily rounds being made on this node (daily.go).
	dailyMaking map[string]*making
	ghosts      ghosts // ghost tracks and leaders (ghost.go)
	tops        tops   // the tops of boards lately read (tops.go)

	stop    chan struct{}
	bg      sync.WaitGroup // the goroutines Close waits for
	stopped chan struct{}  // closed once Close's work is done
}

// New makes the service of lobby l and starts its background work (the
// daily rounds' rollover); Close or Shutdown stops it. It panics when cfg
// lacks Challenges, Records, Allowances, a Store or a Sink.
func New(l Lobby, cfg Config) *Service {
	if cfg.Challenges == nil || cfg.Records == nil || cfg.Allowances == nil || cfg.Store == nil || cfg.Sink == nil {
		panic("challenge: Config needs Challenges, Records, Allowances, a Store and a Sink")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.DailyVariants == nil {
		cfg.DailyVariants = DefaultDailyVariants()
	}
	if cfg.DailyLimit <= 0 {
		cfg.DailyLimit = time.Duration(match.DefaultTimeLimit) * time.Second
	}
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.ChallengesPerHour == 0 {
		cfg.ChallengesPerHour = DefaultChallengesPerHour
	}
	if cfg.GhostEvery <= 0 {
		cfg.GhostEvery = DefaultGhostEvery
	}
	cfg.MaxAttemptsPerPlayer = orDefault(cfg.MaxAttemptsPerPlayer, DefaultMaxAttemptsPerPlayer)
	cfg.MaxAttemptsPerIP = orDefault(cfg.MaxAttemptsPerIP, DefaultMaxAttemptsPerIP)
	cfg.MaxAttempts = orDefault(cfg.MaxAttempts, DefaultMaxAttempts)
	cfg.DailyAttemptsPerIP = orDefault(cfg.DailyAttemptsPerIP, DefaultDailyAttemptsPerIP)
	s := &Service{
		cfg: cfg, lobby: l,
		attempts: map[string]*attempt{}, dailyMaking: map[string]*making{},
		stop: make(chan struct{}), stopped: make(chan struct{}),
	}
	s.bg.Add(3)
	go s.dailyRollover()
	go s.janitor()
	go s.ghostLoop()
	return s
}

// orDefault is v, or def when v is 0.
func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// checkReady fails with lobby.ErrNotReady until the lobby is ready.
func (s *Service) checkReady() error {
	if !s.lobby.Ready() {
		return lobby.ErrNotReady
	}
	return nil
}

// count tells the metrics of an event of a challenge.
func (s *Service) count(kind, event string) {
	if s.cfg.OnEvent != nil {
		s.cfg.OnEvent(kind, event)
	}
}

// janitor forgets, every janitorEvery, the challenges closed out longer
// than the retention ago.
func (s *Service) janitor() {
	defer s.bg.Done()
	t := time.NewTicker(janitorEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.forgetClosedOut(now)
		}
	}
}

// Close stops the attempts' timers and the background work, and waits
// until they have stopped. The attempts themselves go on: another node,
// or this one again, ends them in time.
func (s *Service) Close() {
	<-s.beginClose()
}

// Shutdown stops the service as Close does, but waits only until ctx
// ends: it then returns ctx's error.
func (s *Service) Shutdown(ctx context.Context) error {
	select {
	case <-s.beginClose():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// beginClose starts stopping the service, the first time it is called,
// and returns a channel closed once it has stopped.
func (s *Service) beginClose() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.stop)
		for _, at := range s.attempts {
			at.timer.Stop()
		}
		go func() {
			s.bg.Wait()
			close(s.stopped)
		}()
	}
	return s.stopped
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("challenge: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}
