package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
	"klondike/engine"
)

// ping-flood: connections that send ping frames as fast as they can, while
// an honest player plays a solo round and measures its move round trip.

// honestThink is the honest player's pause between a move's answer and its
// next move: well under the default message rate.
const honestThink = 25 * time.Millisecond

// pingFloodResult is what ping-flood saw.
type pingFloodResult struct {
	Conns     int   `json:"conns"`
	Connected int   `json:"connected"`
	Refused   tally `json:"refused"`
	CountEach int   `json:"pings_a_connection"`
	PingsSent int64 `json:"pings_sent"`
	Pongs     int64 `json:"pongs_received"`
	// PongsInFlood are the pongs received while the pings were sent.
	PongsInFlood int64   `json:"pongs_during_flood"`
	FloodS       float64 `json:"flood_s"`
	PongsPerSec  float64 `json:"pongs_per_second"`
	Ends         tally   `json:"ends"`
	// ServerCores is the server's CPU during the flood, in cores.
	ServerCores float64 `json:"server_cpu_cores"`
	Honest      honestFigures
}

// honestFigures are the honest player's move round trips, before and
// during the flood.
type honestFigures struct {
	Before   latencySummary `json:"before_flood"`
	During   latencySummary `json:"during_flood"`
	Rejected tally          `json:"rejected,omitempty"`
	Error    string         `json:"error,omitempty"`
}

// pingFlood plays an honest solo round for the quiet time, then floods from
// --attack-conns connections, each sending --attack-count pings at most
// for --duration at most, and reports the pongs and the honest player's
// round trip meanwhile.
func pingFlood(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	r := &pingFloodResult{Conns: ac.Conns, CountEach: ac.Count, Refused: tally{}, Ends: tally{}}
	h, err := newHonest(ctx, t, ac.quiet+ac.Duration+30*time.Second)
	if err != nil {
		return nil, fmt.Errorf("the honest player: %w", err)
	}
	honestDone := make(chan struct{})
	go func() { defer close(honestDone); h.play(ctx) }()

	var floods []*flooder
	for range ac.Conns {
		c, err := t.dialWS(ctx, 0)
		if err != nil {
			r.Refused[refusal("connect", err)]++
			continue
		}
		// A ping needs no session: a refused hello is noted, and the
		// connection floods all the same.
		var we *wireError
		if err := c.hello("flood"); errors.As(err, &we) {
			r.Refused[refusal(protocol.TypeHello, err)]++
		} else if err != nil {
			r.Refused[refusal(protocol.TypeHello, err)]++
			c.ws.Close()
			continue
		}
		floods = append(floods, &flooder{c: c, readDone: make(chan struct{})})
	}
	r.Connected = len(floods)
	select {
	case <-ctx.Done():
	case <-time.After(ac.quiet):
	}

	t.logf("ping-flood: %d connections, %d pings each at most, for %v at most", len(floods), ac.Count, ac.Duration)
	m0, _ := t.metrics(ctx)
	h.phase.Store(phaseDuring)
	start := time.Now()
	until := start.Add(ac.Duration)
	var wg sync.WaitGroup
	for _, f := range floods {
		go f.read()
		wg.Go(func() { f.flood(ctx, ac.Count, until) })
	}
	wg.Wait()
	r.FloodS = time.Since(start).Seconds()
	h.phase.Store(phaseOver)
	for _, f := range floods {
		r.PongsInFlood += f.pongs.Load()
	}
	if m1, err := t.metrics(ctx); err == nil && m0 != nil {
		r.ServerCores = (m1.cpu() - m0.cpu()) / r.FloodS
	}
	for _, f := range floods {
		wg.Go(func() { f.finish() })
	}
	wg.Wait()
	for _, f := range floods {
		r.PingsSent += f.sent
		r.Pongs += f.pongs.Load()
		r.Ends[f.how]++
	}
	r.PongsPerSec = float64(r.PongsInFlood) / max(r.FloodS, 1e-9)
	<-honestDone
	r.Honest = h.figures()
	return r, nil
}

// A flooder is one connection sending pings.
type flooder struct {
	c        *wsClient
	sent     int64
	pongs    atomic.Int64
	readErr  error // set before readDone closes
	readDone chan struct{}
	how      string
}

