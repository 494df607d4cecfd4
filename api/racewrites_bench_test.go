package api

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/engine"
)

// writeCounter counts what a server writes on the connections of a
// listener: its writes, and the WebSocket frames in them. A write that ends
// inside a frame is not counted as a write of its own: gorilla/websocket
// writes a message larger than its buffer as two pieces in one writev, a
// single system call on a TCP connection, which a wrapped connection sees
// as two Writes.
type writeCounter struct {
	writes atomic.Int64 // writes that end at a frame's end
	calls  atomic.Int64 // every Write
	frames atomic.Int64
}

// countingListener wraps the connections it accepts in countingConns.
type countingListener struct {
	net.Listener
	n *writeCounter
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: l.n}, nil
}

// countingConn counts its writes, after the first (the handshake's HTTP
// response), and the frames in them.
type countingConn struct {
	net.Conn
	n *writeCounter

	mu        sync.Mutex
	handshake bool
	frames    frameScanner
}

func (c *countingConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	if !c.handshake {
		c.handshake = true
	} else {
		frames, boundary := c.frames.feed(b)
		c.n.calls.Add(1)
		c.n.frames.Add(int64(frames))
		if boundary {
			c.n.writes.Add(1)
		}
	}
	c.mu.Unlock()
	return c.Conn.Write(b)
}

// frameScanner follows the frames of a server's stream of WebSocket frames
// (unmasked) across writes.
type frameScanner struct {
	hdr  []byte
	left int64 // payload bytes of the current frame still to come
}

// feed scans b: it returns how many frames ended in it, and whether it
// ended at a frame's end.
func (f *frameScanner) feed(b []byte) (frames int, boundary bool) {
	for len(b) > 0 {
		if f.left > 0 {
			n := int64(len(b))
			if n > f.left {
				n = f.left
			}
			f.left -= n
			b = b[n:]
			if f.left == 0 {
				frames++
			}
			continue
		}
		f.hdr = append(f.hdr, b[0])
		b = b[1:]
		if len(f.hdr) < 2 {
			continue
		}
		size := 2
		switch f.hdr[1] & 0x7f {
		case 126:
			size += 2
		case 127:
			size += 8
		}
		if f.hdr[1]&0x80 != 0 {
			size += 4
		}
		if len(f.hdr) < size {
			continue
		}
		var n int64
		switch l := f.hdr[1] & 0x7f; l {
		case 126:
			n = int64(binary.BigEndian.Uint16(f.hdr[2:4]))
		case 127:
			n = int64(binary.BigEndian.Uint64(f.hdr[2:10]))
		default:
			n = int64(l)
		}
		f.hdr = f.hdr[:0]
		if n == 0 {
			frames++
		}
		f.left = n
	}
	return frames, f.left == 0 && len(f.hdr) == 0
}

// raceClient is a player or spectator of BenchmarkRaceWrites: its
// connection, the frames it got by type, and its move answers.
type raceClient struct {
	ws      *websocket.Conn
	answers chan string // the type of each move_ok or move_rejected
	started chan []byte // its round_started, if a player
	match   chan []byte // its first match messages

	mu    sync.Mutex
	types map[string]int
}

// dialRace connects a client that says hello and reads until the
// connection ends, counting the frames by type.
func dialRace(tb testing.TB, url, name string) *raceClient {
	tb.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	c := &raceClient{ws: ws, answers: make(chan string, 16), started: make(chan []byte, 1), types: map[string]int{}}
	welcome := make(chan []byte, 1)
	c.match = make(chan []byte, 4)
	go func() {
		for {
			_, b, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var h struct{ Type string }
			_ = json.Unmarshal(b, &h)
			c.mu.Lock()
			c.types[h.Type]++
			c.mu.Unlock()
			switch h.Type {
			case "move_ok", "move_rejected":
				c.answers <- h.Type
			case "welcome":
				welcome <- b
			case "round_started":
				c.started <- b
			case "match":
				select {
				case c.match <- b:
				default:
				}
			case "error":
				tb.Errorf("%s got %s", name, b)
			}
		}
	}()
	c.send(tb, `{"type":"hello","name":"`+name+`"}`)
	<-welcome
	return c
}

func (c *raceClient) send(tb testing.TB, s string) {
	if err := c.ws.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
		tb.Error(err)
	}
}

// counts returns the frames the client got, by type, and forgets them.
func (c *raceClient) counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.types
	c.types = map[string]int{}
	return t
}

// The race of BenchmarkRaceWrites.
const (
	racePlayers    = 4
	raceSpectators = 1
	raceMoveEvery  = 150 * time.Millisecond // each player's pace
	racePlay       = 6 * time.Second
)

