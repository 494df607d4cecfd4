package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
)

// The attacks probe a server from outside, as an attacker would, against
// the limits of docs/security.md: each one does a single thing to a server
// on this machine (--server, loopback only), bounded in count and time, and
// reports what it did and what the server did. They are the reproducing
// commands of docs/security.md's table of attacks.

// attackConfig is what --attack and the --attack-* flags ask for. A zero
// field takes the default of its attackDef.
type attackConfig struct {
	Name     string
	Server   string        // ws://127.0.0.1:PORT/ws
	Server2  string        // a second node of the same cluster (bulk-challenges), or empty
	Conns    int           // connections (hellos, for new-sessions)
	Matches  int           // matches created (slow-reader, abandoned-matches)
	Seats    int           // players a match (slow-reader)
	Count    int           // pings a connection (ping-flood)
	Rate     float64       // list_matches a second a reader; hellos a second once refused
	Duration time.Duration // how long the attack itself runs
	Wait     time.Duration // how long to wait for what the server does
	JSON     bool

	// quiet is how long the honest player of ping-flood plays before the
	// flood starts (its round trip without the attack); tests shorten it.
	quiet time.Duration
}

// attackFunc runs one attack against t.
type attackFunc func(ctx context.Context, t *target, ac attackConfig) (attackResult, error)

// attackResult is an attack's figures; lines is what the text report shows.
type attackResult interface {
	lines() []string
}

// attackDef is an attack and its defaults.
type attackDef struct {
	run                          attackFunc
	conns, matches, seats, count int
	rate                         float64
	duration, wait               time.Duration
}

// attacks are the attacks by name: each name is a command of
// docs/security.md, so they are contracts.
var attacks = map[string]attackDef{
	"slow-reader":       {run: slowReader, conns: 20, matches: 200, seats: 8, rate: 40, duration: 20 * time.Second, wait: 10 * time.Second},
	"ping-flood":        {run: pingFlood, conns: 8, count: 200_000, duration: 10 * time.Second},
	"idle-keepalive":    {run: idleKeepalive, conns: 32, wait: 120 * time.Second},
	"stalled-body":      {run: stalledBody, conns: 4, wait: 120 * time.Second},
	"slow-headers":      {run: slowHeaders, conns: 4, wait: 120 * time.Second},
	"http-ip-cap":       {run: httpIPCap, conns: 1000},
	"abandoned-matches": {run: abandonedMatches, matches: 200, wait: 3 * time.Minute},
	"new-sessions":      {run: newSessions, conns: 1000, rate: 5, wait: time.Minute},
	"bulk-attempts":     {run: bulkAttempts, conns: 4, count: 6000, duration: 10 * time.Second, wait: 30 * time.Second},
	"attempt-resume":    {run: attemptResume, count: 50_000, rate: 50, duration: 10 * time.Second, wait: 4 * time.Minute},
	"bulk-challenges":   {run: bulkChallenges, conns: 1000, rate: 1, duration: time.Minute},
	"daily-probe":       {run: dailyProbe, conns: 1000, count: 300, rate: 1, duration: time.Minute},
}

