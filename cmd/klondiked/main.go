// Command klondiked is the competitive Klondike server: a lobby, rounds on
// seeded deals, every move validated on the server, live leaderboards, over
// WebSocket, with Prometheus metrics.
//
//	klondiked --addr 127.0.0.1:8080
//
// Every flag has a KLONDIKE_* environment variable; flags win.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"klondike/api"
	"klondike/engine"
	"klondike/lobby"
	"klondike/lobby/backends"
	"klondike/lobby/challenge"
	"klondike/lobby/storemetrics"
	"klondike/match"
	"klondike/match/dealpool"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr, nil); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "klondiked:", err)
		os.Exit(1)
	}
}

// Options are klondiked's settings, from flags and environment.
type Options struct {
	Addr          string
	RedisURL      string
	RedisCluster  bool
	RedisPrefix   string
	RoundTTL      time.Duration
	RedisLinger   time.Duration
	Durability    string // backends.DurabilityLocal or DurabilityReplica
	LogFormat     string
	LogLevel      string
	ShutdownGrace time.Duration
	Limits        api.Limits
	Origins       string
	Proxies       string
	// HTTP are the limits of every HTTP connection, the profiler's too.
	HTTP api.HTTPLimits
	// WinnableWorkers solve deals in the background for matches with
	// deals "winnable"; 0 keeps no pool.
	WinnableWorkers int
	// DebugAddr, when set, serves net/http/pprof on a listener of its own.
	DebugAddr string
	// PublicURL is where players reach the server (api.Config.PublicURL);
	// empty: http://localhost and the port of Addr.
	PublicURL string
	// The lobby's limits (see lobby.Config).
	AbandonedAfter                                            time.Duration
	MaxOpenMatches, MaxOpenMatchesPerIP, NewSessionsPerMinute int
	ChallengesPerHour                                         int
	// The challenge service's caps on attempts (see challenge.Config).
	MaxAttemptsPerPlayer, MaxAttemptsPerIP, MaxAttempts, DailyAttemptsPerIP int
	// DailyVariants names the daily rounds' variants ("draw3,draw1"); daily
	// holds their rules, once parsed.
	DailyVariants string
	daily         []engine.Rules
}

