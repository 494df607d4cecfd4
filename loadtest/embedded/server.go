// Package embedded runs in the load test's process what its bots play
// against when no --server is given: the real server, wired as
// cmd/klondiked wires it, on the memory or the Redis backends; and, for the
// echo baseline, the Redis store the echo appends each move to. It is the
// one part of the load test that imports the server's packages.
package embedded

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"klondike/api"
	"klondike/lobby"
	"klondike/lobby/backends"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/lobby/storemetrics"
	"klondike/match"
)

// ServerConfig says how to run the embedded server.
type ServerConfig struct {
	// Redis holds the server's state, as klondiked --redis does; nil keeps
	// it in this process's memory. The server owns it: Stop closes it, and
	// so does StartServer when it fails.
	Redis *Redis
	// NoCoord keeps the Coord (the matches' records, the lobby's indexes,
	// the bus) in this process's memory even with Redis.
	NoCoord bool
	// MsgRate is the messages a second a connection may send
	// (api.Limits.MsgRate).
	MsgRate float64
	// Logger gets the server's log.
	Logger *slog.Logger
}

// A Server is the real server running in this process on a loopback port
// of its own.
type Server struct {
	// URL is its WebSocket endpoint, ws://127.0.0.1:PORT/ws.
	URL string

	srv *api.Server
	hs  *http.Server
	b   *backends.Backends
}

// StartServer starts the server as cmd/klondiked wires it, with every
// per-address and lobby cap off, since every bot comes from 127.0.0.1.
func StartServer(cfg ServerConfig) (*Server, error) {
	b := cfg.Redis.backends()
	if cfg.Redis == nil {
		var err error
		if b, err = backends.Open(context.Background(), "", backends.Options{}); err != nil {
			return nil, err
		}
	} else if cfg.NoCoord {
		b.Coord = memstore.NewCoord()
	}
	srv := newServer(b, cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		_ = b.Close()
		return nil, err
	}
	// Every bot comes from one address: no per-address cap.
	hs, listen := api.NewHTTPServer(srv, api.HTTPLimits{MaxConnsPerIP: -1}, nil)
	go hs.Serve(listen(ln))
	return &Server{URL: "ws://" + ln.Addr().String() + "/ws", srv: srv, hs: hs, b: b}, nil
}

// newServer wires the server on b as cmd/klondiked's newServer does (keep
// the two in step), with the load test's limits.
func newServer(b *backends.Backends, cfg ServerConfig) *api.Server {
	burst := 100
	if cfg.MsgRate > 0 {
		burst = max(burst, int(2*cfg.MsgRate))
	}
	m := api.NewMetrics("loadtest")
	hub := api.NewHub(m)
	store := storemetrics.Wrap(b.Store, m.ObserveStore)
	// The lobby hands attempts and finished rounds to the challenge
	// service, made just after it, before any round can be asked for.
	var ch *challenge.Service
	l := lobby.New(lobby.Config{
		Store: store, Players: b.Players, Coord: b.Coord, Allowances: b.Allowances, Sink: hub, Logger: cfg.Logger,
		// Every bot is one address: no per-address or total lobby caps.
		NewSessionsPerMinute: -1, MaxOpenPerIP: -1, MaxOpen: -1,
		OnRoundDealt: m.RoundsStarted.Inc, OnRoundOver: m.RoundsFinished.Inc, OnSignedOut: hub.SignedOut,
		Ratings: b.Ratings, OnRated: m.CountRated, OnQuickSeated: m.ObserveQuickSeated,
		AttemptRound:   func(ctx context.Context, id string) (*match.Round, error) { return ch.Round(ctx, id) },
		OnRoundResults: func(r *match.Round, results []match.Entry) { ch.CountRound(r, results) },
		OnDataLost:     func() { ch.DataLost() },
	})
	ch = challenge.New(l, challenge.Config{
		Challenges: b.Challenges, Records: b.Records, Allowances: b.Allowances, Store: store, Sink: hub, Logger: cfg.Logger,
		OnEvent: m.CountChallengeEvent, Connected: hub.Connected,
		// Every bot is one address: no caps per address.
		MaxAttemptsPerIP: -1, DailyAttemptsPerIP: -1,
	})
	return api.NewServer(api.Config{
		Lobby: l, Challenges: ch, Hub: hub, Metrics: m, Store: store,
		Limits: api.Limits{MaxConnsPerIP: -1, MsgRate: cfg.MsgRate, MsgBurst: burst},
		Logger: cfg.Logger,
	})
}

// Stop shuts the server down, giving its connections and matches up to
// 5 s, then closes its backends.
func (s *Server) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	_ = s.hs.Shutdown(ctx)
	_ = s.b.Close()
}
