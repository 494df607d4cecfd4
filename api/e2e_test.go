package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api"
	"klondike/api/protocol"
	"klondike/engine"
	"klondike/match"
)

// testServer runs the real server wiring on a loopback port.
func testServer(t *testing.T) (*api.Server, string) {
	t.Helper()
	srv := api.NewServer(api.Config{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		// The test players are bots that move as fast as they can.
		Limits: api.Limits{MsgRate: 10000, MsgBurst: 10000},
		Hint:   api.SolverHints(),
		Match: match.Config{
			LeaderboardEvery: 20 * time.Millisecond,
			Intermission:     50 * time.Millisecond,
			QuickWait:        100 * time.Millisecond,
		},
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return srv, hs.URL
}

// client is a test player speaking the protocol; it records every frame.
type client struct {
	t      *testing.T
	conn   *websocket.Conn
	in     chan map[string]any
	mu     sync.Mutex
	frames []string
	// pending holds messages read while waiting for another type: pushes and
	// replies may interleave, so nothing read is thrown away.
	pending []map[string]any
	id      string
	token   string
	nextID  int
}

func dial(t *testing.T, base string) *client {
	t.Helper()
	u := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	conn, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	c := &client{t: t, conn: conn, in: make(chan map[string]any, 1024)}
	go func() {
		defer close(c.in)
		for {
			_, b, err := conn.ReadMessage()
			if err != nil {
				return
			}
			c.mu.Lock()
			c.frames = append(c.frames, string(b))
			c.mu.Unlock()
			var m map[string]any
			if json.Unmarshal(b, &m) == nil {
				c.in <- m
			}
		}
	}()
	t.Cleanup(func() { conn.Close() })
	return c
}

func (c *client) send(v map[string]any) string {
	c.t.Helper()
	c.nextID++
	id := strconv.Itoa(c.nextID)
	v["id"] = id
	if err := c.conn.WriteJSON(v); err != nil {
		c.t.Fatalf("send %v: %v", v, err)
	}
	return id
}

// expect returns the first unread message of type typ, waiting for it.
func (c *client) expect(typ string) map[string]any {
	c.t.Helper()
	return c.expectAny(typ)
}

// expectAny returns the first unread message of one of the types.
func (c *client) expectAny(types ...string) map[string]any {
	c.t.Helper()
	match := func(m map[string]any) bool {
		for _, t := range types {
			if m["type"] == t {
				return true
			}
		}
		return false
	}
	for i, m := range c.pending {
		if match(m) {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return m
		}
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-c.in:
			if !ok {
				c.t.Fatalf("connection closed while waiting for %v", types)
			}
			if match(m) {
				return m
			}
			if m["type"] == "error" {
				c.t.Fatalf("waiting for %v: got error %v", types, m)
			}
			c.pending = append(c.pending, m)
		case <-deadline:
			c.t.Fatalf("no %v within 10 s", types)
		}
	}
}

func (c *client) hello(name string) {
	c.t.Helper()
	c.send(map[string]any{"type": "hello", "name": name})
	w := as[protocol.Welcome](c.t, c.expect(protocol.TypeWelcome))
	c.id, c.token = w.PlayerID, w.Token
}

// as reads a message the client received as T, the protocol's type of its
// name, so that a test names fields rather than keys of a map.
func as[T any](t *testing.T, m map[string]any) T {
	t.Helper()
	var v T
	b, err := json.Marshal(m)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		t.Fatalf("%v does not read as %T: %v", m, v, err)
	}
	return v
}

// viewOf is a message that carries the player's view (round_started,
// move_ok) as the client reads it: the view decoded.
type viewOf[T any] struct {
	Msg  T
	View engine.View
}

// withView reads a message of type T with its view decoded.
func withView[T any](t *testing.T, m map[string]any) viewOf[T] {
	t.Helper()
	return viewOf[T]{Msg: as[T](t, m), View: as[viewField](t, m).View}
}

// viewField is the view of a message, decoded.
type viewField struct {
	View engine.View `json:"view"`
}

// move sends a move and returns the answer (move_ok or move_rejected).
func (c *client) move(roundID string, seq int, mv string) map[string]any {
	c.t.Helper()
	c.send(map[string]any{"type": "move", "round_id": roundID, "seq": seq, "move": mv})
	return c.expectAny("move_ok", "move_rejected")
}

// winningGame reads the engine's fixture of a won game: deal #1, draw 3,
// unlimited passes, undo on.
func winningGame(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/deal1-draw3-win.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var moves []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			moves = append(moves, line)
		}
	}
	return moves
}

