package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
)

// Options tune a connection; the zero value is gorilla's default dialer,
// no read deadline and no write deadline.
type Options struct {
	Dialer *websocket.Dialer // nil: websocket.DefaultDialer
	// ReadTimeout is the silence (no frame, no ping) after which a read
	// fails: every frame and every ping of the server starts it again, so
	// that only a dead connection is that silent. 0: none.
	ReadTimeout time.Duration
	WriteWait   time.Duration // bounds one write; 0: none
}

// A Conn is one WebSocket connection to klondiked. One goroutine reads
// (Read) and one writes (Send, Request), as gorilla/websocket allows.
type Conn struct {
	ws     *websocket.Conn
	opts   Options
	nextID int
}

// WSURL turns a server's base URL (http://host:port, or ws://…) into the
// address of its WebSocket endpoint, /ws.
func WSURL(base string) string {
	base = strings.TrimSuffix(base, "/")
	if strings.HasPrefix(base, "http") {
		base = "ws" + strings.TrimPrefix(base, "http")
	}
	return base + "/ws"
}

// Dial connects to the WebSocket endpoint at url (ws://host:port/ws). The
// response is the server's answer to the upgrade when there was one, for
// the caller to tell a refusal (such as 429) from a network error.
func Dial(ctx context.Context, url string, o Options) (*Conn, *http.Response, error) {
	d := o.Dialer
	if d == nil {
		d = websocket.DefaultDialer
	}
	ws, resp, err := d.DialContext(ctx, url, nil)
	if err != nil {
		return nil, resp, err
	}
	c := &Conn{ws: ws, opts: o}
	if o.ReadTimeout > 0 {
		ws.SetReadDeadline(time.Now().Add(o.ReadTimeout))
		ws.SetPingHandler(func(data string) error {
			ws.SetReadDeadline(time.Now().Add(o.ReadTimeout))
			err := ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(c.writeWait()))
			if errors.Is(err, websocket.ErrCloseSent) {
				return nil
			}
			return err
		})
	}
	return c, resp, nil
}

func (c *Conn) writeWait() time.Duration {
	if c.opts.WriteWait > 0 {
		return c.opts.WriteWait
	}
	return time.Second
}

// Read returns the next frame the server sent, or the error that ended the
// connection: a *websocket.CloseError for the server's close frame.
func (c *Conn) Read() ([]byte, error) {
	_, data, err := c.ws.ReadMessage()
	if err == nil && c.opts.ReadTimeout > 0 {
		c.ws.SetReadDeadline(time.Now().Add(c.opts.ReadTimeout))
	}
	return data, err
}

// Send writes msg, one of the protocol's client messages (or anything
// else that encodes as JSON), as one text frame.
func (c *Conn) Send(msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return c.SendRaw(data)
}

// SendRaw writes data as one text frame.
func (c *Conn) SendRaw(data []byte) error {
	if c.opts.WriteWait > 0 {
		c.ws.SetWriteDeadline(time.Now().Add(c.opts.WriteWait))
	}
	return c.ws.WriteMessage(websocket.TextMessage, data)
}

// Request gives msg, a pointer to one of the protocol's client messages,
// the connection's next id when its id is empty, sends it and returns the
// id: the "re" of its reply.
func (c *Conn) Request(msg any) (string, error) {
	idp, _, ok := protocol.ClientFields(msg)
	if !ok {
		return "", fmt.Errorf("client: %T is not a client message", msg)
	}
	c.SetID(idp)
	return *idp, c.Send(msg)
}

// SetID gives *id the connection's next id when it is empty.
func (c *Conn) SetID(id *string) {
	if *id == "" {
		c.nextID++
		*id = strconv.Itoa(c.nextID)
	}
}

// CloseNormal sends a close frame (normal closure, with the reason),
// waiting at most wait for the write; the connection stays open for the
// server's answer, which ends Read.
func (c *Conn) CloseNormal(reason string, wait time.Duration) error {
	return c.ws.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, reason), time.Now().Add(wait))
}

// Close drops the connection at once, without a close frame, as a client
// that goes away does.
func (c *Conn) Close() error { return c.ws.Close() }
