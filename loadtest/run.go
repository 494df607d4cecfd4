package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"klondike/engine"
	"klondike/loadtest/embedded"
)

const (
	dialTimeout = 10 * time.Second
	httpTimeout = 10 * time.Second
	// exitGrace bounds how long bots take to go once the drain is over.
	exitGrace = 5 * time.Second
)

// runner holds what the bots of one run share.
type runner struct {
	cfg      config
	echo     bool
	wsURL    string
	httpBase string
	dialer   *websocket.Dialer
	http     *http.Client
	c        *counters
	total    *histogram
	step     atomic.Pointer[histogram] // the sweep step's, or nil
	think    atomic.Int64              // the bots' think time now (the sweep changes it)
	stop     chan struct{}             // closed at the end of the run: the bots drain
	redis    *embedded.Redis           // the embedded server's Redis store, or nil

	echoRules engine.Rules
	echoView  engine.View

	groupsMu sync.Mutex
	groups   map[int]*group

	recMu   sync.Mutex
	records []*roundRecord
}

// thinkNow is the bots' think time now.
func (r *runner) thinkNow() time.Duration { return time.Duration(r.think.Load()) }

// record adds a move's round trip.
func (r *runner) record(d time.Duration) {
	r.total.Record(d)
	if h := r.step.Load(); h != nil {
		h.Record(d)
	}
}

// execute runs one load test (or one baseline) and reports it. Progress
// notes go to logw. Its steps are the run's outline: start the target,
// read the figures before, ramp the bots up, hold the load, drain the
// bots, read the figures after, check the replays and tally the report.
func execute(ctx context.Context, cfg config, logw io.Writer) (*Report, error) {
	r := newRunner(cfg)
	rep := newReport(&cfg)
	rep.OpenFiles = raiseFileLimit()
	warnFileLimit(&cfg, rep.OpenFiles, logw)

	stopTarget, err := r.startTarget()
	if err != nil {
		return nil, err
	}
	defer stopTarget()
	rep.Target = r.wsURL

	info, closeInfo, err := r.redisInfoClient()
	if err != nil {
		return nil, err
	}
	defer closeInfo()
	before, err := r.readBefore(ctx, rep, info, logw)
	if err != nil {
		return nil, err
	}
	stopProfiles, err := startProfiles(&cfg)
	if err != nil {
		return nil, err
	}
	defer stopProfiles()

	t0 := time.Now()
	bots := r.startBots(t0)
	defer bots.cancel()
	win := r.hold(ctx, t0, rep, logw)
	if cfg.Idle {
		rep.Idle = r.measureIdle(ctx, before.proc, logw)
	}
	r.drain(ctx, bots, logw)
	end := time.Now()

	after := r.readAfter(ctx, rep, info, before, logw)
	if cfg.MemProfile != "" && !cfg.Idle {
		writeHeapProfile(cfg.MemProfile)
	}
	if cfg.Verify && !r.echo {
		rep.Check = r.verify(ctx)
	}
	// An idle keep-alive of the runner's own would hold the embedded
	// server's shutdown until its idle wait ends.
	r.http.CloseIdleConnections()
	stopTarget()
	r.tally(rep, t0, end, win, before, after)
	return rep, nil
}

// newRunner makes the runner of one run, its WebSocket dialer and HTTP
// client bound to loopback.
func newRunner(cfg config) *runner {
	r := &runner{
		cfg: cfg, echo: cfg.Baseline, c: newCounters(), total: &histogram{},
		stop: make(chan struct{}), groups: map[int]*group{},
		http: &http.Client{Timeout: httpTimeout, Transport: &http.Transport{
			DialContext: loopbackDial, MaxIdleConnsPerHost: verifyWorkers, Proxy: nil,
		}},
	}
	r.think.Store(int64(cfg.Think))
	r.dialer = &websocket.Dialer{
		NetDialContext: loopbackDial, HandshakeTimeout: dialTimeout,
		ReadBufferSize: 1024, WriteBufferSize: 1024, WriteBufferPool: &sync.Pool{},
	}
	return r
}

// warnFileLimit says when the open files allowed are too few for the bots.
func warnFileLimit(cfg *config, fl fileLimit, logw io.Writer) {
	if need := uint64(cfg.Players)*fdsPerBot(cfg) + 64; fl.Soft > 0 && need > fl.Soft {
		fmt.Fprintf(logw, "loadtest: warning: %d bots need about %d open files, the limit is %d: some connections will fail\n",
			cfg.Players, need, fl.Soft)
	}
}

// fdsPerBot is the open files one bot needs in this process.
func fdsPerBot(cfg *config) uint64 {
	if cfg.Server != "" {
		return 1
	}
	return 2 // the bot's socket and the in-process server's
}

