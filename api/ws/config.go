package ws

import "log/slog"

// Config is what a Server needs besides its Handler. A zero field means
// its default, as each says; the zero Config is a working transport that
// counts nothing and refuses quietly.
type Config struct {
	// Limits are the protective limits (zero fields take defaults).
	Limits Limits
	// AfterMessage, if not nil, is called on a connection's read goroutine
	// after each message HandleMessage handled (a panicking one included),
	// before the read goroutine writes what HandleMessage replied (Reply):
	// what the hook sends leaves in the same write. It must not block. A
	// panic in it is logged, and the connection goes on.
	AfterMessage func(c *Conn)
	// Refused, if not nil, is told of each message not handed to
	// HandleMessage, and why, on the read goroutine; what it sends (an
	// error for the client, say) is sent. msg is valid only during the
	// call. Nil: refused messages are dropped without a word.
	Refused func(c *Conn, msg []byte, why Refusal)
	// Closes are the reasons of the close frames the transport sends of
	// its own accord.
	Closes Closes
	// Metrics count what the transport does; a nil field counts nothing.
	Metrics Metrics
	// Logger logs the connections' rare events; nil means slog.Default().
	Logger *slog.Logger
	// UserAttr names the user's id (Conn.SetUserID) in a connection's log
	// lines; "" means "user_id".
	UserAttr string
}

// A Refusal is why a message was not handed to HandleMessage.
type Refusal int

const (
	// RateLimited: the message went over the connection's message budget
	// (Limits.MsgRate); the client should slow down and send it again.
	RateLimited Refusal = iota + 1
	// Binary: a binary frame; messages are text.
	Binary
)

func (r Refusal) String() string {
	switch r {
	case RateLimited:
		return "rate limited"
	case Binary:
		return "binary frame"
	}
	return "Refusal(?)"
}

// Closes are the close frames the transport sends of its own accord: the
// reason of each, and the code of a slow consumer's. Every other code is
// RFC 6455's, as each says. An empty field means its default.
type Closes struct {
	NoHello    string // 1008: no SetUserID within HelloTimeout; default "no hello"
	Flood      string // 1008: a flood of messages; default "rate limit exceeded"
	TooBig     string // 1009: a frame over ReadLimit; default "message too big"
	Internal   string // 1011: HandleMessage panicked; default "internal error"
	Restarting string // 1012: Shutdown; default "server restarting"
	// SlowCode and Slow close a connection whose send queue overflowed;
	// default 1008 and "slow consumer". An application may choose a code
	// of its own (4000–4999) so that its clients know to resume.
	SlowCode int
	Slow     string
}

func (c Closes) withDefaults() Closes {
	def := func(s *string, d string) {
		if *s == "" {
			*s = d
		}
	}
	def(&c.NoHello, "no hello")
	def(&c.Flood, "rate limit exceeded")
	def(&c.TooBig, "message too big")
	def(&c.Internal, "internal error")
	def(&c.Restarting, "server restarting")
	def(&c.Slow, "slow consumer")
	if c.SlowCode == 0 {
		c.SlowCode = closePolicyViolation
	}
	return c
}

// closePolicyViolation is RFC 6455's 1008.
const closePolicyViolation = 1008

// Counter is a count that only goes up, as a Prometheus counter is.
type Counter interface {
	Inc()
	Add(float64)
}

// Gauge is a count that goes up and down, as a Prometheus gauge is.
type Gauge interface {
	Inc()
	Dec()
}

// Metrics count what the transport does. Each must be safe for concurrent
// use and quick: they are called on the connections' goroutines.
type Metrics struct {
	Connections     Gauge   // open connections
	MessagesIn      Counter // data frames received (control frames are not)
	MessagesOut     Counter // messages written
	SlowDisconnects Counter // connections closed for a full send queue (messages or bytes)
	RateLimited     Counter // connections that went over their message rate, control frames included (once each)
	// Rejected counts a refused upgrade, by reason: "origin", "ip_cap" or
	// "shutdown".
	Rejected func(reason string)
}

// nop counts nothing.
type nop struct{}

func (nop) Inc()        {}
func (nop) Dec()        {}
func (nop) Add(float64) {}

func (m Metrics) withDefaults() Metrics {
	count := func(c *Counter) {
		if *c == nil {
			*c = nop{}
		}
	}
	if m.Connections == nil {
		m.Connections = nop{}
	}
	count(&m.MessagesIn)
	count(&m.MessagesOut)
	count(&m.SlowDisconnects)
	count(&m.RateLimited)
	if m.Rejected == nil {
		m.Rejected = func(string) {}
	}
	return m
}