// read counts the pongs until the connection ends.
func (f *flooder) read() {
	defer close(f.readDone)
	f.c.ws.SetPongHandler(func(string) error { f.pongs.Add(1); return nil })
	for {
		if _, _, err := f.c.ws.ReadMessage(); err != nil {
			f.readErr = err
			return
		}
	}
}

// flood sends up to count pings until until, or until a write fails.
func (f *flooder) flood(ctx context.Context, count int, until time.Time) {
	for f.sent < int64(count) && ctx.Err() == nil {
		now := time.Now()
		if !now.Before(until) {
			return
		}
		if f.c.ws.WriteControl(websocket.PingMessage, nil, now.Add(attackIO)) != nil {
			return
		}
		f.sent++
	}
}

// finish waits a little for the last pongs, or for the server's close,
// and then closes the connection, recording how it ended.
func (f *flooder) finish() {
	select {
	case <-f.readDone:
		f.how = "closed by the server: " + describeEnd(f.readErr)
	case <-time.After(attackSettle):
		f.how = "open after the flood"
		f.c.close()
		<-f.readDone
	}
	f.c.ws.Close()
}

func (r *pingFloodResult) lines() []string {
	h := r.Honest
	l := []string{
		fmt.Sprintf("flood: %d connections of %d (refused: %s), up to %d pings each: %d pings sent in %.2f s, %d pongs received",
			r.Connected, r.Conns, r.Refused, r.CountEach, r.PingsSent, r.FloodS, r.Pongs),
		fmt.Sprintf("pongs a second during the flood: %.0f (all connections); server CPU then: %.0f%% of a core",
			r.PongsPerSec, r.ServerCores*100),
		fmt.Sprintf("ends: %s", r.Ends),
		fmt.Sprintf("honest player's move round trip (ms), solo round: before the flood p50 %.3f p99 %.3f (n=%d); during p50 %.3f p99 %.3f (n=%d)",
			h.Before.P50Ms, h.Before.P99Ms, h.Before.Count, h.During.P50Ms, h.During.P99Ms, h.During.Count),
	}
	if h.During.Count == 0 {
		l = append(l, "  (no honest move was answered while the flood lasted)")
	}
	if len(h.Rejected) > 0 {
		l = append(l, fmt.Sprintf("  honest moves refused: %s", h.Rejected))
	}
	if h.Error != "" {
		l = append(l, "  honest player stopped: "+h.Error)
	}
	return append(l, "  (the flood runs in this process too: on a small machine it competes with the server for CPU)")
}

// The honest player's phases.
const (
	phaseBefore int32 = iota
	phaseDuring
	phaseOver
)

// honest is a player in a solo round who plays legal moves and times
// their answers.
type honest struct {
	c        *wsClient
	rules    engine.Rules
	view     engine.View
	roundID  string
	seq      int
	phase    atomic.Int32
	hist     [2]histogram
	rejected tally
	err      error
	rng      *rand.Rand
	limit    int // the rounds' time limit, in seconds
	games    int // the games played: a game that ends starts another
}

// newHonest connects a player, creates a match for one and starts it, and
// waits for its round.
func newHonest(ctx context.Context, t *target, length time.Duration) (*honest, error) {
	c, err := t.dialWS(ctx, 0)
	if err != nil {
		return nil, err
	}
	h := &honest{c: c, rejected: tally{}, rng: rand.New(rand.NewPCG(1, 2)), limit: min(int(length.Seconds())+1, 10800)}
	if err := c.hello("honest"); err != nil {
		c.close()
		return nil, fmt.Errorf("%s: %w", protocol.TypeHello, err)
	}
	if err := h.newGame(); err != nil {
		c.close()
		return nil, err
	}
	return h, nil
}

