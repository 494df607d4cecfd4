package match

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
)

// maxSaveTries bounds a command's compare-and-set retries.
const maxSaveTries = 8

// do runs f as a command on the match's goroutine and waits for it.
//
// A caller that gives up (ctx ends) while its command still waits in the
// inbox takes it back: the command never runs, so an error always means
// "not done". Once the command has started, the caller waits for its
// outcome (the command's own store calls end with ctx), so that a join the
// caller was told failed never seats the player behind its back.
func (m *Match) do(ctx context.Context, f func() error) error {
	res := make(chan error, 1)
	var state atomic.Int32 // cmdQueued, cmdStarted or cmdAbandoned
	cmd := func() {
		if !state.CompareAndSwap(cmdQueued, cmdStarted) {
			return // abandoned by its caller
		}
		answered := false
		defer func() {
			if !answered { // f panicked (safely recovers): the caller hears of it
				res <- fmt.Errorf("%w: the command failed", ErrUnavailable)
			}
		}()
		err := ctx.Err()
		if err == nil {
			err = m.exec(ctx, f)
		}
		answered = true
		res <- err
	}
	select {
	case m.inbox <- cmd:
	case <-m.done:
		return ErrMatchClosed
	default:
		return ErrBusy
	}
	select {
	case err := <-res:
		return err
	case <-m.done:
		if state.CompareAndSwap(cmdQueued, cmdAbandoned) {
			return ErrMatchClosed
		}
		return <-res
	case <-ctx.Done():
		if state.CompareAndSwap(cmdQueued, cmdAbandoned) {
			return ctx.Err()
		}
		return <-res
	}
}

// The states of a command in do.
const (
	cmdQueued int32 = iota
	cmdStarted
	cmdAbandoned
)

// exec runs a command: f changes the state; if it marked a change, the
// record is saved with a compare-and-set, and on a conflict read again and
// f run again. Only a saved change's messages are delivered.
func (m *Match) exec(ctx context.Context, f func() error) error {
	for try := 1; ; try++ {
		m.outbox, m.after, m.changedSt = m.outbox[:0], nil, false
		if err := f(); err != nil {
			m.rollback()
			return err
		}
		if !m.changedSt {
			m.deliver(m.outbox)
			m.outbox = m.outbox[:0]
			return nil
		}
		rec := mustJSON(&m.st)
		ver, err := m.cfg.Coord.SaveMatch(ctx, m.ID, m.version, rec, m.listed(), m.cfg.RecordTTL)
		if err == nil {
			m.commit(ctx, rec, ver)
			return nil
		}
		m.rollback()
		switch {
		case !errors.Is(err, ErrVersionConflict):
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		case try >= maxSaveTries:
			return ErrBusy
		}
		if err := m.reload(ctx); err != nil {
			return err
		}
	}
}

// commit makes a saved change this node's state, delivers its messages
// here, and tells the other nodes.
func (m *Match) commit(ctx context.Context, rec []byte, ver int64) {
	m.version, m.saved = ver, rec
	msgs := slices.Clone(m.outbox)
	after := m.after
	m.outbox, m.after, m.changedSt = m.outbox[:0], nil, false
	m.sync()
	m.saveRound(ctx)
	m.deliver(msgs)
	if m.othersNeed() {
		env := mustJSON(BusMessage{Node: m.cfg.Node, Match: m.ID, Version: ver, Record: rec, Msgs: msgs})
		if err := m.cfg.Coord.Publish(ctx, env); err != nil {
			m.cfg.Logger.Warn("telling the other nodes failed", "err", err)
		}
	}
	for _, f := range after {
		f()
	}
}

func (m *Match) loop() {
	defer close(m.done)
	every := m.tickEvery()
	tick := time.NewTicker(every)
	defer tick.Stop()
	defer m.timer.Stop()
	defer func() {
		if m.tickCtxCancel != nil {
			m.tickCtxCancel()
		}
	}()
	pace := newLeaderboardPace(m)
	defer pace.stop()
	for {
		pace.follow(m)
		if d := m.tickEvery(); d != every {
			every = d
			tick.Reset(d)
		}
		var finished <-chan struct{}
		if m.round != nil && m.st.State == StateRunning {
			finished = m.round.Finished()
		}
		select {
		case f := <-m.inbox:
			m.safely(f)
		case <-m.timer.C:
			m.safely(m.onTimer)
		case <-finished:
			m.safely(m.onFinished)
		case now := <-tick.C:
			m.safely(func() { m.tick(now, pace) })
		case <-m.stop:
			m.releaseLease()
			return
		}
	}
}

// safely runs f, turning a panic into a log line so one bad command cannot
// take the match (or the process) down.
func (m *Match) safely(f func()) {
	defer func() {
		if p := recover(); p != nil {
			m.cfg.Logger.Error("match command panicked", "panic", fmt.Sprint(p))
			m.rollback()
		}
	}()
	f()
}
