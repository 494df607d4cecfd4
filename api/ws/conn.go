// Package ws is a WebSocket transport: it accepts connections, reads their
// messages and hands each to one Handler, writes what its user sends
// through a bounded queue, and keeps every connection within its limits
// (frame size, message rate, control frames, silence, a peer too slow to
// read). It knows nothing of what the messages mean: its user gives it the
// Handler, at most one hook run after each message (Config.AfterMessage),
// what to answer a refused message with (Config.Refused), and the reasons
// of the close frames it sends of its own accord (Config.Closes).
//
// One WebSocket connection is a Conn with exactly one read goroutine
// (readPump: rate-limit, hand to the Handler) and at most one write
// goroutine at a time (writeLoop: the send queue, pings, the close frame),
// plus a context that ends the connection.
//
// The writer exists only while there is something to write: Send starts it
// when the queue goes non-empty and none runs, the ping timer (a
// time.AfterFunc) runs it on its own goroutine when a ping is due, a Reply
// leaves it to the read goroutine after the handler returns, and it
// returns as soon as the queue is empty. An idle connection is one parked
// goroutine (the reader), a timer and its buffers: a writer parked beside
// every reader would hold a second goroutine's stack, the larger part of
// an idle connection's memory.
//
// The Conn and its end are in this file; the send queue in sendqueue.go,
// the reader in reader.go, the writer in writer.go (and its frames in
// frames.go), the limits in limits.go and bucket.go, and the server that
// accepts and tracks the connections in server.go.
//
// How a connection ends:
//   - The server closes it (Close: policy, slow consumer, shutdown, …): the
//     context is cancelled and the writer started if none runs; it writes
//     what was queued (unless the queue overflowed), then the close frame,
//     and stops for good. The reader drops what still arrives until the
//     peer's close frame or CloseWait, then the TCP connection is closed.
//   - The peer closes it or the network fails: the reader's error cancels
//     the context and ends the writer the same way, without a close frame.
//
// Then the connection is unregistered and Handler.Closed is called, once.
package ws

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// maxCloseReason is the longest close reason, in bytes: a close frame's
// payload (code and reason) is at most 125 bytes.
const maxCloseReason = 123

// Handler receives a connection's messages, one at a time, on its read
// goroutine.
type Handler interface {
	// HandleMessage handles one text message. msg is valid only during
	// the call: the connection reads its next message into it. A panic
	// closes this connection only, with 1011.
	HandleMessage(c *Conn, msg []byte)
	// Closed is called once, after the connection ended and was
	// unregistered.
	Closed(c *Conn)
}

// Conn is one client's WebSocket connection. Its methods are safe for
// concurrent use.
type Conn struct {
	srv    *Server
	ws     *websocket.Conn // nil for a Detached connection
	ip     string
	num    uint64    // the connection's number, in its log lines
	send   sendQueue // also decides when a writer runs
	ctx    context.Context
	cancel context.CancelFunc
	hello  *time.Timer  // nil for a Detached connection
	ping   *time.Timer  // queues a ping every PingPeriod; nil for a Detached connection
	bucket *tokenBucket // read goroutine only

	rateLimited bool // read goroutine only: counted once in Metrics.RateLimited
	// read goroutine only: a Reply made this goroutine the writer, which
	// it runs when HandleMessage returns
	writeAfterDispatch bool

	mu         sync.Mutex
	userID     string
	closing    bool   // ending: set once, by Close or stop
	closeFrame []byte // the close frame to send, nil if none
	flushQueue bool   // write what is queued before the close frame
}

// Send enqueues msg (one message) without blocking, and starts the
// connection's writer if none runs. It returns false when the connection
// has ended, and when the queue is full (SendQueue messages, or msg would
// take it over SendBudget bytes): then the connection is closed as a slow
// consumer (Closes.SlowCode). The caller must not modify msg afterwards.
func (c *Conn) Send(msg []byte) bool {
	return c.enqueue(msg, false)
}

// Reply is Send for a Handler's answer to the message it is handling: it
// must be called on the goroutine that runs HandleMessage for c, before
// HandleMessage returns. When no writer runs, none is started: the
// connection's read goroutine writes the reply itself once HandleMessage
// and the AfterMessage hook return (see writeReplies), which spares a
// reply the start of a goroutine and the hand-over to it. Messages that
// others send meanwhile go out with it, in the same write.
func (c *Conn) Reply(msg []byte) bool {
	return c.enqueue(msg, true)
}

func (c *Conn) enqueue(msg []byte, reply bool) bool {
	if c.ctx.Err() != nil {
		return false
	}
	ok, start := c.send.push(msg)
	if start {
		if reply {
			c.writeAfterDispatch = true
		} else {
			go c.writeLoop()
		}
	}
	if ok {
		return true
	}
	if c.ctx.Err() != nil {
		return false // the queue refused because the connection ended
	}
	cl := c.srv.closes
	if c.end(cl.SlowCode, cl.Slow, true, false) {
		c.srv.m.SlowDisconnects.Inc()
		c.Logger().Warn("send queue full, disconnecting slow consumer",
			"queue", c.send.limit, "budget", c.send.budget, "size", len(msg))
	}
	return false
}

