package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/engine"
	"klondike/lobby/memstore"
)

// wait bounds every wait of these tests.
const wait = 10 * time.Second

// syncBuffer is an io.Writer that tests can read while a client writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// player runs a playClient with scripted input and watches its output.
type player struct {
	t      *testing.T
	name   string
	client *playClient
	in     *io.PipeWriter
	out    *syncBuffer
	pos    int // where the next expect starts looking
	cancel context.CancelFunc
	done   chan error
}

// startPlayer runs a client with cfg (its timings shortened) until the test
// ends.
func startPlayer(t *testing.T, name string, cfg playConfig) *player {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = name
	}
	if cfg.RetryBase == 0 {
		cfg.RetryBase = 10 * time.Millisecond
	}
	if cfg.RetryMax == 0 {
		cfg.RetryMax = 50 * time.Millisecond
	}
	if cfg.MoveGap == 0 {
		cfg.MoveGap = time.Millisecond
	}
	if cfg.RateRetry == 0 {
		cfg.RateRetry = 20 * time.Millisecond
	}
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = wait
	}
	inR, inW := io.Pipe()
	p := &player{t: t, name: name, in: inW, out: &syncBuffer{}, done: make(chan error, 1)}
	p.client = newPlayClient(cfg, inR, p.out)
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() { p.done <- p.client.run(ctx) }()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-p.done:
		case <-time.After(wait):
			t.Errorf("%s: the client did not end", name)
		}
		if t.Failed() {
			t.Logf("%s's output:\n%s", name, p.out.String())
		}
	})
	return p
}

// typeLine writes a line of input.
func (p *player) typeLine(line string) {
	p.t.Helper()
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(p.in, line+"\n")
		written <- err
	}()
	select {
	case err := <-written:
		if err != nil {
			p.t.Fatalf("%s: typing %q: %v", p.name, line, err)
		}
	case <-time.After(wait):
		p.t.Fatalf("%s: the client did not read %q", p.name, line)
	}
}

// expect waits until the output, from where the last expect stopped, holds
// text, and returns what came before it.
func (p *player) expect(text string) string {
	p.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		out := p.out.String()
		if i := strings.Index(out[p.pos:], text); i >= 0 {
			before := out[p.pos : p.pos+i]
			p.pos += i + len(text)
			return before
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: no %q in the output after %s; since the last match:\n%s", p.name, text, wait, out[p.pos:])
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// end closes the input and waits for run's result.
func (p *player) end() error {
	p.t.Helper()
	p.in.Close()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		return err
	case <-time.After(wait):
		p.t.Fatalf("%s: the client did not end after the end of input", p.name)
	}
	return nil
}

// fakeServer is a scripted server: the test reads each client message and
// writes the answers itself.
type fakeServer struct {
	t     *testing.T
	url   string
	conns chan *fakeConn

	mu  sync.Mutex
	api http.Handler // answers every path but /ws (serveAPI); nil: 404
}

// serveAPI makes h answer the fake server's HTTP requests other than /ws.
func (fs *fakeServer) serveAPI(h http.Handler) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.api = h
}

type fakeConn struct {
	t    *testing.T
	ws   *websocket.Conn
	msgs chan map[string]any
}

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	fs := &fakeServer{t: t, conns: make(chan *fakeConn, 4)}
	up := websocket.Upgrader{}
	var wg sync.WaitGroup
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ws" {
			fs.mu.Lock()
			api := fs.api
			fs.mu.Unlock()
			if api == nil {
				api = http.NotFoundHandler()
			}
			api.ServeHTTP(w, r)
			return
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		fc := &fakeConn{t: t, ws: ws, msgs: make(chan map[string]any, 100)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(fc.msgs)
			for {
				var m map[string]any
				if err := ws.ReadJSON(&m); err != nil {
					return
				}
				fc.msgs <- m
			}
		}()
		fs.conns <- fc
	}))
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		for {
			select {
			case fc := <-fs.conns:
				fc.ws.Close()
				continue
			default:
			}
			break
		}
		wg.Wait()
	})
	fs.url = "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
	return fs
}

// accept waits for the next connection.
func (fs *fakeServer) accept() *fakeConn {
	fs.t.Helper()
	select {
	case fc := <-fs.conns:
		fs.t.Cleanup(func() { fc.ws.Close() })
		return fc
	case <-time.After(wait):
		fs.t.Fatal("the client did not connect")
	}
	return nil
}

