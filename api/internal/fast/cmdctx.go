package fast

import (
	"context"
	"sync"
	"time"
)

// CmdContext is the context of one message's handling: its parent with a
// deadline, ended when the handler returns, as context.WithDeadline makes
// it, but made lazily. WithDeadline makes at once a timer, its function,
// the context and its cancel function, and registers it with its parent:
// an allocation for each, on every message, while most moves never need
// them (on the memory store nothing waits on the context). Here the real
// context is made at the first call of Done, by WithDeadline; until then
// Deadline, Err and Value answer from the parent, the deadline and the
// clock.
//
// Its zero value is ready for Start. Its user keeps it inside what it
// allocates anyway (api keeps one in each message's envelope), so that it
// costs no allocation of its own. TestCmdContextMatchesWithDeadline holds
// it to WithDeadline.
type CmdContext struct {
	parent   context.Context
	deadline time.Time // the earlier of the parent's deadline and its own

	mu         sync.Mutex
	real       context.Context // WithDeadline(parent, deadline), from the first Done
	cancelReal context.CancelFunc
	err        error // once cancelled: the error it ended with, for good
}

var _ context.Context = (*CmdContext)(nil)

// Start makes c parent with the deadline d: WithDeadline(parent, d), lazily.
// The caller must call c.Cancel when the handling is over. A CmdContext is
// started once.
func (c *CmdContext) Start(parent context.Context, d time.Time) {
	if pd, ok := parent.Deadline(); ok && pd.Before(d) {
		d = pd // as WithDeadline: the parent's deadline comes first
	}
	c.parent, c.deadline = parent, d
}

// Deadline implements context.Context.
func (c *CmdContext) Deadline() (time.Time, bool) { return c.deadline, true }

// Done implements context.Context; it makes the real context.
func (c *CmdContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.real == nil {
		c.real, c.cancelReal = context.WithDeadline(c.parent, c.deadline)
		if c.err != nil { // asked for after the end: a closed channel
			c.cancelReal()
		}
	}
	return c.real.Done()
}

// Err implements context.Context. Once it has said the context ended, it
// says so for good, with the same error, as the context package's do.
// When the parent ended and the deadline passed before Err is first asked,
// it says the parent's error, where WithDeadline's context says whichever
// came first.
func (c *CmdContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.err != nil:
		return c.err
	case c.real != nil:
		return c.real.Err()
	}
	c.err = c.liveErr()
	return c.err
}

// liveErr is the error of a context that has not been cancelled: the
// parent's, or DeadlineExceeded from the deadline on.
func (c *CmdContext) liveErr() error {
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// Value implements context.Context. Once the real context is made it
// answers, so that contexts derived from c find it as their parent (the
// context package asks Value for the cancelCtx whose Done channel c gave).
func (c *CmdContext) Value(key any) any {
	c.mu.Lock()
	real := c.real
	c.mu.Unlock()
	if real != nil {
		return real.Value(key)
	}
	return c.parent.Value(key)
}

// Cancel ends the context, as WithDeadline's cancel function does: Err
// keeps the error it ended with (the parent's, DeadlineExceeded if the
// deadline had passed, else Canceled).
func (c *CmdContext) Cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	if c.real != nil {
		c.cancelReal()
		c.err = c.real.Err()
		return
	}
	if c.err = c.liveErr(); c.err == nil {
		c.err = context.Canceled
	}
}

// String names the context, as the context package's do.
func (c *CmdContext) String() string {
	return "fast.CmdContext(" + c.deadline.String() + ")"
}
