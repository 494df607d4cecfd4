package client

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"klondike/api/protocol"
)

// DefaultTimeout is how long a Client waits for a message, or for the end
// of its connection, when its Timeout is zero.
const DefaultTimeout = 10 * time.Second

// inboxSize is how many frames the reader holds before it waits for the
// Client's user to take them.
const inboxSize = 1024

// Frame is one message the server sent: its header (type, and the re of a
// reply) and its JSON as sent.
type Frame struct {
	protocol.Header
	Raw json.RawMessage
}

// String returns the frame as sent, for error messages.
func (f Frame) String() string { return string(f.Raw) }

// Client is one player's connection whose frames are waited for, for a
// bounded time, by type or as the reply (by "re") to a request sent.
// Frames read while waiting for others are kept, in order, for the next
// wait: pushes and replies interleave, and nothing read is thrown away.
// An error the server sends while the Client waits for anything else ends
// the wait with an error. One goroutine uses it.
type Client struct {
	// PlayerID and Token are the session's, once Hello or Resume is
	// answered.
	PlayerID, Token string
	// Timeout bounds each wait for a message (DefaultTimeout when zero).
	Timeout time.Duration

	conn    *Conn
	in      chan Frame    // frames the reader read, closed when it ends
	quit    chan struct{} // closed by Close: the reader stops handing frames
	stop    sync.Once
	readErr error   // why the reader ended; read once in is closed
	pending []Frame // frames read while waiting for others, in order

	mu     sync.Mutex
	frames []Frame // every frame read, in order
}

// Open connects to the WebSocket endpoint (/ws) of the server at base, an
// http:// or https:// URL, and starts reading.
func Open(ctx context.Context, base string, o Options) (*Client, error) {
	u := WSURL(base)
	conn, _, err := Dial(ctx, u, o)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	c := &Client{conn: conn, in: make(chan Frame, inboxSize), quit: make(chan struct{})}
	go c.read()
	return c, nil
}

// read hands every frame on until the connection ends or Close.
func (c *Client) read() {
	defer close(c.in)
	for {
		b, err := c.conn.Read()
		if err != nil {
			c.readErr = err
			return
		}
		f := Frame{Raw: b}
		_ = json.Unmarshal(b, &f.Header) // a frame that is not a message has no type, and matches no wait
		c.mu.Lock()
		c.frames = append(c.frames, f)
		c.mu.Unlock()
		select {
		case c.in <- f:
		case <-c.quit:
			return
		}
	}
}

// Close drops the connection at once, without a close frame, as a client
// that goes away does.
func (c *Client) Close() {
	c.stop.Do(func() {
		close(c.quit)
		c.conn.Close()
	})
}

// Frames returns every frame read so far, in the order the server sent
// them, those already taken included.
func (c *Client) Frames() []Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.frames)
}

// Send writes a client message and returns its id: msg is one of the
// protocol's client messages (protocol.Hello, CreateMatch, ListMatches,
// MatchRef, Move, Resign, Hint), by value or pointer, or a map for a
// message the protocol's types cannot write (a malformed one). A message
// without an id is given the next of the client's.
func (c *Client) Send(msg any) (string, error) {
	var id string
	if m, ok := msg.(map[string]any); ok {
		s, _ := m["id"].(string)
		c.conn.SetID(&s)
		id = s
		m["id"] = id
	} else {
		// A copy to set the id in, as the protocol's messages are given by value.
		v := reflect.ValueOf(msg)
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		idp, _, ok := protocol.ClientFields(p.Interface())
		if !ok {
			return "", fmt.Errorf("Send(%T): not a client message", msg)
		}
		c.conn.SetID(idp)
		id = *idp
		msg = p.Interface()
	}
	if err := c.conn.Send(msg); err != nil {
		return id, fmt.Errorf("send %+v: %w", msg, err)
	}
	return id, nil
}

// Next returns the first unread frame of one of the types, waiting for
// it. It fails when the connection ends or Timeout passes first, or when
// an error comes that it does not wait for.
func (c *Client) Next(types ...string) (Frame, error) {
	return c.wait(func(f Frame) bool { return slices.Contains(types, f.Type) },
		func(f Frame) bool { return f.Type == protocol.TypeError && !slices.Contains(types, protocol.TypeError) },
		strings.Join(types, " or "))
}

// Reply sends msg and returns the server's reply to it (the frame whose re
// is its id), whatever its type: errors included.
func (c *Client) Reply(msg any) (Frame, error) {
	id, err := c.Send(msg)
	if err != nil {
		return Frame{}, err
	}
	return c.wait(func(f Frame) bool { return f.Re == id }, func(Frame) bool { return false },
		"the reply to "+strconv.Quote(id))
}

