package fast

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// A cmdStep is one thing done to a command context in
// TestCmdContextMatchesWithDeadline.
type cmdStep int

const (
	stepDone         cmdStep = iota // ask for Done, note whether it is closed
	stepCancel                      // the context's own cancel
	stepParentCancel                // the parent's cancel
	stepShort                       // a while, well before the deadline
	stepPastDeadline                // past the deadline
	stepDerive                      // a context derived with WithCancel
	numSteps
)

func (s cmdStep) String() string {
	return [...]string{"done", "cancel", "parent-cancel", "short", "past-deadline", "derive"}[s]
}

// cmdObserver runs steps on one context, made by newCtx, and writes down
// everything it can see of it after each: the deadline, Err, Value, and
// its derived contexts' Err. Done is only looked at by stepDone (and at
// the end), since asking for it is what makes CmdContext's real context.
type cmdObserver struct {
	ctx     context.Context
	cancel  func()
	pcancel context.CancelFunc
	derived []context.Context
	log     strings.Builder
}

func newCmdObserver(newCtx func(context.Context, time.Time) (context.Context, func()), parentDeadline bool) *cmdObserver {
	var parent context.Context = context.WithValue(context.Background(), ctxKey{}, "v")
	var pcancel context.CancelFunc
	if parentDeadline {
		parent, pcancel = context.WithDeadline(parent, time.Now().Add(1500*time.Millisecond))
	} else {
		parent, pcancel = context.WithCancel(parent)
	}
	ctx, cancel := newCtx(parent, time.Now().Add(time.Second))
	return &cmdObserver{ctx: ctx, cancel: cancel, pcancel: pcancel}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (o *cmdObserver) step(s cmdStep) {
	switch s {
	case stepDone:
		fmt.Fprintf(&o.log, "done closed %v; ", isClosed(o.ctx.Done()))
	case stepCancel:
		o.cancel()
	case stepParentCancel:
		o.pcancel()
	case stepShort:
		time.Sleep(300 * time.Millisecond)
	case stepPastDeadline:
		time.Sleep(2 * time.Second)
	case stepDerive:
		child, cancel := context.WithCancel(o.ctx)
		_ = cancel // ended with its parent
		o.derived = append(o.derived, child)
	}
	// Whatever timers came due have fired.
	synctest.Wait()
	o.observe(s.String())
}

func (o *cmdObserver) observe(after string) {
	d, ok := o.ctx.Deadline()
	fmt.Fprintf(&o.log, "after %s: deadline %v %v, err %v, value %v", after, d, ok, o.ctx.Err(), o.ctx.Value(ctxKey{}))
	for i, c := range o.derived {
		fmt.Fprintf(&o.log, ", derived %d: err %v done %v", i, c.Err(), isClosed(c.Done()))
	}
	o.log.WriteString("\n")
}

// TestCmdContextMatchesWithDeadline holds CmdContext to its plain path:
// every sequence of up to four steps (asking for Done, cancelling it or
// its parent, time passing before or past the deadline, deriving a
// context) done to a CmdContext and to context.WithDeadline's context
// shows the same deadline, errors, values, Done and derived contexts at
// every step, on a synctest bubble's clock, under a parent with no
// deadline and under one whose deadline comes first.
func TestCmdContextMatchesWithDeadline(t *testing.T) {
	lazy := func(parent context.Context, d time.Time) (context.Context, func()) {
		c := started(parent, d)
		return c, c.Cancel
	}
	plain := func(parent context.Context, d time.Time) (context.Context, func()) {
		c, cancel := context.WithDeadline(parent, d)
		return c, cancel
	}
	var seqs [][]cmdStep
	var grow func(seq []cmdStep)
	grow = func(seq []cmdStep) {
		seqs = append(seqs, seq)
		if len(seq) == 4 {
			return
		}
		for s := range numSteps {
			grow(append(seq[:len(seq):len(seq)], s))
		}
	}
	grow(nil)
	for _, parentDeadline := range []bool{false, true} {
		for _, seq := range seqs {
			// Each in a bubble of its own, whose clock starts at the
			// same instant: the deadlines they show are the same.
			var got, want string
			synctest.Test(t, func(t *testing.T) { got = runCmdSteps(lazy, parentDeadline, seq) })
			synctest.Test(t, func(t *testing.T) { want = runCmdSteps(plain, parentDeadline, seq) })
			if got != want {
				t.Fatalf("steps %v (parent deadline first: %v):\nCmdContext:\n%s\ncontext.WithDeadline:\n%s", seq, parentDeadline, got, want)
			}
		}
	}
}

// runCmdSteps runs seq on a context made by newCtx, then cancels it, and
// returns what was seen.
func runCmdSteps(newCtx func(context.Context, time.Time) (context.Context, func()), parentDeadline bool, seq []cmdStep) string {
	o := newCmdObserver(newCtx, parentDeadline)
	defer o.pcancel()
	o.observe("start")
	for _, s := range seq {
		o.step(s)
	}
	o.cancel()
	synctest.Wait()
	o.observe("the end")
	fmt.Fprintf(&o.log, "done closed at the end %v\n", isClosed(o.ctx.Done()))
	return o.log.String()
}