// next returns the client's next message, which must be of type typ.
func (fc *fakeConn) next(typ string) map[string]any {
	fc.t.Helper()
	select {
	case m, ok := <-fc.msgs:
		if !ok {
			fc.t.Fatalf("the connection closed while waiting for %s", typ)
		}
		if m["type"] != typ {
			fc.t.Fatalf("client sent %v, want a %s", m, typ)
		}
		return m
	case <-time.After(wait):
		fc.t.Fatalf("the client sent no %s", typ)
	}
	return nil
}

// quiet checks that the client sends nothing for a short while.
func (fc *fakeConn) quiet() {
	fc.t.Helper()
	select {
	case m := <-fc.msgs:
		fc.t.Fatalf("client sent %v, want nothing", m)
	case <-time.After(50 * time.Millisecond):
	}
}

func (fc *fakeConn) send(msg map[string]any) {
	fc.t.Helper()
	fc.ws.SetWriteDeadline(time.Now().Add(wait))
	if err := fc.ws.WriteJSON(msg); err != nil {
		fc.t.Fatalf("sending %v: %v", msg["type"], err)
	}
}

// reply sends msg as the answer to req.
func (fc *fakeConn) reply(req map[string]any, msg map[string]any) {
	fc.t.Helper()
	msg["re"] = req["id"]
	fc.send(msg)
}

// game plays a deal for the fake server, to answer moves with real views.
type game struct {
	t *testing.T
	g *engine.Game
}

func newDeal1Game(t *testing.T) *game {
	g, err := engine.NewGame(engine.NumberedDeal(1), matchRules)
	if err != nil {
		t.Fatal(err)
	}
	return &game{t: t, g: g}
}

// matchRules are a match's default rules.
var matchRules = engine.Rules{Draw: 3, FoundationToTableau: true, Undo: engine.UndoNoReveal, Scoring: engine.ScoringStandard}

func (g *game) view() engine.View { return g.g.View(1000) }

// apply plays move on the fake's game; it must be legal.
func (g *game) apply(move string) engine.Events {
	g.t.Helper()
	m, err := engine.ParseMove(move)
	if err != nil {
		g.t.Fatal(err)
	}
	ev, err := g.g.Apply(m)
	if err != nil {
		g.t.Fatalf("%s: %v", move, err)
	}
	return ev
}

func commitment(salt, seed string) string {
	sum := sha256.Sum256([]byte(salt + ":" + seed))
	return hex.EncodeToString(sum[:])
}

func fakeMatch(state string, players ...string) map[string]any {
	ps := []map[string]any{}
	for _, p := range players {
		ps = append(ps, map[string]any{"player_id": p, "name": p, "ready": false, "connected": true})
	}
	round, roundID := 1, "r1"
	if state == "open" {
		round, roundID = 0, ""
	}
	return map[string]any{
		"id": "m1", "code": "K7QX2M", "host": "bob", "state": state, "round": round, "round_id": roundID, "players": ps,
		"settings": map[string]any{"draw": 3, "passes": 0, "scoring": "standard", "undo": "no_reveal",
			"foundation_to_tableau": true, "mode": "race", "rounds": 1, "max_players": 8, "time_limit_s": 900},
	}
}

// helloAndJoin plays the start of a session joining by code: hello,
// welcome, join_match, match.
func helloAndJoin(t *testing.T, fc *fakeConn, p *player) {
	t.Helper()
	hello := fc.next("hello")
	if hello["name"] != p.name || hello["token"] != nil {
		t.Errorf("hello = %v, want name %s and no token", hello, p.name)
	}
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": p.name, "name": p.name, "token": "tok-" + p.name,
		"server_time": time.Now().UTC()})
	join := fc.next("join_match")
	if join["code"] != "K7QX2M" || join["match_id"] != nil {
		t.Errorf("join_match = %v, want code K7QX2M", join)
	}
	fc.reply(join, map[string]any{"type": "match", "match": fakeMatch("open", "bob", p.name)})
	p.expect("Joined match K7QX2M")
}

