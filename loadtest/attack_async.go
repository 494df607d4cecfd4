package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
	"klondike/engine"
)

// The attacks on asynchronous rounds (challenges and the daily deal):
// attempts in bulk (bulk-attempts), a long move log resumed over and over
// (attempt-resume), challenges in bulk (bulk-challenges) and the daily deal
// probed with throwaway players (daily-probe). This file holds what they
// share and bulk-attempts.

// Bounds of the asynchronous attacks.
const (
	maxAttackAddrs      = 200              // source addresses, 127.0.0.2 on
	maxPlayersPerAddr   = 32               // new players one address makes for bulk-attempts
	maxChallengesPlayer = 200              // create_challenge one player sends before it gives up
	attemptRate         = 45               // messages a second of one attack connection: under the default budget
	asyncSetupBound     = 3 * time.Minute  // making players, challenges and attempts
	afterEarly          = 10 * time.Second // the first phase after the attacker leaves
	challengeLimitS     = 10800            // the longest time limit: attempts that live longest
)

// attackAddr is the n-th attacker's source address (0: 127.0.0.2): each a
// distinct client address to the server, on loopback's 127/8.
func attackAddr(n int) string {
	return fmt.Sprintf("127.0.0.%d", 2+n%250)
}

// dialWSFrom opens a WebSocket connection from the loopback address src
// (empty: the system's choice), to wsURL (empty: t's).
func (t *target) dialWSFrom(ctx context.Context, src, wsURL string) (*wsClient, error) {
	if wsURL == "" {
		wsURL = t.wsURL
	}
	var local net.Addr
	if src != "" {
		ip := net.ParseIP(src)
		if ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("source address %q: want a loopback IP", src)
		}
		local = &net.TCPAddr{IP: ip}
	}
	d := websocket.Dialer{
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if err := checkLoopbackHost(host); err != nil {
				return nil, err
			}
			nd := net.Dialer{Timeout: attackIO, LocalAddr: local}
			return nd.DialContext(ctx, "tcp", addr)
		},
		HandshakeTimeout: attackIO,
	}
	ws, resp, err := d.DialContext(ctx, wsURL, nil)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("upgrade refused: HTTP %s", resp.Status)
		}
		return nil, err
	}
	return &wsClient{ws: ws}, nil
}

// newPlayerFrom connects from src and says hello without a token: a new
// player. It returns the connection and the player's token, or what
// refused (the connection is then closed).
func (t *target) newPlayerFrom(ctx context.Context, src, wsURL, name string) (*wsClient, string, string) {
	c, err := t.dialWSFrom(ctx, src, wsURL)
	if err != nil {
		return nil, "", refusal("connect", err)
	}
	_, raw, err := c.call(&protocol.Hello{Type: protocol.TypeHello, Name: name})
	if err != nil {
		c.close()
		return nil, "", refusal(protocol.TypeHello, err)
	}
	var w protocol.Welcome
	_ = json.Unmarshal(raw, &w)
	return c, w.Token, ""
}

// resumeFrom connects from src and says hello with token.
func (t *target) resumeFrom(ctx context.Context, src, token string) (*wsClient, error) {
	c, err := t.dialWSFrom(ctx, src, "")
	if err != nil {
		return nil, err
	}
	if _, _, err := c.call(&protocol.Hello{Type: protocol.TypeHello, Token: token}); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// createChallenge makes a challenge with the longest time limit and the
// given passes (0: unlimited); it returns its id.
func (c *wsClient) createChallenge(draw, passes int) (string, error) {
	settings := protocol.PartialSettings{Draw: new(draw), Passes: new(passes), TimeLimitS: new(challengeLimitS)}
	raw, err := c.callRaw(&protocol.CreateChallenge{Type: protocol.TypeCreateChallenge, Settings: settings})
	if err != nil {
		return "", err
	}
	var ar protocol.AsyncRound
	if err := json.Unmarshal(raw, &ar); err != nil || ar.Round.RoundID == "" {
		return "", errors.New("an async_round without a round id")
	}
	return ar.Round.RoundID, nil
}

// startAttempt starts (or resumes) the player's attempt at round id.
func (c *wsClient) startAttempt(id string) (*inMsg, error) {
	m, _, err := c.call(&protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: id})
	if err != nil {
		return nil, err
	}
	if m.Type != protocol.TypeRoundStarted || m.View == nil || m.Rules == nil {
		return nil, fmt.Errorf("a %s reply without a view", m.Type)
	}
	return m, nil
}

// pacer spaces one connection's messages at a rate.
type pacer struct {
	every time.Duration
	next  time.Time
}

