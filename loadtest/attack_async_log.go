package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

// attempt-resume: one player's attempt grows a long move log (draws and
// recycles of an unlimited-pass game, which never end it), then one
// connection resumes the attempt (start_attempt) at the message rate while
// an honest player measures its move round trip.

// logConns are the player's connections that play the log in turn: each
// keeps under its own message budget, so the log grows faster than one
// connection may send. A player keeps up to 8 at once.
const logConns = 8

// maxAttemptTries bounds the challenges tried when an attempt ends before
// its log is long (a deal stuck from the start).
const maxAttemptTries = 3

// resumeResult is what attempt-resume saw.
type resumeResult struct {
	Target int `json:"moves_target"`
	// Moves are the moves acknowledged: the log's length.
	Moves  int     `json:"moves_acknowledged"`
	BuildS float64 `json:"build_s"`
	// Stopped says why the log stopped growing: the target, the time, the
	// server's refusal (its code and message) or the attempt's end.
	Stopped   string         `json:"stopped"`
	Refused   tally          `json:"refused"`
	Rate      float64        `json:"resumes_a_second_sent"`
	Sent      int            `json:"resumes_sent"`
	Answered  int            `json:"resumes_answered"`
	Replies   tally          `json:"resume_replies"`
	Latency   latencySummary `json:"resume_latency"`
	ReplySize int            `json:"resume_reply_bytes"`
	Server    []serverPhase  `json:"server"`
	Honest    honestPhases   `json:"honest"`
}

// attemptResume builds an attempt of up to --attack-count moves within
// --attack-wait, then, after --duration of quiet, resumes it --attack-rate
// times a second for --duration.
func attemptResume(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	r := &resumeResult{Target: ac.Count, Refused: tally{}, Replies: tally{}, Rate: ac.Rate}
	src := attackAddr(4) // an address of its own: the other attacks use the first ones
	c, token, why := t.newPlayerFrom(ctx, src, "", "longlog")
	if why != "" {
		return nil, errors.New(why)
	}
	defer c.close()
	conns := []*wsClient{c}
	defer func() {
		for _, o := range conns[1:] {
			o.close()
		}
	}()
	for range logConns - 1 {
		o, err := t.resumeFrom(ctx, src, token)
		if err != nil {
			r.Refused[refusal("hello with the token", err)]++
			break
		}
		conns = append(conns, o)
	}

	var roundID string
	var rules engine.Rules
	var view engine.View
	seq := 1
	for try := 0; ; try++ {
		if try == maxAttemptTries {
			return nil, errors.New("no attempt stayed in play: " + r.Refused.String())
		}
		id, err := c.createChallenge(3, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", protocol.TypeCreateChallenge, err)
		}
		m, err := c.startAttempt(id)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", protocol.TypeStartAttempt, err)
		}
		if m.View.Status == engine.Playing {
			roundID, rules, view, seq = m.RoundID, *m.Rules, *m.View, m.LastSeq+1
			break
		}
	}

	t.logf("attempt-resume: building a log of up to %d moves over %d connections, for %v at most", ac.Count, len(conns), ac.Wait)
	start := time.Now()
	until := start.Add(ac.Wait)
	pacers := make([]*pacer, len(conns))
	for i := range pacers {
		pacers[i] = newPacer(attemptRate)
	}
	r.Stopped = "the target"
	buf := make([]engine.Move, 0, 64)
	for k := 0; r.Moves < ac.Count; k++ {
		i := k % len(conns)
		if !pacers[i].wait(ctx, until) {
			r.Stopped = "the time (--attack-wait)"
			break
		}
		var mv engine.Move
		var ok bool
		if mv, ok, buf = cycleMove(&view, rules, buf); !ok {
			r.Stopped = "no draw or recycle left"
			break
		}
		id, err := conns[i].send(&protocol.Move{Type: protocol.TypeMove, RoundID: roundID, Seq: seq, Move: mv.String()})
		if err != nil {
			r.Stopped = "a connection failed: " + describeEnd(err)
			break
		}
		m, _, err := conns[i].await(func(m *inMsg) bool { return m.Re == id })
		if err != nil {
			r.Stopped = refusal(protocol.TypeMove, err)
			break
		}
		if m.Type == protocol.TypeMoveRejected {
			r.Refused[fmt.Sprintf("move: %s: %s", m.Code, m.Reason)]++
			if m.Code == protocol.CodeOutOfOrder && m.Expected > 0 {
				seq = m.Expected
				continue
			}
			r.Stopped = fmt.Sprintf("refused at move %d: %s: %s", seq, m.Code, m.Reason)
			break
		}
		if m.Type != protocol.TypeMoveOK || m.View == nil {
			r.Stopped = "an answer that is not move_ok: " + m.Type
			break
		}
		view, seq = *m.View, m.Seq+1
		r.Moves = m.Seq
		if view.Status != engine.Playing {
			r.Stopped = "the attempt ended: " + string(view.Status)
			break
		}
		if r.Moves%10000 == 0 {
			t.logf("attempt-resume: %d moves", r.Moves)
		}
	}
	r.BuildS = time.Since(start).Seconds()
	for _, o := range conns[1:] {
		o.close()
	}
	conns = conns[:1]
	t.logf("attempt-resume: %d moves in %.0f s (stopped: %s); quiet %v, then resumes for %v", r.Moves, r.BuildS, r.Stopped, ac.Duration, ac.Duration)

	names := []string{"quiet", "during the resumes"}
	h, err := startHonest(ctx, t, 2*ac.Duration+time.Minute, names...)
	if err != nil {
		return nil, err
	}
	clock := t.startPhases(ctx)
	sleepCtx(ctx, ac.Duration)
	r.Server = append(r.Server, clock.end(ctx, names[0]))
	h.set(1)
	rc, err := t.resumeFrom(ctx, src, token)
	if err != nil {
		h.finish()
		return nil, fmt.Errorf("the resuming connection: %w", err)
	}
	rs := resumeFlood(ctx, rc, asyncRoundOf(roundID), ac.Rate, ac.Duration)
	rc.close()
	r.Server = append(r.Server, clock.end(ctx, names[1]))
	r.Honest = h.finish()
	r.Sent, r.Answered, r.Replies, r.ReplySize = rs.sent, rs.answered, rs.replies, rs.size
	r.Latency = rs.hist.Summary()
	return r, nil
}

