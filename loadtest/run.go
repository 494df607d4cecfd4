package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"klondike/engine"
)

// How bots find their matches and what they do after one.
const (
	joinQuick    = "quick"
	joinCode     = "code"
	afterRematch = "rematch"
	afterRequeue = "requeue"
	afterQuit    = "quit"
)

const (
	dialTimeout   = 10 * time.Second
	httpTimeout   = 10 * time.Second
	verifyTimeout = 60 * time.Second
	verifyWorkers = 4
	// maxWarmup bounds the sweep's wait for the bots' first rounds.
	maxWarmup = 30 * time.Second
	// exitGrace bounds how long bots take to go once the drain is over.
	exitGrace = 5 * time.Second
)

// config is a run's settings: the flags.
type config struct {
	Players, PerMatch int
	Join, After       string
	Think             time.Duration
	Jitter            float64
	OpenLoop          bool
	Ramp, Duration    time.Duration
	Drain             time.Duration
	LobbyWait         time.Duration
	RematchSpread     time.Duration
	Draw, Passes      int
	TimeLimitS        int
	CountdownS        int
	Rounds            int
	MaxMoves          int
	Deal              string
	Seed              uint64

	Server   string
	Embedded bool
	Redis    string
	// NoGroupCommit turns the Redis store's group commit off: each append
	// a round trip of its own (the store before group commit).
	NoGroupCommit bool
	// NoCoord keeps the matches' records, the lobby's indexes and the bus
	// in the server's process with --redis: only the store and the
	// sessions are in Redis (the wiring before the Coord, for comparison).
	NoCoord bool
	// RedisInfo is an external server's Redis (--redis-info), whose INFO
	// the run reads before and after; with Redis the run reads its own.
	RedisInfo string
	MsgRate   float64
	ServerLog string

	Baseline     bool
	WithBaseline bool
	EchoListen   string
	// EchoRedis is the Redis the --echo-listen server logs each move to
	// before it answers (--echo-redis): the baseline of a durable move.
	EchoRedis string

	// Idle bots only connect and say hello, then answer pings until the
	// end: the server's memory a connection.
	Idle bool

	Sweep       bool
	SweepSteps  int
	SweepStep   time.Duration
	SweepFactor float64
	SweepP99    time.Duration

	Verify     bool
	JSON       bool
	CPUProfile string
	MemProfile string
	Trace      string
}

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
	redis    *redisTarget              // the embedded server's Redis store, or nil

	echoRules engine.Rules
	echoView  engine.View

	groupsMu sync.Mutex
	groups   map[int]*group

	recMu   sync.Mutex
	records []*roundRecord
}

func (r *runner) thinkNow() time.Duration { return time.Duration(r.think.Load()) }

// record adds a move's round trip.
func (r *runner) record(d time.Duration) {
	r.total.Record(d)
	if h := r.step.Load(); h != nil {
		h.Record(d)
	}
}

// A roundRecord is what one bot had acknowledged in one round.
type roundRecord struct {
	roundID  string
	playerID string
	moves    []ackedMove
	over     bool // the bot saw the round end
}

type ackedMove struct {
	seq  int32
	move engine.Move
}

func (r *runner) addRecord(rec *roundRecord) {
	r.recMu.Lock()
	r.records = append(r.records, rec)
	r.recMu.Unlock()
}

// A group is the bots that play one match in code mode: the first creates
// it and publishes its invite code; the others join with it.
type group struct {
	host, size int
	mu         sync.Mutex
	entries    map[int]*codeEntry // by match generation
}

type codeEntry struct {
	done chan struct{}
	code string
	once sync.Once
}

func (r *runner) groupOf(idx int) *group {
	gi := idx / r.cfg.PerMatch
	r.groupsMu.Lock()
	defer r.groupsMu.Unlock()
	g := r.groups[gi]
	if g == nil {
		host := gi * r.cfg.PerMatch
		g = &group{host: host, size: min(r.cfg.PerMatch, r.cfg.Players-host), entries: map[int]*codeEntry{}}
		r.groups[gi] = g
	}
	return g
}