// SendJSON encodes v and sends it. A value that cannot be encoded is
// logged and not sent.
func (c *Conn) SendJSON(v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		c.Logger().Error("cannot encode message", "type", fmt.Sprintf("%T", v), "err", err)
		return false
	}
	return c.Send(b)
}

// UserID is the connection's user, "" until SetUserID.
func (c *Conn) UserID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.userID
}

// SetUserID records who the connection's peer is: its hello is done, and
// the hello timer (Limits.HelloTimeout) stops.
func (c *Conn) SetUserID(id string) {
	if c.hello != nil {
		c.hello.Stop()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.userID = id
}

// RemoteIP is the client's address (see Limits.TrustedProxies).
func (c *Conn) RemoteIP() string { return c.ip }

// Close sends a close frame with code and reason (best effort; a reason
// longer than a close frame holds is cut) and ends the connection, after
// what was queued before. Only the first call (of Close, or of an end the
// server or the peer caused) counts.
func (c *Conn) Close(code int, reason string) {
	c.end(code, reason, true, true)
}

// Context is cancelled when the connection ends.
func (c *Conn) Context() context.Context { return c.ctx }

// Logger logs with the connection's attributes: the remote IP, the
// connection's number, and the user's id once known (Config.UserAttr). It
// is made at each call, for the rare line a connection logs: a logger kept
// in every connection would cost its preformatted attributes, idle or not.
func (c *Conn) Logger() *slog.Logger {
	if id := c.UserID(); id != "" {
		return c.srv.log.With("remote_ip", c.ip, "conn", c.num, c.srv.userAttr, id)
	}
	return c.srv.log.With("remote_ip", c.ip, "conn", c.num)
}

// debug logs at the debug level, without making the connection's logger
// when that level is off.
func (c *Conn) debug(msg string, args ...any) {
	if c.srv.log.Enabled(context.Background(), slog.LevelDebug) {
		c.Logger().Debug(msg, args...)
	}
}

// end starts the end of the connection, once; it reports whether this call
// did. With frame, a close frame with code and reason is sent, after what
// was queued if flush, and the reader waits CloseWait for the peer's;
// without, the reader stops now.
func (c *Conn) end(code int, reason string, frame, flush bool) bool {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return false
	}
	c.closing = true
	wait := time.Duration(0)
	if frame {
		if len(reason) > maxCloseReason {
			n := maxCloseReason
			for n > 0 && !utf8.RuneStart(reason[n]) {
				n--
			}
			reason = reason[:n]
		}
		c.closeFrame = websocket.FormatCloseMessage(code, reason)
		c.flushQueue = flush
		wait = c.srv.lim.CloseWait
	}
	flush = c.flushQueue
	if c.ws != nil {
		// Under mu, so that the pong handler cannot extend it again.
		c.ws.SetReadDeadline(time.Now().Add(wait))
	}
	c.mu.Unlock()
	c.cancel()
	if frame {
		c.debug("closing connection", "code", code, "reason", reason)
	}
	// What is queued and will not be written is let go now, not when the
	// writer, perhaps stuck on a peer that does not read, returns.
	if c.send.end(!flush) {
		go c.writeLoop()
	}
	return true
}

// stop ends the connection without a close frame (the peer left, or the
// network failed).
func (c *Conn) stop() { c.end(0, "", false, false) }

// extendReadDeadline gives the peer another PongWait, unless the
// connection is ending.
func (c *Conn) extendReadDeadline() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closing {
		c.ws.SetReadDeadline(time.Now().Add(c.srv.lim.PongWait))
	}
}

func (c *Conn) pendingCloseFrame() (frame []byte, flush bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeFrame, c.flushQueue
}

// run drives the connection to its end; it runs on its own goroutine,
// which becomes the read goroutine.
func (c *Conn) run() {
	s := c.srv
	defer s.wg.Done()
	c.readPump()
	c.stop()
	// Let the writer finish its close frame, then close the TCP connection,
	// which also unblocks a writer stuck on a peer that does not read.
	t := time.NewTimer(s.lim.CloseWait)
	select {
	case <-c.send.done:
	case <-t.C:
	}
	t.Stop()
	c.ws.Close()
	<-c.send.done
	c.hello.Stop()
	c.ping.Stop()
	s.unregister(c)
	c.debug("connection ended")
	func() {
		defer func() {
			if r := recover(); r != nil {
				c.Logger().Error("panic in Closed", "panic", r, "stack", string(debug.Stack()))
			}
		}()
		s.h.Closed(c)
	}()
}
