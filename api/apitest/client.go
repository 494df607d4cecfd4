// Package apitest is a player's WebSocket connection to klondiked for
// tests: it dials a server, says hello, sends the protocol's client
// messages and waits, for a bounded time, for the server's messages by
// type, read as the protocol's types.
//
//	c := apitest.Dial(t, base) // base: the server's URL, http://127.0.0.1:port
//	c.Hello("alice")
//	m := apitest.Request[protocol.Match](c, protocol.CreateMatch{Type: protocol.TypeCreateMatch})
//	c.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: m.Match.ID})
//	started := apitest.Expect[protocol.RoundStarted](c)
//
// Every wait fails the test after the client's Timeout, and so does an
// error the server sends while the client waits for anything else. Frames
// read while waiting for another type are kept, in order, for the next
// wait: pushes and replies interleave, and nothing read is thrown away.
//
// It is meant for tests only: its methods call the test's Fatal, from the
// test's goroutine.
package apitest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
)

// DefaultTimeout is how long a Client waits for a message, or for the end
// of its connection, when its Timeout is zero.
const DefaultTimeout = 10 * time.Second

// inboxSize is how many frames the reader holds for the test before it
// waits for the test to take them.
const inboxSize = 1024

// Frame is one message the server sent: its header (type, and the re of a
// reply) and its JSON as sent.
type Frame struct {
	protocol.Header
	Raw json.RawMessage
}

// String returns the frame as sent, for failure messages.
func (f Frame) String() string { return string(f.Raw) }

// Client is one player's connection.
type Client struct {
	// PlayerID and Token are the session's, once Hello or Resume is
	// answered.
	PlayerID, Token string
	// Timeout bounds each wait for a message (DefaultTimeout when zero).
	Timeout time.Duration

	tb      testing.TB
	conn    *websocket.Conn
	in      chan Frame    // frames the reader read, closed when it ends
	quit    chan struct{} // closed by Close: the reader stops handing frames
	stop    sync.Once
	readErr error   // why the reader ended; read once in is closed
	pending []Frame // frames read while waiting for others, in order
	nextID  int

	mu     sync.Mutex
	frames []Frame // every frame read, in order
}

// Dial connects to the WebSocket endpoint (/ws) of the server at base, an
// http:// or https:// URL. The connection is closed when the test ends.
func Dial(tb testing.TB, base string) *Client {
	tb.Helper()
	u := "ws" + strings.TrimPrefix(strings.TrimSuffix(base, "/"), "http") + "/ws"
	conn, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		tb.Fatalf("dial %s: %v", u, err)
	}
	c := &Client{tb: tb, conn: conn, in: make(chan Frame, inboxSize), quit: make(chan struct{})}
	go c.read()
	tb.Cleanup(c.Close)
	return c
}