// parseOptions reads flags over environment variables over defaults.
func parseOptions(args []string, getenv func(string) string, out io.Writer) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("klondiked", flag.ContinueOnError)
	fs.SetOutput(out)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	// envErr reports the first environment variable whose value does not
	// parse, even one a flag overrides: parseOptions returns it.
	var envErr error
	envParse := func(name, want string, parse func(string) error) {
		if v := strings.TrimSpace(getenv(name)); v != "" && envErr == nil && parse(v) != nil {
			envErr = fmt.Errorf("%s=%q: want %s", name, v, want)
		}
	}
	envDur := func(name string, def time.Duration) time.Duration {
		envParse(name, "a duration such as 15s", func(v string) (err error) { def, err = time.ParseDuration(v); return err })
		return def
	}
	envInt := func(name string, def int) int {
		envParse(name, "an integer", func(v string) (err error) { def, err = strconv.Atoi(v); return err })
		return def
	}
	envInt64 := func(name string, def int64) int64 {
		envParse(name, "an integer", func(v string) (err error) { def, err = strconv.ParseInt(v, 10, 64); return err })
		return def
	}
	envFloat := func(name string, def float64) float64 {
		envParse(name, "a number", func(v string) (err error) { def, err = strconv.ParseFloat(v, 64); return err })
		return def
	}
	fs.StringVar(&o.Addr, "addr", env("KLONDIKE_ADDR", ":8080"), "listen address (env KLONDIKE_ADDR)")
	fs.StringVar(&o.RedisURL, "redis", env("KLONDIKE_REDIS_URL", ""), "Redis URL redis://host:port/db; empty runs the embedded in-memory store (env KLONDIKE_REDIS_URL)")
	fs.BoolVar(&o.RedisCluster, "redis-cluster", getenv("KLONDIKE_REDIS_CLUSTER") == "1" || getenv("KLONDIKE_REDIS_CLUSTER") == "true", "the --redis URL is a Redis Cluster: redis://host:port?addr=host2:port&addr=… (env KLONDIKE_REDIS_CLUSTER=1)")
	fs.StringVar(&o.RedisPrefix, "redis-prefix", env("KLONDIKE_REDIS_PREFIX", backends.DefaultPrefix), "prefix of every Redis key, one per deployment (env KLONDIKE_REDIS_PREFIX)")
	fs.DurationVar(&o.RoundTTL, "round-ttl", envDur("KLONDIKE_ROUND_TTL", backends.DefaultTTL), "how long a round's move logs and standings, and a match's record, stay in Redis after their last write (env KLONDIKE_ROUND_TTL)")
	fs.DurationVar(&o.RedisLinger, "redis-linger", envDur("KLONDIKE_REDIS_LINGER", backends.DefaultLinger), "while moves keep coming, the shortest time between two batches of Redis writes: fewer, larger batches cost Redis and the server less CPU a move, each move waiting at most this much more; 0: none (env KLONDIKE_REDIS_LINGER)")
	fs.StringVar(&o.Durability, "durability", env("KLONDIKE_DURABILITY", backends.DurabilityLocal), "when a move is acknowledged: local, once the Redis master has it; replica, once a replica of the master has it too (one WAIT a batch of moves, up to 500ms: with no replica in step, moves fail as unavailable and are retried); the in-memory store takes local only (env KLONDIKE_DURABILITY)")
	fs.StringVar(&o.DebugAddr, "debug-addr", env("KLONDIKE_DEBUG_ADDR", ""), "address of a separate listener for Go's profiler (/debug/pprof/), e.g. 127.0.0.1:6060; empty: none. Keep it off public interfaces (env KLONDIKE_DEBUG_ADDR)")
	fs.StringVar(&o.LogFormat, "log-format", env("KLONDIKE_LOG_FORMAT", "text"), "log format: text or json (env KLONDIKE_LOG_FORMAT)")
	fs.StringVar(&o.LogLevel, "log-level", env("KLONDIKE_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env KLONDIKE_LOG_LEVEL)")
	fs.DurationVar(&o.ShutdownGrace, "shutdown-grace", envDur("KLONDIKE_SHUTDOWN_GRACE", 10*time.Second), "how long a shutdown waits for connections to drain and matches to stop (env KLONDIKE_SHUTDOWN_GRACE)")
	fs.StringVar(&o.Proxies, "trusted-proxies", env("KLONDIKE_TRUSTED_PROXIES", ""), "comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client: the limits per address then count by the client's address; empty: none (env KLONDIKE_TRUSTED_PROXIES)")
	fs.StringVar(&o.PublicURL, "public-url", env("KLONDIKE_PUBLIC_URL", ""), "the URL players open, as their browsers show it (https://klondike.example, behind nginx the proxy's): passkeys are bound to its host name and accepted from its origin only; empty: http://localhost:PORT of --addr, where passkeys work only in a browser on this machine (env KLONDIKE_PUBLIC_URL)")
	fs.StringVar(&o.Origins, "allowed-origins", env("KLONDIKE_ALLOWED_ORIGINS", ""), "comma-separated extra WebSocket origins allowed besides the server's own host; * allows any (env KLONDIKE_ALLOWED_ORIGINS)")
	fs.IntVar(&o.Limits.MaxConnsPerIP, "max-conns-per-ip", envInt("KLONDIKE_MAX_CONNS_PER_IP", api.DefaultMaxConnsPerIP), "WebSocket connections allowed from one IP; negative: no cap (env KLONDIKE_MAX_CONNS_PER_IP)")
	fs.Int64Var(&o.Limits.ReadLimit, "read-limit", envInt64("KLONDIKE_READ_LIMIT", api.DefaultReadLimit), "largest WebSocket frame a client may send, in bytes; larger closes the connection (env KLONDIKE_READ_LIMIT)")
	fs.DurationVar(&o.Limits.HelloTimeout, "hello-timeout", envDur("KLONDIKE_HELLO_TIMEOUT", api.DefaultHelloTimeout), "time a new connection has to send hello (env KLONDIKE_HELLO_TIMEOUT)")
	fs.DurationVar(&o.Limits.PongWait, "pong-wait", envDur("KLONDIKE_PONG_WAIT", api.DefaultPongWait), "silence after which a connection is dropped; pings go out at 9/10 of it (env KLONDIKE_PONG_WAIT)")
	fs.DurationVar(&o.Limits.WriteWait, "write-wait", envDur("KLONDIKE_WRITE_WAIT", api.DefaultWriteWait), "time allowed to write one frame (env KLONDIKE_WRITE_WAIT)")
	fs.Int64Var(&o.Limits.SendBudget, "send-budget", envInt64("KLONDIKE_SEND_BUDGET", api.DefaultSendBudget), "bytes of outgoing messages, as encoded, queued for one client before it is dropped as slow (env KLONDIKE_SEND_BUDGET)")
	fs.IntVar(&o.Limits.SendQueue, "send-queue", envInt("KLONDIKE_SEND_QUEUE", api.DefaultSendQueue), "messages queued for one client before it is dropped as slow (env KLONDIKE_SEND_QUEUE)")
	fs.Float64Var(&o.Limits.MsgRate, "msg-rate", envFloat("KLONDIKE_MSG_RATE", api.DefaultMsgRate), "messages a second a client may send; beyond it rate_limited, and a flood closes; negative: no limit (env KLONDIKE_MSG_RATE)")
	fs.IntVar(&o.Limits.MsgBurst, "msg-burst", envInt("KLONDIKE_MSG_BURST", api.DefaultMsgBurst), "burst of messages allowed above the rate (env KLONDIKE_MSG_BURST)")
	fs.DurationVar(&o.HTTP.ReadHeaderTimeout, "http-read-header-timeout", envDur("KLONDIKE_HTTP_READ_HEADER_TIMEOUT", api.DefaultHTTPReadHeaderTimeout), "time a request has to send its headers; a slower one's connection is closed (env KLONDIKE_HTTP_READ_HEADER_TIMEOUT)")
	fs.DurationVar(&o.HTTP.ReadTimeout, "http-read-timeout", envDur("KLONDIKE_HTTP_READ_TIMEOUT", api.DefaultHTTPReadTimeout), "time a whole request, body included, has to arrive; a later one's connection is closed (env KLONDIKE_HTTP_READ_TIMEOUT)")
	fs.DurationVar(&o.HTTP.WriteTimeout, "http-write-timeout", envDur("KLONDIKE_HTTP_WRITE_TIMEOUT", api.DefaultHTTPWriteTimeout), "time from a request's headers to the end of its response, on every route but the WebSocket (env KLONDIKE_HTTP_WRITE_TIMEOUT)")
	fs.DurationVar(&o.HTTP.IdleTimeout, "http-idle-timeout", envDur("KLONDIKE_HTTP_IDLE_TIMEOUT", api.DefaultHTTPIdleTimeout), "time a keep-alive connection may wait for its next request (env KLONDIKE_HTTP_IDLE_TIMEOUT)")
	fs.IntVar(&o.HTTP.MaxHeaderBytes, "http-max-header-bytes", envInt("KLONDIKE_HTTP_MAX_HEADER_BYTES", api.DefaultHTTPMaxHeaderBytes), "largest request headers, in bytes; larger get 431 (env KLONDIKE_HTTP_MAX_HEADER_BYTES)")
	fs.IntVar(&o.HTTP.MaxConnsPerIP, "max-http-conns-per-ip", envInt("KLONDIKE_MAX_HTTP_CONNS_PER_IP", api.DefaultHTTPMaxConnsPerIP), "TCP connections allowed from one IP, every route and WebSocket ones included; more are answered 429 and closed; must exceed --max-conns-per-ip; negative: no cap (env KLONDIKE_MAX_HTTP_CONNS_PER_IP)")
	fs.DurationVar(&o.AbandonedAfter, "abandoned-after", envDur("KLONDIKE_ABANDONED_AFTER", lobby.DefaultAbandonedAfter), "an open match none of whose players has been connected for this long is closed and leaves the list (env KLONDIKE_ABANDONED_AFTER)")
	fs.IntVar(&o.MaxOpenMatches, "max-open-matches", envInt("KLONDIKE_MAX_OPEN_MATCHES", lobby.DefaultMaxOpen), "open matches this node holds at most, quick ones included; more are refused as unavailable; negative: no cap (env KLONDIKE_MAX_OPEN_MATCHES)")
	fs.IntVar(&o.MaxOpenMatchesPerIP, "max-open-matches-per-ip", envInt("KLONDIKE_MAX_OPEN_MATCHES_PER_IP", lobby.DefaultMaxOpenPerIP), "open matches made on this node by the players of one address; more are refused as rate_limited; negative: no cap (env KLONDIKE_MAX_OPEN_MATCHES_PER_IP)")
	fs.IntVar(&o.NewSessionsPerMinute, "new-sessions-per-minute", envInt("KLONDIKE_NEW_SESSIONS_PER_MINUTE", lobby.DefaultNewSessionsPerMinute), "new players (hello without a token) one address may start a minute; more are refused as rate_limited; negative: no limit (env KLONDIKE_NEW_SESSIONS_PER_MINUTE)")
	fs.IntVar(&o.WinnableWorkers, "winnable-workers", envInt("KLONDIKE_WINNABLE_WORKERS", dealpool.DefaultWorkers), "background solvers that keep deals proved winnable ready for matches with deals \"winnable\"; 0: none, such matches get unchecked deals, said so (env KLONDIKE_WINNABLE_WORKERS)")
	fs.StringVar(&o.DailyVariants, "daily-variants", env("KLONDIKE_DAILY_VARIANTS", "draw3,draw1"), "comma-separated variants of the daily rounds, one round each a UTC day: draw3 or draw1, optionally after a game (thumb_and_pouch-, whitehead-, double_klondike-) and before -vegas or -none (env KLONDIKE_DAILY_VARIANTS)")
	fs.IntVar(&o.ChallengesPerHour, "challenges-per-hour", envInt("KLONDIKE_CHALLENGES_PER_HOUR", challenge.DefaultChallengesPerHour), "challenges one player may make an hour; more are refused as rate_limited; negative: no limit (env KLONDIKE_CHALLENGES_PER_HOUR)")
	fs.IntVar(&o.MaxAttemptsPerPlayer, "max-attempts-per-player", envInt("KLONDIKE_MAX_ATTEMPTS_PER_PLAYER", challenge.DefaultMaxAttemptsPerPlayer), "attempts at challenges and daily rounds one player may have in play at once, across the nodes; more are refused as rate_limited; negative: no cap (env KLONDIKE_MAX_ATTEMPTS_PER_PLAYER)")
	fs.IntVar(&o.MaxAttemptsPerIP, "max-attempts-per-ip", envInt("KLONDIKE_MAX_ATTEMPTS_PER_IP", challenge.DefaultMaxAttemptsPerIP), "attempts the players of one address may have in play at once, across the nodes; more are refused as rate_limited; negative: no cap (env KLONDIKE_MAX_ATTEMPTS_PER_IP)")
	fs.IntVar(&o.MaxAttempts, "max-attempts", envInt("KLONDIKE_MAX_ATTEMPTS", challenge.DefaultMaxAttempts), "attempts in play this node holds at most; more are refused as unavailable; negative: no cap (env KLONDIKE_MAX_ATTEMPTS)")
	fs.IntVar(&o.DailyAttemptsPerIP, "daily-attempts-per-ip", envInt("KLONDIKE_DAILY_ATTEMPTS_PER_IP", challenge.DefaultDailyAttemptsPerIP), "players of one address who may play one daily round, a day's count across the nodes; more are refused as rate_limited; negative: no limit (env KLONDIKE_DAILY_ATTEMPTS_PER_IP)")
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: klondiked [flags]\n\nThe competitive Klondike server. Flags win over KLONDIKE_* environment variables.\n\nExamples:\n  klondiked --addr 127.0.0.1:8080\n  KLONDIKE_LOG_FORMAT=json klondiked\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if envErr != nil {
		return o, envErr
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if err := checkLimits(o); err != nil {
		return o, err
	}
	if o.RedisLinger < 0 || o.RedisLinger > time.Second {
		return o, fmt.Errorf("--redis-linger %v: want 0..1s", o.RedisLinger)
	}
	switch o.Durability {
	case backends.DurabilityLocal:
	case backends.DurabilityReplica:
		if o.RedisURL == "" {
			return o, errors.New("--durability replica needs --redis: the in-memory store keeps moves in this process only, with no replica")
		}
	default:
		return o, fmt.Errorf("--durability %q: want local or replica", o.Durability)
	}
	if o.WinnableWorkers < 0 || o.WinnableWorkers > 64 {
		return o, fmt.Errorf("--winnable-workers %d: want 0..64", o.WinnableWorkers)
	}
	for _, v := range strings.Split(o.DailyVariants, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		r, err := challenge.ParseVariant(v)
		if err != nil {
			return o, fmt.Errorf("--daily-variants: %w", err)
		}
		o.daily = append(o.daily, r)
	}
	if len(o.daily) == 0 {
		return o, errors.New("--daily-variants: name at least one variant")
	}
	for _, p := range strings.Split(o.Proxies, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			addr, aerr := netip.ParseAddr(p)
			if aerr != nil {
				return o, fmt.Errorf("--trusted-proxies: %q is neither an address nor a CIDR range", p)
			}
			prefix = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		o.Limits.TrustedProxies = append(o.Limits.TrustedProxies, prefix.Masked())
	}
	if o.PublicURL == "" {
		o.PublicURL = localURL(o.Addr)
	}
	if u, err := url.Parse(o.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || (u.Path != "" && u.Path != "/") {
		return o, fmt.Errorf("--public-url %q: want http(s)://host[:port], the address players open", o.PublicURL)
	}
	if o.Origins != "" {
		for _, s := range strings.Split(o.Origins, ",") {
			if s = strings.TrimSpace(s); s != "" {
				o.Limits.AllowedOrigins = append(o.Limits.AllowedOrigins, s)
			}
		}
	}
	return o, nil
}

// localURL is the public URL of a server listening on addr that names
// none: localhost, since a passkey's relying party is a host name, never
// an address.
func localURL(addr string) string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" || port == "80" {
		return "http://localhost"
	}
	return "http://localhost:" + port
}

