package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
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
// goroutine (the reader), a timer and its buffers: a second goroutine's stack
// for every connection, idle or not, was most of its memory.
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

// maxIDLen is the longest "id" a client message may carry.
const maxIDLen = 64

// Wire error codes this file sends (the protocol's; dispatch.go has the full set).
const (
	wireBadRequest  = "bad_request"
	wireRateLimited = "rate_limited"
)

// maxCloseReason is the longest close reason, in bytes: a close frame's
// payload (code and reason) is at most 125 bytes.
const maxCloseReason = 123

// maxDrain bounds what is read and dropped from a connection that broke the
// read limit, while its close frame is on its way.
const maxDrain = 1 << 20

// Envelope is a decoded client message: its type, optional id, and the whole raw object.
type Envelope struct {
	Type string
	ID   string
	Raw  []byte // the whole frame (a JSON object); the handler decodes its own fields

	move *moveMsg // a move's fields, when scanMove read the frame: &moveBuf
	// moveBuf holds them, so that the Envelope and the fields are one
	// allocation.
	moveBuf moveMsg
	// cmd is the storage of the context of the message's handling (see
	// commandContext).
	cmd     cmdContext
	cmdUsed bool
}

// commandContext returns the context of the message's handling: parent
// with the deadline d, as context.WithDeadline(parent, d) but lazily (see
// cmdContext). The caller must call its cancel when the handling is over.
// The first one is kept in the Envelope itself, so that a message is one
// allocation; another (a message handled twice) gets its own, since the
// first may be held on to after it ended (an abandoned match command
// checks its context's Err when its turn comes).
func (env *Envelope) commandContext(parent context.Context, d time.Time) *cmdContext {
	c := &env.cmd
	if env.cmdUsed {
		c = new(cmdContext)
	}
	env.cmdUsed = true
	c.start(parent, d)
	return c
}

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

