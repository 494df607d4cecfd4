package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
)

// slow-reader: clients that keep asking for the largest reply and never
// read it, so that what the server queues for them can only grow until it
// closes them.

// longName is the longest player name in bytes: 24 letters of four bytes
// each, the most a name's character can take in JSON.
var longName = strings.Repeat("𝔸", 24)

// memFigures are the server's memory (from its /metrics) around an
// attack, in bytes.
type memFigures struct {
	HeapStart float64 `json:"heap_inuse_start"` // before anything
	HeapReady float64 `json:"heap_inuse_before"`
	HeapPeak  float64 `json:"heap_inuse_peak"`
	HeapAfter float64 `json:"heap_inuse_after"`
	RSSStart  float64 `json:"rss_start"`
	RSSReady  float64 `json:"rss_before"`
	RSSPeak   float64 `json:"rss_peak"`
	RSSAfter  float64 `json:"rss_after"`
	AfterS    float64 `json:"after_s"` // when "after" was read: seconds after the readers left
}

// slowReaderResult is what slow-reader saw.
type slowReaderResult struct {
	Matches        *madeMatches `json:"matches"`
	Created        int          `json:"matches_created"`
	ListBytes      int          `json:"list_matches_reply_bytes"`
	ListMatches    int          `json:"list_matches_reply_matches"`
	ListError      string       `json:"list_matches_error,omitempty"`
	HTTPListBytes  int          `json:"http_matches_first_page_bytes"`
	Readers        int          `json:"readers"`
	Connected      int          `json:"readers_connected"`
	Resumed        int          `json:"readers_resumed"` // said hello with a creator's token
	ReaderRefusals tally        `json:"reader_refusals"`
	RecvBuf        int          `json:"reader_recv_buffer"`
	Rate           float64      `json:"requests_a_second"`
	DurationS      float64      `json:"duration_s"`
	Requests       int64        `json:"list_matches_sent"`
	Ends           tally        `json:"ends"`
	// ClosedS are the times, from the start of the requests, at which the
	// server dropped each reader it dropped, sorted.
	ClosedS       []float64  `json:"closed_after_s"`
	Mem           memFigures `json:"memory"`
	HeapPerReader float64    `json:"heap_growth_per_reader"`
	RSSPerReader  float64    `json:"rss_growth_per_reader"`
}

// slowReader fills the lobby with public matches of long-named players,
// then has --attack-conns connections with a tiny receive buffer ask for
// the list --attack-rate times a second for --duration without reading,
// and follows the server's memory.
func slowReader(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	r := &slowReaderResult{Readers: ac.Conns, ReaderRefusals: tally{}, Ends: tally{},
		RecvBuf: tinyRecvBuf, Rate: ac.Rate, DurationS: ac.Duration.Seconds()}
	m0, err := t.metrics(ctx)
	if err != nil {
		return nil, err
	}
	r.Mem.HeapStart, r.Mem.RSSStart = m0.heap(), m0.rss()
	t.logf("slow-reader: creating %d public matches of %d players", ac.Matches, ac.Seats)
	r.Matches = createMatches(ctx, t, ac.Matches, ac.Seats, longName)
	r.Created = len(r.Matches.IDs)
	token := ""
	if len(r.Matches.tokens) > 0 {
		token = r.Matches.tokens[0]
	}
	if r.ListBytes, r.ListMatches, err = t.listSize(ctx, token); err != nil {
		r.ListError = refusal(protocol.TypeListMatches, err)
	}
	_, r.HTTPListBytes, _ = t.listedMatches(ctx, nil)
	t.logf("slow-reader: %d matches, list_matches %d bytes; %d readers for %v", r.Created, r.ListBytes, ac.Conns, ac.Duration)

	readers := r.connectReaders(ctx, t, ac.Conns, r.Matches.tokens)
	defer func() {
		for _, rd := range readers {
			rd.c.ws.Close()
		}
	}()
	m1, err := t.metrics(ctx)
	if err != nil {
		return nil, err
	}
	r.Mem.HeapReady, r.Mem.RSSReady = m1.heap(), m1.rss()
	peak := t.watchMemory(ctx, 250*time.Millisecond)
	start := time.Now()
	until := start.Add(ac.Duration)
	every := time.Duration(float64(time.Second) / max(ac.Rate, 0.01))
	var wg sync.WaitGroup
	for _, rd := range readers {
		wg.Go(func() { rd.ask(ctx, start, until, every) })
	}
	wg.Wait()
	r.Mem.HeapPeak, r.Mem.RSSPeak = peak.end()
	ends := make([]string, len(readers))
	for i, rd := range readers {
		wg.Go(func() { ends[i] = rd.end() })
	}
	wg.Wait()
	for i, rd := range readers {
		r.Requests += rd.sent
		r.Ends[ends[i]]++
		if rd.writeErr != nil {
			r.ClosedS = append(r.ClosedS, rd.closedAt.Seconds())
		}
		rd.c.ws.Close()
	}
	sort.Float64s(r.ClosedS)
	left := time.Now()
	select {
	case <-ctx.Done():
	case <-time.After(ac.Wait):
	}
	if m2, err := t.metrics(ctx); err == nil {
		r.Mem.HeapAfter, r.Mem.RSSAfter, r.Mem.AfterS = m2.heap(), m2.rss(), time.Since(left).Seconds()
	}
	if r.Connected > 0 {
		r.HeapPerReader = (r.Mem.HeapPeak - r.Mem.HeapReady) / float64(r.Connected)
		r.RSSPerReader = (r.Mem.RSSPeak - r.Mem.RSSReady) / float64(r.Connected)
	}
	return r, nil
}

