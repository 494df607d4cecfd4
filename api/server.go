package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"klondike/api/protocol"
	"klondike/api/web"
	"klondike/api/ws"
	"klondike/engine"
	"klondike/engine/solver"
	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/match"
)

// Config holds what the server serves and its own settings. The lobby,
// the challenge service, the hub and the metrics are built by the caller
// (cmd/klondiked), since each needs the others: the hub is the lobby's and
// the service's match.Sink, and the lobby's hooks count into the metrics.
type Config struct {
	// Lobby serves the matches and Challenges the challenges, over the
	// same backends; both required. NewServer takes them over: Shutdown
	// and Close stop them.
	Lobby      *lobby.Lobby
	Challenges *challenge.Service
	// Hub is the Sink of Lobby and Challenges: it delivers their events to
	// the players' connections. Required.
	Hub *Hub
	// Metrics are the Hub's (NewHub) and what GET /metrics serves.
	// Required.
	Metrics *Metrics
	// Store is the Lobby's store, which GET /readyz pings. Required.
	Store match.Store
	// Hint answers "hint" in solo rounds (engine/solver behind it); nil
	// offers no hints.
	Hint match.HintFunc
	// Limits are the WebSocket limits (zero fields take defaults); their
	// TrustedProxies also say whose address an HTTP request counts under.
	Limits Limits
	// PublicURL is where players reach the server, as their browsers show
	// it (https://klondike.example): passkeys are bound to its host name
	// (the WebAuthn relying party's id) and accepted from its origin only.
	// Empty: DefaultPublicURL.
	PublicURL string
	Logger    *slog.Logger
}

// DefaultPublicURL is the public URL of a server that names none:
// passkeys then work only in a browser on the server's own machine.
const DefaultPublicURL = "http://localhost"

// Server is the HTTP side of klondiked: routes and the WebSocket endpoint
// in front of the lobby and the challenge service.
type Server struct {
	Lobby      *lobby.Lobby
	Challenges *challenge.Service
	Hub        *Hub
	WS         *ws.Server
	Metrics    *Metrics
	Store      match.Store

	log      *slog.Logger
	mux      *http.ServeMux
	rp       *webauthn.WebAuthn // the passkeys' relying party
	limits   Limits
	draining atomic.Bool
}

