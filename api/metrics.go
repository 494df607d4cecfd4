package api

import (
	"net/http"
	"runtime"
	"time"

	"klondike/api/ws"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"klondike/lobby/storemetrics"
)

// Metrics holds every Prometheus collector of the server. Names start with
// "klondike_", values are in base units (seconds, bytes), and no label ever
// holds an id (player, match, round): label values come from small fixed sets.
//
// A Metrics is always made with NewMetrics: the hub and the service use
// its fields without nil checks, and NewHub panics on a nil *Metrics. The
// WebSocket transport counts through transport(). Tests make their own
// with NewMetrics("test").
type Metrics struct {
	// Registry holds all of the below plus the Go and process collectors.
	Registry *prometheus.Registry

	Connections     prometheus.Gauge   // klondike_connections: open WebSocket connections
	Players         prometheus.Gauge   // klondike_connected_players: players with a connection
	MessagesIn      prometheus.Counter // klondike_messages_received_total: client data frames
	MessagesOut     prometheus.Counter // klondike_messages_sent_total: server messages written
	SlowDisconnects prometheus.Counter // klondike_slow_disconnects_total: closed for a full send queue (messages or bytes)
	RateLimited     prometheus.Counter // klondike_rate_limited_total: connections that went over their message rate, control frames included (once each)

	// Rejected counts refused connections and upgrades by reason: origin,
	// ip_cap and shutdown (WebSocket upgrades), http_ip_cap (any route).
	Rejected *prometheus.CounterVec // klondike_connections_rejected_total{reason}

	// Moves counts moves by result: accepted, duplicate, or the wire error
	// code that refused it.
	Moves       *prometheus.CounterVec // klondike_moves_total{result}
	MoveSeconds prometheus.Histogram   // klondike_move_duration_seconds

	RoundsStarted  prometheus.Counter // klondike_rounds_started_total
	RoundsFinished prometheus.Counter // klondike_rounds_finished_total

	// Challenges counts the events of challenges by kind (challenge,
	// daily) and event: created (a round made by this node), started (an
	// attempt), finished (an attempt put on its board by this node).
	Challenges *prometheus.CounterVec // klondike_async_events_total{kind,event}

	StoreSeconds *prometheus.HistogramVec // klondike_store_operation_duration_seconds{op}
	StoreErrors  *prometheus.CounterVec   // klondike_store_errors_total{op}

	// RatedRounds counts the rated rounds this node rated, by result:
	// rated (ratings changed) or unrated (the round rated nobody).
	RatedRounds *prometheus.CounterVec // klondike_rated_rounds_total{result}
	// QuickWait and QuickSpread observe a rated quick match as another
	// player is seated in it: how long it had waited, and how far apart
	// its players' ratings are (highest less lowest).
	QuickWait   prometheus.Histogram // klondike_quick_wait_seconds
	QuickSpread prometheus.Histogram // klondike_quick_rating_spread
}

// The fixed label values, made present (at zero) from the start so that
// rates and alerts work before the first event.
var (
	rejectReasons = []string{"origin", "ip_cap", "shutdown", "http_ip_cap"}
	moveResults   = []string{"accepted", "illegal_move", "out_of_order", "round_not_running",
		"unavailable", "bad_request", "internal", "duplicate"}
)

