package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/client"
	"klondike/api/protocol"
)

// A frame is what a connection's read loop hands the main loop: one message
// or the error that ended the connection. gen tells the connections apart,
// so that a dead connection's last words are ignored after a reconnect.
type frame struct {
	gen  int
	data []byte
	err  error
}

// A request is a message sent and not yet answered (moves aside). arg is
// what its reply needs to know of why it was sent (see ask).
type request struct {
	typ string
	arg string
	at  time.Time
}

// requestWords says what a request of each type asks, in the words that
// follow "Could not" and "asked to" (the GETs of fetch by their what).
var requestWords = map[string]string{
	protocol.TypeHello:           "sign you in",
	protocol.TypeCreateMatch:     "create the match",
	protocol.TypeQuickMatch:      "find a quick match",
	protocol.TypeListMatches:     "list the open matches",
	protocol.TypeJoinMatch:       "join the match",
	protocol.TypeLeaveMatch:      "leave the match",
	protocol.TypeReady:           "say whether you are ready",
	protocol.TypeStartMatch:      "start the match",
	protocol.TypeSpectate:        "watch the match",
	protocol.TypeRematch:         "start a rematch",
	protocol.TypeResign:          "resign",
	protocol.TypePlayHere:        "play here",
	protocol.TypeCreateChallenge: "create the challenge",
	protocol.TypeCloseChallenge:  "close the challenge",
	protocol.TypeGetAsyncRound:   "load the challenge",
	protocol.TypeGetDaily:        "load today's daily deals",
	protocol.TypeStartAttempt:    "start your game",
	protocol.TypeGetBoard:        "load the board",
	protocol.TypeGetRecords:      "load the records",
	"profile":                    "load the ratings",
	"ladder":                     "load the ladder",
}

// words says what r asked, as requestWords does.
func (r request) words() string {
	switch {
	case r.typ == protocol.TypeGetAsyncRound && (r.arg == argDaily || r.arg == argDailyList):
		return "load the daily deal"
	case requestWords[r.typ] != "":
		return requestWords[r.typ]
	}
	return "answer " + r.typ
}

// connect dials the server, starts the read loop and says hello.
func (c *playClient) connect(ctx context.Context) error {
	dctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	defer cancel()
	conn, resp, err := client.Dial(dctx, c.cfg.URL, client.Options{Dialer: &c.dialer, ReadTimeout: c.cfg.ReadTimeout, WriteWait: c.cfg.WriteWait})
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		if resp != nil {
			return fmt.Errorf("connecting to %s: %v (HTTP %s)", c.cfg.URL, err, resp.Status)
		}
		return fmt.Errorf("connecting to %s: %v", c.cfg.URL, err)
	}
	c.conn = conn
	c.gen++
	gen := c.gen
	c.readers.Add(1)
	go c.readLoop(conn, gen)
	c.hello()
	return nil
}

// hello says hello: with the token, a known player, who keeps its name
// unless --name gave one; without, a new player of the name.
func (c *playClient) hello() {
	name := c.name
	if c.token != "" && !c.cfg.NameGiven {
		name = ""
	}
	c.request(&protocol.Hello{Type: protocol.TypeHello, Name: name, Token: c.token})
}

// readLoop hands each message of conn to the main loop, then the error
// that ended it. It ends with the connection (or when run returns).
func (c *playClient) readLoop(conn *client.Conn, gen int) {
	defer c.readers.Done()
	for {
		data, err := conn.Read()
		select {
		case c.frames <- frame{gen: gen, data: data, err: err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// request sends msg, a pointer to one of the protocol's client messages,
// with a fresh id, and remembers it until its reply. It returns the id.
func (c *playClient) request(msg any) string {
	return c.ask(msg, "")
}

// ask is request with arg kept for the reply's handler.
func (c *playClient) ask(msg any, arg string) string {
	idp, typ, ok := protocol.ClientFields(msg)
	if !ok {
		panic(fmt.Sprintf("klondike: %T is not a client message", msg))
	}
	c.nextID++
	id := strconv.Itoa(c.nextID)
	*idp = id
	if typ != protocol.TypeMove { // a move's answer is tracked by the round
		c.pending[id] = request{typ: typ, arg: arg, at: time.Now()}
	}
	c.send(msg)
	return id
}

// send writes one message. A failed write closes the connection; its read
// loop then reports the drop.
func (c *playClient) send(msg any) {
	if c.conn == nil {
		return
	}
	if err := c.conn.Send(msg); err != nil {
		c.conn.Close()
	}
}

// connectionLost handles the end of the connection: during a match it
// reconnects with the token; otherwise, or when every try failed, it
// returns the error that ends run.
func (c *playClient) connectionLost(ctx context.Context, cause error) error {
	c.conn.Close()
	if c.quit {
		return nil
	}
	var ce *websocket.CloseError
	if errors.As(cause, &ce) && ce.Code == protocol.CloseReplaced {
		return errors.New("this player opened too many connections at once; this, the oldest, was closed")
	}
	if errors.As(cause, &ce) && ce.Code == protocol.CloseSignedOut {
		return errors.New("this player signed out everywhere or was deleted: the saved credential no longer works (the next run starts a new player)")
	}
	if !c.shouldReconnect() {
		return fmt.Errorf("connection lost: %v", cause)
	}
	c.printf("connection lost (%v); reconnecting\n", cause)
	c.pending = map[string]request{} // their replies are lost with the connection
	err := cause
	for c.tries < c.cfg.Retries {
		c.tries++
		wait := c.cfg.RetryBase << (c.tries - 1)
		if wait > c.cfg.RetryMax || wait <= 0 {
			wait = c.cfg.RetryMax
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errInterrupted
		case <-t.C:
		}
		if err = c.connect(ctx); err == nil {
			return nil // the tries start again at the welcome
		}
		if errors.Is(err, errInterrupted) {
			return err
		}
		c.printf("reconnect %d of %d failed: %v\n", c.tries, c.cfg.Retries, err)
	}
	return fmt.Errorf("connection lost and %d reconnects failed: %v", c.cfg.Retries, err)
}

// shouldReconnect reports whether a drop is worth resuming: we have a
// session and a match (or a watched match, or an attempt) under way.
func (c *playClient) shouldReconnect() bool {
	if c.token == "" {
		return false
	}
	if c.spectating != "" || c.attemptUnderWay() {
		return true
	}
	return c.match != nil && c.match.State != protocol.StateOver
}

// httpURL turns a server path into a full http(s) address on the server.
func (c *playClient) httpURL(path string) string {
	u, err := url.Parse(c.cfg.URL)
	if err != nil {
		return path
	}
	switch u.Scheme {
	case "wss":
		u.Scheme = "https"
	default:
		u.Scheme = "http"
	}
	ref, err := url.Parse(path)
	if err != nil {
		return path
	}
	return u.ResolveReference(ref).String()
}
