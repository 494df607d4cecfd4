package api

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// shortWait is the limits' value in tests that wait for one to pass.
const shortWait = 200 * time.Millisecond

// startHTTP serves h with lim on a loopback port, as cmd/klondiked does,
// and returns its address.
func startHTTP(t *testing.T, h http.Handler, lim HTTPLimits, m *Metrics) string {
	t.Helper()
	srv, listen := NewHTTPServer(h, lim, m)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(listen(ln)) }()
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// okHandler answers every request "ok".
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.WriteString(w, "ok")
})

// rawConn is a client connection driven byte by byte.
type rawConn struct {
	net.Conn
	br *bufio.Reader
}

func dialRawHTTP(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, ioWait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(ioWait))
	return &rawConn{Conn: c, br: bufio.NewReader(c)}
}

// get sends a GET with extra header lines and returns the response, its
// body read.
func (c *rawConn) get(t *testing.T, extra string) (*http.Response, string) {
	t.Helper()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: test\r\n"+extra+"\r\n"); err != nil {
		t.Fatalf("writing the request: %v", err)
	}
	return c.response(t)
}

func (c *rawConn) response(t *testing.T) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the response's body: %v", err)
	}
	return resp, string(body)
}

// expectClosed fails unless the server closes c (within ioWait) with
// nothing more to read.
func (c *rawConn) expectClosed(t *testing.T, what string) {
	t.Helper()
	n, err := io.Copy(io.Discard, io.LimitReader(c.br, 1<<20))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the connection is still open after %v", what, ioWait)
	}
	if n != 0 {
		t.Errorf("%s: %d bytes more before the close", what, n)
	}
}

func TestHTTPLimitsWithDefaults(t *testing.T) {
	got := HTTPLimits{}.WithDefaults()
	want := HTTPLimits{
		ReadHeaderTimeout: DefaultHTTPReadHeaderTimeout, ReadTimeout: DefaultHTTPReadTimeout,
		WriteTimeout: DefaultHTTPWriteTimeout, IdleTimeout: DefaultHTTPIdleTimeout,
		MaxHeaderBytes: DefaultHTTPMaxHeaderBytes, MaxConnsPerIP: DefaultHTTPMaxConnsPerIP,
	}
	if got != want {
		t.Errorf("HTTPLimits{}.WithDefaults() = %+v, want %+v", got, want)
	}
	if DefaultHTTPMaxConnsPerIP <= DefaultMaxConnsPerIP {
		t.Errorf("DefaultHTTPMaxConnsPerIP %d does not exceed the WebSocket cap %d", DefaultHTTPMaxConnsPerIP, DefaultMaxConnsPerIP)
	}
	got = HTTPLimits{ReadTimeout: time.Second, MaxConnsPerIP: -1}.WithDefaults()
	if got.ReadHeaderTimeout != time.Second || got.MaxConnsPerIP != -1 {
		t.Errorf("ReadTimeout 1s, MaxConnsPerIP -1: got ReadHeaderTimeout %v, MaxConnsPerIP %d; want 1s, -1", got.ReadHeaderTimeout, got.MaxConnsPerIP)
	}
	srv, _ := NewHTTPServer(okHandler, HTTPLimits{IdleTimeout: time.Minute}, nil)
	if srv.ReadHeaderTimeout != want.ReadHeaderTimeout || srv.ReadTimeout != want.ReadTimeout || srv.WriteTimeout != want.WriteTimeout ||
		srv.IdleTimeout != time.Minute || srv.MaxHeaderBytes != want.MaxHeaderBytes {
		t.Errorf("NewHTTPServer: %+v", srv)
	}
}

// TestHTTPIdleKeepAliveClosed checks that a keep-alive connection that
// sends no further request is closed after IdleTimeout.
func TestHTTPIdleKeepAliveClosed(t *testing.T) {
	t.Parallel()
	addr := startHTTP(t, okHandler, HTTPLimits{IdleTimeout: shortWait}, nil)
	c := dialRawHTTP(t, addr)
	if resp, body := c.get(t, ""); resp.StatusCode != http.StatusOK || resp.Close || body != "ok" {
		t.Fatalf("GET: %s, close %v, %q; want 200 kept alive, ok", resp.Status, resp.Close, body)
	}
	c.expectClosed(t, "idle keep-alive")
}

// TestHTTPStalledBodyClosed checks that a request whose body never comes
// fails the route's read and loses its connection after ReadTimeout.
func TestHTTPStalledBodyClosed(t *testing.T) {
	t.Parallel()
	readErr := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
		if err != nil {
			http.Error(w, "request body too slow", http.StatusRequestTimeout)
		}
	})
	addr := startHTTP(t, h, HTTPLimits{ReadTimeout: shortWait}, nil)
	c := dialRawHTTP(t, addr)
	if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\nonly this"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-readErr:
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("the route's read of the body: %v, want a timeout", err)
		}
	case <-time.After(ioWait):
		t.Fatalf("the route is still reading the body after %v", ioWait)
	}
	if resp, _ := c.response(t); resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("got %s, want the route's 408", resp.Status)
	}
	c.expectClosed(t, "stalled body")
}