func (g *group) entry(gen int) *codeEntry {
	g.mu.Lock()
	defer g.mu.Unlock()
	e := g.entries[gen]
	if e == nil {
		e = &codeEntry{done: make(chan struct{})}
		g.entries[gen] = e
	}
	return e
}

func (g *group) publish(gen int, code string) {
	e := g.entry(gen)
	e.once.Do(func() {
		e.code = code
		close(e.done)
	})
}

// execute runs one load test (or one baseline) and reports it. Progress
// notes go to logw.
func execute(ctx context.Context, cfg config, logw io.Writer) (*Report, error) {
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
	rep := newReport(&cfg)
	rep.OpenFiles = raiseFileLimit()
	if need := uint64(cfg.Players)*fdsPerBot(&cfg) + 64; rep.OpenFiles.Soft > 0 && need > rep.OpenFiles.Soft {
		fmt.Fprintf(logw, "loadtest: warning: %d bots need about %d open files, the limit is %d: some connections will fail\n",
			cfg.Players, need, rep.OpenFiles.Soft)
	}

	var stopTarget func()
	var err error
	switch {
	case cfg.Baseline:
		r.echoRules = echoRules(&cfg)
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
		r.wsURL, r.redis, stopTarget, err = startEmbedded(&cfg)
	}
	if err != nil {
		return nil, err
	}
	stopped := false
	stopOnce := func() {
		if !stopped {
			stopped = true
			stopTarget()
		}
	}
	defer stopOnce()
	rep.Target = r.wsURL
	r.httpBase = "http" + strings.TrimSuffix(strings.TrimPrefix(r.wsURL, "ws"), "/ws")

	external := cfg.Server != ""
	sample := func() procSample {
		if external {
			sctx, cancel := context.WithTimeout(ctx, httpTimeout)
			defer cancel()
			s, err := scrape(sctx, r.http, r.httpBase+"/metrics")
			if err != nil {
				fmt.Fprintf(logw, "loadtest: reading the server's /metrics: %v\n", err)
			}
			return s
		}
		return selfSample()
	}
	rep.CPUs, rep.LoadBefore = runtime.NumCPU(), loadAverage()
	clientBefore, _ := selfCPU()
	before := sample()
	var redisBefore int64
	if r.redis != nil {
		redisBefore = r.redis.commands()
	}
	info, closeInfo, err := r.redisInfoClient()
	if err != nil {
		return nil, err
	}
	defer closeInfo()
	var infoBefore redisInfo
	if info != nil {
		if infoBefore, err = readRedisInfo(ctx, info); err != nil {
			return nil, fmt.Errorf("reading Redis's INFO: %w", err)
		}
	}

	if cfg.CPUProfile != "" {
		f, err := os.Create(cfg.CPUProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	if cfg.Trace != "" {
		f, err := os.Create(cfg.Trace)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return nil, err
		}
		defer trace.Stop()
	}

	t0 := time.Now()
	botCtx, cancelBots := context.WithCancel(context.Background())
	defer cancelBots()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the ramp: bot i starts at t0 + ramp·i/players
		defer wg.Done()
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
			wg.Add(1)
			go func() {
				defer wg.Done()
				// The label tells the bots' samples from the server's in a
				// CPU profile of an in-process run (pprof -tagignore role=bot).
				pprof.Do(botCtx, pprof.Labels("role", "bot"), func(ctx context.Context) {
					newBot(r, i).run(ctx)
				})
			}()
		}
	}()

	sleepUntil := func(at time.Time) bool {
		t := time.NewTimer(time.Until(at))
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var windowStart time.Time
	var ackedStart int64
	if cfg.Sweep {
		rep.Sweep = r.sweep(ctx, t0, logw)
		windowStart = t0
	} else {
		if cfg.Ramp < cfg.Duration && sleepUntil(t0.Add(cfg.Ramp)) {
			windowStart, ackedStart = time.Now(), r.c.movesAcked.Load()
		} else {
			windowStart = t0
		}
		sleepUntil(t0.Add(cfg.Duration))
	}
	windowEnd, ackedEnd := time.Now(), r.c.movesAcked.Load()
	if cfg.Idle {
		// Every bot is connected and idle: the server's memory now, less
		// before, is what the connections hold.
		held := sample()
		rep.Idle = &idleReport{Welcomed: r.c.welcomed.Load(), Held: held}
		if cfg.MemProfile != "" {
			// With every bot connected: where the connections' memory is.
			writeHeapProfile(cfg.MemProfile)
		}
		if n := rep.Idle.Welcomed; n > 0 && held.OK && before.OK {
			rep.Idle.RSSPerConn = (held.RSSBytes - before.RSSBytes) / float64(n)
			rep.Idle.HeapPerConn = (held.HeapInuse - before.HeapInuse) / float64(n)
			rep.Idle.StackPerConn = (held.StackInuse - before.StackInuse) / float64(n)
			rep.Idle.GoroutinesPerConn = (held.Goroutines - before.Goroutines) / float64(n)
		}
	}
	close(r.stop)

	// The drain: bots resign and wait for their rounds to end, within Drain.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	drain := time.NewTimer(cfg.Drain)
	select {
	case <-done:
	case <-drain.C:
		fmt.Fprintf(logw, "loadtest: the drain took longer than %v; closing the remaining bots\n", cfg.Drain)
	case <-ctx.Done():
	}
	drain.Stop()
	cancelBots()
	select {
	case <-done:
	case <-time.After(exitGrace):
		r.c.fail("exit", "bots still running after the drain")
	}
	end := time.Now()
	after := sample()
	if r.redis != nil || info != nil {
		rep.Redis = &redisReport{}
	}
	acked := float64(r.c.movesAcked.Load())
	if r.redis != nil {
		rep.Redis.Commands = r.redis.commands() - redisBefore
		if acked > 0 {
			rep.Redis.PerMove = float64(rep.Redis.Commands) / acked
		}
	}
	if info != nil {
		if infoAfter, err := readRedisInfo(ctx, info); err != nil {
			fmt.Fprintf(logw, "loadtest: reading Redis's INFO after the run: %v\n", err)
		} else {
			rep.Redis.CPUSeconds = infoAfter.CPUSeconds - infoBefore.CPUSeconds
			rep.Redis.Reads = infoAfter.Reads - infoBefore.Reads
			if acked > 0 {
				rep.Redis.CPUPerMoveUs = rep.Redis.CPUSeconds * 1e6 / acked
				rep.Redis.ReadsPerMove = float64(rep.Redis.Reads) / acked
			}
		}
	}
	clientAfter, _ := selfCPU()
	rep.LoadAfter = loadAverage()
	rep.Goroutines = goroutines()

	if cfg.MemProfile != "" && !cfg.Idle {
		writeHeapProfile(cfg.MemProfile)
	}

	if cfg.Verify && !r.echo {
		rep.Check = r.verify(ctx)
	}
	stopOnce()

	// The report.
	c := r.c
	refused, unexpected, samples, rounds := c.snapshot()
	rep.Elapsed = end.Sub(t0).Seconds()
	rep.Connections = connReport{Opened: c.connsOpened.Load(), Failed: c.connsFailed.Load(), Dropped: c.connsDropped.Load()}
	rep.Rounds.Started = c.roundsStarted.Load()
	rep.Rounds.Completed = rounds
	rep.Lobby = lobbyReport{MatchesJoined: c.matchesJoined.Load(), Retries: c.lobbyRetries.Load(),
		Timeouts: c.lobbyTimeouts.Load(), Resigns: c.resigns.Load()}
	rep.Moves = movesReport{Sent: c.movesSent.Load(), Acked: c.movesAcked.Load(), Duplicate: c.movesDuplicate.Load(),
		Retried: c.movesRetried.Load(), Refused: refused}
	rep.Latency = r.total.Summary()
	rep.Window = windowEnd.Sub(windowStart).Seconds()
	if rep.Window > 0 {
		rep.MovesPerSec = float64(ackedEnd-ackedStart) / rep.Window
	}
	rep.Leaderboards = c.leaderboards.Load()
	rep.MoveOKSlow = c.moveOKSlow.Load()
	rep.Errors = errorsReport{IllegalStale: c.illegalStale.Load(), ByKind: unexpected, Samples: samples}
	for _, v := range unexpected {
		rep.Errors.Unexpected += v
	}
	rep.ServerStats = serverReport{Before: before, After: after}
	wall := end.Sub(t0).Seconds()
	switch {
	case external && !r.echo:
		rep.ServerStats.Source = "the server's /metrics (process_cpu_seconds_total, process_resident_memory_bytes)"
	case external:
		rep.ServerStats.Source = "the echo server's /metrics (its own process, --echo-listen)"
	case r.echo:
		rep.ServerStats.Source = "this process (getrusage, /proc/self/statm): the echo server and the bots share it"
	default:
		rep.ServerStats.Source = "this process (getrusage, /proc/self/statm): the embedded server and the bots share it"
	}
	if before.OK && after.OK {
		rep.ServerStats.CPUSeconds = after.CPUSeconds - before.CPUSeconds
		rep.ServerStats.CPUCores = rep.ServerStats.CPUSeconds / wall
		if rep.Moves.Acked > 0 {
			rep.ServerStats.CPUPerMoveUs = rep.ServerStats.CPUSeconds / float64(rep.Moves.Acked) * 1e6
		}
		if external && !r.echo {
			rep.ServerStats.AcceptedByServer = after.Moves["accepted"] - before.Moves["accepted"]
		}
	}
	rep.ClientCPUSeconds = (clientAfter - clientBefore).Seconds()
	// A run that played no move checked nothing: it fails too (an --idle
	// run plays none by design).
	rep.OK = rep.Errors.Unexpected == 0 && rep.Check.Lost == 0 && rep.Check.Doubled == 0 &&
		rep.Check.Mismatched == 0 && rep.Connections.Failed == 0 &&
		(rep.Idle == nil || rep.Idle.Welcomed == int64(cfg.Players)) &&
		(rep.Idle != nil || rep.Moves.Acked > 0)
	return rep, nil
}