// startRace makes alice host a match with the settings, bob join by code,
// and starts it; it returns the round_started messages.
func startRace(t *testing.T, base string, settings map[string]any) (a, b *client, sa, sb map[string]any) {
	t.Helper()
	a, b = dial(t, base), dial(t, base)
	a.hello("alice")
	b.hello("bob")
	a.send(map[string]any{"type": "create_match", "settings": settings})
	code := as[protocol.Match](t, a.expect(protocol.TypeMatch)).Match.Code
	b.send(map[string]any{"type": "join_match", "code": strings.ToLower(code)})
	info := as[protocol.Match](t, b.expect(protocol.TypeMatch)).Match
	a.send(map[string]any{"type": "start_match", "match_id": info.ID})
	return a, b, a.expect("round_started"), b.expect("round_started")
}

func TestRaceToTheEnd(t *testing.T) {
	_, base := testServer(t)
	a, b, sa, sb := startRace(t, base, map[string]any{"seed": "1", "undo": "on", "countdown_s": 0, "max_players": 2})
	va, _ := json.Marshal(sa["view"])
	vb, _ := json.Marshal(sb["view"])
	if string(va) != string(vb) {
		t.Fatalf("round_started views differ:\n%s\n%s", va, vb)
	}
	roundID := sa["round_id"].(string)

	// An illegal move is refused with its reason and changes nothing.
	rej := as[protocol.MoveRejected](t, a.move(roundID, 1, "T1-T2"))
	if rej.Type != protocol.TypeMoveRejected || rej.Code != protocol.CodeIllegalMove || !strings.Contains(rej.Reason, "QH on TS") {
		t.Fatalf("illegal move answer = %+v", rej)
	}
	// Out of order names the expected seq.
	if ooo := as[protocol.MoveRejected](t, a.move(roundID, 5, "D")); ooo.Code != protocol.CodeOutOfOrder || ooo.Expected != 1 {
		t.Fatalf("out of order answer = %+v", ooo)
	}
	moves := winningGame(t)
	var last viewOf[protocol.MoveOK]
	for i, mv := range moves {
		last = withView[protocol.MoveOK](t, a.move(roundID, i+1, mv))
		if last.Msg.Type != protocol.TypeMoveOK {
			t.Fatalf("move %d %s: %+v", i+1, mv, last.Msg)
		}
		if i == 0 {
			// A retry of seq 1 answers again and applies nothing.
			again := withView[protocol.MoveOK](t, a.move(roundID, 1, mv))
			if again.Msg.Type != protocol.TypeMoveOK || !again.Msg.Duplicate {
				t.Fatalf("retry of seq 1 = %+v", again.Msg)
			}
			if again.View.Moves != 1 {
				t.Fatalf("after a retry the view counts %v moves, want 1", again.View.Moves)
			}
		}
	}
	if st := last.View.Status; st != engine.Won {
		t.Fatalf("after the winning line: status %v", st)
	}
	// Bob sees alice's progress on the leaderboard.
	lb := as[protocol.Leaderboard](t, b.expect(protocol.TypeLeaderboard))
	for lb.Entries[0].Status != engine.Won {
		lb = as[protocol.Leaderboard](t, b.expect(protocol.TypeLeaderboard))
	}
	b.send(map[string]any{"type": "resign", "round_id": roundID})
	b.expect("resigned")
	over := as[protocol.RoundOver](t, a.expect(protocol.TypeRoundOver))
	if first := over.Results[0]; first.PlayerID != a.id || first.Rank != 1 {
		t.Errorf("results = %+v, want alice first", over.Results)
	}

	// The replay reproduces every player's score through the engine.
	resp, err := http.Get(base + over.ReplayURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rep match.Replay
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		t.Fatal(err)
	}
	checkReplay(t, rep, over.Results)
	b.expect("match_over")
}

// checkReplay replays every player's log through the engine and compares
// the final scores with the results.
func checkReplay(t *testing.T, rep match.Replay, results []match.Entry) {
	t.Helper()
	seed, _ := strconv.ParseUint(rep.Seed, 10, 64)
	if !rep.KnownDeal && match.Commitment(rep.Salt, seed) != rep.Commitment {
		t.Errorf("replay commitment does not match its seed and salt")
	}
	for _, p := range rep.Players {
		g, err := engine.NewGame(engine.NumberedDeal(seed), rep.Rules)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Moves {
			m, err := engine.ParseMove(e.Move)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.Apply(m); err != nil {
				t.Fatalf("replay of %s: move %d %s refused: %v", p.Name, e.Seq, e.Move, err)
			}
		}
		score := engine.TimedScore(rep.Rules.Scoring, g.Score(), time.Duration(p.Elapsed)*time.Millisecond, g.Status() == engine.Won)
		for _, e := range results {
			if e.PlayerID == p.PlayerID && e.Score != score {
				t.Errorf("%s: replayed score %d, result %v", p.Name, score, e.Score)
			}
		}
		if score != p.Score {
			t.Errorf("%s: replayed score %d, replay says %d", p.Name, score, p.Score)
		}
	}
}