// TestHTTPHeaderTooLarge checks that headers over MaxHeaderBytes (the
// default) get 431, and headers within it an answer.
func TestHTTPHeaderTooLarge(t *testing.T) {
	addr := startHTTP(t, okHandler, HTTPLimits{}, nil)
	c := dialRawHTTP(t, addr)
	if resp, _ := c.get(t, "X-Big: "+strings.Repeat("a", DefaultHTTPMaxHeaderBytes/2)+"\r\n"); resp.StatusCode != http.StatusOK {
		t.Errorf("headers of %d bytes: %s, want 200", DefaultHTTPMaxHeaderBytes/2, resp.Status)
	}
	c = dialRawHTTP(t, addr)
	if resp, _ := c.get(t, "X-Big: "+strings.Repeat("a", 2*DefaultHTTPMaxHeaderBytes)+"\r\n"); resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("headers of %d bytes: %s, want 431", 2*DefaultHTTPMaxHeaderBytes, resp.Status)
	}
}

// TestHTTPListenerCapsConnsPerIP checks the cap on connections per IP: a
// connection over it is answered 429 and closed without reaching the
// handler, and counted; a connection that closes frees its place.
func TestHTTPListenerCapsConnsPerIP(t *testing.T) {
	t.Parallel()
	m := NewMetrics("test")
	reached := make(chan struct{}, 10)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- struct{}{}
		okHandler(w, r)
	})
	// The short IdleTimeout lets the server close a connection itself.
	addr := startHTTP(t, h, HTTPLimits{MaxConnsPerIP: 2, IdleTimeout: shortWait}, m)
	a := dialRawHTTP(t, addr)
	if resp, _ := a.get(t, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("first connection: %s", resp.Status)
	}
	dialRawHTTP(t, addr) // the second, silent
	over := dialRawHTTP(t, addr)
	resp, body := over.get(t, "")
	if resp.StatusCode != http.StatusTooManyRequests || !resp.Close || body != refusedBody {
		t.Errorf("third connection: %s, close %v, %q; want 429, closed, %q", resp.Status, resp.Close, body, refusedBody)
	}
	over.expectClosed(t, "refused")
	if n := len(reached); n != 1 {
		t.Errorf("the handler saw %d requests, want 1", n)
	}
	if got := testutil.ToFloat64(m.Rejected.WithLabelValues(rejectHTTPIPCap)); got != 1 {
		t.Errorf("rejected{reason=%q} = %v, want 1", rejectHTTPIPCap, got)
	}
	a.expectClosed(t, "idle") // its place is given back before the close
	if resp, _ := dialRawHTTP(t, addr).get(t, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("after a connection closed: %s, want 200", resp.Status)
	}
}

// TestHTTPListenerBusyRefusals checks that once maxRefusing refusals are
// in progress, a connection over the cap is closed at once, unanswered.
func TestHTTPListenerBusyRefusals(t *testing.T) {
	_, listen := NewHTTPServer(okHandler, HTTPLimits{MaxConnsPerIP: 1}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	capped := listen(ln).(*ipCapListener)
	defer capped.Close()
	for range maxRefusing {
		capped.refusing <- struct{}{}
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := capped.Accept() // the first; the second is refused inside
		if err == nil {
			accepted <- c
		}
	}()
	dialRawHTTP(t, ln.Addr().String())
	c := <-accepted
	defer c.Close()
	over := dialRawHTTP(t, ln.Addr().String())
	go func() { _, _ = capped.Accept() }() // ends when capped closes
	over.expectClosed(t, "refused while busy")
}

// TestHTTPWebSocketOutlivesTimeouts checks that a WebSocket connection,
// upgraded through the HTTP server, still exchanges messages well after
// ReadTimeout, WriteTimeout and IdleTimeout, and holds its place under
// the cap on connections per IP.
func TestHTTPWebSocketOutlivesTimeouts(t *testing.T) {
	t.Parallel()
	srv := NewTestServer(TestConfig{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	t.Cleanup(srv.Close)
	addr := startHTTP(t, srv, HTTPLimits{
		ReadHeaderTimeout: shortWait, ReadTimeout: shortWait, WriteTimeout: shortWait, IdleTimeout: shortWait,
		MaxConnsPerIP: 1,
	}, srv.Metrics)
	d := websocket.Dialer{HandshakeTimeout: ioWait}
	c, _, err := d.Dial("ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	send(t, c, `{"type":"hello","id":"h","name":"alice"}`)
	if msg := recv(t, c); msg["type"] != "welcome" {
		t.Fatalf("hello: got %v", msg)
	}
	if resp, _ := dialRawHTTP(t, addr).get(t, ""); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("HTTP beside the WebSocket connection, cap 1: %s, want 429", resp.Status)
	}
	for i := range 3 {
		time.Sleep(2 * shortWait) // the server's read and write wait meanwhile
		send(t, c, `{"type":"list_matches","id":"p"}`)
		if msg := recv(t, c); msg["type"] != "matches" {
			t.Fatalf("exchange %d, %v after the upgrade: got %v", i, time.Duration(i+1)*2*shortWait, msg)
		}
	}
}