// startRound sends round_starting and round_started on deal #1 (seed "1",
// salt "s1").
func startRound(fc *fakeConn, g *game, lastSeq int, resumed bool) {
	now := time.Now().UTC()
	if !resumed {
		fc.send(map[string]any{"type": "round_starting", "match_id": "m1", "round_id": "r1", "round": 1,
			"starts_at": now, "ends_at": now.Add(15 * time.Minute), "commitment": commitment("s1", "1"), "rules": matchRules})
	}
	fc.send(map[string]any{"type": "round_started", "match_id": "m1", "round_id": "r1", "round": 1,
		"starts_at": now, "ends_at": now.Add(15 * time.Minute), "rules": matchRules, "view": g.view(),
		"last_seq": lastSeq, "resumed": resumed})
}

// expectMove waits for a move and checks its seq and text.
func expectMove(t *testing.T, fc *fakeConn, seq int, move string) map[string]any {
	t.Helper()
	m := fc.next("move")
	if m["round_id"] != "r1" || m["seq"] != float64(seq) || m["move"] != move {
		t.Fatalf("move = %v, want seq %d %s in r1", m, seq, move)
	}
	return m
}

// moveOK plays the move on g and answers it.
func moveOK(fc *fakeConn, g *game, req map[string]any) {
	ev := g.apply(req["move"].(string))
	fc.reply(req, map[string]any{"type": "move_ok", "round_id": "r1", "seq": req["seq"], "view": g.view(), "events": ev.Names()})
}

