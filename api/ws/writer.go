package ws

import (
	"time"

	"github.com/gorilla/websocket"
)

// writeLoop is the connection's writer, the only one of data frames while
// it runs: it writes the queued messages and a due ping until there is
// nothing left, then returns. When the connection is ending it writes the
// close frame (see writeClose) and ends the writing for good. It runs on a
// goroutine of its own started by Send or end, on the ping timer's, or on
// the read goroutine after a Reply (see writeReplies); sendQueue makes sure
// that at most one runs at a time.
func (c *Conn) writeLoop() { c.write(-1) }

// replyTurns bounds the read goroutine's turns as the writer: the reply,
// and what came meanwhile; a longer stream goes on on a writer goroutine of
// its own, so that the reader is back to reading soon.
const replyTurns = 3

// writeReplies runs the writer on the read goroutine, for at most
// replyTurns turns, when a Reply during the dispatch made it the writer.
// Its writes are bounded by WriteWait, as any writer's. First it runs the
// AfterMessage hook: what the hook sends, queued behind the reply, leaves
// in the same write.
func (c *Conn) writeReplies() {
	if f := c.srv.after; f != nil {
		c.afterMessage(f)
	}
	if c.writeAfterDispatch {
		c.writeAfterDispatch = false
		c.write(replyTurns)
	}
}

// write is the writer's loop: a turn takes every waiting message and
// writes them together (see writeFrames). After turns turns (none if
// negative) the writer hands over to a goroutine of its own, still the
// writer.
func (c *Conn) write(turns int) {
	var batch [][]byte
	for ; ; turns-- {
		if turns == 0 {
			go c.writeLoop()
			return
		}
		msgs, ping, ending, idle := c.send.next(batch)
		if idle {
			return
		}
		if ending || c.ctx.Err() != nil {
			c.writeClose(msgs)
			c.send.finish()
			return
		}
		if err := c.writeFrames(msgs, ping, time.Time{}); err != nil {
			c.writeFailed(err)
			return
		}
		batch = msgs
	}
}

// pingDue is the ping timer's function: it queues a ping, runs the writer
// on the timer's goroutine if none runs, and arms the timer again.
func (c *Conn) pingDue() {
	if c.send.queuePing() {
		c.writeLoop()
	}
	// Under the queue's lock, and only before the end: run stops the timer
	// after the end, so that a timer re-armed here cannot outlive the
	// connection.
	c.send.mu.Lock()
	if !c.send.ended {
		c.ping.Reset(c.srv.lim.PingPeriod())
	}
	c.send.mu.Unlock()
}

// writeFailed ends the connection after a failed write, and the writing
// with it: the writer that calls it returns.
func (c *Conn) writeFailed(err error) {
	if c.ctx.Err() == nil {
		c.debug("write failed", "err", err)
	}
	c.stop()
	c.send.finish()
}

// writeClose sends the pending close frame, if any. Unless the queue
// overflowed, first (the messages the writer had taken) and what was queued
// before go out ahead of it. All of it within CloseWait.
func (c *Conn) writeClose(first [][]byte) {
	f, flush := c.pendingCloseFrame()
	if f == nil {
		return
	}
	deadline := time.Now().Add(c.srv.lim.CloseWait)
	if flush {
		if c.writeFrames(first, false, deadline) != nil {
			return
		}
		// What was queued before the end.
		if c.writeFrames(c.send.take(), false, deadline) != nil {
			return
		}
	}
	c.ws.WriteControl(websocket.CloseMessage, f, deadline)
}

// afterMessage runs the AfterMessage hook. It runs outside the dispatch's
// recovery, on the read goroutine: a panic in the hook is logged rather
// than taking the process down, and the connection goes on.
func (c *Conn) afterMessage(f func(*Conn)) {
	defer func() {
		if r := recover(); r != nil {
			c.Logger().Error("the after-message hook panicked", "panic", r)
		}
	}()
	f(c)
}