func newPacer(perSecond float64) *pacer {
	return &pacer{every: time.Duration(float64(time.Second) / max(perSecond, 0.01))}
}

// wait sleeps until the next message is due; false when ctx ended or the
// wait would pass until.
func (p *pacer) wait(ctx context.Context, until time.Time) bool {
	now := time.Now()
	if p.next.Before(now) {
		p.next = now
	}
	if p.next.After(until) {
		return false
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Until(p.next)):
	}
	p.next = p.next.Add(p.every)
	return true
}

// serverPhase is the server's CPU and memory over one phase of an attack,
// from its /metrics at the phase's start and end.
type serverPhase struct {
	Name       string  `json:"phase"`
	Seconds    float64 `json:"seconds"`
	CPUCores   float64 `json:"server_cpu_cores"`
	HeapMB     float64 `json:"heap_inuse_mb_at_end"`
	RSSMB      float64 `json:"rss_mb_at_end"`
	Goroutines float64 `json:"goroutines_at_end"`
	Error      string  `json:"error,omitempty"`
}

// phaseClock reads the server's metrics at each phase boundary.
type phaseClock struct {
	t    *target
	at   time.Time
	last serverMetrics
}

func (t *target) startPhases(ctx context.Context) *phaseClock {
	m, _ := t.metrics(ctx)
	return &phaseClock{t: t, at: time.Now(), last: m}
}

// end closes the phase that began at the last boundary.
func (p *phaseClock) end(ctx context.Context, name string) serverPhase {
	m, err := p.t.metrics(ctx)
	now := time.Now()
	ph := serverPhase{Name: name, Seconds: now.Sub(p.at).Seconds()}
	if err != nil || p.last == nil {
		ph.Error = fmt.Sprint("/metrics: ", err)
	} else {
		ph.CPUCores = (m.cpu() - p.last.cpu()) / max(ph.Seconds, 1e-9)
		ph.HeapMB, ph.RSSMB, ph.Goroutines = m.heap()/1e6, m.rss()/1e6, m["go_goroutines"]
	}
	p.at, p.last = now, m
	return ph
}

func (ph serverPhase) String() string {
	if ph.Error != "" {
		return fmt.Sprintf("%s (%.1f s): %s", ph.Name, ph.Seconds, ph.Error)
	}
	return fmt.Sprintf("%s (%.1f s): server CPU %.0f%% of a core, heap %.1f MB, RSS %.1f MB, %.0f goroutines at its end",
		ph.Name, ph.Seconds, ph.CPUCores*100, ph.HeapMB, ph.RSSMB, ph.Goroutines)
}

// phaseHonest is an honest player (see honest) whose move round trips are
// kept by phase of the attack; the phase is the index set with set.
type phaseHonest struct {
	*honest
	names []string
	cur   atomic.Int32
	hists []histogram
	stop  chan struct{}
	done  chan struct{}
}

// startHonest connects the honest player from 127.0.0.1 and starts its
// play; names are the phases, the first current. length bounds its game.
func startHonest(ctx context.Context, t *target, length time.Duration, names ...string) (*phaseHonest, error) {
	h, err := newHonest(ctx, t, length)
	if err != nil {
		return nil, fmt.Errorf("the honest player: %w", err)
	}
	ph := &phaseHonest{honest: h, names: names, hists: make([]histogram, len(names)),
		stop: make(chan struct{}), done: make(chan struct{})}
	go ph.play(ctx)
	return ph, nil
}

// set starts phase i.
func (ph *phaseHonest) set(i int) { ph.cur.Store(int32(i)) }

// play is honest.play with round trips kept by phase.
func (ph *phaseHonest) play(ctx context.Context) {
	defer close(ph.done)
	h := ph.honest
	defer h.c.close()
	buf := make([]engine.Move, 0, 64)
	for ctx.Err() == nil {
		select {
		case <-ph.stop:
			return
		default:
		}
		var rtt time.Duration
		var err error
		if rtt, buf, err = h.move(buf); err != nil {
			h.err = err
			return
		}
		if rtt > 0 {
			ph.hists[ph.cur.Load()].Record(rtt)
			time.Sleep(honestThink)
		}
	}
}

// finish stops the honest player and returns its figures by phase.
func (ph *phaseHonest) finish() honestPhases {
	close(ph.stop)
	<-ph.done
	f := honestPhases{Rejected: ph.rejected, Games: ph.games}
	for i, n := range ph.names {
		f.Phases = append(f.Phases, namedLatency{Phase: n, Latency: ph.hists[i].Summary()})
	}
	if ph.err != nil {
		f.Error = ph.err.Error()
	}
	return f
}