// checkLimits refuses limits that make no sense. A zero one is its
// default.
func checkLimits(o Options) error {
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{"http-read-header-timeout", o.HTTP.ReadHeaderTimeout},
		{"http-read-timeout", o.HTTP.ReadTimeout},
		{"http-write-timeout", o.HTTP.WriteTimeout},
		{"http-idle-timeout", o.HTTP.IdleTimeout},
		{"abandoned-after", o.AbandonedAfter},
	} {
		if d.v < 0 {
			return fmt.Errorf("--%s %v: want a positive duration, or 0 for the default", d.flag, d.v)
		}
	}
	if n := o.HTTP.MaxHeaderBytes; n < 0 || n > http.DefaultMaxHeaderBytes {
		return fmt.Errorf("--http-max-header-bytes %d: want 0 (the default) to %d", n, http.DefaultMaxHeaderBytes)
	}
	if o.Limits.SendBudget < 0 {
		return fmt.Errorf("--send-budget %d: want a positive number of bytes, or 0 for the default", o.Limits.SendBudget)
	}
	// Every WebSocket connection is an HTTP connection too: a client with
	// all its WebSocket connections open must still be able to make requests.
	ws, all := o.Limits.WithDefaults().MaxConnsPerIP, o.HTTP.WithDefaults().MaxConnsPerIP
	if ws > 0 && all > 0 && all <= ws {
		return fmt.Errorf("--max-http-conns-per-ip %d: want more than --max-conns-per-ip %d, which counts against it", all, ws)
	}
	return nil
}

