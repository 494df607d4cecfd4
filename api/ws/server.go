package ws

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// Server accepts WebSocket connections and runs them: it is the
// http.Handler of the WebSocket route.
type Server struct {
	h        Handler
	lim      Limits
	m        Metrics
	closes   Closes
	after    func(*Conn)
	refused  func(*Conn, []byte, Refusal)
	userAttr string
	log      *slog.Logger
	upgrader websocket.Upgrader
	now      func() time.Time // the rate limiter's clock

	mu       sync.Mutex
	conns    map[*Conn]struct{}
	perIP    map[string]int // open and upgrading connections by remote IP
	shutdown bool
	wg       sync.WaitGroup // one per connection, from reservation to Closed
}

var connSeq atomic.Uint64

// NewServer makes a server that hands messages to h, configured by cfg
// (see Config for what its zero fields mean).
func NewServer(h Handler, cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.UserAttr == "" {
		cfg.UserAttr = "user_id"
	}
	s := &Server{
		h: h, lim: cfg.Limits.WithDefaults(), m: cfg.Metrics.withDefaults(), closes: cfg.Closes.withDefaults(),
		after: cfg.AfterMessage, refused: cfg.Refused, userAttr: cfg.UserAttr, log: cfg.Logger, now: time.Now,
		conns: make(map[*Conn]struct{}),
		perIP: make(map[string]int),
	}
	s.upgrader = websocket.Upgrader{
		ReadBufferSize:    1024,
		WriteBufferSize:   1024,
		WriteBufferPool:   &sync.Pool{}, // idle connections hold no write buffer
		EnableCompression: false,
		// The origin was checked before Upgrade, where the refusal is counted.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	return s
}

// ServeHTTP upgrades a GET request and runs the connection. It refuses
// with 503 while shutting down, 403 for a foreign Origin and 429 when the
// remote IP has MaxConnsPerIP connections open.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ip := s.lim.ClientIP(r)
	if !s.lim.originAllowed(r) {
		s.m.Rejected("origin")
		s.log.Debug("websocket origin refused", "remote_ip", ip, "origin", r.Header.Get("Origin"))
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	if code, reason := s.reserve(ip); code != 0 {
		s.m.Rejected(reason)
		s.log.Debug("websocket upgrade refused", "remote_ip", ip, "reason", reason)
		if code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		http.Error(w, http.StatusText(code), code)
		return
	}
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil { // the upgrader has answered the request
		s.release(ip)
		s.log.Debug("websocket upgrade failed", "remote_ip", ip, "err", err)
		return
	}
	c := s.newConn(ws, ip)
	if s.lim.MsgRate > 0 {
		c.bucket = newTokenBucket(s.lim.MsgRate, s.lim.MsgBurst, s.now())
	}
	c.hello = time.AfterFunc(s.lim.HelloTimeout, func() {
		if c.UserID() == "" {
			c.Close(websocket.ClosePolicyViolation, s.closes.NoHello)
		}
	})
	// Armed only once c.ping is set (Reset after AfterFunc), so that the
	// timer's function, which reads c.ping, never runs before.
	c.ping = time.AfterFunc(time.Duration(math.MaxInt64), c.pingDue)
	c.ping.Reset(s.lim.PingPeriod())
	s.register(c)
	go c.run()
}

// newConn makes a connection of s over ws (nil for none).
func (s *Server) newConn(ws *websocket.Conn, ip string) *Conn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		srv: s, ws: ws, ip: ip,
		send:   newSendQueue(s.lim.SendQueue),
		ctx:    ctx,
		cancel: cancel,
	}
	c.send.budget = s.lim.SendBudget
	c.num = connSeq.Add(1)
	return c
}

// reserve accounts for a connection about to be upgraded; a non-zero code
// refuses it.
func (s *Server) reserve(ip string) (code int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return http.StatusServiceUnavailable, "shutdown"
	}
	if s.lim.MaxConnsPerIP > 0 && s.perIP[ip] >= s.lim.MaxConnsPerIP {
		return http.StatusTooManyRequests, "ip_cap"
	}
	s.perIP[ip]++
	s.wg.Add(1)
	return 0, ""
}

// release undoes reserve.
func (s *Server) release(ip string) {
	s.mu.Lock()
	if s.perIP[ip]--; s.perIP[ip] <= 0 {
		delete(s.perIP, ip)
	}
	s.mu.Unlock()
	s.wg.Done()
}

func (s *Server) register(c *Conn) {
	s.mu.Lock()
	s.conns[c] = struct{}{}
	down := s.shutdown
	s.mu.Unlock()
	s.m.Connections.Inc()
	if down { // Shutdown began during the upgrade
		c.Close(websocket.CloseServiceRestart, s.closes.Restarting)
	}
}

// unregister forgets an ended connection (its WaitGroup count is done by run).
func (s *Server) unregister(c *Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	if s.perIP[c.ip]--; s.perIP[c.ip] <= 0 {
		delete(s.perIP, c.ip)
	}
	s.mu.Unlock()
	s.m.Connections.Dec()
}

// Conns is the number of open connections.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Shutdown refuses new connections (503), closes every open one with 1012
// (service restart) and Closes.Restarting, and waits until all have ended
// and their Handler.Closed has returned, or ctx ends: then the remaining
// TCP connections are dropped and ctx's error returned. The http.Server
// does not track upgraded connections: call Shutdown as well as
// http.Server.Shutdown.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	conns := make([]*Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.log.Info("closing websocket connections", "conns", len(conns))
	for _, c := range conns {
		c.Close(websocket.CloseServiceRestart, s.closes.Restarting)
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.conns {
			c.ws.NetConn().Close()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}