// read hands every frame to the test until the connection ends or Close.
func (c *Client) read() {
	defer close(c.in)
	for {
		_, b, err := c.conn.ReadMessage()
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
// MatchRef, Move, Resign, Hint), or a map for a message the protocol's
// types cannot write (a malformed one). A message without an id is given
// the next of the client's.
func (c *Client) Send(msg any) string {
	c.tb.Helper()
	var id string
	if m, ok := msg.(map[string]any); ok {
		s, _ := m["id"].(string)
		id = c.id(&s)
		m["id"] = id
	} else {
		// A copy to set the id in, as the protocol's messages are given by value.
		p := reflect.New(reflect.TypeOf(msg))
		p.Elem().Set(reflect.ValueOf(msg))
		idp, _, ok := protocol.ClientFields(p.Interface())
		if !ok {
			c.tb.Fatalf("Send(%T): not a client message", msg)
		}
		id = c.id(idp)
		msg = p.Interface()
	}
	if err := c.conn.WriteJSON(msg); err != nil {
		c.tb.Fatalf("send %+v: %v", msg, err)
	}
	return id
}

// id gives *id the client's next id when it is empty, and returns it.
func (c *Client) id(id *string) string {
	if *id == "" {
		c.nextID++
		*id = strconv.Itoa(c.nextID)
	}
	return *id
}

// Next returns the first unread frame of one of the types, waiting for
// it. It fails the test when the connection ends or Timeout passes first,
// or when an error comes that it does not wait for.
func (c *Client) Next(types ...string) Frame {
	c.tb.Helper()
	return c.wait(func(f Frame) bool { return slices.Contains(types, f.Type) },
		func(f Frame) bool { return f.Type == protocol.TypeError && !slices.Contains(types, protocol.TypeError) },
		strings.Join(types, " or "))
}

// Reply sends msg and returns the server's reply to it (the frame whose re
// is its id), whatever its type: errors included.
func (c *Client) Reply(msg any) Frame {
	c.tb.Helper()
	id := c.Send(msg)
	return c.wait(func(f Frame) bool { return f.Re == id }, func(Frame) bool { return false },
		"the reply to "+strconv.Quote(id))
}

// wait returns the first unread frame that want takes. A frame that stop
// takes fails the test; the others are kept for later waits.
func (c *Client) wait(want, stop func(Frame) bool, what string) Frame {
	c.tb.Helper()
	if i := slices.IndexFunc(c.pending, want); i >= 0 {
		f := c.pending[i]
		c.pending = slices.Delete(c.pending, i, i+1)
		return f
	}
	t := time.NewTimer(c.timeout())
	defer t.Stop()
	for {
		select {
		case f, ok := <-c.in:
			switch {
			case !ok:
				c.tb.Fatalf("waiting for %s: the connection ended: %v", what, c.readErr)
			case want(f):
				return f
			case stop(f):
				c.tb.Fatalf("waiting for %s: got %s", what, f)
			}
			c.pending = append(c.pending, f)
		case <-t.C:
			c.tb.Fatalf("no %s within %v", what, c.timeout())
		}
	}
}

// WaitClosed waits, at most Timeout, for the server to end the connection,
// keeping the frames that come first, and returns the error the reading
// ended with: a *websocket.CloseError for the server's close frame.
func (c *Client) WaitClosed() error {
	c.tb.Helper()
	t := time.NewTimer(c.timeout())
	defer t.Stop()
	for {
		select {
		case f, ok := <-c.in:
			if !ok {
				return c.readErr
			}
			c.pending = append(c.pending, f)
		case <-t.C:
			c.tb.Fatalf("the connection stayed open for %v", c.timeout())
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
func (c *Client) Hello(name string) protocol.Welcome {
	c.tb.Helper()
	return c.hello(protocol.Hello{Type: protocol.TypeHello, Name: name})
}

// Resume resumes the session of the token, and returns the welcome.
func (c *Client) Resume(token string) protocol.Welcome {
	c.tb.Helper()
	return c.hello(protocol.Hello{Type: protocol.TypeHello, Token: token})
}

func (c *Client) hello(msg protocol.Hello) protocol.Welcome {
	c.tb.Helper()
	w := Request[protocol.Welcome](c, msg)
	c.PlayerID, c.Token = w.PlayerID, w.Token
	return w
}

// Move plays a move and returns its answer: move_ok or move_rejected.
func (c *Client) Move(roundID string, seq int, move string) Frame {
	c.tb.Helper()
	return c.Reply(protocol.Move{Type: protocol.TypeMove, RoundID: roundID, Seq: seq, Move: move})
}

// Expect returns the first unread message of T's type (one of the
// protocol's server messages), waiting for it as Next does.
func Expect[T any](c *Client) T {
	c.tb.Helper()
	return Decode[T](c.tb, c.Next(typeOf[T](c.tb)))
}

// Request sends msg and returns its reply, which must be of T's type (an
// error reply fails the test).
func Request[T any](c *Client, msg any) T {
	c.tb.Helper()
	f := c.Reply(msg)
	if want := typeOf[T](c.tb); f.Type != want {
		c.tb.Fatalf("%+v: got %s, want %s", msg, f, want)
	}
	return Decode[T](c.tb, f)
}

// Decode reads a frame as T, failing the test if it does not read.
func Decode[T any](tb testing.TB, f Frame) T {
	tb.Helper()
	var v T
	if err := json.Unmarshal(f.Raw, &v); err != nil {
		tb.Fatalf("%s does not read as %T: %v", f, v, err)
	}
	return v
}

// typeOf is the name of the server message that T is.
func typeOf[T any](tb testing.TB) string {
	tb.Helper()
	var v T
	switch any(v).(type) {
	case protocol.Welcome:
		return protocol.TypeWelcome
	case protocol.Match:
		return protocol.TypeMatch
	case protocol.Matches:
		return protocol.TypeMatches
	case protocol.Error:
		return protocol.TypeError
	case protocol.MoveOK:
		return protocol.TypeMoveOK
	case protocol.MoveRejected:
		return protocol.TypeMoveRejected
	case protocol.Resigned:
		return protocol.TypeResigned
	case protocol.HintReply:
		return protocol.TypeHint
	case protocol.RoundStarting:
		return protocol.TypeRoundStarting
	case protocol.RoundStarted:
		return protocol.TypeRoundStarted
	case protocol.Leaderboard:
		return protocol.TypeLeaderboard
	case protocol.RoundOver:
		return protocol.TypeRoundOver
	case protocol.MatchOver:
		return protocol.TypeMatchOver
	case protocol.AsyncRound:
		return protocol.TypeAsyncRound
	case protocol.Daily:
		return protocol.TypeDaily
	case protocol.Board:
		return protocol.TypeBoard
	case protocol.Records:
		return protocol.TypeRecords
	case protocol.Ghost:
		return protocol.TypeGhost
	case protocol.AttemptOver:
		return protocol.TypeAttemptOver
	}
	tb.Fatalf("%T is not a server message of the protocol", v)
	return ""
}