// wait returns the first unread frame that want takes. A frame that stop
// takes is an error; the others are kept for later waits.
func (c *Client) wait(want, stop func(Frame) bool, what string) (Frame, error) {
	if i := slices.IndexFunc(c.pending, want); i >= 0 {
		f := c.pending[i]
		c.pending = slices.Delete(c.pending, i, i+1)
		return f, nil
	}
	t := time.NewTimer(c.timeout())
	defer t.Stop()
	for {
		select {
		case f, ok := <-c.in:
			switch {
			case !ok:
				return Frame{}, fmt.Errorf("waiting for %s: the connection ended: %w", what, c.readErr)
			case want(f):
				return f, nil
			case stop(f):
				return f, fmt.Errorf("waiting for %s: got %s", what, f)
			}
			c.pending = append(c.pending, f)
		case <-t.C:
			return Frame{}, fmt.Errorf("no %s within %v", what, c.timeout())
		}
	}
}

// WaitClosed waits, at most Timeout, for the server to end the connection,
// keeping the frames that come first, and returns the error the reading
// ended with (a *websocket.CloseError for the server's close frame), or
// err when the connection stayed open.
func (c *Client) WaitClosed() (readErr, err error) {
	t := time.NewTimer(c.timeout())
	defer t.Stop()
	for {
		select {
		case f, ok := <-c.in:
			if !ok {
				return c.readErr, nil
			}
			c.pending = append(c.pending, f)
		case <-t.C:
			return nil, fmt.Errorf("the connection stayed open for %v", c.timeout())
		}
	}
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// Hello starts a new player's session with the name, and returns the
// welcome.
func (c *Client) Hello(name string) (protocol.Welcome, error) {
	return c.hello(protocol.Hello{Type: protocol.TypeHello, Name: name})
}

// Resume resumes the session of the token, and returns the welcome.
func (c *Client) Resume(token string) (protocol.Welcome, error) {
	return c.hello(protocol.Hello{Type: protocol.TypeHello, Token: token})
}

func (c *Client) hello(msg protocol.Hello) (protocol.Welcome, error) {
	w, err := Request[protocol.Welcome](c, msg)
	if err == nil {
		c.PlayerID, c.Token = w.PlayerID, w.Token
	}
	return w, err
}

// Move plays a move and returns its answer: move_ok or move_rejected.
func (c *Client) Move(roundID string, seq int, move string) (Frame, error) {
	return c.Reply(protocol.Move{Type: protocol.TypeMove, RoundID: roundID, Seq: seq, Move: move})
}

// Expect returns the first unread message of T's type (one of the
// protocol's server messages), waiting for it as Next does.
func Expect[T any](c *Client) (T, error) {
	typ, err := TypeOf[T]()
	if err != nil {
		var zero T
		return zero, err
	}
	f, err := c.Next(typ)
	if err != nil {
		var zero T
		return zero, err
	}
	return Decode[T](f)
}

// Request sends msg and returns its reply, which must be of T's type (an
// error reply is an error).
func Request[T any](c *Client, msg any) (T, error) {
	var zero T
	want, err := TypeOf[T]()
	if err != nil {
		return zero, err
	}
	f, err := c.Reply(msg)
	if err != nil {
		return zero, err
	}
	if f.Type != want {
		return zero, fmt.Errorf("%+v: got %s, want %s", msg, f, want)
	}
	return Decode[T](f)
}

// Decode reads a frame as T.
func Decode[T any](f Frame) (T, error) {
	var v T
	if err := json.Unmarshal(f.Raw, &v); err != nil {
		return v, fmt.Errorf("%s does not read as %T: %w", f, v, err)
	}
	return v, nil
}

// TypeOf is the name of the server message that T is.
func TypeOf[T any]() (string, error) {
	var v T
	switch any(v).(type) {
	case protocol.Welcome:
		return protocol.TypeWelcome, nil
	case protocol.Match:
		return protocol.TypeMatch, nil
	case protocol.Matches:
		return protocol.TypeMatches, nil
	case protocol.Error:
		return protocol.TypeError, nil
	case protocol.MoveOK:
		return protocol.TypeMoveOK, nil
	case protocol.MoveRejected:
		return protocol.TypeMoveRejected, nil
	case protocol.Resigned:
		return protocol.TypeResigned, nil
	case protocol.HintReply:
		return protocol.TypeHint, nil
	case protocol.RoundStarting:
		return protocol.TypeRoundStarting, nil
	case protocol.RoundStarted:
		return protocol.TypeRoundStarted, nil
	case protocol.Leaderboard:
		return protocol.TypeLeaderboard, nil
	case protocol.RoundOver:
		return protocol.TypeRoundOver, nil
	case protocol.MatchOver:
		return protocol.TypeMatchOver, nil
	case protocol.AsyncRound:
		return protocol.TypeAsyncRound, nil
	case protocol.Daily:
		return protocol.TypeDaily, nil
	case protocol.Board:
		return protocol.TypeBoard, nil
	case protocol.Records:
		return protocol.TypeRecords, nil
	case protocol.Ghost:
		return protocol.TypeGhost, nil
	case protocol.AttemptOver:
		return protocol.TypeAttemptOver, nil
	case protocol.PlayingElsewhere:
		return protocol.TypePlayingElsewhere, nil
	}
	return "", fmt.Errorf("%T is not a server message of the protocol", v)
}
