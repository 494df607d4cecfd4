package api

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the HTTP server's limits: what a zero field of HTTPLimits
// means. They bound every connection, whatever its route, until a
// WebSocket upgrade hands it over to the Limits of the WebSocket server.
const (
	// DefaultHTTPReadHeaderTimeout is the time a new request has to send
	// its headers: a slow-loris is closed after it, before any route runs.
	DefaultHTTPReadHeaderTimeout = 5 * time.Second

	// DefaultHTTPReadTimeout is the time a whole request, headers and body,
	// has to arrive; it includes DefaultHTTPReadHeaderTimeout. Routes take
	// small requests, so a body that is still coming after it is a stall.
	DefaultHTTPReadTimeout = 3 * DefaultHTTPReadHeaderTimeout

	// DefaultHTTPWriteTimeout is the time from the end of a request's
	// headers to the end of its response, for the plain HTTP routes; the
	// WebSocket upgrade clears it. It exceeds DefaultHTTPReadTimeout so
	// that a route reading its body still has time to answer.
	DefaultHTTPWriteTimeout = 2 * DefaultHTTPReadTimeout

	// DefaultHTTPIdleTimeout is how long a keep-alive connection may wait
	// for its next request before it is closed.
	DefaultHTTPIdleTimeout = 60 * time.Second

	// DefaultHTTPMaxHeaderBytes bounds a request's headers (net/http
	// allows a little slack above it); larger ones get 431.
	DefaultHTTPMaxHeaderBytes = 16 << 10

	// DefaultHTTPMaxConnsPerIP caps the TCP connections of one remote IP,
	// every route and WebSocket connections included. It is twice
	// DefaultMaxConnsPerIP so that a client with every WebSocket
	// connection it may open can still make HTTP requests.
	DefaultHTTPMaxConnsPerIP = 2 * DefaultMaxConnsPerIP
)

// HTTPLimits are the HTTP server's protective limits, the same for every
// route. A zero field means its default (the DefaultHTTP… constants).
type HTTPLimits struct {
	// ReadHeaderTimeout is the time a request has to send its headers; it
	// is never longer than ReadTimeout.
	ReadHeaderTimeout time.Duration
	// ReadTimeout is the time a whole request has to arrive. A request
	// whose body is late has its connection closed.
	ReadTimeout time.Duration
	// WriteTimeout is the time from the end of a request's headers to the
	// end of its response. It does not apply to WebSocket connections.
	WriteTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection may stay idle
	// between requests.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the size of a request's headers.
	MaxHeaderBytes int
	// MaxConnsPerIP caps the open TCP connections of one remote IP (the
	// TCP peer's address; proxies' headers are not trusted), on every
	// route, WebSocket connections included. A connection over the cap is
	// answered 429 and closed before any route sees it. Negative: no cap.
	MaxConnsPerIP int
}

// WithDefaults returns l with every zero (or negative, where that has no
// meaning of its own) field set to its default, and ReadHeaderTimeout
// shortened to ReadTimeout if longer.
func (l HTTPLimits) WithDefaults() HTTPLimits {
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = DefaultHTTPReadHeaderTimeout
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultHTTPReadTimeout
	}
	l.ReadHeaderTimeout = min(l.ReadHeaderTimeout, l.ReadTimeout)
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = DefaultHTTPWriteTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultHTTPIdleTimeout
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultHTTPMaxHeaderBytes
	}
	if l.MaxConnsPerIP == 0 {
		l.MaxConnsPerIP = DefaultHTTPMaxConnsPerIP
	}
	return l
}

// rejectHTTPIPCap is the reason, in Metrics.Rejected, of a connection
// refused for its IP's HTTPLimits.MaxConnsPerIP.
const rejectHTTPIPCap = "http_ip_cap"

// NewHTTPServer returns an http.Server that serves h within lim's
// timeouts and header limit, and listen, which applies lim's cap on
// connections per IP to a listener: serve with srv.Serve(listen(ln)).
// When m is not nil, refused connections are counted in m.Rejected.
func NewHTTPServer(h http.Handler, lim HTTPLimits, m *Metrics) (srv *http.Server, listen func(net.Listener) net.Listener) {
	lim = lim.WithDefaults()
	srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		WriteTimeout:      lim.WriteTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    lim.MaxHeaderBytes,
	}
	refused := func() {}
	if m != nil {
		refused = m.Rejected.WithLabelValues(rejectHTTPIPCap).Inc // present at zero from now
	}
	listen = func(ln net.Listener) net.Listener {
		if lim.MaxConnsPerIP < 0 {
			return ln
		}
		return &ipCapListener{
			Listener: ln, max: lim.MaxConnsPerIP, refused: refused,
			perIP:    make(map[string]int),
			refusing: make(chan struct{}, maxRefusing),
		}
	}
	return srv, listen
}

// A refused connection is answered, then the server stops sending and
// reads what the client still sends, until it closes or refuseWait has
// passed: closing a socket with unread data resets it, and a reset can
// destroy the answer before the client reads it. At most maxRefusing
// refusals are in progress at a time; beyond, connections over the cap
// are closed unanswered.
const (
	refuseWait  = 500 * time.Millisecond
	maxRefusing = 64
	refuseDrain = 64 << 10 // bytes read at most from a refused client
)

// refusedResponse is what a connection over the cap gets.
var refusedResponse = "HTTP/1.1 429 Too Many Requests\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Content-Length: " + strconv.Itoa(len(refusedBody)) + "\r\n" +
	"Connection: close\r\n" +
	"\r\n" + refusedBody

const refusedBody = "too many connections from your address\n"

// ipCapListener caps the open connections of each remote IP. Its Accept
// never waits on a refused connection: the refusal runs on a goroutine of
// its own, bounded in time.
type ipCapListener struct {
	net.Listener
	max      int
	refused  func()
	refusing chan struct{} // a token per refusal in progress

	mu    sync.Mutex
	perIP map[string]int // open connections by remote IP
}

func (l *ipCapListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := connIP(c)
		if l.reserve(ip) {
			return &ipCapConn{Conn: c, l: l, ip: ip}, nil
		}
		l.refused()
		select {
		case l.refusing <- struct{}{}:
			go func() {
				refuse(c)
				<-l.refusing
			}()
		default:
			c.Close()
		}
	}
}

func (l *ipCapListener) reserve(ip string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perIP[ip] >= l.max {
		return false
	}
	l.perIP[ip]++
	return true
}

func (l *ipCapListener) release(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perIP[ip]--; l.perIP[ip] <= 0 {
		delete(l.perIP, ip)
	}
}

// refuse answers c with 429 and closes it, within refuseWait.
func refuse(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(refuseWait))
	if _, err := io.WriteString(c, refusedResponse); err != nil {
		return
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, refuseDrain))
}

// connIP is the TCP peer's address, without the port.
func connIP(c net.Conn) string {
	a := c.RemoteAddr().String()
	host, _, err := net.SplitHostPort(a)
	if err != nil {
		return a
	}
	return host
}

// ipCapConn holds its IP's place in an ipCapListener until closed, also
// when a WebSocket upgrade has taken it over from the http.Server.
type ipCapConn struct {
	net.Conn
	l      *ipCapListener
	ip     string
	closed atomic.Bool
}

// Close gives the place back before it closes the connection, so that a
// client that sees its connection closed may connect again at once.
func (c *ipCapConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.l.release(c.ip)
	}
	return c.Conn.Close()
}

// CloseWrite lets the http.Server half-close the connection before it
// closes it, as it does on a bare *net.TCPConn.
func (c *ipCapConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