// startTarget starts what the bots play against: the echo server for a
// baseline (or --server's echo), --server, or the embedded server. The
// returned function stops it once, however often it is called.
func (r *runner) startTarget() (stop func(), err error) {
	cfg := &r.cfg
	var stopTarget func()
	switch {
	case cfg.Baseline:
		r.echoRules = echoRules(cfg)
		var raw json.RawMessage
		if raw, r.echoView, err = echoPosition(r.echoRules); err != nil {
			return nil, err
		}
		if cfg.Server != "" { // an echo server of its own (--echo-listen)
			if err = checkLoopbackURL(cfg.Server, "ws"); err == nil {
				r.wsURL, stopTarget = cfg.Server, func() {}
			}
		} else {
			r.wsURL, stopTarget, err = startEcho("127.0.0.1:0", raw, nil)
		}
	case cfg.Server != "":
		if err = checkLoopbackURL(cfg.Server, "ws"); err == nil {
			r.wsURL, stopTarget = cfg.Server, func() {}
		}
	default:
		r.wsURL, r.redis, stopTarget, err = startEmbedded(cfg)
	}
	if err != nil {
		return nil, err
	}
	r.httpBase = "http" + strings.TrimSuffix(strings.TrimPrefix(r.wsURL, "ws"), "/ws")
	return sync.OnceFunc(stopTarget), nil
}

// A fleet is the run's bots and the ramp that starts them.
type fleet struct {
	wg     sync.WaitGroup     // the ramp and every bot it started
	cancel context.CancelFunc // closes the bots still running
}

// startBots starts the ramp: bot i starts at t0 + ramp·i/players, unless
// the run stops first.
func (r *runner) startBots(t0 time.Time) *fleet {
	cfg := &r.cfg
	botCtx, cancelBots := context.WithCancel(context.Background())
	bots := &fleet{cancel: cancelBots}
	bots.wg.Add(1)
	go func() {
		defer bots.wg.Done()
		t := time.NewTimer(0)
		defer t.Stop()
		for i := range cfg.Players {
			if cfg.Players > 1 {
				at := t0.Add(time.Duration(float64(cfg.Ramp) * float64(i) / float64(cfg.Players)))
				t.Reset(time.Until(at))
				select {
				case <-t.C:
				case <-r.stop:
					return
				}
			}
			bots.wg.Add(1)
			go func() {
				defer bots.wg.Done()
				// The label tells the bots' samples from the server's in a
				// CPU profile of an in-process run (pprof -tagignore role=bot).
				pprof.Do(botCtx, pprof.Labels("role", "bot"), func(ctx context.Context) {
					newBot(r, i).run(ctx)
				})
			}()
		}
	}()
	return bots
}

// A window is the stretch of the run whose acknowledged moves make its
// throughput: from the end of the ramp (or the start) until the drain.
type window struct {
	start, end           time.Time
	ackedStart, ackedEnd int64
}

// hold keeps the load on for the duration, or runs the sweep, and returns
// the throughput's window.
func (r *runner) hold(ctx context.Context, t0 time.Time, rep *Report, logw io.Writer) window {
	cfg := &r.cfg
	var w window
	if cfg.Sweep {
		rep.Sweep = r.sweep(ctx, t0, logw)
		w.start = t0
	} else {
		if cfg.Ramp < cfg.Duration && sleepUntil(ctx, t0.Add(cfg.Ramp)) {
			w.start, w.ackedStart = time.Now(), r.c.movesAcked.Load()
		} else {
			w.start = t0
		}
		sleepUntil(ctx, t0.Add(cfg.Duration))
	}
	w.end, w.ackedEnd = time.Now(), r.c.movesAcked.Load()
	return w
}

// sleepUntil waits until at, and reports false when ctx ends first.
func sleepUntil(ctx context.Context, at time.Time) bool {
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// drain ends the load: the bots resign and wait for their rounds to end,
// within Drain; the bots still running then are closed and have exitGrace
// to go.
func (r *runner) drain(ctx context.Context, bots *fleet, logw io.Writer) {
	close(r.stop)
	done := make(chan struct{})
	go func() { bots.wg.Wait(); close(done) }()
	drain := time.NewTimer(r.cfg.Drain)
	select {
	case <-done:
	case <-drain.C:
		fmt.Fprintf(logw, "loadtest: the drain took longer than %v; closing the remaining bots\n", r.cfg.Drain)
	case <-ctx.Done():
	}
	drain.Stop()
	bots.cancel()
	select {
	case <-done:
	case <-time.After(exitGrace):
		r.c.fail("exit", "bots still running after the drain")
	}
}
