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
	w := c.expect("welcome")
	c.id, c.token = w["player_id"].(string), w["token"].(string)
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
	code := a.expect("match")["match"].(map[string]any)["code"].(string)
	b.send(map[string]any{"type": "join_match", "code": strings.ToLower(code)})
	info := b.expect("match")["match"].(map[string]any)
	a.send(map[string]any{"type": "start_match", "match_id": info["id"]})
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
	rej := a.move(roundID, 1, "T1-T2")
	if rej["type"] != "move_rejected" || rej["code"] != "illegal_move" || !strings.Contains(rej["reason"].(string), "QH on TS") {
		t.Fatalf("illegal move answer = %v", rej)
	}
	// Out of order names the expected seq.
	if ooo := a.move(roundID, 5, "D"); ooo["code"] != "out_of_order" || ooo["expected"] != 1.0 {
		t.Fatalf("out of order answer = %v", ooo)
	}
	moves := winningGame(t)
	var last map[string]any
	for i, mv := range moves {
		last = a.move(roundID, i+1, mv)
		if last["type"] != "move_ok" {
			t.Fatalf("move %d %s: %v", i+1, mv, last)
		}
		if i == 0 {
			// A retry of seq 1 answers again and applies nothing.
			again := a.move(roundID, 1, mv)
			if again["type"] != "move_ok" || again["duplicate"] != true {
				t.Fatalf("retry of seq 1 = %v", again)
			}
			v := again["view"].(map[string]any)
			if v["moves"] != 1.0 {
				t.Fatalf("after a retry the view counts %v moves, want 1", v["moves"])
			}
		}
	}
	if st := last["view"].(map[string]any)["status"]; st != "won" {
		t.Fatalf("after the winning line: status %v", st)
	}
	// Bob sees alice's progress on the leaderboard.
	lb := b.expect("leaderboard")
	for lb["entries"].([]any)[0].(map[string]any)["status"] != "won" {
		lb = b.expect("leaderboard")
	}
	b.send(map[string]any{"type": "resign", "round_id": roundID})
	b.expect("resigned")
	over := a.expect("round_over")
	results := over["results"].([]any)
	if first := results[0].(map[string]any); first["player_id"] != a.id || first["rank"] != 1.0 {
		t.Errorf("results = %v, want alice first", results)
	}

	// The replay reproduces every player's score through the engine.
	resp, err := http.Get(base + over["replay_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rep match.Replay
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		t.Fatal(err)
	}
	checkReplay(t, rep, results)
	b.expect("match_over")
}

// checkReplay replays every player's log through the engine and compares
// the final scores with the results.
func checkReplay(t *testing.T, rep match.Replay, results []any) {
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
		for _, r := range results {
			e := r.(map[string]any)
			if e["player_id"] == p.PlayerID && e["score"] != float64(score) {
				t.Errorf("%s: replayed score %d, result %v", p.Name, score, e["score"])
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
	roundID := sa["round_id"].(string)
	var rules engine.Rules
	raw, _ := json.Marshal(sa["rules"])
	if err := json.Unmarshal(raw, &rules); err != nil {
		t.Fatal(err)
	}
	// Play until a few cards are revealed, choosing from the view.
	view := sa["view"]
	seq := 0
	for i := 0; i < 60; i++ {
		var v engine.View
		raw, _ := json.Marshal(view)
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		moves := v.LegalMoves(rules, nil)
		if len(moves) == 0 || v.Status != engine.Playing {
			break
		}
		seq++
		ans := a.move(roundID, seq, moves[(i*7)%len(moves)].String())
		if ans["type"] != "move_ok" {
			t.Fatalf("move: %v", ans)
		}
		view = ans["view"]
	}
	a.send(map[string]any{"type": "resign", "round_id": roundID})
	b.send(map[string]any{"type": "resign", "round_id": roundID})
	over := a.expect("round_over")
	b.expect("round_over")
	deal := over["deal"].(map[string]any)
	seed := deal["seed"].(string)
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
			if strings.Contains(f, deal["salt"].(string)) {
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
	w := a2.expect("welcome")
	if w["player_id"] != a.id || w["resumed"] != true {
		t.Fatalf("resume welcome = %v", w)
	}
	rs := a2.expect("round_started")
	if rs["last_seq"] != 1.0 || rs["resumed"] != true || rs["view"].(map[string]any)["foundations"].(map[string]any)["H"] != 1.0 {
		t.Fatalf("resumed round_started = %v", rs)
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
	lb := s.expect("leaderboard")
	if len(lb["entries"].([]any)) != 2 {
		t.Fatalf("spectator leaderboard = %v", lb)
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
		if sa["round"] != float64(round) {
			t.Fatalf("round %v, want %d", sa["round"], round)
		}
		a.send(map[string]any{"type": "resign", "round_id": sa["round_id"]})
		b.send(map[string]any{"type": "resign", "round_id": sa["round_id"]})
		over := a.expect("round_over")
		if len(over["totals"].([]any)) != 2 {
			t.Fatalf("round_over totals = %v", over["totals"])
		}
	}
	mo := a.expect("match_over")
	for _, tot := range mo["totals"].([]any) {
		if n := len(tot.(map[string]any)["placings"].([]any)); n != 3 {
			t.Errorf("totals %v: %d placings, want 3", tot, n)
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
	if next := reply["match"].(map[string]any); next["id"] == sa["match_id"] {
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
	for _, e := range over["results"].([]any) {
		if st := e.(map[string]any)["status"]; st != "timed_out" {
			t.Errorf("status %v, want timed_out", st)
		}
	}
	if ans := a.move(sa["round_id"].(string), 1, "D"); ans["code"] != "round_not_running" {
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