// attackNames lists the attacks, sorted, for messages.
func attackNames() string {
	names := make([]string, 0, len(attacks))
	for n := range attacks {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// withDefaults fills the zero fields with the attack's defaults.
func (ac attackConfig) withDefaults() attackConfig {
	d := attacks[ac.Name]
	if ac.Conns == 0 {
		ac.Conns = d.conns
	}
	if ac.Matches == 0 {
		ac.Matches = d.matches
	}
	if ac.Seats == 0 {
		ac.Seats = max(d.seats, 1)
	}
	if ac.Count == 0 {
		ac.Count = d.count
	}
	if ac.Rate == 0 {
		ac.Rate = d.rate
	}
	if ac.Duration == 0 {
		ac.Duration = d.duration
	}
	if ac.Wait == 0 {
		ac.Wait = d.wait
	}
	if ac.quiet == 0 {
		ac.quiet = 2 * time.Second
	}
	return ac
}

// check refuses an unknown attack, values out of range and a target that
// is not on this machine.
func (ac attackConfig) check() error {
	if _, ok := attacks[ac.Name]; !ok {
		return fmt.Errorf("--attack %q: want one of %s", ac.Name, attackNames())
	}
	switch {
	case ac.Server == "":
		return errors.New("--attack needs --server ws://127.0.0.1:PORT/ws (a klondiked of its own)")
	case ac.Conns < 0 || ac.Conns > 10000:
		return fmt.Errorf("--attack-conns %d: want 1..10000", ac.Conns)
	case ac.Matches < 0 || ac.Matches > 5000:
		return fmt.Errorf("--attack-matches %d: want 1..5000", ac.Matches)
	case ac.Seats < 0 || ac.Seats > 64:
		return fmt.Errorf("--attack-seats %d: want 1..64", ac.Seats)
	case ac.Count < 0 || ac.Count > 10_000_000:
		return fmt.Errorf("--attack-count %d: want 1..10000000", ac.Count)
	case ac.Rate < 0 || ac.Rate > 1000:
		return fmt.Errorf("--attack-rate %v: want 0..1000", ac.Rate)
	case ac.Duration < 0 || ac.Duration > 30*time.Minute:
		return fmt.Errorf("--duration %v with --attack: want 0..30m", ac.Duration)
	case ac.Wait < 0 || ac.Wait > 30*time.Minute:
		return fmt.Errorf("--attack-wait %v: want 0..30m", ac.Wait)
	}
	if ac.Server2 != "" {
		if ac.Name != "bulk-challenges" {
			return errors.New("--attack-server2 applies to bulk-challenges only")
		}
		if err := checkLoopbackURL(ac.Server2, "ws"); err != nil {
			return fmt.Errorf("--attack-server2: %w", err)
		}
	}
	return checkLoopbackURL(ac.Server, "ws")
}

// Bounds of every attack.
const (
	attackIO      = 5 * time.Second // one dial, request or reply
	attackSettle  = 2 * time.Second // for the last answers after an attack's frames
	maxFramesRead = 10_000          // frames read while waiting for one reply
	tinyRecvBuf   = 4 << 10         // a never-reading client's receive buffer
	attackMargin  = time.Minute     // beyond duration and wait, the whole attack's bound
)

// runAttack runs the attack ac names and prints its report; it returns the
// exit status: 0 when the attack ran (whatever the server did), 2 when it
// could not.
func runAttack(ctx context.Context, ac attackConfig, stdout, stderr io.Writer) int {
	ac = ac.withDefaults()
	t, err := newTarget(ac.Server)
	if err != nil {
		fmt.Fprintln(stderr, "loadtest:", err)
		return 2
	}
	t.log = stderr
	ctx, cancel := context.WithTimeout(ctx, ac.Duration+ac.Wait+attackMargin)
	defer cancel()
	raiseFileLimit()
	rep := &attackReport{Attack: ac.Name, Target: ac.Server, LoadBefore: loadAverage()}
	before, err := t.metrics(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: the server's /metrics: %v\n", err)
		return 2
	}
	start := time.Now()
	rep.Result, err = attacks[ac.Name].run(ctx, t, ac)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %s: %v\n", ac.Name, err)
		return 2
	}
	rep.Elapsed = time.Since(start).Seconds()
	rep.LoadAfter = loadAverage()
	if after, err := t.metrics(ctx); err == nil {
		rep.Counters = counterChanges(before, after)
	}
	if ac.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		rep.writeText(stdout)
	}
	return 0
}

// attackReport is an attack's report; --json prints it as is.
type attackReport struct {
	Attack     string       `json:"attack"`
	Target     string       `json:"target"`
	Elapsed    float64      `json:"elapsed_s"`
	LoadBefore float64      `json:"load_average_before"`
	LoadAfter  float64      `json:"load_average_after"`
	Result     attackResult `json:"result"`
	// Counters are the server's klondike_*_total counters that changed
	// during the attack, by how much.
	Counters map[string]float64 `json:"server_counters_delta,omitempty"`
}