func TestPlayJoinMovesAndResults(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "join", Code: "k7qx2m"})
	fc := fs.accept()
	helloAndJoin(t, fc, p)

	// A move before the round waits for it.
	p.typeLine("d")
	p.expect("Queued until the round starts: D")
	fc.quiet()

	g := newDeal1Game(t)
	startRound(fc, g, 0, false)
	p.expect("Round 1 starts in")
	p.expect("Round 1 started")
	p.expect("T1  T2  T3  T4  T5  T6  T7\nQH  ##")
	moveOK(fc, g, expectMove(t, fc, 1, "D"))
	p.expect("D ok (drew)")
	p.expect("Stock: 21  Waste: 4H AC [4D]")

	p.typeLine("t6-f")
	moveOK(fc, g, expectMove(t, fc, 2, "T6-F"))
	p.expect("T6-F ok (revealed, to_foundation)")
	p.expect("Foundations: C: 0  D: 0  H: 1  S: 0")

	// A refused move keeps its seq for the next one; the reason is shown.
	p.typeLine("R")
	m := expectMove(t, fc, 3, "R")
	fc.reply(m, map[string]any{"type": "move_rejected", "round_id": "r1", "seq": 3, "code": "illegal_move",
		"reason": "the stock is not empty: draw instead"})
	p.expect("R rejected: the stock is not empty: draw instead")

	// A bad move is caught before it is sent.
	p.typeLine("T9-T1")
	p.expect(`bad move "T9-T1": pile number must be 1..7. Type help for the notation.`)
	p.typeLine("moves")
	p.expect("Legal moves: D W-T3 T7-F\n")
	fc.quiet()

	// Several moves on a line go one at a time, each after the last's answer.
	p.typeLine("W-T3 D")
	m = expectMove(t, fc, 3, "W-T3")
	fc.quiet()
	moveOK(fc, g, m)
	moveOK(fc, g, expectMove(t, fc, 4, "D"))
	p.expect("D ok (drew)")

	// Rate limited: the move goes again, with the same seq.
	p.typeLine("D")
	expectMove(t, fc, 5, "D")
	fc.send(map[string]any{"type": "error", "code": "rate_limited", "message": "too many messages; slow down"})
	moveOK(fc, g, expectMove(t, fc, 5, "D"))
	p.expect("D ok")

	// Out of order: the client takes the server's count.
	p.typeLine("D")
	m = expectMove(t, fc, 6, "D")
	fc.reply(m, map[string]any{"type": "move_rejected", "round_id": "r1", "seq": 6, "code": "out_of_order",
		"reason": "out of order: expected seq 8", "expected": 8})
	p.expect("the server expects move 8")
	p.typeLine("D")
	moveOK(fc, g, expectMove(t, fc, 8, "D"))

	fc.send(map[string]any{"type": "leaderboard", "match_id": "m1", "round_id": "r1", "entries": []map[string]any{
		{"player_id": "alice", "name": "alice", "rank": 1, "score": 20, "foundation": 1, "moves": 6, "status": "playing", "finished_ms": nil},
		{"player_id": "bob", "name": "bob", "rank": 2, "score": 0, "foundation": 0, "moves": 0, "status": "playing", "finished_ms": nil},
	}})
	p.expect("Leaderboard (round 1):\n   #  Player  Timed score  Cards")
	p.expect(">  1  alice")
	p.expect("\nTimed score = game score - 2 points each 10 s (min 0) + a win's time bonus\n")

	// Resign asks first.
	p.typeLine("resign")
	p.expect("[y/N]")
	p.typeLine("")
	p.expect("not resigned")
	fc.quiet()
	p.typeLine("resign")
	p.typeLine("y")
	rs := fc.next("resign")
	if rs["round_id"] != "r1" {
		t.Errorf("resign = %v", rs)
	}
	fc.reply(rs, map[string]any{"type": "resigned", "round_id": "r1"})
	p.expect("You resigned")

	layout, _ := json.Marshal(engine.NumberedDeal(1))
	fc.send(map[string]any{"type": "round_over", "match_id": "m1", "round_id": "r1", "round": 1,
		"results": []map[string]any{
			{"player_id": "bob", "name": "bob", "rank": 1, "score": 30, "foundation": 2, "moves": 9, "status": "timed_out", "finished_ms": 900000},
			{"player_id": "alice", "name": "alice", "rank": 2, "score": 20, "foundation": 1, "moves": 6, "status": "resigned", "finished_ms": 5000},
		},
		"deal":       map[string]any{"seed": "1", "salt": "s1", "commitment": commitment("s1", "1"), "layout": json.RawMessage(layout)},
		"replay_url": "/api/v1/rounds/r1/replay",
		"totals":     []map[string]any{{"player_id": "bob", "name": "bob", "total": 30, "wins": 1, "placings": []int{1}, "rank": 1}},
	})
	p.expect("Round 1 results:\n   #  Player  Timed score")
	p.expect(">  2  alice")
	p.expect("\nTimed score = ")
	p.expect("Replay: http://127.0.0.1:")
	p.expect("/api/v1/rounds/r1/replay\n")
	p.expect("deal verified: commitment matches\n")
	p.expect("layout checked: deal #1, as dealt to you\n")
	p.typeLine("D")
	p.expect("The round is over: wait for the next one.")
	// At the end of input the client waits for the match to end.
	p.in.Close()
	p.expect("waiting for the match to end")
	fc.send(map[string]any{"type": "match_over", "match_id": "m1", "totals": []map[string]any{
		{"player_id": "bob", "name": "bob", "total": 30, "wins": 1, "placings": []int{1}, "rank": 1},
		{"player_id": "alice", "name": "alice", "total": 20, "wins": 0, "placings": []int{2}, "rank": 2},
	}})
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	p.expect("Match over. Final standings:")
	if out := p.out.String(); strings.Contains(out, "WARNING") {
		t.Errorf("output has a warning:\n%s", out)
	}
}

func TestPlayReconnectResumes(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "join", Code: "K7QX2M"})
	fc := fs.accept()
	helloAndJoin(t, fc, p)
	g := newDeal1Game(t)
	startRound(fc, g, 0, false)
	p.expect("Round 1 started")

	// The connection drops after the server took move 1 but before its
	// answer: after the resume the client knows it was played.
	p.typeLine("D")
	expectMove(t, fc, 1, "D")
	g.apply("D")
	fc.ws.Close()
	p.expect("connection lost")
	fc = fs.accept()
	hello := fc.next("hello")
	if hello["token"] != "tok-alice" {
		t.Fatalf("hello after the drop = %v, want the token", hello)
	}
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": "alice", "name": "alice", "token": "tok-alice",
		"server_time": time.Now().UTC(), "resumed": true, "match_id": "m1"})
	fc.send(map[string]any{"type": "match", "match": fakeMatch("running", "bob", "alice")})
	startRound(fc, g, 1, true)
	p.expect("Round 1 resumed after your move 1.")
	p.expect("D was played before the connection dropped.")

	// This time the move never reached the server: it is sent again.
	p.typeLine("T6-F")
	expectMove(t, fc, 2, "T6-F")
	fc.ws.Close()
	fc = fs.accept()
	hello = fc.next("hello")
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": "alice", "name": "alice", "token": "tok-alice",
		"server_time": time.Now().UTC(), "resumed": true, "match_id": "m1"})
	startRound(fc, g, 1, true)
	moveOK(fc, g, expectMove(t, fc, 2, "T6-F"))
	p.expect("T6-F ok")
	p.typeLine("quit")
	p.expect("resume with: klondike play --server " + fs.url + " --token tok-alice")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
}