// newGame creates a match for one, starts it and waits for its round: the
// honest player's game. A random deal can end (won, or stuck) before the
// flood does, and the player then plays on in a new one.
func (h *honest) newGame() error {
	c := h.c
	fail := func(step string, err error) error { return fmt.Errorf("%s: %w", step, err) }
	settings := protocol.PartialSettings{MaxPlayers: new(1), CountdownS: new(0), TimeLimitS: new(h.limit)}
	m, _, err := c.call(&protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: settings})
	if err != nil {
		return fail(protocol.TypeCreateMatch, err)
	}
	if m.Match == nil {
		return fail(protocol.TypeCreateMatch, errors.New("a reply without a match"))
	}
	// round_started may come before start_match's reply: wait for either
	// it or the reply's error.
	id, err := c.send(&protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: m.Match.ID})
	if err != nil {
		return fail(protocol.TypeStartMatch, err)
	}
	rs, _, err := c.await(func(m *inMsg) bool {
		return m.Type == protocol.TypeRoundStarted || m.Re == id && m.Type == protocol.TypeError
	})
	if err != nil {
		return fail(protocol.TypeStartMatch, err)
	}
	if rs.View == nil || rs.Rules == nil {
		return fail(protocol.TypeRoundStarted, errors.New("no view or rules"))
	}
	h.rules, h.view, h.roundID, h.seq = *rs.Rules, *rs.View, rs.RoundID, rs.LastSeq+1
	h.games++
	return nil
}

// play sends moves until the flood is over or a move fails, then leaves.
func (h *honest) play(ctx context.Context) {
	defer h.c.close()
	buf := make([]engine.Move, 0, 64)
	for ctx.Err() == nil {
		phase := h.phase.Load()
		if phase == phaseOver {
			return
		}
		var rtt time.Duration
		var err error
		if rtt, buf, err = h.move(buf); err != nil {
			h.err = err
			return
		}
		if rtt > 0 {
			h.hist[phase].Record(rtt)
			time.Sleep(honestThink)
		}
	}
}

// move plays one legal move and returns its round trip (0 when none was
// sent). A game with no legal move left, or that ended, or whose round
// ended, is followed by a new one: the player plays on.
func (h *honest) move(buf []engine.Move) (time.Duration, []engine.Move, error) {
	mv, ok, buf := pickMove(&h.view, h.rules, h.rng, buf)
	if !ok {
		if err := h.newGame(); err != nil {
			return 0, buf, fmt.Errorf("a new game: %w", err)
		}
		return 0, buf, nil
	}
	sent := time.Now()
	id, err := h.c.send(&protocol.Move{Type: protocol.TypeMove, RoundID: h.roundID, Seq: h.seq, Move: mv.String()})
	if err != nil {
		return 0, buf, err
	}
	m, _, err := h.c.await(func(m *inMsg) bool { return m.Re == id })
	rtt := time.Since(sent)
	var we *wireError
	switch {
	case errors.As(err, &we):
		h.rejected[we.Code]++
	case err != nil:
		return rtt, buf, err
	case m.Type == protocol.TypeMoveOK && m.View != nil:
		h.view, h.seq = *m.View, m.Seq+1
		if h.view.Status != engine.Playing {
			if err := h.newGame(); err != nil {
				return rtt, buf, fmt.Errorf("a new game after one ended: %w", err)
			}
		}
	case m.Type == protocol.TypeMoveRejected:
		h.rejected[m.Code]++
		if m.Code == protocol.CodeOutOfOrder && m.Expected > 0 {
			h.seq = m.Expected
		}
		if m.Code == protocol.CodeRoundNotRunning {
			if err := h.newGame(); err != nil {
				return rtt, buf, fmt.Errorf("a new game after the round ended: %w", err)
			}
		}
	}
	return rtt, buf, nil
}

func (h *honest) figures() honestFigures {
	f := honestFigures{Before: h.hist[phaseBefore].Summary(), During: h.hist[phaseDuring].Summary(), Rejected: h.rejected}
	if h.err != nil {
		f.Error = h.err.Error()
	}
	return f
}

// pickMove chooses one of the view's legal moves at random, weighted by
// kind as the bots choose (kindWeight).
func pickMove(v *engine.View, rules engine.Rules, rng *rand.Rand, buf []engine.Move) (engine.Move, bool, []engine.Move) {
	buf = v.LegalMoves(rules, buf[:0])
	total := 0
	for _, mv := range buf {
		if int(mv.Kind) < len(kindWeight) {
			total += kindWeight[mv.Kind]
		}
	}
	if total == 0 {
		return engine.Move{}, false, buf
	}
	x := rng.IntN(total)
	for _, mv := range buf {
		if int(mv.Kind) < len(kindWeight) {
			if x -= kindWeight[mv.Kind]; x < 0 {
				return mv, true, buf
			}
		}
	}
	return engine.Move{}, false, buf
}