// writeHeapProfile writes a heap profile after a collection, so that its
// in-use figures are up to date.
func writeHeapProfile(name string) {
	runtime.GC()
	if f, err := os.Create(name); err == nil {
		_ = pprof.WriteHeapProfile(f)
		f.Close()
	}
}

// echoRules are the rules of the echo baseline's games.
func echoRules(cfg *config) engine.Rules {
	return engine.Rules{Draw: cfg.Draw, Passes: cfg.Passes, FoundationToTableau: true,
		Undo: engine.UndoNoReveal, Scoring: engine.ScoringStandard}
}

// serveEcho runs the echo server alone on addr (--echo-listen) for the
// duration, or until ctx ends, for a baseline in a process of its own:
// loadtest --baseline --server ws://ADDR/ws.
func serveEcho(ctx context.Context, cfg config, logw io.Writer) error {
	raw, _, err := echoPosition(echoRules(&cfg))
	if err != nil {
		return err
	}
	rep := fileLimitNote(raiseFileLimit())
	var log *echoLog
	if cfg.EchoRedis != "" {
		if log, err = openEchoLog(cfg.EchoRedis); err != nil {
			return err
		}
		defer log.close()
		rep += ", each move logged to " + cfg.EchoRedis + " under " + log.prefix
	}
	url, stop, err := startEcho(cfg.EchoListen, raw, log)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(logw, "loadtest: echo server at %s for %v (%s); bots: --baseline --server %s\n", url, cfg.Duration, rep, url)
	t := time.NewTimer(cfg.Duration)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

func fileLimitNote(fl fileLimit) string {
	if fl.Err != "" {
		return "open files: " + fl.Err
	}
	return fmt.Sprintf("open files: soft %d, hard %d", fl.Soft, fl.Hard)
}

// fdsPerBot is the open files one bot needs in this process.
func fdsPerBot(cfg *config) uint64 {
	if cfg.Server != "" {
		return 1
	}
	return 2 // the bot's socket and the in-process server's
}

// sweep raises the offered move rate step by step until a step's p99
// passes the limit, with open-loop bots: each move is due at a fixed
// interval and its latency counts from when it was due, so a server that
// falls behind shows its queueing.
func (r *runner) sweep(ctx context.Context, t0 time.Time, logw io.Writer) *sweepReport {
	cfg := &r.cfg
	sr := &sweepReport{P99LimitMs: float64(cfg.SweepP99) / float64(time.Millisecond)}
	wait := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if !wait(time.Until(t0.Add(cfg.Ramp))) {
		return sr
	}
	// Warm-up: until nine bots in ten play (or maxWarmup).
	warm := time.Now()
	for time.Since(warm) < maxWarmup {
		if r.c.roundsStarted.Load()*10 >= int64(cfg.Players)*9 {
			break
		}
		if !wait(100 * time.Millisecond) {
			return sr
		}
	}
	sr.WarmupS = time.Since(warm).Seconds()
	rate0 := float64(cfg.Players) / cfg.Think.Seconds()
	attempt := 1
	for k := 0; k < cfg.SweepSteps; k++ {
		target := rate0 * math.Pow(cfg.SweepFactor, float64(k))
		think := time.Duration(float64(cfg.Players) / target * float64(time.Second)).Round(time.Microsecond)
		r.think.Store(int64(think))
		h := &histogram{}
		r.step.Store(h)
		sent0, acked0, start := r.c.movesSent.Load(), r.c.movesAcked.Load(), time.Now()
		ok := wait(cfg.SweepStep)
		el := time.Since(start).Seconds()
		st := sweepStep{
			TargetRate: target, Think: think.String(),
			OfferedRate: float64(r.c.movesSent.Load()-sent0) / el,
			AckedRate:   float64(r.c.movesAcked.Load()-acked0) / el,
			Latency:     h.Summary(),
		}
		st.Held = st.Latency.Count > 0 && st.Latency.P99Ms < sr.P99LimitMs && st.AckedRate >= 0.9*st.OfferedRate
		st.Attempt = attempt
		sr.Steps = append(sr.Steps, st)
		fmt.Fprintf(logw, "loadtest: sweep step %d: target %.0f/s (think %v): offered %.0f/s, acked %.0f/s, p50 %.2f ms, p99 %.2f ms, held %v\n",
			k+1, target, think, st.OfferedRate, st.AckedRate, st.Latency.P50Ms, st.Latency.P99Ms, st.Held)
		if st.Held && st.AckedRate > sr.MaxHeldRate {
			sr.MaxHeldRate, sr.MaxHeldP99Ms = st.AckedRate, st.Latency.P99Ms
		}
		if !ok {
			break
		}
		if !st.Held {
			// The machine is shared: a step that fails is run once more
			// before the sweep stops, so that a burst of other work does
			// not end it.
			if attempt == 1 {
				attempt = 2
				k--
				continue
			}
			break
		}
		attempt = 1
	}
	r.step.Store(nil)
	return sr
}

// verify compares, for every bot and every round it played, the moves the
// server acknowledged to it with the round's replay log.
func (r *runner) verify(ctx context.Context) checkReport {
	var cr checkReport
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	r.recMu.Lock()
	byRound := map[string][]*roundRecord{}
	for _, rec := range r.records {
		byRound[rec.roundID] = append(byRound[rec.roundID], rec)
	}
	r.recMu.Unlock()
	ids := make([]string, 0, len(byRound))
	for id := range byRound {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var mu sync.Mutex
	detail := func(format string, a ...any) {
		if len(cr.Details) < maxSamples {
			cr.Details = append(cr.Details, fmt.Sprintf(format, a...))
		}
	}
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range verifyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range jobs {
				rep, status, err := r.fetchReplay(ctx, id)
				mu.Lock()
				recs := byRound[id]
				switch {
				case err != nil:
					cr.Unverified += len(recs)
					cr.FetchErrors++
					detail("round %s: %v", id, err)
				case status == http.StatusNotFound:
					cr.Unverified += len(recs) // not over (or forgotten): nothing to compare
				default:
					cr.Rounds++
					for _, rec := range recs {
						compareReplay(&cr, rec, rep, detail)
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, id := range ids {
		select {
		case jobs <- id:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	return cr
}

func (r *runner) fetchReplay(ctx context.Context, id string) (*replayIn, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.httpBase+"/api/v1/rounds/"+id+"/replay", nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil, resp.StatusCode, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode, fmt.Errorf("GET replay: %s", resp.Status)
	}
	var rep replayIn
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&rep); err != nil {
		return nil, resp.StatusCode, err
	}
	return &rep, resp.StatusCode, nil
}

// compareReplay checks one bot's acknowledged moves against the replay:
// an acknowledged seq missing from the log is lost, a seq logged twice or
// out of its place is doubled, a different move at an acknowledged seq is
// mismatched. Logged moves the bot never saw acknowledged (its connection
// ended with the move in flight) are only counted.
func compareReplay(cr *checkReport, rec *roundRecord, rep *replayIn, detail func(string, ...any)) {
	cr.Records++
	var log []struct {
		Seq  int    `json:"seq"`
		Move string `json:"move"`
	}
	found := false
	for _, p := range rep.Players {
		if p.PlayerID == rec.playerID {
			log, found = p.Moves, true
			break
		}
	}
	if !found {
		cr.Lost += int64(len(rec.moves))
		if len(rec.moves) > 0 {
			detail("round %s: player %s not in the replay, %d acknowledged moves", rec.roundID, rec.playerID, len(rec.moves))
		}
		return
	}
	bySeq := make(map[int]string, len(log))
	for i, e := range log {
		if _, dup := bySeq[e.Seq]; dup {
			cr.Doubled++
			detail("round %s player %s: seq %d logged twice", rec.roundID, rec.playerID, e.Seq)
			continue
		}
		if e.Seq != i+1 {
			cr.Doubled++
			detail("round %s player %s: log entry %d has seq %d", rec.roundID, rec.playerID, i+1, e.Seq)
		}
		bySeq[e.Seq] = e.Move
	}
	acked := make(map[int]bool, len(rec.moves))
	for _, a := range rec.moves {
		seq := int(a.seq)
		if acked[seq] {
			cr.Doubled++
			detail("round %s player %s: seq %d acknowledged twice", rec.roundID, rec.playerID, seq)
			continue
		}
		acked[seq] = true
		got, ok := bySeq[seq]
		if !ok {
			cr.Lost++
			detail("round %s player %s: acknowledged seq %d (%s) is not in the replay", rec.roundID, rec.playerID, seq, a.move)
			continue
		}
		if m, err := engine.ParseMove(got); err != nil || m.String() != a.move.String() {
			cr.Mismatched++
			detail("round %s player %s: seq %d acknowledged as %s, logged as %s", rec.roundID, rec.playerID, seq, a.move, got)
		}
	}
	for seq := range bySeq {
		if !acked[seq] {
			cr.RecordedNotAcked++
		}
	}
	cr.MovesChecked += int64(len(rec.moves))
}
