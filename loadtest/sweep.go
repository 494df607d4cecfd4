package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"
)

// maxWarmup bounds the sweep's wait for the bots' first rounds.
const maxWarmup = 30 * time.Second

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
