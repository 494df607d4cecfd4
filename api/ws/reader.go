package ws

import (
	"errors"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// maxDrain bounds what is read and dropped from a connection that broke the
// read limit, while its close frame is on its way.
const maxDrain = 1 << 20

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

// handleFrame rate-limits and checks one frame, and hands its message to
// the Handler, or what it refused to Config.Refused.
func (c *Conn) handleFrame(mt int, data []byte) {
	s := c.srv
	if c.ctx.Err() != nil {
		return // ending: drop what comes until the peer's close frame
	}
	c.extendReadDeadline()
	s.m.MessagesIn.Inc()
	switch c.spend("message") {
	case rateLimited:
		c.refuse(data, RateLimited)
		return
	case rateFlood:
		return
	}
	if mt != websocket.TextMessage {
		c.refuse(data, Binary)
		return
	}
	c.dispatch(data)
}

// refuse tells Config.Refused of a message not handled.
func (c *Conn) refuse(data []byte, why Refusal) {
	if f := c.srv.refused; f != nil {
		f(c, data, why)
	}
}

// readMessage is the websocket.Conn's ReadMessage, with the message read
// into a buffer of frameBufs (ReadMessage's io.ReadAll makes a new one for
// every message): the caller gives buf back with putFrameBuf once the
// message is handled. A Handler reads the message's bytes only while it
// handles it, so the buffer can serve the next message.
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
		if c.end(websocket.CloseMessageTooBig, c.srv.closes.TooBig, true, true) {
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
		c.Close(websocket.ClosePolicyViolation, c.srv.closes.Flood)
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

// dispatch hands one message to the Handler, then runs the AfterMessage
// hook and writes the replies (writeReplies). A panic in the Handler closes
// this connection only, with 1011.
func (c *Conn) dispatch(msg []byte) {
	defer c.writeReplies()
	defer func() {
		if r := recover(); r != nil {
			c.Logger().Error("panic handling a message", "size", len(msg), "panic", r, "stack", string(debug.Stack()))
			c.Close(websocket.CloseInternalServerErr, c.srv.closes.Internal)
		}
	}()
	c.srv.h.HandleMessage(c, msg)
}
