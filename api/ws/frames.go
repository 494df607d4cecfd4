package ws

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// The writer frames a turn's messages itself and writes them to the
// network together: gorilla/websocket's WriteMessage makes one write, a
// system call, per message, and a reply and what the AfterMessage hook
// sends with it would take two. The frames are what WriteMessage makes of
// a text message on a server connection without compression (final,
// unmasked). The reader's pongs and close answers go through gorilla's
// WriteControl, another write to the same connection: the connection
// orders whole writes (a net.Conn's Write writes all of its bytes before
// another Write starts), so frames never interleave.

const (
	// maxWrite bounds one write of frames: a larger batch goes in several,
	// so that a writer stalled on its peer holds no more than this beside
	// its queue. A message larger than it is not copied: it goes alone,
	// through gorilla's WriteMessage.
	maxWrite = 16 << 10
	// maxFrameHeader is the longest header of a frame the server writes.
	maxFrameHeader = 10
)

// pingFrame is a ping without payload.
var pingFrame = []byte{0x89, 0}

// writeBufs are the buffers the writer frames a turn into; one grown past
// maxWrite (a single large message) is let go.
var writeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// appendTextFrame appends msg as a final, unmasked text frame.
func appendTextFrame(b, msg []byte) []byte {
	n := len(msg)
	switch {
	case n < 126:
		b = append(b, 0x81, byte(n))
	case n < 1<<16:
		b = append(b, 0x81, 126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 0x81, 127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return append(b, msg...)
}

// writeFrames writes a ping first, if ping, then msgs as text frames, in
// one write to the network unless they are more than maxWrite bytes. Each
// write must end by until, or, when until is zero, within WriteWait.
func (c *Conn) writeFrames(msgs [][]byte, ping bool, until time.Time) error {
	bp := writeBufs.Get().(*[]byte)
	b := (*bp)[:0]
	if ping {
		b = append(b, pingFrame...)
	}
	var err error
	framed := 0 // messages in b
	for _, msg := range msgs {
		if len(b) > 0 && len(b)+maxFrameHeader+len(msg) > maxWrite {
			if err = c.writeOut(b, framed, until); err != nil {
				break
			}
			b, framed = b[:0], 0
		}
		if len(msg) > maxWrite {
			if err = c.writeLarge(msg, until); err != nil {
				break
			}
			continue
		}
		b = appendTextFrame(b, msg)
		framed++
	}
	if err == nil && len(b) > 0 {
		err = c.writeOut(b, framed, until)
	}
	if cap(b) <= maxWrite {
		*bp = b[:0]
		writeBufs.Put(bp)
	}
	return err
}

// writeLarge writes one message larger than maxWrite, as gorilla does:
// its writes and WriteControl's are ordered by its lock.
func (c *Conn) writeLarge(msg []byte, until time.Time) error {
	if until.IsZero() {
		until = time.Now().Add(c.srv.lim.WriteWait)
	}
	c.ws.SetWriteDeadline(until)
	if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
		return err
	}
	c.srv.m.MessagesOut.Inc()
	return nil
}

// writeOut writes b, which holds n messages' frames, to the network.
func (c *Conn) writeOut(b []byte, n int, until time.Time) error {
	if until.IsZero() {
		until = time.Now().Add(c.srv.lim.WriteWait)
	}
	nc := c.ws.NetConn()
	nc.SetWriteDeadline(until)
	if _, err := nc.Write(b); err != nil {
		return err
	}
	c.srv.m.MessagesOut.Add(float64(n))
	return nil
}