// openBackends returns the backends the options ask for: without --redis
// the memory ones of this process, else the Redis ones, which let several
// nodes serve the same players. A Redis that does not answer at start is
// not fatal: the server starts, /readyz says 503 until it does.
func openBackends(ctx context.Context, o Options, log *slog.Logger) (*backends.Backends, error) {
	bo := backends.Options{Prefix: o.RedisPrefix, TTL: o.RoundTTL, Linger: o.RedisLinger, Durability: o.Durability, Cluster: o.RedisCluster, Logger: log}
	if o.RedisLinger == 0 {
		bo.Linger = -1 // none (the Options' zero is the default)
	}
	b, err := backends.Open(ctx, o.RedisURL, bo)
	switch {
	case errors.Is(err, backends.ErrBadPrefix):
		return nil, fmt.Errorf("--redis-prefix: %w", err)
	case err != nil:
		return nil, fmt.Errorf("--redis: %w", err)
	}
	return b, nil
}

// readableDuration writes durations as people read them ("10s"): the JSON
// handler would write nanoseconds.
func readableDuration(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}

func newLogger(o Options, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.LogLevel)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", o.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: readableDuration}
	switch o.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", o.LogFormat)
}

// run starts the server and serves until ctx ends, then drains it. When
// ready is not nil it receives the listening address.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer, ready chan<- string) error {
	o, err := parseOptions(args, getenv, stderr)
	if err != nil {
		return err
	}
	log, err := newLogger(o, stderr)
	if err != nil {
		return err
	}
	st, err := openBackends(ctx, o, log)
	if err != nil {
		return err
	}
	defer st.Close()
	storeName := "memory"
	if o.RedisURL != "" {
		storeName = "redis"
	}
	// Match records, invite codes and players' current matches live as long
	// as the rounds' logs.
	mcfg := match.Config{RecordTTL: o.RoundTTL}
	if o.WinnableWorkers > 0 {
		// The default rules and the daily rounds' are warmed up first; a
		// rule set a match asks for is added when first asked for.
		pool := dealpool.New(ctx, dealpool.Config{Rules: append([]engine.Rules{engine.DefaultRules()}, o.daily...), Workers: o.WinnableWorkers})
		defer pool.Close()
		mcfg.Winnable = pool
	}
	srv := newServer(st, o, mcfg, log)
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		srv.Close()
		return err
	}
	if o.DebugAddr != "" {
		dln, err := net.Listen("tcp", o.DebugAddr)
		if err != nil {
			ln.Close()
			srv.Close()
			return fmt.Errorf("--debug-addr: %w", err)
		}
		ds, listen := api.NewHTTPServer(debugMux(), o.HTTP, nil)
		go func() { _ = ds.Serve(listen(dln)) }()
		defer ds.Close()
		log.Info("profiler listening", "addr", dln.Addr().String())
	}
	hs, listen := api.NewHTTPServer(srv, o.HTTP, srv.Metrics)
	hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(listen(ln)) }()
	log.Info("klondiked listening", "addr", ln.Addr().String(), "store", storeName, "durability", o.Durability, "version", version)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	select {
	case err := <-errc:
		srv.Close()
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", o.ShutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownGrace)
	defer cancel()
	// srv.Shutdown keeps the grace even while matches are stuck in calls to
	// a store that is down: it leaves them stopping, and the process ends
	// with them; every move they acknowledged is in the store already.
	werr := srv.Shutdown(sctx)
	herr := hs.Shutdown(sctx)
	err = errors.Join(werr, herr)
	switch {
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		return err
	case err != nil:
		log.Warn("the shutdown grace ended before every connection and match had stopped", "grace", o.ShutdownGrace)
	}
	log.Info("stopped")
	return nil
}

