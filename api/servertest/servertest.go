// Package servertest wires servers for tests as cmd/klondiked wires one:
// the metrics, the hub, the store counted into the metrics, the lobby, the
// challenge service and api.NewServer, from the few settings tests vary.
package servertest

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"klondike/api"
	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/lobby/storemetrics"
	"klondike/match"
)

// Config is what tests set of a server. A nil backend is one of a set of
// lobby/memstore backends made for this server; every other zero field
// takes its default, as in lobby.Config, challenge.Config and api.Config.
type Config struct {
	// The backends (see lobby.Config and challenge.Config).
	Store      match.Store
	Players    lobby.Players
	Coord      lobby.Coord
	Challenges challenge.Store
	Records    challenge.RecordStore
	Allowances lobby.Allowances
	Ratings    lobby.Ratings
	// NoRatings makes a lobby that keeps no ratings (lobby.Config's
	// Ratings nil) rather than one on the memory ratings.
	NoRatings bool

	// The lobby's settings (lobby.Config; MaxOpenMatches and
	// MaxOpenMatchesPerIP are its MaxOpen and MaxOpenPerIP).
	Match                               match.Config
	DataEpochEvery, AbandonedAfter      time.Duration
	MaxOpenMatches, MaxOpenMatchesPerIP int
	NewSessionsPerMinute                int

	// The challenge service's settings (challenge.Config; its Winnable is
	// Match.Winnable, its Connected the hub's).
	ChallengesPerHour                                                       int
	MaxAttemptsPerPlayer, MaxAttemptsPerIP, MaxAttempts, DailyAttemptsPerIP int

	// The server's own (api.Config), and the version its metrics report.
	Hint      match.HintFunc
	Limits    api.Limits
	PublicURL string
	Version   string
	Logger    *slog.Logger
}

// New returns the server of cfg; its Close stops it, the lobby and the
// challenge service included, and leaves the backends open.
func New(cfg Config) *api.Server {
	if cfg.Store == nil || cfg.Players == nil || cfg.Coord == nil || cfg.Challenges == nil || cfg.Records == nil || cfg.Allowances == nil ||
		(cfg.Ratings == nil && !cfg.NoRatings) {
		mem := memstore.NewBackends()
		cfg.Store = cmp.Or(cfg.Store, match.Store(mem.Store))
		cfg.Players = cmp.Or(cfg.Players, lobby.Players(mem.Players))
		cfg.Coord = cmp.Or(cfg.Coord, lobby.Coord(mem.Coord))
		cfg.Challenges = cmp.Or(cfg.Challenges, challenge.Store(mem.Challenges))
		cfg.Records = cmp.Or(cfg.Records, challenge.RecordStore(mem.Challenges))
		cfg.Allowances = cmp.Or(cfg.Allowances, lobby.Allowances(mem.Allowances))
		if !cfg.NoRatings {
			cfg.Ratings = cmp.Or(cfg.Ratings, lobby.Ratings(mem.Ratings))
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	// As cmd/klondiked's newServer wires it: keep the two in step.
	m := api.NewMetrics(cfg.Version)
	hub := api.NewHub(m)
	store := storemetrics.Wrap(cfg.Store, m.ObserveStore)
	// The lobby hands attempts and finished rounds to the challenge
	// service, made just after it, before any round can be asked for.
	var ch *challenge.Service
	l := lobby.New(lobby.Config{
		Store: store, Players: cfg.Players, Coord: cfg.Coord, Allowances: cfg.Allowances, Sink: hub, Logger: cfg.Logger, Match: cfg.Match,
		DataEpochEvery: cfg.DataEpochEvery, AbandonedAfter: cfg.AbandonedAfter,
		MaxOpen: cfg.MaxOpenMatches, MaxOpenPerIP: cfg.MaxOpenMatchesPerIP, NewSessionsPerMinute: cfg.NewSessionsPerMinute,
		OnRoundDealt: m.RoundsStarted.Inc, OnRoundOver: m.RoundsFinished.Inc, OnSignedOut: hub.SignedOut,
		Ratings: cfg.Ratings, OnRated: m.CountRated, OnQuickSeated: m.ObserveQuickSeated,
		AttemptRound:   func(ctx context.Context, id string) (*match.Round, error) { return ch.Round(ctx, id) },
		OnRoundResults: func(r *match.Round, results []match.Entry) { ch.CountRound(r, results) },
		OnDataLost:     func() { ch.DataLost() },
	})
	ch = challenge.New(l, challenge.Config{
		Challenges: cfg.Challenges, Records: cfg.Records, Allowances: cfg.Allowances, Store: store, Sink: hub,
		Winnable: cfg.Match.Winnable, Logger: cfg.Logger,
		ChallengesPerHour:    cfg.ChallengesPerHour,
		OnEvent:              m.CountChallengeEvent,
		MaxAttemptsPerPlayer: cfg.MaxAttemptsPerPlayer, MaxAttemptsPerIP: cfg.MaxAttemptsPerIP, MaxAttempts: cfg.MaxAttempts,
		DailyAttemptsPerIP: cfg.DailyAttemptsPerIP, Connected: hub.Connected,
	})
	return api.NewServer(api.Config{
		Lobby: l, Challenges: ch, Hub: hub, Metrics: m, Store: store,
		Hint: cfg.Hint, Limits: cfg.Limits, PublicURL: cfg.PublicURL, Logger: cfg.Logger,
	})
}
