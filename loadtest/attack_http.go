package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The plain HTTP attacks: connections that hold a descriptor of the
// server's without doing anything (idle-keepalive, slow-headers,
// stalled-body), and as many connections as one address may open
// (http-ip-cap).

// maxRefusedCap is how many refusals in a row end http-ip-cap.
const maxRefusedCap = 3

// httpConn is one plain HTTP connection.
type httpConn struct {
	conn net.Conn
	br   *bufio.Reader
}

// openHTTP connects and writes req as is.
func (t *target) openHTTP(ctx context.Context, req string) (*httpConn, error) {
	conn, err := t.dialTCP(ctx, 0)
	if err != nil {
		return nil, err
	}
	conn.SetWriteDeadline(time.Now().Add(attackIO))
	if _, err := io.WriteString(conn, req); err != nil {
		conn.Close()
		return nil, err
	}
	return &httpConn{conn: conn, br: bufio.NewReader(conn)}, nil
}

// getHealthz is a keep-alive request for /healthz.
func (t *target) getHealthz() string {
	return "GET /healthz HTTP/1.1\r\nHost: " + t.addr + "\r\nUser-Agent: klondike-loadtest\r\n\r\n"
}

// answer reads one response, body included, until deadline.
func (h *httpConn) answer(deadline time.Time) (*http.Response, string, error) {
	h.conn.SetReadDeadline(deadline)
	resp, err := http.ReadResponse(h.br, nil)
	if err != nil {
		return nil, "", err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	return resp, strings.TrimSpace(string(body)), err
}

// waitClosed waits until the server closes the connection or deadline
// passes; it reports whether it closed, and how.
func (h *httpConn) waitClosed(deadline time.Time) (bool, string) {
	h.conn.SetReadDeadline(deadline)
	n, err := io.Copy(io.Discard, io.LimitReader(h.br, 1<<20))
	if err == nil {
		if n == 1<<20 {
			return false, "still sending"
		}
		err = io.EOF
	}
	return httpEnd(err)
}

// httpEnd says how a read of a plain HTTP connection ended: closed by the
// server (and how), or still open at its deadline.
func httpEnd(err error) (closed bool, how string) {
	var ne net.Error
	switch {
	case err == nil, errors.As(err, &ne) && ne.Timeout():
		return false, "open"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true, "closed (EOF)"
	case errors.Is(err, syscall.ECONNRESET):
		return true, "reset"
	}
	return true, err.Error()
}

// closeTimes are when the server closed connections that did nothing.
type closeTimes struct {
	What     string  `json:"what"`
	Conns    int     `json:"conns"`
	Answered tally   `json:"answered"` // by status, or "no answer"
	Closed   int     `json:"closed"`
	Open     int     `json:"open_at_end"`
	FirstS   float64 `json:"first_closed_after_s,omitempty"`
	MedianS  float64 `json:"median_closed_after_s,omitempty"`
	LastS    float64 `json:"last_closed_after_s,omitempty"`
	Ends     tally   `json:"ends"`
	Refused  tally   `json:"refused"`
	WaitS    float64 `json:"wait_s"`
	times    []float64
}

func newCloseTimes(what string, conns int, wait time.Duration) *closeTimes {
	return &closeTimes{What: what, Conns: conns, Answered: tally{}, Ends: tally{}, Refused: tally{}, WaitS: wait.Seconds()}
}

// add records one connection's end, after (from its last byte sent or
// received) when it closed.
func (c *closeTimes) add(closed bool, how string, after time.Duration) {
	c.Ends[how]++
	if !closed {
		c.Open++
		return
	}
	c.Closed++
	c.times = append(c.times, after.Seconds())
	sort.Float64s(c.times)
	c.FirstS, c.MedianS, c.LastS = c.times[0], c.times[len(c.times)/2], c.times[len(c.times)-1]
}

func (c *closeTimes) lines() []string {
	l := []string{
		fmt.Sprintf("%s: %d connections (refused: %s); answers: %s", c.What, c.Conns, c.Refused, c.Answered),
		fmt.Sprintf("closed by the server: %d, still open after %.0f s: %d; ends: %s", c.Closed, c.WaitS, c.Open, c.Ends),
	}
	if c.Closed > 0 {
		l = append(l, fmt.Sprintf("closed after %.1f s (first), %.1f s (median), %.1f s (last)", c.FirstS, c.MedianS, c.LastS))
	}
	return l
}

// idleKeepalive opens --attack-conns keep-alive connections, asks each for
// /healthz once, and waits up to --attack-wait for the server to close
// them.
func idleKeepalive(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	ct := newCloseTimes("keep-alive connections, GET /healthz once, then idle", ac.Conns, ac.Wait)
	t.logf("idle-keepalive: %d connections, waiting up to %v for the server to close them", ac.Conns, ac.Wait)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range ac.Conns {
		wg.Go(func() {
			h, err := t.openHTTP(ctx, t.getHealthz())
			if err != nil {
				mu.Lock()
				ct.Refused[refusal("connect", err)]++
				mu.Unlock()
				return
			}
			defer h.conn.Close()
			resp, _, err := h.answer(time.Now().Add(attackIO))
			_, how := httpEnd(err)
			answered := "no answer: " + how
			if err == nil {
				answered = resp.Status
			}
			idle := time.Now()
			closed, how := h.waitClosed(idle.Add(ac.Wait))
			mu.Lock()
			defer mu.Unlock()
			ct.Answered[answered]++
			ct.add(closed, how, time.Since(idle))
		})
	}
	wg.Wait()
	return ct, nil
}

// slowHeaders opens --attack-conns connections that send a request's
// first header lines and never end them, and waits up to --attack-wait for
// the server to close them.
func slowHeaders(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	ct := newCloseTimes("GET /healthz, headers begun and never ended", ac.Conns, ac.Wait)
	t.logf("slow-headers: %d connections, waiting up to %v for the server to close them", ac.Conns, ac.Wait)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range ac.Conns {
		wg.Go(func() {
			probeEnd(ctx, t, "GET /healthz HTTP/1.1\r\nHost: "+t.addr+"\r\nX-Slow: 1\r\n", ac.Wait, ct, &mu, false)
		})
	}
	wg.Wait()
	return ct, nil
}

// probeEnd sends req on a connection of its own, waits up to wait for an
// answer and for the server to close the connection, and counts what
// happened in ct (under mu). With timed, an answer's count names when it
// came.
func probeEnd(ctx context.Context, t *target, req string, wait time.Duration, ct *closeTimes, mu *sync.Mutex, timed bool) {
	h, err := t.openHTTP(ctx, req)
	if err != nil {
		mu.Lock()
		ct.Refused[refusal("connect", err)]++
		mu.Unlock()
		return
	}
	defer h.conn.Close()
	sent := time.Now()
	deadline := sent.Add(wait)
	answered := "no answer"
	resp, _, err := h.answer(deadline)
	closed, how := httpEnd(err)
	if err == nil {
		answered = resp.Status
		if timed {
			answered = fmt.Sprintf("%s after %.1f s", resp.Status, time.Since(sent).Seconds())
		}
		closed, how = h.waitClosed(deadline)
	}
	mu.Lock()
	defer mu.Unlock()
	ct.Answered[answered]++
	ct.add(closed, how, time.Since(sent))
}

// stalledResult is what stalled-body saw, by request.
type stalledResult struct {
	Requests []*closeTimes `json:"requests"`
}

func (r *stalledResult) lines() []string {
	var l []string
	for _, c := range r.Requests {
		l = append(l, c.lines()...)
	}
	return append(l, "(times from the last byte sent: the headers and one byte of a body that never comes)")
}

// stalledBody sends requests that announce a body, send its first byte and
// no more: half a GET /healthz, half a POST /api/v1/matches, on
// --attack-conns connections; it waits up to --attack-wait for each
// answer and close.
func stalledBody(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	reqs := []struct{ what, req string }{
		{"GET /healthz, Content-Length 1024, 1 byte of the body sent",
			"GET /healthz HTTP/1.1\r\nHost: " + t.addr + "\r\nContent-Length: 1024\r\n\r\nx"},
		{"POST /api/v1/matches, Content-Length 1024, 1 byte of the body sent",
			"POST /api/v1/matches HTTP/1.1\r\nHost: " + t.addr + "\r\nContent-Type: application/json\r\nContent-Length: 1024\r\n\r\n{"},
	}
	r := &stalledResult{}
	for i, q := range reqs {
		r.Requests = append(r.Requests, newCloseTimes(q.what, (ac.Conns+len(reqs)-1-i)/len(reqs), ac.Wait))
	}
	t.logf("stalled-body: %d connections, waiting up to %v for the server to close them", ac.Conns, ac.Wait)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range ac.Conns {
		q, ct := reqs[i%len(reqs)], r.Requests[i%len(reqs)]
		wg.Go(func() { probeEnd(ctx, t, q.req, ac.Wait, ct, &mu, true) })
	}
	wg.Wait()
	return r, nil
}

// capResult is what http-ip-cap saw.
type capResult struct {
	Tried    int     `json:"tried"`
	Accepted int     `json:"accepted"`
	Refusal  string  `json:"first_refusal,omitempty"`
	RefusedS float64 `json:"first_refusal_after_s,omitempty"`
	Refused  tally   `json:"refused"`
}

// httpIPCap opens keep-alive connections from this address, one after the
// other, each answering GET /healthz and then held, until the server
// refuses maxRefusedCap in a row or --attack-conns are open.
func httpIPCap(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	r := &capResult{Refused: tally{}}
	var held []*httpConn
	defer func() {
		for _, h := range held {
			h.conn.Close()
		}
	}()
	start := time.Now()
	inRow := 0
	for r.Tried < ac.Conns && inRow < maxRefusedCap && ctx.Err() == nil {
		r.Tried++
		refused := ""
		h, err := t.openHTTP(ctx, t.getHealthz())
		if err != nil {
			refused = refusal("connect", err)
		} else {
			resp, body, err := h.answer(time.Now().Add(attackIO))
			switch {
			case err != nil:
				_, how := httpEnd(err)
				refused = "no answer: " + how
			case resp.StatusCode != http.StatusOK:
				refused = fmt.Sprintf("HTTP %s %q", resp.Status, body)
				if resp.Close {
					refused += ", Connection: close"
				}
			}
			if refused != "" {
				h.conn.Close()
			} else {
				held = append(held, h)
			}
		}
		if refused == "" {
			r.Accepted++
			inRow = 0
			continue
		}
		inRow++
		r.Refused[refused]++
		if r.Refusal == "" {
			r.Refusal, r.RefusedS = refused, time.Since(start).Seconds()
		}
	}
	return r, nil
}

func (r *capResult) lines() []string {
	l := []string{fmt.Sprintf("keep-alive connections from one address, each GET /healthz then held: %d tried, %d accepted and open at once",
		r.Tried, r.Accepted)}
	if r.Refusal == "" {
		return append(l, "none refused: no cap reached")
	}
	return append(l, fmt.Sprintf("first refusal at %.1f s: %s; refused: %s", r.RefusedS, r.Refusal, r.Refused))
}