// asyncRoundOf is the asynchronous round of an attempt's round id
// (<round id>.<player id>).
func asyncRoundOf(attempt string) string {
	for i := len(attempt) - 1; i >= 0; i-- {
		if attempt[i] == '.' {
			return attempt[:i]
		}
	}
	return attempt
}

// cycleMove is a draw, or a recycle when the stock is empty: moves that
// never end an unlimited-pass game; false when neither is legal.
func cycleMove(v *engine.View, rules engine.Rules, buf []engine.Move) (engine.Move, bool, []engine.Move) {
	buf = v.LegalMoves(rules, buf[:0])
	for _, mv := range buf {
		if mv.Kind == engine.Draw || mv.Kind == engine.Recycle {
			return mv, true, buf
		}
	}
	return engine.Move{}, false, buf
}

// floodFigures are what one connection's start_attempt flood got back.
type floodFigures struct {
	sent, answered int
	replies        tally
	size           int
	hist           histogram
}

// resumeFlood sends start_attempt for round at rate a second for d, without
// waiting for answers, and times each answer from its sending.
func resumeFlood(ctx context.Context, c *wsClient, round string, rate float64, d time.Duration) *floodFigures {
	f := &floodFigures{replies: tally{}}
	var mu sync.Mutex
	pending := map[string]time.Time{}
	sending := true
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		for {
			c.ws.SetReadDeadline(time.Now().Add(attackIO))
			_, data, err := c.ws.ReadMessage()
			if err != nil {
				mu.Lock()
				if len(pending) > 0 {
					f.replies["connection: "+describeEnd(err)]++
				}
				mu.Unlock()
				return
			}
			var m inMsg
			if json.Unmarshal(data, &m) != nil || m.Re == "" {
				continue
			}
			mu.Lock()
			if at, ok := pending[m.Re]; ok {
				delete(pending, m.Re)
				f.hist.Record(time.Since(at))
				f.answered++
				if m.Type == protocol.TypeError {
					f.replies[m.Type+": "+m.Code+": "+m.Message]++
				} else {
					f.replies[m.Type]++
					f.size = max(f.size, len(data))
				}
			}
			done := !sending && len(pending) == 0
			mu.Unlock()
			if done {
				return
			}
		}
	}()
	p := newPacer(rate)
	until := time.Now().Add(d)
	for p.wait(ctx, until) {
		mu.Lock()
		pending[strconv.Itoa(c.next+1)] = time.Now()
		mu.Unlock()
		if _, err := c.send(&protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: round}); err != nil {
			break
		}
		f.sent++
	}
	mu.Lock()
	sending = false
	idle := len(pending) == 0
	mu.Unlock()
	if idle {
		c.ws.SetReadDeadline(time.Now())
	}
	<-readDone
	return f
}

func (r *resumeResult) lines() []string {
	l := []string{
		fmt.Sprintf("log: %d moves acknowledged (target %d) in %.1f s over %d connections of one player; stopped by %s",
			r.Moves, r.Target, r.BuildS, logConns, r.Stopped),
	}
	if len(r.Refused) > 0 {
		l = append(l, fmt.Sprintf("refused while building: %s", r.Refused))
	}
	l = append(l,
		fmt.Sprintf("resumes (start_attempt) at %.0f a second from one connection: %d sent, %d answered: %s",
			r.Rate, r.Sent, r.Answered, r.Replies),
		fmt.Sprintf("resume latency (ms): p50 %.3f p99 %.3f max %.3f; the largest answer %d bytes",
			r.Latency.P50Ms, r.Latency.P99Ms, r.Latency.MaxMs, r.ReplySize),
		"server by phase:")
	for _, ph := range r.Server {
		l = append(l, "  "+ph.String())
	}
	return append(l, r.Honest.lines()...)
}
