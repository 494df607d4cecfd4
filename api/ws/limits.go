package ws

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Defaults of the WebSocket limits: what a zero field of Limits means.
const (
	// DefaultReadLimit is the largest client frame, in bytes. A larger one
	// closes the connection with 1009 (message too big). Client messages are
	// small commands; 4 KiB leaves ample room.
	DefaultReadLimit = 4 << 10

	// DefaultHelloTimeout is how long a new connection may take to say hello
	// (to be identified: Conn.SetUserID) before it is closed with 1008
	// (Closes.NoHello).
	DefaultHelloTimeout = 10 * time.Second

	// DefaultPongWait is how long the server waits for any frame (a pong, or
	// a message) before it gives up on a silent peer. Pings are sent every
	// PongWait*9/10 so that a live peer's pong always arrives in time.
	DefaultPongWait = 60 * time.Second

	// DefaultWriteWait bounds the writing of one frame to the peer. A write
	// that takes longer ends the connection.
	DefaultWriteWait = 10 * time.Second

	// DefaultCloseWait is how long, after the server sent its close frame,
	// it waits for the peer's close frame before it drops the TCP
	// connection. It also bounds the writing of the close frame.
	DefaultCloseWait = 2 * time.Second

	// DefaultSendQueue is how many outgoing messages may wait for a
	// connection's writer. A client that lets the queue fill up is
	// disconnected as a slow consumer (Closes.SlowCode): it never stalls
	// the sender.
	DefaultSendQueue = 256

	// DefaultSendBudget is how many bytes of outgoing messages, counted as
	// encoded, a connection may hold queued and not yet written. Like a full
	// send queue, going over it disconnects the client as a slow consumer;
	// it bounds the memory a client that never reads can make the server
	// hold, whatever the size of the replies it asks for.
	DefaultSendBudget = 1 << 20

	// DefaultMsgRate and DefaultMsgBurst are a connection's message budget:
	// a token bucket refilled at MsgRate messages a second that holds at
	// most MsgBurst. See Limits.MsgRate for what happens beyond it.
	DefaultMsgRate  = 50
	DefaultMsgBurst = 100

	// DefaultMaxConnsPerIP caps the open WebSocket connections of one remote
	// IP address; over it the upgrade is refused with HTTP 429.
	DefaultMaxConnsPerIP = 64
)

// Limits are the WebSocket server's protective limits. A zero field means
// its default (the Default… constants); the zero Limits is a safe setting.
type Limits struct {
	// ReadLimit is the largest frame a client may send, in bytes.
	ReadLimit int64
	// HelloTimeout is the time a connection has to say hello: to be
	// identified, by Conn.SetUserID.
	HelloTimeout time.Duration
	// PongWait is how long a connection may stay silent (no pong, no
	// message) before it is dropped; pings go out every PongWait*9/10.
	PongWait time.Duration
	// WriteWait bounds the writing of one frame.
	WriteWait time.Duration
	// CloseWait is how long the server waits for the peer's close frame
	// after sending its own.
	CloseWait time.Duration
	// SendQueue is the capacity, in messages, of a connection's send
	// queue; overflowing it disconnects the client as slow.
	SendQueue int
	// SendBudget is the most bytes of outgoing messages (as encoded) a
	// connection may hold queued and not yet written; a message that would
	// take it over disconnects the client as slow, as a full queue does.
	SendBudget int64
	// MsgRate (messages a second) and MsgBurst bound what a client may send.
	// A message beyond the budget is not handled: Config.Refused is told
	// of it instead (the client gets an error). Each such message deepens a debt; once
	// the client has sent MsgBurst more messages than its budget (a flood)
	// the connection is closed with 1008 "rate limit exceeded". Control
	// frames (ping, pong, close) count as messages: beyond the budget a
	// ping gets no pong, a pong does not extend the read deadline and a
	// close is not answered, without an error message; they deepen the
	// debt, and a flood of them closes as one of messages. A negative
	// MsgRate turns rate limiting off.
	MsgRate  float64
	MsgBurst int
	// MaxConnsPerIP caps the connections of one client address (see
	// TrustedProxies). Negative: no cap.
	MaxConnsPerIP int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is
	// believed. A connection is a client's whose address is the TCP peer's,
	// unless the peer is one of these: then it is the last address of the
	// header that is not a trusted proxy. Every limit per address (the
	// connection cap here, the user's own: Conn.RemoteIP) counts by that
	// address.
	// Empty: no proxy is trusted, the header is ignored.
	TrustedProxies []netip.Prefix
	// AllowedOrigins lists the browser origins ("https://example.com",
	// compared case-insensitively) that may connect besides the server's own
	// host. A request without an Origin header (not a browser) is always
	// allowed; one whose Origin's host equals the request's Host is too.
	// "*" allows every origin.
	AllowedOrigins []string
}

// WithDefaults returns l with every zero (or negative, where that has no
// meaning of its own) field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.ReadLimit <= 0 {
		l.ReadLimit = DefaultReadLimit
	}
	if l.HelloTimeout <= 0 {
		l.HelloTimeout = DefaultHelloTimeout
	}
	if l.PongWait <= 0 {
		l.PongWait = DefaultPongWait
	}
	if l.WriteWait <= 0 {
		l.WriteWait = DefaultWriteWait
	}
	if l.CloseWait <= 0 {
		l.CloseWait = DefaultCloseWait
	}
	if l.SendQueue <= 0 {
		l.SendQueue = DefaultSendQueue
	}
	if l.SendBudget <= 0 {
		l.SendBudget = DefaultSendBudget
	}
	if l.MsgRate == 0 {
		l.MsgRate = DefaultMsgRate
	}
	if l.MsgBurst <= 0 {
		l.MsgBurst = DefaultMsgBurst
	}
	if l.MaxConnsPerIP == 0 {
		l.MaxConnsPerIP = DefaultMaxConnsPerIP
	}
	return l
}

// PingPeriod is how often the server pings: a little under PongWait, so
// that a live peer's pong arrives before the read deadline.
func (l Limits) PingPeriod() time.Duration {
	return l.WithDefaults().PongWait * 9 / 10
}

// originAllowed reports whether a WebSocket upgrade request's Origin is
// acceptable under l.
func (l Limits) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not a browser: nothing to protect against
	}
	for _, a := range l.AllowedOrigins {
		if a == "*" || strings.EqualFold(a, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// ClientIP is the address a request counts under: the TCP peer's,
// or behind a trusted proxy the client's it forwarded (see TrustedProxies).
func (l Limits) ClientIP(r *http.Request) string {
	peer := peerIP(r)
	if len(l.TrustedProxies) == 0 {
		return peer
	}
	addr, err := netip.ParseAddr(peer)
	if err != nil || !l.trusted(addr) {
		return peer
	}
	// Read from the right: each proxy appends the address it was reached
	// from, and only those of trusted proxies can be believed; the first
	// untrusted one is the client.
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a forged or broken header: the last proxy is all we know
		}
		if !l.trusted(a.Unmap()) {
			return a.Unmap().String()
		}
		peer = a.Unmap().String()
	}
	return peer
}

func (l Limits) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range l.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// peerIP is the TCP peer's address, without the port.
func peerIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