// listSize is the size of one list_matches reply, asked with the largest
// page (protocol.MaxOpenPage), and the number of matches in it; the session
// is token's when there is one (a resumed session is not a new one).
func (t *target) listSize(ctx context.Context, token string) (bytes, matches int, err error) {
	c, err := t.dialWS(ctx, 0)
	if err != nil {
		return 0, 0, err
	}
	defer c.close()
	if _, _, err := c.call(&protocol.Hello{Type: protocol.TypeHello, Name: "lister", Token: token}); err != nil {
		return 0, 0, err
	}
	_, raw, err := c.call(&protocol.ListMatches{Type: protocol.TypeListMatches, Limit: protocol.MaxOpenPage})
	if err != nil {
		return 0, 0, err
	}
	var l protocol.Matches
	err = json.Unmarshal(raw, &l)
	return len(raw), len(l.Matches), err
}

// A slowReader connection asks and never reads.
type slowConn struct {
	c        *wsClient
	sent     int64
	writeErr error
	closedAt time.Duration // from the start of the requests, when a write failed
}

// connectReaders opens n connections with a tiny receive buffer and says
// hello on each (resuming the creators' sessions first: a resumed session
// is not a new one, and its match has a member connected again).
func (r *slowReaderResult) connectReaders(ctx context.Context, t *target, n int, tokens []string) []*slowConn {
	var out []*slowConn
	for i := range n {
		c, err := t.dialWS(ctx, tinyRecvBuf)
		if err != nil {
			r.ReaderRefusals[refusal("connect", err)]++
			continue
		}
		hello := &protocol.Hello{Type: protocol.TypeHello, Name: fmt.Sprintf("reader%d", i)}
		if i < len(tokens) {
			hello.Token = tokens[i]
		}
		if _, _, err := c.call(hello); err != nil {
			r.ReaderRefusals[refusal(protocol.TypeHello, err)]++
			c.ws.Close()
			continue
		}
		if i < len(tokens) {
			r.Resumed++
		}
		out = append(out, &slowConn{c: c})
	}
	r.Connected = len(out)
	return out
}

// ask sends list_matches every period until until, or until a write
// fails: the server has dropped the connection. Every request is the same
// frame, without an id: the replies are never read.
func (s *slowConn) ask(ctx context.Context, start, until time.Time, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	frame, _ := json.Marshal(protocol.ListMatches{Type: protocol.TypeListMatches, Limit: protocol.MaxOpenPage}) // it always encodes
	for time.Now().Before(until) {
		s.c.ws.SetWriteDeadline(time.Now().Add(attackIO))
		if err := s.c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
			s.writeErr, s.closedAt = err, time.Since(start)
			return
		}
		s.sent++
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// end says how the connection ended: for one the server dropped, what a
// read finds after what was queued (a close frame, or none); otherwise
// that it was still open.
func (s *slowConn) end() string {
	if s.writeErr == nil {
		return "still open at the end"
	}
	s.c.ws.SetReadLimit(64 << 20)
	s.c.ws.SetReadDeadline(time.Now().Add(attackSettle))
	var err error
	for range maxFramesRead {
		if _, _, err = s.c.ws.ReadMessage(); err != nil {
			break
		}
	}
	return "closed by the server: " + describeEnd(err)
}

func (r *slowReaderResult) lines() []string {
	mb := func(b float64) string { return fmt.Sprintf("%.1f MB", b/(1<<20)) }
	l := []string{
		fmt.Sprintf("matches: %d created of %d tried, %d players seated (public, for %d, each player a new session named %d×'𝔸'); refused: %s",
			r.Created, r.Matches.Tried, r.Matches.Players, r.Matches.Seats, len([]rune(longName)), r.Matches.Refused),
		fmt.Sprintf("one list_matches reply: %d bytes, %d matches%s; GET /api/v1/matches?limit=100: %d bytes",
			r.ListBytes, r.ListMatches, parenthesized(r.ListError), r.HTTPListBytes),
		fmt.Sprintf("readers: %d connected of %d (%d resumed a creator's session; receive buffer %d B); refused: %s",
			r.Connected, r.Readers, r.Resumed, r.RecvBuf, r.ReaderRefusals),
		fmt.Sprintf("  each asked %.0f times a second for %.0f s, never reading: %d list_matches sent",
			r.Rate, r.DurationS, r.Requests),
		fmt.Sprintf("ends: %s", r.Ends),
	}
	if n := len(r.ClosedS); n > 0 {
		l = append(l, fmt.Sprintf("  dropped by the server %.1f s (first) to %.1f s (last) after the requests began",
			r.ClosedS[0], r.ClosedS[n-1]))
	}
	m := r.Mem
	l = append(l,
		fmt.Sprintf("server heap in use: %s at the start, %s with the matches and readers in, peak %s, %s %.0f s after the readers left",
			mb(m.HeapStart), mb(m.HeapReady), mb(m.HeapPeak), mb(m.HeapAfter), m.AfterS),
		fmt.Sprintf("server resident: %s at the start, %s before, peak %s, %s after",
			mb(m.RSSStart), mb(m.RSSReady), mb(m.RSSPeak), mb(m.RSSAfter)),
		fmt.Sprintf("growth a never-reading reader (peak less before, / %d): heap %s, resident %s",
			r.Connected, mb(r.HeapPerReader), mb(r.RSSPerReader)))
	return l
}

// parenthesized is " (s)", or nothing when s is empty.
func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