// NewMetrics makes and registers every collector on a fresh Registry, with
// the Go runtime and process collectors and klondike_build_info{version,
// goversion} set to 1; an empty version is reported as "dev".
func NewMetrics(version string) *Metrics {
	if version == "" {
		version = "dev"
	}
	reg := prometheus.NewRegistry()
	f := func(c prometheus.Collector) prometheus.Collector { reg.MustRegister(c); return c }
	m := &Metrics{
		Registry: reg,
		Connections: f(prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "klondike_connections", Help: "Open WebSocket connections.",
		})).(prometheus.Gauge),
		Players: f(prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "klondike_connected_players", Help: "Players with an open connection.",
		})).(prometheus.Gauge),
		MessagesIn: f(prometheus.NewCounter(prometheus.CounterOpts{
			Name: "klondike_messages_received_total", Help: "WebSocket data frames received from clients.",
		})).(prometheus.Counter),
		MessagesOut: f(prometheus.NewCounter(prometheus.CounterOpts{
			Name: "klondike_messages_sent_total", Help: "WebSocket messages written to clients.",
		})).(prometheus.Counter),
		SlowDisconnects: f(prometheus.NewCounter(prometheus.CounterOpts{
			Name: "klondike_slow_disconnects_total", Help: "Connections closed because their send queue overflowed, in messages or in bytes.",
		})).(prometheus.Counter),
		RateLimited: f(prometheus.NewCounter(prometheus.CounterOpts{
			Name: "klondike_rate_limited_total", Help: "Connections that went over their message rate, counted once each.",
		})).(prometheus.Counter),
		Rejected: f(prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "klondike_connections_rejected_total", Help: "Connections and WebSocket upgrades refused, by reason.",
		}, []string{"reason"})).(*prometheus.CounterVec),
		Moves: f(prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "klondike_moves_total", Help: "Moves handled, by result.",
		}, []string{"result"})).(*prometheus.CounterVec),
		MoveSeconds: f(prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "klondike_move_duration_seconds",
			Help:    "Time to handle one move message, from decoding to reply.",
			Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		})).(prometheus.Histogram),
		RoundsStarted: f(prometheus.NewCounter(prometheus.CounterOpts{
			Name: "klondike_rounds_started_total", Help: "Rounds started.",
		})).(prometheus.Counter),
		RoundsFinished: f(prometheus.NewCounter(prometheus.CounterOpts{
			Name: "klondike_rounds_finished_total", Help: "Rounds finished.",
		})).(prometheus.Counter),
		Challenges: f(prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "klondike_async_events_total", Help: "Events of asynchronous rounds (challenges, the daily deal), by kind and event: created, started (an attempt), finished (an attempt on its board).",
		}, []string{"kind", "event"})).(*prometheus.CounterVec),
		StoreSeconds: f(prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "klondike_store_operation_duration_seconds",
			Help:    "Duration of store operations, by operation.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"op"})).(*prometheus.HistogramVec),
		StoreErrors: f(prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "klondike_store_errors_total", Help: "Failed store operations, by operation.",
		}, []string{"op"})).(*prometheus.CounterVec),
		RatedRounds: f(prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "klondike_rated_rounds_total", Help: "Rated rounds over, by result: rated (ratings changed) or unrated (the round rated nobody).",
		}, []string{"result"})).(*prometheus.CounterVec),
		// The window opens to anyone after lobby.RatedMaxWait; the buckets
		// reach past it to show the waits that run over.
		QuickWait: f(prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "klondike_quick_wait_seconds",
			Help:    "How long a rated quick match had waited when another player was seated in it.",
			Buckets: []float64{.1, .25, .5, 1, 2.5, 5, 10, 15, 20, 25, 30, 45, 60},
		})).(prometheus.Histogram),
		// The window starts at lobby.RatedWindow and widens by
		// lobby.RatedWiden a second: the top bucket is a match seated
		// near the end of the wait.
		QuickSpread: f(prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "klondike_quick_rating_spread",
			Help:    "The spread of a rated quick match's players' ratings (highest less lowest) when another player was seated in it.",
			Buckets: []float64{0, 25, 50, 100, 150, 200, 300, 400, 500, 700, 1000},
		})).(prometheus.Histogram),
	}
	for _, r := range rejectReasons {
		m.Rejected.WithLabelValues(r)
	}
	for _, r := range moveResults {
		m.Moves.WithLabelValues(r)
	}
	for _, op := range storemetrics.Ops {
		m.StoreErrors.WithLabelValues(op)
	}
	for _, r := range []string{"rated", "unrated"} {
		m.RatedRounds.WithLabelValues(r)
	}
	for _, kind := range []string{"challenge", "daily"} {
		for _, ev := range []string{"created", "started", "finished"} {
			m.Challenges.WithLabelValues(kind, ev)
		}
	}
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "klondike_build_info", Help: "Always 1; the labels tell the build.",
	}, []string{"version", "goversion"})
	build.WithLabelValues(version, runtime.Version()).Set(1)
	reg.MustRegister(build,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// transport is what the WebSocket transport counts, in m's collectors.
func (m *Metrics) transport() ws.Metrics {
	return ws.Metrics{
		Connections: m.Connections, MessagesIn: m.MessagesIn, MessagesOut: m.MessagesOut,
		SlowDisconnects: m.SlowDisconnects, RateLimited: m.RateLimited,
		Rejected: func(reason string) { m.Rejected.WithLabelValues(reason).Inc() },
	}
}

// RegisterMatchGauges exports klondike_matches{state="open"|"running"},
// read from open and running at each scrape. Call it once; the functions
// must be safe for concurrent use and must not block.
func (m *Metrics) RegisterMatchGauges(open, running func() float64) {
	for _, g := range []struct {
		state string
		f     func() float64
	}{{"open", open}, {"running", running}} {
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "klondike_matches",
			Help:        "Matches, by state.",
			ConstLabels: prometheus.Labels{"state": g.state},
		}, g.f))
	}
}

// Handler serves the registry in the Prometheus exposition format
// (GET /metrics).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// CountChallengeEvent counts one event of the challenges (a challenge.Config's
// OnEvent).
func (m *Metrics) CountChallengeEvent(kind, event string) {
	m.Challenges.WithLabelValues(kind, event).Inc()
}

// CountRated counts a rated round over (a lobby.Config's OnRated): rated
// when it changed ratings, unrated when it rated nobody.
func (m *Metrics) CountRated(rated bool) {
	result := "unrated"
	if rated {
		result = "rated"
	}
	m.RatedRounds.WithLabelValues(result).Inc()
}

// ObserveQuickSeated records a rated quick match seating another player
// (a lobby.Config's OnQuickSeated): its wait and its ratings' spread.
func (m *Metrics) ObserveQuickSeated(wait time.Duration, spread float64) {
	m.QuickWait.Observe(wait.Seconds())
	m.QuickSpread.Observe(spread)
}

// ObserveStore records one store operation (a storemetrics.Observer):
// its duration, and a failure.
func (m *Metrics) ObserveStore(op string, seconds float64, failed bool) {
	m.StoreSeconds.WithLabelValues(op).Observe(seconds)
	if failed {
		m.StoreErrors.WithLabelValues(op).Inc()
	}
}