// BenchmarkRaceWrites measures what a race costs the server in frames and
// write system calls per accepted move: four players each moving every
// 150 ms for 6 s, and a spectator, over loopback WebSockets, the whole
// server in this process with its default match timing. A write that ends
// inside a frame is counted with the one that ends it (see writeCounter).
// The scenario is the same whatever b.N:
//
//	go test ./api -run '^$' -bench RaceWrites -benchtime 1x
func BenchmarkRaceWrites(b *testing.B) {
	for b.Loop() {
		raceWrites(b)
	}
}

func raceWrites(b *testing.B) {
	srv := NewTestServer(TestConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: Limits{MsgRate: -1}, NewSessionsPerMinute: -1})
	n := &writeCounter{}
	hs := httptest.NewUnstartedServer(srv)
	hs.Listener = countingListener{Listener: hs.Listener, n: n}
	hs.Start()
	defer func() {
		srv.Close()
		hs.Close()
	}()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"

	var players []*raceClient
	for i := range racePlayers {
		players = append(players, dialRace(b, url, "p"+strconv.Itoa(i)))
	}
	players[0].send(b, `{"type":"create_match","settings":{"seed":"1","countdown_s":0,"time_limit_s":600,"max_players":`+strconv.Itoa(racePlayers)+`}}`)
	var host struct {
		Match struct{ ID, Code string } `json:"match"`
	}
	if err := json.Unmarshal(<-players[0].match, &host); err != nil {
		b.Fatal(err)
	}
	for _, p := range players[1:] {
		p.send(b, `{"type":"join_match","code":"`+host.Match.Code+`"}`)
	}
	var spectators []*raceClient
	for i := range raceSpectators {
		s := dialRace(b, url, "s"+strconv.Itoa(i))
		s.send(b, `{"type":"spectate","match_id":"`+host.Match.ID+`"}`)
		spectators = append(spectators, s)
	}
	for _, p := range players[1:] {
		<-p.match
	}
	players[0].send(b, `{"type":"start_match","match_id":"`+host.Match.ID+`"}`)
	ctx := context.Background()
	var roundID string
	for _, p := range players {
		var st struct {
			RoundID string `json:"round_id"`
		}
		_ = json.Unmarshal(<-p.started, &st)
		roundID = st.RoundID
	}
	r, err := srv.Lobby.Round(ctx, roundID)
	if err != nil {
		b.Fatal(err)
	}
	scripts := make([][][]byte, len(players))
	for i := range players {
		g, err := engine.NewGame(r.Deal, r.Rules)
		if err != nil {
			b.Fatal(err)
		}
		scripts[i] = moveFrames(b, g, roundID, rand.New(rand.NewPCG(uint64(i), 7)))
	}
	time.Sleep(1500 * time.Millisecond) // the boards of the round's start are out
	all := append(append([]*raceClient{}, players...), spectators...)
	for _, c := range all {
		c.counts()
	}
	w0, c0, f0 := n.writes.Load(), n.calls.Load(), n.frames.Load()

	var accepted atomic.Int64
	var wg sync.WaitGroup
	end := time.Now().Add(racePlay)
	for i, p := range players {
		wg.Go(func() {
			t := time.NewTicker(raceMoveEvery)
			defer t.Stop()
			// The players' paces are spread over the interval.
			time.Sleep(raceMoveEvery * time.Duration(i) / racePlayers)
			for _, f := range scripts[i] {
				if time.Now().After(end) {
					return
				}
				if err := p.ws.WriteMessage(websocket.TextMessage, f); err != nil {
					b.Error(err)
					return
				}
				if <-p.answers == "move_ok" {
					accepted.Add(1)
				}
				<-t.C
			}
		})
	}
	wg.Wait()
	time.Sleep(1500 * time.Millisecond) // the last boards go out
	moves := float64(accepted.Load())
	var boards, answers, others int
	for _, c := range all {
		for typ, k := range c.counts() {
			switch typ {
			case "leaderboard":
				boards += k
			case "move_ok", "move_rejected":
				answers += k
			default:
				others += k
			}
		}
	}
	b.ReportMetric(moves, "moves")
	b.ReportMetric(float64(n.frames.Load()-f0)/moves, "frames/move")
	b.ReportMetric(float64(boards)/moves, "boards/move")
	b.ReportMetric(float64(n.writes.Load()-w0)/moves, "writes/move")
	b.ReportMetric(float64(n.calls.Load()-c0)/moves, "Writes/move")
	if others > 0 {
		b.Logf("%d frames other than answers and boards", others)
	}
}
