// Package apitest is api/client for tests: a player's WebSocket connection
// to klondiked whose every failure fails the test.
//
//	c := apitest.Dial(t, base) // base: the server's URL, http://127.0.0.1:port
//	c.Hello("alice")
//	m := apitest.Request[protocol.Match](c, protocol.CreateMatch{Type: protocol.TypeCreateMatch})
//	c.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: m.Match.ID})
//	started := apitest.Expect[protocol.RoundStarted](c)
//
// Every wait fails the test after the client's Timeout, and so does an
// error the server sends while the client waits for anything else (see
// client.Client). Its methods call the test's Fatal, so they are called
// from the test's goroutine.
package apitest

import (
	"context"
	"testing"

	"klondike/api/client"
	"klondike/api/protocol"
)

// DefaultTimeout is how long a Client waits for a message, or for the end
// of its connection, when its Timeout is zero.
const DefaultTimeout = client.DefaultTimeout

// Frame is one message the server sent: its header and its JSON as sent.
type Frame = client.Frame

// Client is one player's connection, failing its test on any error.
type Client struct {
	*client.Client
	tb testing.TB
}

// Dial connects to the WebSocket endpoint (/ws) of the server at base, an
// http:// or https:// URL. The connection is closed when the test ends.
func Dial(tb testing.TB, base string) *Client {
	tb.Helper()
	c, err := client.Open(context.Background(), base, client.Options{})
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(c.Close)
	return &Client{Client: c, tb: tb}
}

// must returns v, by a function that first fails its test on err:
// must(call())(tb).
func must[T any](v T, err error) func(testing.TB) T {
	return func(tb testing.TB) T {
		tb.Helper()
		if err != nil {
			tb.Fatalf("%v", err)
		}
		return v
	}
}

// Send writes a client message (see client.Client.Send) and returns its id.
func (c *Client) Send(msg any) string {
	c.tb.Helper()
	return must(c.Client.Send(msg))(c.tb)
}

// Next returns the first unread frame of one of the types, waiting for it.
func (c *Client) Next(types ...string) Frame {
	c.tb.Helper()
	return must(c.Client.Next(types...))(c.tb)
}

// Reply sends msg and returns the server's reply to it, whatever its type.
func (c *Client) Reply(msg any) Frame {
	c.tb.Helper()
	return must(c.Client.Reply(msg))(c.tb)
}

// WaitClosed waits for the server to end the connection and returns the
// error the reading ended with: a *websocket.CloseError for the server's
// close frame.
func (c *Client) WaitClosed() error {
	c.tb.Helper()
	readErr, err := c.Client.WaitClosed()
	return must(readErr, err)(c.tb)
}

// Hello starts a new player's session with the name.
func (c *Client) Hello(name string) protocol.Welcome {
	c.tb.Helper()
	return must(c.Client.Hello(name))(c.tb)
}

// Resume resumes the session of the token.
func (c *Client) Resume(token string) protocol.Welcome {
	c.tb.Helper()
	return must(c.Client.Resume(token))(c.tb)
}

// Move plays a move and returns its answer: move_ok or move_rejected.
func (c *Client) Move(roundID string, seq int, move string) Frame {
	c.tb.Helper()
	return must(c.Client.Move(roundID, seq, move))(c.tb)
}

// Expect returns the first unread message of T's type, waiting for it.
func Expect[T any](c *Client) T {
	c.tb.Helper()
	return must(client.Expect[T](c.Client))(c.tb)
}

// Request sends msg and returns its reply, which must be of T's type.
func Request[T any](c *Client, msg any) T {
	c.tb.Helper()
	return must(client.Request[T](c.Client, msg))(c.tb)
}

// Decode reads a frame as T, failing the test if it does not read.
func Decode[T any](tb testing.TB, f Frame) T {
	tb.Helper()
	return must(client.Decode[T](f))(tb)
}