// writeText prints the report for people.
func (rep *attackReport) writeText(w io.Writer) {
	fmt.Fprintf(w, "attack %s against %s: %.1f s (load average %.2f before, %.2f after)\n",
		rep.Attack, rep.Target, rep.Elapsed, rep.LoadBefore, rep.LoadAfter)
	for _, l := range rep.Result.lines() {
		fmt.Fprintf(w, "  %s\n", l)
	}
	if len(rep.Counters) > 0 {
		keys := make([]string, 0, len(rep.Counters))
		for k := range rep.Counters {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %+.0f", k, rep.Counters[k]))
		}
		fmt.Fprintf(w, "  server counters: %s\n", strings.Join(parts, ", "))
	}
}

// A target is the server under attack.
type target struct {
	wsURL    string
	httpBase string // http://HOST:PORT
	addr     string // HOST:PORT
	http     *http.Client
	log      io.Writer // progress; nil: none
}

func newTarget(wsURL string) (*target, error) {
	if err := checkLoopbackURL(wsURL, "ws"); err != nil {
		return nil, fmt.Errorf("--server: %w", err)
	}
	u, err := url.Parse(wsURL)
	if err != nil {
		return nil, err
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return &target{
		wsURL: wsURL, httpBase: "http://" + addr, addr: addr,
		// No keep-alive: the harness's own requests hold no connection
		// that the server would count against this address.
		http: &http.Client{Timeout: attackIO, Transport: &http.Transport{
			DialContext: loopbackDial, Proxy: nil, DisableKeepAlives: true,
		}},
	}, nil
}

// dialTCP opens a TCP connection to the target; recvBuf > 0 sets its
// receive buffer (SO_RCVBUF) before the connection is made, so that the
// window it advertises is small from the start.
func (t *target) dialTCP(ctx context.Context, recvBuf int) (net.Conn, error) {
	host, _, err := net.SplitHostPort(t.addr)
	if err != nil {
		return nil, err
	}
	if err := checkLoopbackHost(host); err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: attackIO}
	if recvBuf > 0 {
		d.Control = func(_, _ string, rc syscall.RawConn) error { return setRecvBuffer(rc, recvBuf) }
	}
	return d.DialContext(ctx, "tcp", t.addr)
}

// dialWS opens a WebSocket connection (see dialTCP for recvBuf). A refused
// upgrade's error names the HTTP status.
func (t *target) dialWS(ctx context.Context, recvBuf int) (*wsClient, error) {
	d := websocket.Dialer{
		NetDialContext:   func(ctx context.Context, _, _ string) (net.Conn, error) { return t.dialTCP(ctx, recvBuf) },
		HandshakeTimeout: attackIO,
	}
	ws, resp, err := d.DialContext(ctx, t.wsURL, nil)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("upgrade refused: HTTP %s", resp.Status)
		}
		return nil, err
	}
	return &wsClient{ws: ws}, nil
}

// wsClient is one attack connection speaking the protocol.
type wsClient struct {
	ws   *websocket.Conn
	next int // the last request id
}

// wireError is an error frame from the server.
type wireError struct{ Code, Message string }

func (e *wireError) Error() string { return e.Code + ": " + e.Message }

// send writes msg, a pointer to one of the protocol's client messages,
// with the connection's next id, and returns the id.
func (c *wsClient) send(msg any) (string, error) {
	c.next++
	id, _ := clientFields(msg)
	*id = strconv.Itoa(c.next)
	c.ws.SetWriteDeadline(time.Now().Add(attackIO))
	return *id, c.ws.WriteJSON(msg)
}

// call sends msg (see send) and reads until the reply to it (frames
// pushed meanwhile are skipped). An error frame comes back as a
// *wireError.
func (c *wsClient) call(msg any) (*inMsg, []byte, error) {
	id, err := c.send(msg)
	if err != nil {
		return nil, nil, err
	}
	return c.await(func(m *inMsg) bool { return m.Re == id })
}

// await reads frames until one that want accepts, within attackIO.
func (c *wsClient) await(want func(*inMsg) bool) (*inMsg, []byte, error) {
	c.ws.SetReadDeadline(time.Now().Add(attackIO))
	defer c.ws.SetReadDeadline(time.Time{})
	for range maxFramesRead {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			return nil, nil, err
		}
		m := &inMsg{}
		if err := json.Unmarshal(data, m); err != nil {
			return nil, nil, fmt.Errorf("a frame that is not JSON: %w", err)
		}
		if !want(m) {
			continue
		}
		if m.Type == protocol.TypeError {
			return m, data, &wireError{Code: m.Code, Message: m.Message}
		}
		return m, data, nil
	}
	return nil, nil, errors.New("no reply in " + fmt.Sprint(maxFramesRead) + " frames")
}

