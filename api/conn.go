package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
	"klondike/match"
)

// The connection layer: one WebSocket connection is a Conn with exactly one
// read goroutine (readPump: decode, rate-limit, hand to the Handler) and at
// most one write goroutine at a time (writeLoop: the send queue, pings, the
// close frame), plus a context that ends the connection.
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
// the reader in reader.go (and the decoding of a message in envelope.go),
// the writer in writer.go (and its frames in frames.go), and the server
// that accepts and tracks the connections in wsserver.go.
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

// maxCloseReason is the longest close reason, in bytes: a close frame's
// payload (code and reason) is at most 125 bytes.
const maxCloseReason = 123

// Handler receives a connection's messages, one at a time, on its read
// goroutine. The Envelope's Raw bytes are valid only during the call: the
// connection reads its next message into them.
type Handler interface {
	HandleMessage(ctx context.Context, c *Conn, env *Envelope)
	Closed(c *Conn) // once, after the connection ended
}

// Conn is one client's WebSocket connection. Its methods are safe for
// concurrent use.
type Conn struct {
	srv    *WSServer
	ws     *websocket.Conn
	ip     string
	num    uint64    // the connection's number, in its log lines
	send   sendQueue // also decides when a writer runs
	ctx    context.Context
	cancel context.CancelFunc
	hello  *time.Timer
	ping   *time.Timer  // queues a ping every PingPeriod
	bucket *tokenBucket // read goroutine only

	// The pace of the player's running round (Hub.SetPace): asked for a
	// due leaderboard after each message the player sent, before the
	// answer is written, so that the board leaves in the same write.
	pace atomic.Pointer[match.LeaderboardPace]

	rateLimited bool // read goroutine only: counted once in Metrics.RateLimited
	// read goroutine only: a Reply made this goroutine the writer, which
	// it runs when HandleMessage returns
	writeAfterDispatch bool

	mu         sync.Mutex
	playerID   string
	closing    bool   // ending: set once, by Close or stop
	closeFrame []byte // the close frame to send, nil if none
	flushQueue bool   // write what is queued before the close frame
}

// Send enqueues msg (one JSON object) without blocking, and starts the
// connection's writer if none runs. It returns false when the connection
// has ended, and when the queue is full (SendQueue messages, or msg would
// take it over SendBudget bytes): then the connection is closed as a slow
// consumer (protocol.CloseSlowConsumer). The caller must not modify msg afterwards.
func (c *Conn) Send(msg []byte) bool {
	return c.enqueue(msg, false)
}

// Reply is Send for a Handler's answer to the message it is handling: it
// must be called on the goroutine that runs HandleMessage for c, before
// HandleMessage returns. When no writer runs, none is started: the
// connection's read goroutine writes the reply itself once HandleMessage
// returns (see writeReplies), which spares a move's answer the start of a
// goroutine and the hand-over to it. Messages that others send meanwhile
// go out with it.
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
	if c.end(protocol.CloseSlowConsumer, protocol.ReasonSlow, true) {
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

// SendError sends {"type":"error","re":re,"code":code,"message":message},
// without "re" when re is empty.
func (c *Conn) SendError(re, code, message string) bool {
	return c.SendJSON(protocol.Error{Type: protocol.TypeError, Re: re, Code: code, Message: message})
}

// PlayerID is the connection's player, "" until SetPlayerID.
func (c *Conn) PlayerID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.playerID
}

// SetPlayerID records the connection's player: hello is done, and the
// hello timer stops.
func (c *Conn) SetPlayerID(id string) {
	c.hello.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.playerID = id
}

// RemoteIP is the TCP peer's address.
func (c *Conn) RemoteIP() string { return c.ip }

// Close sends a close frame with code and reason (best effort) and ends
// the connection. Only the first call (of Close, or of an end the server or
// the peer caused) counts.
func (c *Conn) Close(code int, reason string) {
	c.end(code, reason, true)
}

// Context is cancelled when the connection ends.
func (c *Conn) Context() context.Context { return c.ctx }

// Logger logs with the connection's attributes: the remote IP, the
// connection's number, and the player's id once known. It is made at each
// call, for the rare line a connection logs: a logger kept in every
// connection would cost its preformatted attributes, idle or not.
func (c *Conn) Logger() *slog.Logger {
	if id := c.PlayerID(); id != "" {
		return c.srv.log.With("remote_ip", c.ip, "conn", c.num, "player_id", id)
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
// did. With frame, a close frame with code and reason is sent and the
// reader waits CloseWait for the peer's; without, the reader stops now.
func (c *Conn) end(code int, reason string, frame bool) bool {
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
		c.flushQueue = code != protocol.CloseSlowConsumer
		wait = c.srv.lim.CloseWait
	}
	flush := c.flushQueue
	// Under mu, so that the pong handler cannot extend it again.
	c.ws.SetReadDeadline(time.Now().Add(wait))
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
func (c *Conn) stop() { c.end(0, "", false) }

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