func TestPlayReconnectGivesUp(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "join", Code: "K7QX2M", Retries: 2})
	fc := fs.accept()
	helloAndJoin(t, fc, p)
	// The server is gone for good: hello is refused on every reconnect.
	fc.ws.Close()
	for range 2 {
		fc = fs.accept()
		fc.next("hello")
		fc.ws.Close()
	}
	err := p.end()
	if err == nil || !strings.Contains(err.Error(), "reconnects failed") && !strings.Contains(err.Error(), "connection lost") {
		t.Fatalf("run = %v, want a lost connection", err)
	}
}

func TestPlayCreatePrintsInvite(t *testing.T) {
	fs := newFakeServer(t)
	draw := 1
	p := startPlayer(t, "bob", playConfig{URL: fs.url, Action: "create", Settings: protocol.PartialSettings{Draw: &draw}})
	fc := fs.accept()
	hello := fc.next("hello")
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": "bob", "name": "bob", "token": "t"})
	cr := fc.next("create_match")
	if s, _ := cr["settings"].(map[string]any); s == nil || s["draw"] != float64(1) {
		t.Errorf("create_match = %v, want settings with draw 1", cr)
	}
	m := fakeMatch("open", "bob")
	m["code"] = "ABC234"
	fc.reply(cr, map[string]any{"type": "match", "match": m})
	p.expect("Invite code: ABC234\nshare: klondike play --server " + fs.url + " --code ABC234\n")
	p.expect("watch: klondike play --server " + fs.url + " --spectate m1\n")
	p.expect("A private match: only players with the code can join (create public lists one in the lobby).\n")
	p.typeLine("start")
	st := fc.next("start_match")
	if st["match_id"] != "m1" {
		t.Errorf("start_match = %v", st)
	}
	fc.reply(st, map[string]any{"type": "error", "code": "bad_request", "message": "nope"})
	p.expect("Could not start the match: nope\n")
	// The match has not started: the end of input ends the client at once.
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
}

func TestPlayLobbyAndErrors(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "carol", playConfig{URL: fs.url})
	fc := fs.accept()
	hello := fc.next("hello")
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": "carol", "name": "carol", "token": "t"})
	lm := fc.next("list_matches")
	fc.reply(lm, map[string]any{"type": "matches", "matches": []any{fakeMatch("open", "bob")}})
	p.expect("Open matches:")
	p.expect("K7QX2M  bob")
	p.typeLine("join nosuch")
	j := fc.next("join_match")
	fc.reply(j, map[string]any{"type": "error", "code": "not_found", "message": "no such match"})
	p.expect("Could not join the match: no such match\n")
	p.typeLine("spectate 0123456789abcdef")
	sp := fc.next("spectate")
	if sp["match_id"] != "0123456789abcdef" {
		t.Errorf("spectate = %v", sp)
	}
	fc.reply(sp, map[string]any{"type": "match", "match": fakeMatch("running", "bob")})
	p.expect("Watching match K7QX2M.")
	p.typeLine("moves")
	p.expect("No board")
	p.typeLine("D")
	p.expect("No round is running for you.")
	fc.quiet()
	// A spectator waits for the end of the match it watches.
	p.in.Close()
	p.expect("waiting for the match to end")
	fc.send(map[string]any{"type": "match_over", "match_id": "m1", "totals": []any{}})
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if !p.client.failed {
		t.Error("a refused join did not count as a failure")
	}
}

func TestPlayNoReply(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "frank", playConfig{URL: fs.url, Action: "join", Code: "K7QX2M", ReplyWait: 100 * time.Millisecond})
	fc := fs.accept()
	hello := fc.next("hello")
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": "frank", "name": "frank", "token": "t"})
	fc.next("join_match")
	// Input waits for the reply, but not for ever.
	p.typeLine("help")
	p.expect("No answer from the server in 100ms when asked to join the match; going on.\n")
	p.expect("Commands:")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
}