// hello says hello without a token: a new session.
func (c *wsClient) hello(name string) error {
	_, _, err := c.call(&protocol.Hello{Type: protocol.TypeHello, Name: name})
	return err
}

// close says goodbye (best effort) and closes the connection.
func (c *wsClient) close() {
	_ = c.ws.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"), time.Now().Add(time.Second))
	c.ws.Close()
}

// describeEnd says in words how a connection ended, from the error that
// ended it: the server's close frame, a drop without one, or nothing yet.
func describeEnd(err error) string {
	var ce *websocket.CloseError
	var ne net.Error
	switch {
	case err == nil:
		return "open"
	case errors.As(err, &ce) && ce.Code == websocket.CloseAbnormalClosure:
		return "dropped without a close frame (" + ce.Text + ")"
	case errors.As(err, &ce):
		return fmt.Sprintf("close %d %q", ce.Code, ce.Text)
	case errors.As(err, &ne) && ne.Timeout():
		return "open (no answer)"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "dropped without a close frame (EOF)"
	case errors.Is(err, syscall.ECONNRESET):
		return "reset without a close frame"
	case errors.Is(err, syscall.EPIPE):
		return "dropped (broken pipe)"
	}
	return err.Error()
}

// refusal says what refused a step, for the tallies: a wire error's code
// and message, or describeEnd's words.
func refusal(step string, err error) string {
	var we *wireError
	if errors.As(err, &we) {
		return step + ": " + we.Error()
	}
	if strings.HasPrefix(err.Error(), "upgrade refused") {
		return step + ": " + err.Error()
	}
	return step + ": " + describeEnd(err)
}

// serverMetrics are the series of the server's /metrics, by name and
// labels as written.
type serverMetrics map[string]float64

func (t *target) metrics(ctx context.Context) (serverMetrics, error) {
	ctx, cancel := context.WithTimeout(ctx, attackIO)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.httpBase+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := t.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	m := serverMetrics{}
	for _, line := range strings.Split(string(body), "\n") {
		if series, v, ok := metricsLine(line); ok {
			m[series] = v
		}
	}
	return m, nil
}

func (m serverMetrics) heap() float64 { return m["go_memstats_heap_inuse_bytes"] }
func (m serverMetrics) rss() float64  { return m["process_resident_memory_bytes"] }
func (m serverMetrics) cpu() float64  { return m["process_cpu_seconds_total"] }

// counterChanges are the klondike_ counters that changed from before to
// after.
func counterChanges(before, after serverMetrics) map[string]float64 {
	d := map[string]float64{}
	for k, v := range after {
		name, _, _ := strings.Cut(k, "{")
		if strings.HasPrefix(name, "klondike_") && strings.HasSuffix(name, "_total") && v != before[k] {
			d[k] = v - before[k]
		}
	}
	return d
}

// memPeak follows the server's memory while an attack runs, from its
// /metrics, and keeps the highest figures.
type memPeak struct {
	Heap, RSS float64
	stop      chan struct{}
	done      chan struct{}
}

// watchMemory samples t's memory every period until stop.
func (t *target) watchMemory(ctx context.Context, period time.Duration) *memPeak {
	p := &memPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			if m, err := t.metrics(ctx); err == nil {
				p.Heap, p.RSS = max(p.Heap, m.heap()), max(p.RSS, m.rss())
			}
			select {
			case <-ctx.Done():
				return
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// end stops the sampling and returns the peaks.
func (p *memPeak) end() (heap, rss float64) {
	close(p.stop)
	<-p.done
	return p.Heap, p.RSS
}

// tally counts outcomes by what they were.
type tally map[string]int

func (t tally) String() string {
	if len(t) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d× %s", t[k], k)
	}
	return strings.Join(parts, "; ")
}

// logf prints the progress of a long attack.
func (t *target) logf(format string, a ...any) {
	if t.log != nil {
		fmt.Fprintf(t.log, "loadtest: "+format+"\n", a...)
	}
}