func TestIntegrityNoHiddenCards(t *testing.T) {
	_, base := testServer(t)
	a, b, sa, _ := startRace(t, base, map[string]any{"countdown_s": 0, "max_players": 2, "draw": 1})
	started := withView[protocol.RoundStarted](t, sa)
	roundID, rules := started.Msg.RoundID, started.Msg.Rules
	// Play until a few cards are revealed, choosing from the view.
	v := started.View
	seq := 0
	for i := 0; i < 60; i++ {
		moves := v.LegalMoves(rules, nil)
		if len(moves) == 0 || v.Status != engine.Playing {
			break
		}
		seq++
		ans := withView[protocol.MoveOK](t, a.move(roundID, seq, moves[(i*7)%len(moves)].String()))
		if ans.Msg.Type != protocol.TypeMoveOK {
			t.Fatalf("move: %+v", ans.Msg)
		}
		v = ans.View
	}
	a.send(map[string]any{"type": "resign", "round_id": roundID})
	b.send(map[string]any{"type": "resign", "round_id": roundID})
	deal := as[protocol.RoundOver](t, a.expect(protocol.TypeRoundOver)).Deal
	b.expect("round_over")
	seed := deal.Seed
	n, _ := strconv.ParseUint(seed, 10, 64)
	layout := engine.NumberedDeal(n)
	// Walk each player's frames in order: a card hidden in the deal may
	// appear in a frame only once a view has shown it face up.
	for _, c := range []*client{a, b} {
		c.mu.Lock()
		frames := append([]string(nil), c.frames...)
		c.mu.Unlock()
		hidden := hiddenCards(layout)
		for _, f := range frames {
			if strings.Contains(f, `"type":"round_over"`) {
				break
			}
			if strings.Contains(f, seed) {
				t.Errorf("the seed %s appears before round_over: %s", seed, f)
			}
			if strings.Contains(f, deal.Salt) {
				t.Errorf("the salt appears before round_over: %s", f)
			}
			for _, tok := range shownInView(t, f) {
				delete(hidden, tok)
			}
			for tok := range hidden {
				if strings.Contains(f, `"`+tok+`"`) {
					t.Errorf("hidden card %s appears in a frame before round_over: %s", tok, f)
				}
			}
		}
	}
}

// hiddenCards returns the cards a deal hides: face-down tableau cards and the stock.
func hiddenCards(d engine.Deal) map[string]bool {
	hidden := map[string]bool{}
	for _, pile := range d.Tableau {
		for _, card := range pile[:len(pile)-1] {
			hidden[card.String()] = true
		}
	}
	for _, card := range d.Stock {
		hidden[card.String()] = true
	}
	return hidden
}

// shownInView returns the face-up cards of a frame's view, if it has one.
func shownInView(t *testing.T, frame string) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(frame), &m) != nil || m["view"] == nil {
		return nil
	}
	var v engine.View
	if err := json.Unmarshal(m["view"], &v); err != nil {
		t.Fatalf("a view that does not decode: %s", m["view"])
	}
	var out []string
	for _, p := range v.Tableau {
		for _, card := range p.Up {
			out = append(out, card.String())
		}
	}
	for _, card := range v.Waste {
		out = append(out, card.String())
	}
	return out
}

func TestReconnectResumes(t *testing.T) {
	_, base := testServer(t)
	a, _, sa, _ := startRace(t, base, map[string]any{"seed": "1", "countdown_s": 0, "max_players": 2})
	roundID := sa["round_id"].(string)
	if ans := a.move(roundID, 1, "T6-F"); ans["type"] != "move_ok" {
		t.Fatal(ans)
	}
	a2 := dial(t, base)
	a2.send(map[string]any{"type": "hello", "token": a.token})
	w := as[protocol.Welcome](t, a2.expect(protocol.TypeWelcome))
	if w.PlayerID != a.id || !w.Resumed {
		t.Fatalf("resume welcome = %+v", w)
	}
	rs := withView[protocol.RoundStarted](t, a2.expect(protocol.TypeRoundStarted))
	if rs.Msg.LastSeq != 1 || !rs.Msg.Resumed || rs.View.Foundations.H != 1 {
		t.Fatalf("resumed round_started = %+v, view %+v", rs.Msg, rs.View)
	}
	// The first connection was replaced.
	deadline := time.After(5 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-a.in:
		case <-deadline:
			t.Fatal("the replaced connection stayed open")
		}
	}
	if ans := a2.move(roundID, 2, "T7-F"); ans["type"] != "move_ok" {
		t.Fatalf("move after resume: %v", ans)
	}
}