func TestPlayHelloRefused(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "dave", playConfig{URL: fs.url, Token: "old"})
	fc := fs.accept()
	hello := fc.next("hello")
	if hello["token"] != "old" {
		t.Errorf("hello = %v, want token old", hello)
	}
	fc.reply(hello, map[string]any{"type": "error", "code": "unauthorized", "message": "unknown or expired token"})
	err := p.end()
	if err == nil || err.Error() != "could not sign you in: unknown or expired token" {
		t.Fatalf("run = %v, want the refusal, in words", err)
	}
	if out := p.out.String(); strings.Contains(out, "hello") {
		t.Errorf("the output names the protocol's hello:\n%s", out)
	}
}

func TestPlayInterrupt(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "erin", playConfig{URL: fs.url, Action: "quick"})
	fc := fs.accept()
	hello := fc.next("hello")
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": "erin", "name": "erin", "token": "t"})
	fc.next("quick_match")
	p.cancel()
	select {
	case err := <-p.done:
		p.done <- err
		if !errors.Is(err, errInterrupted) {
			t.Fatalf("run = %v, want errInterrupted", err)
		}
	case <-time.After(wait):
		t.Fatal("run did not end on cancel")
	}
}

func TestPlayFlags(t *testing.T) {
	for _, c := range []struct {
		args   []string
		status int
		errOut string
	}{
		{[]string{"play"}, exitUsage, "--server"},
		{[]string{"play", "--server", "ftp://x"}, exitUsage, "ws://"},
		{[]string{"play", "--server", "ws://h/ws", "--create", "--quick"}, exitUsage, "at most one"},
		{[]string{"play", "--server", "ws://h/ws", "--code", "X", "--spectate", "Y"}, exitUsage, "at most one"},
		{[]string{"play", "--server", "ws://h/ws", "--draw", "2"}, exitUsage, "--draw 2"},
		{[]string{"play", "--server", "ws://h/ws", "extra"}, exitUsage, "unexpected arguments"},
		{[]string{"play", "--bogus"}, exitUsage, "bogus"},
	} {
		_, errOut, status := runCmd(t, "", c.args...)
		if status != c.status || !strings.Contains(errOut, c.errOut) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, status, errOut, c.status, c.errOut)
		}
	}
	out, _, status := runCmd(t, "", "play", "--help")
	if status != 0 || !strings.Contains(out, "Usage: klondike play") || !strings.Contains(out, "--spectate") {
		t.Errorf("play --help: exit %d\n%s", status, out)
	}
	for in, want := range map[string]string{
		"ws://127.0.0.1:8080":     "ws://127.0.0.1:8080/ws",
		"http://127.0.0.1:8080/":  "ws://127.0.0.1:8080/ws",
		"https://example.com/x/y": "wss://example.com/x/y",
		"wss://example.com/ws":    "wss://example.com/ws",
		"127.0.0.1:8080":          "ws://127.0.0.1:8080/ws", // HOST:PORT alone: ws
		"localhost:8080/ws":       "ws://localhost:8080/ws",
		"example.com":             "ws://example.com/ws",
	} {
		if got, err := serverURL(in); err != nil || got != want {
			t.Errorf("serverURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"ftp://x", "ws://", "ws://h:port", "ws:///ws"} {
		want := fmt.Sprintf("--server %q: want a ws:// or wss:// URL such as ws://127.0.0.1:8080/ws", in)
		if got, err := serverURL(in); err == nil || err.Error() != want {
			t.Errorf("serverURL(%q) = %q, %v; want the error %q", in, got, err, want)
		}
	}

	// Nothing listens: the connection fails with status 1.
	hs := httptest.NewServer(http.NotFoundHandler())
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
	hs.Close()
	_, errOut, status := runCmd(t, "", "play", "--server", url, "--name", "x")
	if status != exitFailure || !strings.Contains(errOut, "connecting to "+url) {
		t.Errorf("no server: exit %d, stderr %q", status, errOut)
	}
}

// TestPlayEndToEnd plays a match on the real server: two clients, the host
// creates, the other joins by code, the host starts, both play legal moves
// and one resigns.
func TestPlayEndToEnd(t *testing.T) {
	hs := httptest.NewServer(newRealServer(t))
	t.Cleanup(hs.Close)
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
	// Short rounds: no countdown, the shortest time limit.
	zero, thirty := 0, 30
	fast := protocol.PartialSettings{CountdownS: &zero, TimeLimitS: &thirty}

	alice := startPlayer(t, "alice", playConfig{URL: url, Action: "create", Settings: fast})
	alice.expect("Invite code: ")
	code := strings.TrimSpace(alice.expect("\n"))
	alice.expect("share: klondike play --server " + url + " --code " + code)

	bob := startPlayer(t, "bob", playConfig{URL: url, Action: "join", Code: code})
	bob.expect("Joined match " + code)
	alice.expect("bob")

	alice.typeLine("start")
	for _, p := range []*player{alice, bob} {
		p.expect("Round 1 starts in")
		p.expect("Deal commitment: ")
		p.expect("Round 1 started")
		p.expect("Stock: 24")
	}
	// Both play legal moves: two draws, then the first move listed.
	for _, p := range []*player{alice, bob} {
		p.typeLine("D")
		p.expect("D ok (drew)")
		p.expect("Moves: 1")
		p.typeLine("D")
		p.expect("D ok (drew)")
		p.expect("Stock: 18")
		p.typeLine("moves")
		p.expect("Legal moves: ")
		first := strings.Fields(p.expect("\n"))[0]
		p.typeLine(first)
		p.expect(first + " ok")
		p.expect("Moves: 3")
	}
	// A refused move: no recycle while the stock has cards.
	bob.typeLine("R")
	bob.expect("R rejected: ")
	bob.typeLine("D")
	bob.expect("D ok")
	bob.expect("Moves: 4")

	// Bob resigns; alice resigns too, which ends the round and the match.
	bob.typeLine("resign")
	bob.typeLine("y")
	bob.expect("You resigned.")
	alice.expect("resigned")
	alice.typeLine("resign")
	alice.typeLine("yes")
	for _, p := range []*player{alice, bob} {
		p.expect("Round 1 results:")
		p.expect("deal verified: commitment matches")
		p.expect("layout checked: deal #")
		p.expect("Match over. Final standings:")
	}
	for _, p := range []*player{alice, bob} {
		if err := p.end(); err != nil {
			t.Errorf("%s: run: %v", p.name, err)
		}
		if out := p.out.String(); strings.Contains(out, "WARNING") {
			t.Errorf("%s: warning in the output:\n%s", p.name, out)
		}
	}
}

// newRealServer returns the real server's handler (GET /ws and the rest),
// closed when the test ends. It uses as little of package api as it can, so
// that small changes there do not break this file: NewServer with the
// memory backends, an http.Handler, and Close if it has one.
func newRealServer(t *testing.T) http.Handler {
	t.Helper()
	mem := memstore.NewBackends()
	var h http.Handler = servertest.New(servertest.Config{Store: mem.Store, Players: mem.Players, Coord: mem.Coord, Challenges: mem.Challenges, Records: mem.Challenges})
	t.Cleanup(func() {
		if c, ok := h.(interface{ Close() }); ok {
			c.Close()
		}
	})
	return h
}

// TestPlayElsewhere: told that another connection of the player plays its
// match, the client says so and how to take it back; "here" sends
// play_here, and the next event of the match says it plays here again.
func TestPlayElsewhere(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "carol", playConfig{URL: fs.url})
	fc := fs.accept()
	hello := fc.next("hello")
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": "carol", "name": "carol", "token": "t"})
	lm := fc.next("list_matches")
	fc.reply(lm, map[string]any{"type": "matches", "matches": []any{}})
	fc.send(map[string]any{"type": "playing_elsewhere", "match_id": "m1"})
	p.expect("Your game is being played elsewhere")
	p.expect("type here to play it here")
	p.typeLine("here")
	ph := fc.next("play_here")
	fc.reply(ph, map[string]any{"type": "match", "match": fakeMatch("open", "carol")})
	p.expect("You play here again.")
	fc.send(map[string]any{"type": "playing_elsewhere", "match_id": "m1"})
	p.expect("Your game is being played elsewhere")
	fc.send(map[string]any{"type": "match", "match": fakeMatch("open", "carol")})
	p.expect("You play here again.")
	p.typeLine("quit")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
}