// errorMsg is the protocol's error message.
type errorMsg struct {
	Type    string `json:"type"`
	Re      string `json:"re,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Send enqueues msg (one JSON object) without blocking, and starts the
// connection's writer if none runs. It returns false when the connection
// has ended, and when the queue is full (SendQueue messages, or msg would
// take it over SendBudget bytes): then the connection is closed as a slow
// consumer (CloseSlowConsumer). The caller must not modify msg afterwards.
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
	if c.end(CloseSlowConsumer, ReasonSlow, true) {
		c.srv.m.SlowDisconnects.Inc()
		c.Logger().Warn("send queue full, disconnecting slow consumer",
			"queue", c.send.limit, "budget", c.send.budget, "size", len(msg))
	}
	return false
}

// sendQueue is a connection's queue of outgoing messages, bounded at
// limit messages and budget bytes, and the state of its writer: at most one
// writer runs at a time, and only while the queue holds something to write
// (messages, a due ping, the end). It holds memory only while messages
// wait: a buffered channel of SendQueue slots would hold 24 bytes a slot
// (6 KiB at the default 256) for the whole life of every connection, idle
// or not.
//
// A message's bytes count from its push until the writer, having written
// it, comes back for the next batch (or the writing ends): a message being
// written is held in memory as much as a waiting one.
type sendQueue struct {
	mu       sync.Mutex
	msgs     [][]byte
	limit    int
	budget   int64         // most bytes held: the queue's and the writer's batch
	bytes    int64         // held now: the queued messages' and the batch's
	batch    int64         // bytes of the writer's batch: released at its next turn
	running  bool          // a writer runs (or has been told to start)
	pingDue  bool          // the ping timer fired; the writer sends the ping
	ended    bool          // the connection is ending: nothing more is queued
	finished bool          // the last writer has returned: nothing more is written
	done     chan struct{} // closed when finished is set
}

// maxKeptQueue is the capacity, in messages, up to which the queue and the
// writer keep their slices for reuse; after a larger burst they let them
// go, so that a connection that once fell behind does not keep the room.
const maxKeptQueue = 32

// newSendQueue makes a queue of limit messages and DefaultSendBudget
// bytes; a connection sets its own budget.
func newSendQueue(limit int) sendQueue {
	return sendQueue{limit: limit, budget: DefaultSendBudget, done: make(chan struct{})}
}

// claim makes the caller the writer, unless one runs or the writing is
// over; the caller holds q.mu.
func (q *sendQueue) claim() bool {
	if q.running || q.finished {
		return false
	}
	q.running = true
	return true
}

// push adds msg unless limit messages already wait, msg would take the
// bytes held over the budget, or the connection is ending; it never
// blocks. With start, the caller must start the writer.
func (q *sendQueue) push(msg []byte) (ok, start bool) {
	n := int64(len(msg))
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ended || len(q.msgs) >= q.limit || q.bytes+n > q.budget {
		return false, false
	}
	q.msgs = append(q.msgs, msg)
	q.bytes += n
	return true, q.claim()
}

// queuePing asks for a ping. With start, the caller must run the writer.
func (q *sendQueue) queuePing() (start bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ended {
		return false
	}
	q.pingDue = true
	return q.claim()
}

// end marks the connection as ending: from now on nothing is queued, and
// the writer writes the close. With drop, the waiting messages are let go
// at once (they will not be written). With start, the caller must run the
// writer.
func (q *sendQueue) end(drop bool) (start bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended = true
	if drop {
		clear(q.msgs)
		q.msgs = nil
		q.bytes = q.batch
	}
	return q.claim()
}

// next is the writer's turn: it releases the bytes of the previous batch
// (written by now), returns every waiting message, in order, whether a
// ping is due and whether the connection is ending, and leaves the queue
// empty; spare (whose messages the writer has written) becomes the queue's
// next slice. When there is nothing to do (no message, no ping, not
// ending) the writer's run is over: running is cleared in the same
// critical section, so that the next push starts a new writer, and spare
// is dropped.
func (q *sendQueue) next(spare [][]byte) (msgs [][]byte, ping, ending, idle bool) {
	clear(spare)
	if cap(spare) > maxKeptQueue {
		spare = nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.bytes -= q.batch
	q.batch = q.bytes // every message held is in the batch handed out
	if len(q.msgs) == 0 && !q.pingDue && !q.ended {
		q.running = false
		q.msgs = nil // an idle connection holds no slice
		return nil, false, false, true
	}
	msgs, ping, ending = q.msgs, q.pingDue, q.ended
	q.msgs, q.pingDue = spare[:0], false
	return msgs, ping, ending, false
}

// take returns every waiting message, in order, and leaves the queue
// empty, as next does, for the writer that writes the close.
func (q *sendQueue) take() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs := q.msgs
	q.msgs = nil
	q.batch = q.bytes
	return msgs
}

// finish records that the last writer has returned, and releases what it
// held; only the running writer calls it, once.
func (q *sendQueue) finish() {
	q.mu.Lock()
	q.finished, q.running, q.msgs = true, false, nil
	q.bytes, q.batch = 0, 0
	q.mu.Unlock()
	close(q.done)
}

// heldBytes is how many bytes of messages the queue and the writer's batch
// hold, as the budget counts them.
func (q *sendQueue) heldBytes() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes
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
	return c.SendJSON(errorMsg{Type: "error", Re: re, Code: code, Message: message})
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
		c.flushQueue = code != CloseSlowConsumer
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

// readPump reads frames and hands each message to the Handler, one at a
// time. It returns when the connection has ended.
func (c *Conn) readPump() {
	s := c.srv
	c.ws.SetReadLimit(s.lim.ReadLimit)
	c.extendReadDeadline()
	c.ws.SetPingHandler(c.handlePing)
	c.ws.SetPongHandler(c.handlePong)
	c.ws.SetCloseHandler(c.handleClose)
	for {
		mt, data, buf, err := c.readMessage()
		if err != nil {
			c.readError(err)
			return
		}
		c.handleFrame(mt, data)
		putFrameBuf(buf)
	}
}

// handleFrame rate-limits, checks and decodes one frame, and hands its
// message to the Handler.
func (c *Conn) handleFrame(mt int, data []byte) {
	s := c.srv
	if c.ctx.Err() != nil {
		return // ending: drop what comes until the peer's close frame
	}
	c.extendReadDeadline()
	s.m.MessagesIn.Inc()
	switch c.spend("message") {
	case rateLimited:
		// Name the dropped message, so the client knows what to resend.
		env, re, _ := decodeEnvelope(data)
		if env != nil {
			re = env.ID
		}
		c.SendError(re, wireRateLimited, "too many messages; slow down")
		return
	case rateFlood:
		return
	}
	if mt != websocket.TextMessage {
		c.SendError("", wireBadRequest, "binary frames are not supported; send JSON text")
		return
	}
	env, re, msg := decodeEnvelope(data)
	if env == nil {
		c.SendError(re, wireBadRequest, msg)
		return
	}
	c.dispatch(env)
}

// readMessage is the websocket.Conn's ReadMessage, with the message read
// into a buffer of frameBufs (ReadMessage's io.ReadAll makes a new one of
// at least 512 bytes for every message): the caller gives buf back with
// putFrameBuf once the message is handled. The message's bytes are only
// read while it is handled (Envelope.Raw: its fields are decoded into
// strings of their own), so the buffer can serve the next message.
func (c *Conn) readMessage() (mt int, data []byte, buf *[]byte, err error) {
	mt, r, err := c.ws.NextReader()
	if err != nil {
		return mt, nil, nil, err
	}
	buf = frameBufs.Get().(*[]byte)
	data, err = readAll(r, (*buf)[:0])
	*buf = data[:0]
	if err != nil {
		putFrameBuf(buf)
		return mt, nil, nil, err
	}
	return mt, data, buf, nil
}

// frameBufs are readMessage's buffers; one that grew beyond maxFrameBuf
// (a read limit raised that far) is let go.
var frameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxFrameBuf = 64 << 10

func putFrameBuf(buf *[]byte) {
	if cap(*buf) <= maxFrameBuf {
		frameBufs.Put(buf)
	}
}

// readAll is io.ReadAll appending to b.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // room to read more
		}
	}
}

// readError ends the connection after a failed read.
func (c *Conn) readError(err error) {
	if errors.Is(err, websocket.ErrReadLimit) {
		// gorilla has already sent the 1009 close frame. Read and drop the
		// rest of the oversized frame for a while, so that closing the
		// socket with unread data does not reset the connection under the
		// close frame before the client reads it.
		if c.end(websocket.CloseMessageTooBig, ReasonTooBig, true) {
			c.Logger().Info("frame over the read limit", "limit", c.srv.lim.ReadLimit)
		}
		nc := c.ws.NetConn()
		nc.SetReadDeadline(time.Now().Add(c.srv.lim.CloseWait))
		io.Copy(io.Discard, io.LimitReader(nc, maxDrain))
		return
	}
	var ce *websocket.CloseError
	if !errors.As(err, &ce) && c.ctx.Err() == nil {
		c.debug("read failed", "err", err)
	}
}

// spend takes a token of the connection's message budget for one frame
// the peer sent (kind names it in the log) and says whether it is within
// the budget. Over it, the connection is counted as rate limited; a flood
// closes it with 1008.
func (c *Conn) spend(kind string) rateVerdict {
	v := c.bucket.take(c.srv.now())
	switch v {
	case rateLimited:
		c.countRateLimited()
	case rateFlood:
		c.countRateLimited()
		c.Logger().Warn("flood, disconnecting", "frame", kind)
		c.Close(websocket.ClosePolicyViolation, ReasonRateLimit)
	}
	return v
}

// controlFrame spends a token for a control frame the peer sent (kind:
// ping, pong or close) and reports whether to act on it: only within the
// budget, and not once the connection is ending, when control frames are
// dropped as messages are. The websocket.Conn calls the control frames'
// handlers on the read goroutine, which owns the budget.
func (c *Conn) controlFrame(kind string) bool {
	if c.ctx.Err() != nil {
		return false
	}
	return c.spend(kind) == rateOK
}

// handlePing answers a ping within the budget with a pong, as the
// websocket.Conn's default handler does; WriteControl may write beside the
// writer. A ping over the budget is not answered.
func (c *Conn) handlePing(data string) error {
	if !c.controlFrame("ping") {
		return nil
	}
	err := c.ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(c.srv.lim.WriteWait))
	if ne, ok := err.(net.Error); err == websocket.ErrCloseSent || ok && ne.Timeout() {
		return nil // the end, or a writer stuck on the peer, decides
	}
	return err
}

// handlePong gives the peer another PongWait, within the budget.
func (c *Conn) handlePong(string) error {
	if c.controlFrame("pong") {
		c.extendReadDeadline()
	}
	return nil
}

// handleClose answers the peer's close frame with one of the same code, as
// the websocket.Conn's default handler does, within the budget; the read
// then ends either way. A close that floods the budget is answered with
// 1008 instead, and one the connection is ending for (the answer to the
// server's own close frame) is not answered.
func (c *Conn) handleClose(code int, _ string) error {
	if c.controlFrame("close") {
		c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(c.srv.lim.WriteWait))
	}
	return nil
}

func (c *Conn) countRateLimited() {
	if !c.rateLimited {
		c.rateLimited = true
		c.srv.m.RateLimited.Inc()
	}
}

// dispatch hands one message to the Handler. A panic there closes this
// connection only, with 1011.
func (c *Conn) dispatch(env *Envelope) {
	defer c.writeReplies()
	defer func() {
		if r := recover(); r != nil {
			c.Logger().Error("panic handling a message", "type", env.Type, "panic", r, "stack", string(debug.Stack()))
			c.Close(websocket.CloseInternalServerErr, ReasonInternal)
		}
	}()
	c.srv.h.HandleMessage(c.ctx, c, env)
}

// decodeEnvelope reads a frame's type and id. When the frame is not a
// JSON object with a string "type" (and, if present, a string "id" of at
// most 64 characters) it returns a nil Envelope, the id if one could be
// read, and what is wrong.
func decodeEnvelope(data []byte) (env *Envelope, re, problem string) {
	if f, ok := scanMove(data); ok {
		env := &Envelope{Type: f.typ, ID: f.id, Raw: data}
		if f.typ == "move" {
			env.moveBuf = f.msg
			env.move = &env.moveBuf
		}
		return env, "", ""
	}
	return decodeEnvelopeJSON(data)
}

// decodeEnvelopeJSON is decodeEnvelope through encoding/json, for every
// frame scanMove leaves.
func decodeEnvelopeJSON(data []byte) (env *Envelope, re, problem string) {
	// Two fields of a struct rather than a map of every field: a move
	// decodes in a third of the time. Keys match as encoding/json matches
	// struct fields, ignoring ASCII case, as every handler's own decoding
	// of the other fields already does.
	var head struct {
		Type json.RawMessage `json:"type"`
		ID   json.RawMessage `json:"id"`
	}
	if !isObject(data) || json.Unmarshal(data, &head) != nil {
		return nil, "", "a message must be a JSON object"
	}
	var id string
	if head.ID != nil {
		if err := json.Unmarshal(head.ID, &id); err != nil {
			return nil, "", "id must be a string"
		}
		if len(id) > maxIDLen {
			return nil, "", fmt.Sprintf("id longer than %d characters", maxIDLen)
		}
	}
	if head.Type == nil {
		return nil, id, `missing "type"`
	}
	var typ string
	if err := json.Unmarshal(head.Type, &typ); err != nil || typ == "" {
		return nil, id, `"type" must be a non-empty string`
	}
	return &Envelope{Type: typ, ID: id, Raw: data}, "", ""
}

// isObject reports whether the JSON text data starts as an object (its
// validity is for the decoder to check).
func isObject(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}

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
// Its writes are bounded by WriteWait, as any writer's.
func (c *Conn) writeReplies() {
	if c.writeAfterDispatch {
		c.writeAfterDispatch = false
		c.write(replyTurns)
	}
}

// write is the writer's loop: a turn takes every waiting message and
// writes it. After turns turns (none if negative) the writer hands over to
// a goroutine of its own, still the writer.
func (c *Conn) write(turns int) {
	s := c.srv
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
		if ping {
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(s.lim.WriteWait)); err != nil {
				c.writeFailed(err)
				return
			}
		}
		for i, msg := range msgs {
			if c.ctx.Err() != nil {
				c.writeClose(msgs[i:])
				c.send.finish()
				return
			}
			c.ws.SetWriteDeadline(time.Now().Add(s.lim.WriteWait))
			if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
				c.writeFailed(err)
				return
			}
			s.m.MessagesOut.Inc()
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
		c.ws.SetWriteDeadline(deadline)
		write := func(msg []byte) bool {
			if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
				return false
			}
			c.srv.m.MessagesOut.Inc()
			return true
		}
		for _, msg := range first {
			if !write(msg) {
				return
			}
		}
		for _, msg := range c.send.take() { // what was queued before the end
			if !write(msg) {
				return
			}
		}
	}
	c.ws.WriteControl(websocket.CloseMessage, f, deadline)
}

// WSServer accepts WebSocket connections (GET /ws) and runs them.
type WSServer struct {
	h        Handler
	lim      Limits
	m        *Metrics
	log      *slog.Logger
	upgrader websocket.Upgrader
	now      func() time.Time // the rate limiter's clock

	mu       sync.Mutex
	conns    map[*Conn]struct{}
	perIP    map[string]int // open and upgrading connections by remote IP
	shutdown bool
	wg       sync.WaitGroup // one per connection, from reservation to Closed
}

var connSeq atomic.Uint64

// NewWSServer makes a server that hands messages to h. Zero fields of lim
// take their defaults; m must not be nil (see Metrics); a nil log means
// slog.Default().
func NewWSServer(h Handler, lim Limits, m *Metrics, log *slog.Logger) *WSServer {
	if m == nil {
		panic("api: NewWSServer needs a *Metrics (use NewMetrics)")
	}
	if log == nil {
		log = slog.Default()
	}
	s := &WSServer{
		h: h, lim: lim.WithDefaults(), m: m, log: log, now: time.Now,
		conns: make(map[*Conn]struct{}),
		perIP: make(map[string]int),
	}
	s.upgrader = websocket.Upgrader{
		ReadBufferSize:    1024,
		WriteBufferSize:   1024,
		WriteBufferPool:   &sync.Pool{}, // idle connections hold no write buffer
		EnableCompression: false,
		// The origin was checked before Upgrade, where the refusal is counted.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	return s
}

// ServeHTTP upgrades a GET /ws request and runs the connection. It refuses
// with 503 while shutting down, 403 for a foreign Origin and 429 when the
// remote IP has MaxConnsPerIP connections open.
func (s *WSServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ip := s.lim.clientIP(r)
	if !s.lim.originAllowed(r) {
		s.m.Rejected.WithLabelValues("origin").Inc()
		s.log.Debug("websocket origin refused", "remote_ip", ip, "origin", r.Header.Get("Origin"))
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	if code, reason := s.reserve(ip); code != 0 {
		s.m.Rejected.WithLabelValues(reason).Inc()
		s.log.Debug("websocket upgrade refused", "remote_ip", ip, "reason", reason)
		if code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		http.Error(w, http.StatusText(code), code)
		return
	}
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil { // the upgrader has answered the request
		s.release(ip)
		s.log.Debug("websocket upgrade failed", "remote_ip", ip, "err", err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		srv: s, ws: ws, ip: ip,
		send:   newSendQueue(s.lim.SendQueue),
		ctx:    ctx,
		cancel: cancel,
	}
	c.send.budget = s.lim.SendBudget
	c.num = connSeq.Add(1)
	if s.lim.MsgRate > 0 {
		c.bucket = newTokenBucket(s.lim.MsgRate, s.lim.MsgBurst, s.now())
	}
	c.hello = time.AfterFunc(s.lim.HelloTimeout, func() {
		if c.PlayerID() == "" {
			c.Close(websocket.ClosePolicyViolation, ReasonNoHello)
		}
	})
	// Armed only once c.ping is set (Reset after AfterFunc), so that the
	// timer's function, which reads c.ping, never runs before.
	c.ping = time.AfterFunc(time.Duration(math.MaxInt64), c.pingDue)
	c.ping.Reset(s.lim.PingPeriod())
	s.register(c)
	go c.run()
}

// reserve accounts for a connection about to be upgraded; a non-zero code
// refuses it.
func (s *WSServer) reserve(ip string) (code int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return http.StatusServiceUnavailable, "shutdown"
	}
	if s.lim.MaxConnsPerIP > 0 && s.perIP[ip] >= s.lim.MaxConnsPerIP {
		return http.StatusTooManyRequests, "ip_cap"
	}
	s.perIP[ip]++
	s.wg.Add(1)
	return 0, ""
}

// release undoes reserve.
func (s *WSServer) release(ip string) {
	s.mu.Lock()
	if s.perIP[ip]--; s.perIP[ip] <= 0 {
		delete(s.perIP, ip)
	}
	s.mu.Unlock()
	s.wg.Done()
}

func (s *WSServer) register(c *Conn) {
	s.mu.Lock()
	s.conns[c] = struct{}{}
	down := s.shutdown
	s.mu.Unlock()
	s.m.Connections.Inc()
	if down { // Shutdown began during the upgrade
		c.Close(websocket.CloseServiceRestart, ReasonRestarting)
	}
}

// unregister forgets an ended connection (its WaitGroup count is done by run).
func (s *WSServer) unregister(c *Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	if s.perIP[c.ip]--; s.perIP[c.ip] <= 0 {
		delete(s.perIP, c.ip)
	}
	s.mu.Unlock()
	s.m.Connections.Dec()
}

// Conns is the number of open connections.
func (s *WSServer) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Shutdown refuses new connections (503), closes every open one with 1012
// (service restart) and "server restarting, please reconnect", and waits
// until all have ended and their Handler.Closed has returned, or ctx ends:
// then the remaining TCP connections are dropped and ctx's error returned.
// The http.Server does not track upgraded connections: call Shutdown as
// well as http.Server.Shutdown.
func (s *WSServer) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	conns := make([]*Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.log.Info("closing websocket connections", "conns", len(conns))
	for _, c := range conns {
		c.Close(websocket.CloseServiceRestart, ReasonRestarting)
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.conns {
			c.ws.NetConn().Close()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}