// NewServer makes the server of cfg. It panics when cfg lacks a required
// field, naming the first missing, when the Hub counts into other Metrics,
// or when PublicURL is not an http(s) URL with a host.
func NewServer(cfg Config) *Server {
	switch {
	case cfg.Lobby == nil:
		panic("api: Config needs a Lobby")
	case cfg.Challenges == nil:
		panic("api: Config needs Challenges")
	case cfg.Hub == nil:
		panic("api: Config needs a Hub")
	case cfg.Metrics == nil:
		panic("api: Config needs Metrics")
	case cfg.Store == nil:
		panic("api: Config needs a Store")
	case cfg.Hub.m != cfg.Metrics:
		panic("api: Config's Hub counts into other Metrics")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	rp, err := relyingParty(cmp.Or(cfg.PublicURL, DefaultPublicURL))
	if err != nil {
		panic(err)
	}
	s := &Server{
		Lobby: cfg.Lobby, Challenges: cfg.Challenges, Hub: cfg.Hub, Metrics: cfg.Metrics, Store: cfg.Store,
		log: cfg.Logger, mux: http.NewServeMux(), rp: rp, limits: cfg.Limits,
	}
	s.Metrics.RegisterMatchGauges(
		func() float64 { o, _ := s.Lobby.Counts(); return float64(o) },
		func() float64 { _, r := s.Lobby.Counts(); return float64(r) },
	)
	svc := &Service{Lobby: s.Lobby, Challenges: s.Challenges, Hub: s.Hub, Metrics: s.Metrics, Log: cfg.Logger, Hint: cfg.Hint}
	s.WS = ws.NewServer(svc, ws.Config{
		Limits: cfg.Limits, AfterMessage: svc.afterMessage, Refused: svc.refused, Closes: closes,
		Metrics: s.Metrics.transport(), Logger: cfg.Logger, UserAttr: "player_id",
	})

	for _, rt := range s.routes() {
		s.mux.Handle(rt.pattern, rt.handler)
	}
	return s
}

// closes are the close frames the transport sends of its own accord, in
// the protocol's words.
var closes = ws.Closes{
	NoHello: protocol.ReasonNoHello, Flood: protocol.ReasonRateLimit, TooBig: protocol.ReasonTooBig,
	Internal: protocol.ReasonInternal, Restarting: protocol.ReasonRestarting,
	SlowCode: protocol.CloseSlowConsumer, Slow: protocol.ReasonSlow,
}

// A route is one pattern of the server's mux and what serves it.
type route struct {
	pattern string // a ServeMux pattern, "METHOD /path"
	handler http.Handler
}

// apiPrefix is the root of the JSON API: every path under it answers JSON,
// its errors included (see ServeHTTP).
const apiPrefix = "/api/v1"

// routes lists every route of the server, the one place they are named:
// NewServer registers these and no other, and the OpenAPI test compares
// them with api/openapi.json, which describes every one of them.
func (s *Server) routes() []route {
	return []route{
		{"GET /ws", s.WS},
		{"GET /healthz", http.HandlerFunc(healthz)},
		{"GET /readyz", http.HandlerFunc(s.readyz)},
		{"GET /metrics", s.Metrics.Handler()},
		{"GET " + apiPrefix + "/openapi.json", http.HandlerFunc(serveOpenAPI)},
		{"GET " + apiPrefix + "/matches", http.HandlerFunc(s.listMatches)},
		{"GET " + apiPrefix + "/rounds/{id}/leaderboard", http.HandlerFunc(s.leaderboard)},
		{"GET " + apiPrefix + "/rounds/{id}/replay", http.HandlerFunc(s.replay)},
		{"GET " + apiPrefix + "/rounds/{id}/ratings", http.HandlerFunc(s.roundRatings)},
		{"GET " + apiPrefix + "/ladder/{game}/{draw}", http.HandlerFunc(s.ladder)},
		{"GET " + apiPrefix + "/daily", http.HandlerFunc(s.daily)},
		{"GET " + apiPrefix + "/players/{id}/records", http.HandlerFunc(s.records)},
		{"GET " + apiPrefix + "/players/{id}", http.HandlerFunc(s.player)},
		{"GET " + apiPrefix + "/me", s.asPlayer(s.me)},
		{"PATCH " + apiPrefix + "/me", s.asPlayer(s.rename)},
		{"DELETE " + apiPrefix + "/me", s.asPlayer(s.deleteMe)},
		{"GET " + apiPrefix + "/me/export", s.asPlayer(s.exportMe)},
		{"POST " + apiPrefix + "/me/signout", s.asPlayer(s.signOut)},
		{"POST " + apiPrefix + "/me/signout-everywhere", s.asPlayer(s.signOutEverywhere)},
		{"POST " + apiPrefix + "/me/passkeys/options", s.asPlayer(s.addPasskeyOptions)},
		{"POST " + apiPrefix + "/me/passkeys", s.asPlayer(s.addPasskey)},
		{"POST " + apiPrefix + "/passkeys/login/options", http.HandlerFunc(s.loginOptions)},
		{"POST " + apiPrefix + "/passkeys/login", http.HandlerFunc(s.login)},
		// The web client: every other GET (/, /m/<code>, /deal/<seed>, assets).
		{"GET /", web.Handler()},
	}
}

// ServeHTTP implements http.Handler. A request under apiPrefix that no API
// route takes gets a JSON error rather than the mux's text or the web
// client's page: 405 with Allow when another method has a route at its
// path, 404 otherwise (a path that is not canonical included, where the mux
// would redirect).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	if p != apiPrefix && !strings.HasPrefix(p, apiPrefix+"/") {
		s.mux.ServeHTTP(w, r)
		return
	}
	if p == cleanPath(p) {
		if _, pattern := s.mux.Handler(r); isAPIRoute(pattern) {
			s.mux.ServeHTTP(w, r)
			return
		}
		if allow := s.allowedMethods(r); allow != "" {
			w.Header().Set("Allow", allow)
			writeJSON(w, http.StatusMethodNotAllowed, errorBody(protocol.CodeBadRequest,
				r.Method+" is not allowed on "+p+": use "+allow))
			return
		}
	}
	writeJSON(w, http.StatusNotFound, errorBody(protocol.CodeNotFound,
		"no route "+p+": the API is described at "+apiPrefix+"/openapi.json"))
}

// isAPIRoute reports whether a mux pattern is one of the API's routes.
func isAPIRoute(pattern string) bool {
	_, p, ok := strings.Cut(pattern, " ")
	return ok && strings.HasPrefix(p, apiPrefix+"/")
}

// allowedMethods returns the methods with an API route at r's path, for an
// Allow header ("GET, HEAD"), or "" if none.
func (s *Server) allowedMethods(r *http.Request) string {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := &http.Request{Method: m, URL: r.URL, Host: r.Host}
		if _, pattern := s.mux.Handler(probe); isAPIRoute(pattern) {
			allow = append(allow, m)
			if m == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
	}
	return strings.Join(allow, ", ")
}

// cleanPath is the canonical form of a path as the mux makes it: path.Clean
// keeping a trailing slash.
func cleanPath(p string) string {
	np := path.Clean(p)
	if strings.HasSuffix(p, "/") && np != "/" {
		np += "/"
	}
	return np
}