// honestPhases are the honest player's move round trips by phase.
type honestPhases struct {
	Phases   []namedLatency `json:"phases"`
	Games    int            `json:"games"`
	Rejected tally          `json:"rejected,omitempty"`
	Error    string         `json:"error,omitempty"`
}

type namedLatency struct {
	Phase   string         `json:"phase"`
	Latency latencySummary `json:"move_round_trip"`
}

// lines says the honest player's round trips, a phase a line.
func (f honestPhases) lines() []string {
	l := []string{fmt.Sprintf("honest player's move round trip (ms), solo rounds from 127.0.0.1, %d games:", f.Games)}
	for _, p := range f.Phases {
		l = append(l, fmt.Sprintf("  %s: p50 %.3f p99 %.3f max %.3f (n=%d)", p.Phase, p.Latency.P50Ms, p.Latency.P99Ms, p.Latency.MaxMs, p.Latency.Count))
	}
	if len(f.Rejected) > 0 {
		l = append(l, fmt.Sprintf("  honest moves refused: %s", f.Rejected))
	}
	if f.Error != "" {
		l = append(l, "  honest player stopped: "+f.Error)
	}
	return l
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// syncTally is a tally several goroutines add to.
type syncTally struct {
	mu sync.Mutex
	t  tally
}

func (s *syncTally) add(k string) {
	s.mu.Lock()
	if s.t == nil {
		s.t = tally{}
	}
	s.t[k]++
	s.mu.Unlock()
}

func (s *syncTally) get() tally {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := tally{}
	for k, v := range s.t {
		out[k] = v
	}
	return out
}

// bulkAttemptsResult is what bulk-attempts saw.
type bulkAttemptsResult struct {
	Addrs      []string `json:"addresses"`
	Players    int      `json:"players"`
	Challenges int      `json:"challenges"`
	Target     int      `json:"attempts_target"`
	Tried      int64    `json:"attempts_tried"`
	Started    int64    `json:"attempts_started"`
	// SetupS is from the first hello to the last attempt started; the
	// attacker then holds its attempts for HoldS, retrying, and leaves.
	SetupS   float64       `json:"attack_s"`
	HoldS    float64       `json:"hold_s"`
	Retries  int64         `json:"hold_retries"`
	Refused  tally         `json:"refused"`
	Server   []serverPhase `json:"server"`
	PeakHeap float64       `json:"peak_heap_mb"`
	PeakRSS  float64       `json:"peak_rss_mb"`
	Honest   honestPhases  `json:"honest"`
}

// bulkAttempts: from --attack-conns addresses (127.0.0.2 on), new players
// (as many as each address may make at once, up to maxPlayersPerAddr) make
// challenges until refused, then start attempts at them until
// --attack-count are started or every player is refused; then they stay
// connected with their attempts in play for --duration, each retrying
// start_attempt once a second, and leave. An honest player measures its
// move round trip before (--duration), during the burst, while the
// attacker holds, the first afterEarly after it left, and on until
// --attack-wait after it left.
func bulkAttempts(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	r := &bulkAttemptsResult{Target: ac.Count}
	names := []string{"quiet, before the attack", "the attacker's burst (players, challenges, attempts)",
		"the attacker holding its attempts, retrying", "first 10 s after the attacker left", "later, until --attack-wait after"}
	early := min(afterEarly, ac.Duration)
	later := max(ac.Wait-early, ac.Duration)
	h, err := startHonest(ctx, t, 2*ac.Duration+asyncSetupBound+early+later+time.Minute, names...)
	if err != nil {
		return nil, err
	}
	clock := t.startPhases(ctx)
	sleepCtx(ctx, ac.Duration)
	r.Server = append(r.Server, clock.end(ctx, names[0]))
	h.set(1)
	peak := t.watchMemory(ctx, time.Second)

	start := time.Now()
	until := start.Add(asyncSetupBound)
	refused := &syncTally{}
	type player struct {
		c   *wsClient
		src string
	}
	var players []*player
	for a := range min(ac.Conns, maxAttackAddrs) {
		src := attackAddr(a)
		r.Addrs = append(r.Addrs, src)
		for i := range maxPlayersPerAddr {
			c, _, why := t.newPlayerFrom(ctx, src, "", fmt.Sprintf("bulk%d", i))
			if why != "" {
				refused.add(why)
				break
			}
			players = append(players, &player{c: c, src: src})
		}
	}
	r.Players = len(players)
	t.logf("bulk-attempts: %d players from %d addresses; making challenges", len(players), ac.Conns)

	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	for _, p := range players {
		wg.Go(func() {
			pc := newPacer(attemptRate)
			for range maxChallengesPlayer {
				if !pc.wait(ctx, until) {
					return
				}
				id, err := p.c.createChallenge(3, 0)
				if err != nil {
					refused.add(refusal(protocol.TypeCreateChallenge, err))
					return
				}
				mu.Lock()
				ids = append(ids, id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.Challenges = len(ids)
	t.logf("bulk-attempts: %d challenges; starting up to %d attempts", len(ids), ac.Count)

	// Each player starts attempts at the challenges from its own offset,
	// one attempt a challenge, until the target is met; a player refused
	// maxRefusedInRow times in a row stops. A try first reserves one of
	// the target's attempts, so that they end at the target.
	var tried, reserved, started atomic.Int64
	for i, p := range players {
		wg.Go(func() {
			pc := newPacer(attemptRate)
			inRow := 0
			for k := range len(ids) {
				if inRow >= maxRefusedInRow || !pc.wait(ctx, until) {
					return
				}
				if reserved.Add(1) > int64(ac.Count) || tried.Add(1) > int64(2*ac.Count) {
					return
				}
				if _, err := p.c.startAttempt(ids[(i*37+k)%len(ids)]); err != nil {
					reserved.Add(-1)
					refused.add(refusal(protocol.TypeStartAttempt, err))
					inRow++
					if !isWire(err) {
						return
					}
					continue
				}
				inRow = 0
				started.Add(1)
			}
		})
	}
	wg.Wait()
	r.Tried, r.Started = min(tried.Load(), int64(2*ac.Count)), started.Load()
	r.SetupS = time.Since(start).Seconds()
	r.Server = append(r.Server, clock.end(ctx, names[1]))
	t.logf("bulk-attempts: %d attempts started in %.1f s; holding them for %s", r.Started, r.SetupS, ac.Duration)

	// The attacker keeps its attempts in play (their ghosts tick for a
	// connected player) and keeps asking for more, as a persistent one would.
	h.set(2)
	holdStart := time.Now()
	holdUntil := holdStart.Add(ac.Duration)
	var retries atomic.Int64
	for i, p := range players {
		if len(ids) == 0 {
			break
		}
		wg.Go(func() {
			pc := newPacer(1)
			for k := 0; pc.wait(ctx, holdUntil); k++ {
				retries.Add(1)
				if _, err := p.c.startAttempt(ids[(i*37+k+len(ids)/2)%len(ids)]); err != nil {
					refused.add(refusal(protocol.TypeStartAttempt, err))
					if !isWire(err) {
						return
					}
				}
			}
		})
	}
	wg.Wait()
	sleepCtx(ctx, time.Until(holdUntil))
	for _, p := range players {
		wg.Go(p.c.close)
	}
	wg.Wait()
	r.HoldS, r.Retries = time.Since(holdStart).Seconds(), retries.Load()
	r.Refused = refused.get()
	r.Server = append(r.Server, clock.end(ctx, names[2]))
	t.logf("bulk-attempts: %d retries while holding; the attacker left", r.Retries)

	h.set(3)
	sleepCtx(ctx, early)
	r.Server = append(r.Server, clock.end(ctx, names[3]))
	h.set(4)
	sleepCtx(ctx, later)
	r.Server = append(r.Server, clock.end(ctx, names[4]))
	heap, rss := peak.end()
	r.PeakHeap, r.PeakRSS = heap/1e6, rss/1e6
	r.Honest = h.finish()
	return r, nil
}

// isWire reports whether err is an error frame: the connection goes on.
func isWire(err error) bool {
	var we *wireError
	return errors.As(err, &we)
}

func (r *bulkAttemptsResult) lines() []string {
	l := []string{
		fmt.Sprintf("attacker: %d addresses (%s..%s), %d new players, %d challenges made",
			len(r.Addrs), first(r.Addrs), last(r.Addrs), r.Players, r.Challenges),
		fmt.Sprintf("attempts: %d started of %d tried (target %d) in %.1f s; held %.1f s with %d more tries, then every attacker connection left",
			r.Started, r.Tried, r.Target, r.SetupS, r.HoldS, r.Retries),
		fmt.Sprintf("refused: %s", r.Refused),
		fmt.Sprintf("server memory at its peak: heap %.1f MB, RSS %.1f MB", r.PeakHeap, r.PeakRSS),
		"server by phase:",
	}
	for _, ph := range r.Server {
		l = append(l, "  "+ph.String())
	}
	l = append(l, r.Honest.lines()...)
	return append(l, "  (the attacker runs in this process too: on a small machine it competes with the server for CPU)")
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}