func TestSpectatorGetsLeaderboards(t *testing.T) {
	_, base := testServer(t)
	a, _, sa, _ := startRace(t, base, map[string]any{"seed": "1", "countdown_s": 0, "max_players": 2})
	s := dial(t, base)
	s.hello("sam")
	s.send(map[string]any{"type": "spectate", "match_id": sa["match_id"]})
	s.expect("match")
	a.move(sa["round_id"].(string), 1, "T6-F")
	lb := as[protocol.Leaderboard](t, s.expect(protocol.TypeLeaderboard))
	if len(lb.Entries) != 2 {
		t.Fatalf("spectator leaderboard = %+v", lb)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.frames {
		if strings.Contains(f, `"view"`) {
			t.Errorf("a spectator got a board: %s", f)
		}
	}
}

func TestThreeRoundTotals(t *testing.T) {
	_, base := testServer(t)
	// A fixed deal: about one random draw-3 deal in 300 leaves no move
	// from the start, so its round ends at once and the resigns below
	// would be refused (round_not_running). Deal 1 is playable.
	a, b, sa, _ := startRace(t, base, map[string]any{"rounds": 3, "countdown_s": 0, "max_players": 2, "seed": "1"})
	for round := 1; round <= 3; round++ {
		if round > 1 {
			sa = a.expect("round_started")
			b.expect("round_started")
		}
		if got := as[protocol.RoundStarted](t, sa).Round; got != round {
			t.Fatalf("round %v, want %d", got, round)
		}
		a.send(map[string]any{"type": "resign", "round_id": sa["round_id"]})
		b.send(map[string]any{"type": "resign", "round_id": sa["round_id"]})
		over := as[protocol.RoundOver](t, a.expect(protocol.TypeRoundOver))
		if len(over.Totals) != 2 {
			t.Fatalf("round_over totals = %+v", over.Totals)
		}
	}
	mo := as[protocol.MatchOver](t, a.expect(protocol.TypeMatchOver))
	for _, tot := range mo.Totals {
		if n := len(tot.Placings); n != 3 {
			t.Errorf("totals %+v: %d placings, want 3", tot, n)
		}
	}
	// A player who reconnects after the match gets its results again, and
	// a rematch needs no id.
	a2 := dial(t, base)
	a2.send(map[string]any{"type": "hello", "token": a.token})
	if w := a2.expect("welcome"); w["match_id"] != sa["match_id"] {
		t.Errorf("welcome after the match names %v, want %v", w["match_id"], sa["match_id"])
	}
	a2.expect("round_over")
	a2.expect("match_over")
	id := a2.send(map[string]any{"type": "rematch"})
	reply := a2.expect("match")
	for reply["re"] != id {
		reply = a2.expect("match")
	}
	if next := as[protocol.Match](t, reply).Match; next.ID == sa["match_id"] {
		t.Errorf("rematch answered with the old match")
	}
}

func TestTimeLimitEndsRound(t *testing.T) {
	_, base := testServer(t)
	// Deal 1: a random deal stuck from the start would end before its limit.
	a, _, sa, _ := startRace(t, base, map[string]any{"countdown_s": 0, "max_players": 2, "time_limit_s": 2, "seed": "1"})
	start := time.Now()
	over := a.expect("round_over")
	if d := time.Since(start); d < time.Second {
		t.Errorf("round ended after %v, before its 2 s limit", d)
	}
	for _, e := range as[protocol.RoundOver](t, over).Results {
		if e.Status != engine.TimedOut {
			t.Errorf("status %v, want timed_out", e.Status)
		}
	}
	if ans := a.move(sa["round_id"].(string), 1, "D"); ans["code"] != protocol.CodeRoundNotRunning {
		t.Errorf("a move after the round = %v", ans)
	}
}

func TestHTTPRoutes(t *testing.T) {
	_, base := testServer(t)
	for path, want := range map[string]int{
		"/healthz": 200, "/readyz": 200, "/metrics": 200, "/api/v1/matches": 200,
		"/api/v1/rounds/nope/leaderboard": 404, "/api/v1/rounds/nope/replay": 404,
		"/": 200, "/m/ABCDEF": 200, "/deal/1": 200, "/nope.txt": 404,
	} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d: %s", path, resp.StatusCode, want, body)
		}
		if path == "/metrics" && !strings.Contains(string(body), "klondike_build_info") {
			t.Errorf("/metrics lacks klondike_build_info")
		}
	}
	_ = fmt.Sprint
	_ = context.Background
}
