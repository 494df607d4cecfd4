package match

import (
	"context"
	"time"
)

const (
	// opTimeout bounds the store calls the match makes on its own (clock
	// events, leaderboards).
	opTimeout = 5 * time.Second
	// standardRefresh is how often a running standard-scored round's
	// leaderboard is sent even without moves: its time penalty grows every
	// 10 s.
	standardRefresh = 10 * time.Second
)

// idleTick is how often a match without a running round ticks, at most:
// for a reconcile asked for (Resync) and its clock's lease, not for
// leaderboards.
const idleTick = time.Second

// tickEvery is the period of the match's ticks: LeaderboardEvery while a
// round runs; otherwise half the interval of the reconcile and, when the
// match has a clock, of the node's liveness renewal and of the tries for a
// lease another node holds, so none slips by a whole period when a tick
// comes late. An idle match ticks rarely: with
// many matches on a node, the ticks' selects, timers and tick add up.
func (m *Match) tickEvery() time.Duration {
	if m.round != nil && m.st.State == StateRunning {
		return m.cfg.LeaderboardEvery
	}
	d := idleTick
	if m.st.TimerFor != "" {
		d = min(d, m.cfg.LeaseTTL/6) // both are due every LeaseTTL/3
	}
	return max(d, time.Millisecond)
}

// tickCtx returns the context of the store calls the match's ticks make
// (lease renewals, reconciles, leaderboards): one deadline of opTimeout,
// shared by the calls of the next opTimeout/2, so that at least half of it
// is left to each: a context with its own deadline for each call would
// start a runtime timer on every tick of every match. The match goroutine
// alone uses it, and its calls are over before it is replaced.
func (m *Match) tickCtx(now time.Time) context.Context {
	if m.tickCtxV == nil || !now.Before(m.tickCtxFresh) || now.Before(m.tickCtxFresh.Add(-opTimeout)) {
		if m.tickCtxCancel != nil {
			m.tickCtxCancel()
		}
		m.tickCtxV, m.tickCtxCancel = context.WithDeadline(context.Background(), now.Add(opTimeout))
		m.tickCtxFresh = now.Add(opTimeout / 2)
	}
	return m.tickCtxV
}

// setTimer sets the clock's next event in the record.
func (m *Match) setTimer(d time.Duration, what State) {
	m.st.TimerFor, m.st.TimerAt = what, time.Now().Add(d)
}

func (m *Match) stopTimer() {
	m.st.TimerFor, m.st.TimerAt = "", time.Time{}
}

// armTimer sets this node's timer for the record's next clock event if
// this node drives the clock.
func (m *Match) armTimer() {
	m.timer.Stop()
	select {
	case <-m.timer.C:
	default:
	}
	if m.st.TimerFor != "" && m.leased {
		m.timer.Reset(max(time.Until(m.st.TimerAt), 0))
	}
}

// leaseDue reports whether the tick should call renewLease: to give the
// lease up once the clock has no event to come, to try for a lease another
// node holds every LeaseTTL/3, or to take a held one again when holding
// it is no longer certain (see holds).
func (m *Match) leaseDue(now time.Time) bool {
	switch {
	case m.st.TimerFor == "":
		return m.leased
	case !m.leased:
		return now.Sub(m.leaseAt) >= m.cfg.LeaseTTL/3
	}
	return !m.holds(now)
}

// holds reports whether the lease this node took is still surely its own
// without asking the store: the node is live (its NodeLease, renewed here
// when due), has not lapsed since the lease was taken, and the lease was
// taken less than leaseHold/2 ago.
func (m *Match) holds(now time.Time) bool {
	live, gen := m.cfg.NodeLease.keep(m.tickCtx(now), now)
	return live && gen == m.leaseGen && now.Sub(m.leaseAt) < leaseHold/2
}

// renewLease takes or renews the lease on the match's clock while the
// clock has an event to come, and gives it up otherwise. Only a live node
// takes a lease: another node could take it from a node that is not.
func (m *Match) renewLease(now time.Time) {
	if m.st.TimerFor == "" {
		m.releaseLease()
		return
	}
	m.leaseAt = now
	ctx := m.tickCtx(now)
	live, gen := m.cfg.NodeLease.keep(ctx, now)
	ok := false
	if live {
		var err error
		ok, err = m.cfg.Coord.Lease(ctx, "match:"+m.ID, m.cfg.Node, leaseHold)
		if err != nil {
			m.cfg.Logger.Warn("taking the clock's lease failed", "err", err)
			ok = false
		}
		m.leaseGen = gen
	}
	if ok != m.leased {
		m.leased = ok
		m.armTimer()
	}
}

func (m *Match) releaseLease() {
	if !m.leased {
		return
	}
	m.leased = false
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	_ = m.cfg.Coord.ReleaseLease(ctx, "match:"+m.ID, m.cfg.Node)
}

// onTimer runs the clock's event that is due, as a command.
func (m *Match) onTimer() {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	err := m.exec(ctx, func() error {
		what := m.st.TimerFor
		if what == "" || time.Now().Before(m.st.TimerAt) {
			return nil // another node ran it, or moved the clock
		}
		m.stopTimer()
		m.changedSt = true
		switch what {
		case StateOpen:
			if m.st.State == StateOpen && len(m.active()) >= 2 {
				if err := m.startRound(); err != nil {
					m.cfg.Logger.Error("starting a quick match", "err", err)
				}
			}
		case StateStarting:
			return m.openRound(ctx)
		case StateRunning:
			return m.endRound(ctx)
		case StateBetween:
			if err := m.startRound(); err != nil {
				m.cfg.Logger.Error("starting the next round", "err", err)
				m.finish(ctx)
				m.changed()
			}
		}
		return nil
	})
	if err != nil {
		// The store or the Coord failed: try the event again shortly.
		m.cfg.Logger.Warn("a clock event failed; retrying", "err", err)
		m.timer.Reset(time.Second)
	}
}

// tick renews the clock's lease now and then, reads the record when it may
// have missed news, and sends the round's leaderboard when one is due.
func (m *Match) tick(now time.Time, pace *LeaderboardPace) {
	if m.leaseDue(now) {
		m.renewLease(now)
	}
	if m.resync.Swap(false) || now.Sub(m.checkedAt) >= reconcileEvery {
		m.checkedAt = now
		m.reconcile(now)
	}
	if m.round == nil || m.st.State != StateRunning {
		return
	}
	m.tellBoard(nil)
	pace.tick(m, now)
}