func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	if !s.Lobby.Ready() {
		// The lobby has not read the store's data epoch yet: it serves no
		// match until it has.
		http.Error(w, "not ready: the store is unavailable", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.Store.Ping(ctx); err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}

func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	rd, err := s.Lobby.Round(ctx, r.PathValue("id"))
	if errors.Is(err, lobby.ErrNoSuchRound) {
		if rec, cerr := s.Challenges.Load(ctx, r.PathValue("id")); cerr == nil {
			s.challengeLeaderboard(ctx, w, r, &rec)
			return
		}
	}
	if err != nil {
		s.routeError(w, err)
		return
	}
	if _, _, ok := match.SplitAttemptRoundID(rd.ID); ok && !rd.Over() {
		// As in ghosts, a rival's game in play is nobody's business.
		writeJSON(w, http.StatusNotFound, errorBody(protocol.CodeNotFound, "an attempt's standing is published when it ends, on its round's board"))
		return
	}
	entries, err := rd.Leaderboard(ctx, time.Now())
	if err == nil {
		err = anonymize(ctx, s.Lobby, entries)
	}
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, leaderboardReply{
		RoundID: rd.ID, MatchID: rd.MatchID, Round: rd.Number, Over: rd.Over(), Entries: entries,
	})
}

// leaderboardReply is the answer of GET /api/v1/rounds/{id}/leaderboard.
type leaderboardReply struct {
	RoundID string        `json:"round_id"`
	MatchID string        `json:"match_id"`
	Round   int           `json:"round"`
	Over    bool          `json:"over"`
	Entries []match.Entry `json:"entries"`
}

func (s *Server) replay(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	id := r.PathValue("id")
	rd, err := s.Lobby.Round(ctx, id)
	if errors.Is(err, lobby.ErrNoSuchRound) {
		if rec, cerr := s.Challenges.Load(ctx, id); cerr == nil {
			s.challengeReplay(ctx, w, r, &rec)
			return
		}
	}
	if err != nil {
		s.routeError(w, err)
		return
	}
	if challengeID, _, ok := match.SplitAttemptRoundID(id); ok {
		// An attempt's game is published with its round's, at the close:
		// its deal is the others' too.
		if rec, err := s.Challenges.Load(ctx, challengeID); err != nil || !rec.Closed(time.Now()) {
			writeJSON(w, http.StatusNotFound, errorBody(protocol.CodeNotFound, "the replays are published when the round's window closes"))
			return
		}
	}
	rep, err := rd.Replay(ctx)
	if errors.Is(err, match.ErrRoundNotRunning) {
		writeJSON(w, http.StatusNotFound, errorBody(protocol.CodeNotFound, "the replay is published when the round ends"))
		return
	}
	if err == nil {
		err = anonymize(ctx, s.Lobby, rep.Players)
	}
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// httpError is the body of every JSON error of the HTTP routes.
type httpError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func errorBody(code, msg string) httpError { return httpError{Code: code, Message: msg} }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Shutdown drains the server: readiness turns 503, no new connections are
// taken, every client is told to reconnect, and the matches stop. It waits
// for the connections to end and the matches to stop, or for ctx to
// expire: then it returns ctx's error, and the matches still stuck in a
// store call go on stopping in the background (lobby.Lobby.Shutdown).
func (s *Server) Shutdown(ctx context.Context) error {
	s.draining.Store(true)
	werr := s.WS.Shutdown(ctx)
	cerr := s.Challenges.Shutdown(ctx)
	lerr := s.Lobby.Shutdown(ctx)
	for _, err := range []error{werr, cerr} {
		if err != nil {
			return err
		}
	}
	return lerr
}

// Close stops everything at once: the connections get a second to end,
// and the matches all the time they take to stop.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.Shutdown(ctx)
	s.Challenges.Close()
	s.Lobby.Close()
}

// routeError answers an HTTP route's failure by the error's wire code
// (errorCode): 400, 404, 503 to retry after a second, and 500 for anything
// else, whose details stay in the log.
func (s *Server) routeError(w http.ResponseWriter, err error) {
	switch code := errorCode(err); code {
	case protocol.CodeBadRequest:
		writeJSON(w, http.StatusBadRequest, errorBody(code, err.Error()))
	case protocol.CodeNotFound:
		writeJSON(w, http.StatusNotFound, errorBody(code, err.Error()))
	case protocol.CodeUnauthorized:
		writeJSON(w, http.StatusUnauthorized, errorBody(code, err.Error()))
	case protocol.CodeRateLimited:
		w.Header().Set("Retry-After", "60")
		writeJSON(w, http.StatusTooManyRequests, errorBody(code, err.Error()))
	case protocol.CodeUnavailable:
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, errorBody(code, "the store is unavailable; try again"))
	default:
		s.log.Error("route failed", "err", err)
		writeJSON(w, http.StatusInternalServerError, errorBody(protocol.CodeInternal, "internal error"))
	}
}

// hintBudget bounds one hint's search: it decides nearly every deal.
var hintBudget = solver.Budget{Nodes: 2_000_000, Time: 2 * time.Second}

// SolverHints is the HintFunc of engine/solver: a winning line from the
// player's position, within hintBudget.
func SolverHints() match.HintFunc {
	return func(g *engine.Game) ([]string, string) {
		h := solver.Hint(g, hintBudget)
		if h.Verdict != solver.Winnable || h.Move.Kind == engine.NoMove {
			return nil, h.Verdict.String()
		}
		line := make([]string, len(h.Line))
		for i, m := range h.Line {
			line[i] = m.String()
		}
		return line, h.Verdict.String()
	}
}