// newServer wires the server on the backends b: the metrics, the hub, the
// store counted into the metrics, the lobby, the challenge service, and the
// HTTP and WebSocket server in front of them. Close stops the server, the
// lobby and the service, and leaves b open. loadtest/embedded and
// api/servertest wire their servers the same way: keep the three in step.
func newServer(b *backends.Backends, o Options, mcfg match.Config, log *slog.Logger) *api.Server {
	m := api.NewMetrics(version)
	hub := api.NewHub(m)
	store := storemetrics.Wrap(b.Store, m.ObserveStore)
	// The lobby hands attempts and finished rounds to the challenge
	// service, made just after it, before any round can be asked for.
	var ch *challenge.Service
	l := lobby.New(lobby.Config{
		Store: store, Players: b.Players, Coord: b.Coord, Allowances: b.Allowances, Sink: hub, Logger: log, Match: mcfg,
		AbandonedAfter: o.AbandonedAfter, MaxOpen: o.MaxOpenMatches, MaxOpenPerIP: o.MaxOpenMatchesPerIP, NewSessionsPerMinute: o.NewSessionsPerMinute,
		OnRoundDealt: m.RoundsStarted.Inc, OnRoundOver: m.RoundsFinished.Inc, OnSignedOut: hub.SignedOut,
		Ratings: b.Ratings, OnRated: m.CountRated, OnQuickSeated: m.ObserveQuickSeated,
		AttemptRound:   func(ctx context.Context, id string) (*match.Round, error) { return ch.Round(ctx, id) },
		OnRoundResults: func(r *match.Round, results []match.Entry) { ch.CountRound(r, results) },
		OnDataLost:     func() { ch.DataLost() },
	})
	ch = challenge.New(l, challenge.Config{
		Challenges: b.Challenges, Records: b.Records, Allowances: b.Allowances, Store: store, Sink: hub, Winnable: mcfg.Winnable, Logger: log,
		DailyVariants: o.daily, ChallengesPerHour: o.ChallengesPerHour, OnEvent: m.CountChallengeEvent,
		MaxAttemptsPerPlayer: o.MaxAttemptsPerPlayer, MaxAttemptsPerIP: o.MaxAttemptsPerIP, MaxAttempts: o.MaxAttempts,
		DailyAttemptsPerIP: o.DailyAttemptsPerIP, Connected: hub.Connected,
	})
	return api.NewServer(api.Config{
		Lobby: l, Challenges: ch, Hub: hub, Metrics: m, Store: store,
		Hint: api.SolverHints(), Limits: o.Limits, PublicURL: o.PublicURL, Logger: log,
	})
}

// debugMux serves Go's profiler, as net/http/pprof registers it on the
// default mux, without touching the default mux.
func debugMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
