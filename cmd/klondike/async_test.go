package main

import (
	"strings"
	"testing"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

// asyncInfo returns an open asynchronous round's description for the fake
// server.
func asyncInfo(id, kind, variant string) map[string]any {
	now := time.Now().UTC()
	in := map[string]any{
		"round_id": id, "kind": kind, "variant": variant, "rules": matchRules, "mode": "race", "limit_ms": 900000,
		"opens_at": now.Add(-time.Hour), "closes_at": now.Add(23 * time.Hour), "commitment": commitment("s1", "1"),
		"closed": false, "players": 3, "finished": 2,
	}
	switch kind {
	case "daily":
		in["day"] = now.Format(time.DateOnly)
	case "challenge":
		in["creator_id"], in["creator_name"] = "bob", "bob"
	}
	return in
}

// startAttempt answers start_attempt with the attempt's round on deal #1.
func startAttempt(t *testing.T, fc *fakeConn, g *game, asyncID, kind string) string {
	t.Helper()
	sa := fc.next("start_attempt")
	if sa["round_id"] != asyncID {
		t.Fatalf("start_attempt = %v, want round %s", sa, asyncID)
	}
	now := time.Now().UTC()
	attempt := asyncID + ".alice"
	fc.reply(sa, map[string]any{"type": "round_started", "match_id": asyncID, "round_id": attempt, "round": 0,
		"starts_at": now, "ends_at": now.Add(15 * time.Minute), "rules": matchRules, "commitment": commitment("s1", "1"),
		"view": g.view(), "last_seq": 0, "kind": kind})
	return attempt
}

// boardReply answers get_board for round id.
func boardReply(t *testing.T, fc *fakeConn, id string) {
	t.Helper()
	gb := fc.next("get_board")
	if gb["round_id"] != id || gb["top"] != float64(10) || gb["around"] != float64(3) {
		t.Fatalf("get_board = %v, want round %s, top 10, around 3", gb, id)
	}
	fc.reply(gb, map[string]any{"type": "board", "round_id": id, "closed": false, "players": 4, "finished": 3,
		"top": []map[string]any{
			{"player_id": "bob", "name": "bob", "rank": 1, "score": 5000, "foundation": 52, "moves": 90, "status": "won", "elapsed_ms": 200000},
			{"player_id": "alice", "name": "alice", "rank": 2, "score": 40, "foundation": 2, "moves": 3, "status": "resigned", "elapsed_ms": 9000},
		},
		"around": []map[string]any{
			{"player_id": "alice", "name": "alice", "rank": 2, "score": 40, "foundation": 2, "moves": 3, "status": "resigned", "elapsed_ms": 9000},
		},
		"rank": 2})
}

// TestPlayDaily plays today's draw 3 deal: get_daily, the round's
// description, start_attempt, moves on the attempt's round, ghosts, and at
// the end the result and the board.
func TestPlayDaily(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "daily", Draw: 3})
	fc := fs.accept()
	welcome(fc, "alice")
	gd := fc.next("get_daily")
	fc.reply(gd, map[string]any{"type": "daily", "day": "2026-12-05", "rounds": []any{
		asyncInfo("d1", "daily", "draw1"), asyncInfo("d3", "daily", "draw3")}})
	ga := fc.next("get_async_round")
	if ga["round_id"] != "d3" {
		t.Fatalf("get_async_round = %v, want d3 (draw3)", ga)
	}
	fc.reply(ga, map[string]any{"type": "async_round", "round": asyncInfo("d3", "daily", "draw3"), "url": "/daily",
		"attempt": map[string]any{"state": "none"}})
	p.expect("Daily deal ")
	p.expect(" (draw3)\n  Rules: draw 3, passes unlimited")
	p.expect("  Time limit: 15:00 on your own clock, one attempt\n  Window: closes ")
	p.expect("  Players: 3 started, 2 finished\n")
	p.expect("Type play to start your game: your clock (15:00) starts then, and you have one attempt.\n" +
		"Nothing else starts it: quit leaves it for later, until its window closes.\n")

	// Only play starts the clock: not a move, moves or a stray y.
	for _, c := range []struct{ line, want string }{
		{"moves", "Your game has not started: type play to start it (your clock starts then).\n"},
		{"D", "Your game has not started: type play to start it (your clock starts then).\n"},
		{"y", "Your game has not started: type play to start it (your clock starts then).\n"},
		{"play now", "Usage: play starts your game of the daily deal or challenge shown (daily 3, challenge ID).\n"},
	} {
		p.typeLine(c.line)
		p.expect(c.want)
	}
	fc.quiet()

	p.typeLine("play")
	g := newDeal1Game(t)
	attempt := startAttempt(t, fc, g, "d3", "daily")
	p.expect("Daily deal started.")
	p.expect("  Deal commitment: " + commitment("s1", "1"))
	p.expect("  One attempt, on your own clock: 15:00")
	p.expect("Daily deal: ")
	p.expect(" left\n")

	p.typeLine("D")
	m := fc.next("move")
	if m["round_id"] != attempt || m["seq"] != float64(1) || m["move"] != "D" {
		t.Fatalf("move = %v, want seq 1 D in %s", m, attempt)
	}
	ev := g.apply("D")
	fc.reply(m, map[string]any{"type": "move_ok", "round_id": attempt, "seq": 1, "view": g.view(), "events": ev.Names()})
	p.expect("D ok (drew)")

	// Ghosts: printed when more than their scores change, and under the
	// board after each move. Those of another round are not ours.
	ghost := func(round string, score, home int) {
		fc.send(map[string]any{"type": "ghost", "round_id": round, "elapsed_ms": 5000, "ghosts": []any{
			map[string]any{"player_id": "bob", "name": "bob", "role": "leader", "score": score, "foundation": home}}})
	}
	ghost("other", 1, 1)
	ghost(attempt, 20, 1)
	p.expect("Ghosts at 0:05: leader bob: timed score 20, 1 card home\n")
	ghost(attempt, 18, 1)
	ghost(attempt, 30, 2)
	if before := p.expect("Ghosts at 0:05: leader bob: timed score 30, 2 cards home\n"); strings.Contains(before, "Ghosts") {
		t.Errorf("a ghost line was printed for a score alone, or for another round:\n%s", before)
	}
	p.typeLine("board")
	p.expect("Daily deal: ")
	p.expect("Ghosts at 0:05: leader bob: timed score 30, 2 cards home\n")

	p.typeLine("resign")
	p.expect("Resign the daily deal? Your game ends now. [y/N]")
	p.typeLine("y")
	rs := fc.next("resign")
	if rs["round_id"] != attempt {
		t.Errorf("resign = %v", rs)
	}
	fc.reply(rs, map[string]any{"type": "resigned", "round_id": attempt})
	p.expect("You resigned.\n")
	fc.send(map[string]any{"type": "attempt_over", "round_id": attempt, "async_round_id": "d3", "players": 4, "finished": 3,
		"result": map[string]any{"player_id": "alice", "name": "alice", "rank": 2, "score": 40, "foundation": 2, "moves": 3,
			"status": "resigned", "elapsed_ms": 9000}})
	p.expect("Daily deal over: resigned at 0:09.0, score 40, 2 cards home, 3 moves: rank 2 of 3 finished (4 players started)\n")
	p.expect("The deal and every replay are published when the window closes (")
	boardReply(t, fc, "d3")
	p.expect("Board of Daily deal ")
	p.expect("(draw3), live: 4 players started, 3 finished\n   #  Player  Timed score")
	p.expect(">  2  alice")
	p.expect("  40      2      3  resigned  0:09.0\nTies: the earlier to reach the result ranks first.\nYour rank: 2 of 3.\n")

	// After the game, board and lb read the board afresh.
	p.typeLine("lb")
	boardReply(t, fc, "d3")
	p.expect("Your rank: 2 of 3.\n")
	p.typeLine("D")
	p.expect("No round is running for you.")
	p.typeLine("play")
	p.expect("Nothing to play: daily 3, daily 1 or challenge ID shows a round first, then play starts it.\n")

	// Played: daily lists it so, with the result, and offers the other.
	p.typeLine("daily")
	gd = fc.next("get_daily")
	fc.reply(gd, map[string]any{"type": "daily", "day": "2026-12-05", "rounds": []any{
		asyncInfo("d3", "daily", "draw3"), asyncInfo("d1", "daily", "draw1")}})
	for _, want := range []string{"d3", "d1"} {
		ga := fc.next("get_async_round")
		if ga["round_id"] != want {
			t.Fatalf("get_async_round = %v, want %s", ga, want)
		}
		attempt := map[string]any{"state": "none"}
		if want == "d3" {
			attempt = map[string]any{"state": "finished", "result": map[string]any{"player_id": "alice", "name": "alice",
				"rank": 2, "score": 40, "foundation": 2, "moves": 3, "status": "resigned", "elapsed_ms": 9000}}
		}
		fc.reply(ga, map[string]any{"type": "async_round", "round": asyncInfo(want, "daily", "draw3"), "attempt": attempt})
	}
	p.expect("Daily deals of 2026-12-05 (UTC):\n  Variant   Time  Players  Finished  You               Closes\n")
	p.expect("  draw3    15:00        3         2  resigned, rank 2  ")
	p.expect("  draw1    15:00        3         2  not played        ")
	p.expect("Type daily 1 to play: one attempt each, on your own clock.\ndaily 3 shows your result and its board.\n")
	fc.quiet()
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// TestPlayChallengePlayed opens a challenge by its link after having
// played it: the result and the board, no attempt.
func TestPlayChallengePlayed(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "challenge", Code: "c9"})
	fc := fs.accept()
	welcome(fc, "alice")
	ga := fc.next("get_async_round")
	if ga["round_id"] != "c9" {
		t.Fatalf("get_async_round = %v", ga)
	}
	fc.reply(ga, map[string]any{"type": "async_round", "round": asyncInfo("c9", "challenge", "draw3"), "url": "/c/c9",
		"attempt": map[string]any{"state": "finished", "result": map[string]any{"player_id": "alice", "name": "alice",
			"rank": 2, "score": 40, "foundation": 2, "moves": 3, "status": "stuck", "elapsed_ms": 9000}}})
	p.expect("Challenge c9 by bob\n")
	p.expect("Link: http://127.0.0.1:")
	p.expect("/c/c9\nshare: klondike play --server " + fs.url + " --challenge c9\n")
	p.expect("You have played it: stuck at 0:09.0, score 40, 2 cards home, 3 moves: rank 2 of 2 finished (3 players started)\n")
	boardReply(t, fc, "c9")
	p.expect("Board of Challenge c9 by bob, live")
	fc.quiet()

	// records, and another player's.
	p.typeLine("records")
	gr := fc.next("get_records")
	if _, ok := gr["player_id"]; ok {
		t.Errorf("get_records = %v, want no player_id", gr)
	}
	fc.reply(gr, map[string]any{"type": "records", "player_id": "alice", "records": []any{
		map[string]any{"variant": "draw3", "played": 4, "won": 1, "best_score": 5000, "fastest_win_ms": 200000,
			"daily_streak": 2, "best_daily_streak": 3, "last_daily": "2026-12-05"}}})
	p.expect("Your records:\n  Variant  Played  Won  Best score  Fastest win  Daily streak  Best streak  Last daily\n")
	p.expect("  draw3         4    1        5000       3:20.0             2            3  2026-12-05\n")
	p.typeLine("records bob")
	gr = fc.next("get_records")
	if gr["player_id"] != "bob" {
		t.Errorf("get_records = %v, want bob's", gr)
	}
	fc.reply(gr, map[string]any{"type": "records", "player_id": "bob", "records": []any{}})
	p.expect("Records of bob:\n  (no games yet)\n")

	// Not the creator: close says so and sends nothing.
	p.typeLine("close")
	p.expect("Only its creator, bob, can close this challenge.\n")
	fc.quiet()
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if p.client.failed {
		t.Error("a played challenge counts as a failure")
	}
}

// TestPlayCreateChallenge creates a challenge with the flags' rules,
// window and open deal, prints its link, plays it and closes it.
func TestPlayCreateChallenge(t *testing.T) {
	fs := newFakeServer(t)
	seed := "1"
	draw := 1
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "create-challenge", Window: 2 * time.Hour,
		Program: "go run ./cmd/klondike", Settings: protocol.PartialSettings{Draw: &draw, Seed: &seed}})
	fc := fs.accept()
	welcome(fc, "alice")
	cc := fc.next("create_challenge")
	s, _ := cc["settings"].(map[string]any)
	if s == nil || s["draw"] != float64(1) || s["seed"] != "1" || cc["window_s"] != float64(7200) {
		t.Fatalf("create_challenge = %v, want draw 1, seed 1, window_s 7200", cc)
	}
	in := asyncInfo("c7", "challenge", "draw1")
	in["creator_id"], in["creator_name"], in["known_deal"], in["seed"] = "alice", "alice", true, "1"
	in["players"], in["finished"] = 0, 0
	fc.reply(cc, map[string]any{"type": "async_round", "round": in, "url": "/c/c7", "attempt": map[string]any{"state": "none"}})
	p.expect("Challenge created.\nChallenge c7 by alice\n")
	p.expect("  Open deal #1: anyone can look it up.\n")
	p.expect("Link: http://127.0.0.1:")
	p.expect("/c/c7\nshare: go run ./cmd/klondike play --server " + fs.url + " --challenge c7\n")
	p.expect("Type play to start your game")
	fc.quiet()

	p.typeLine("play")
	g := newDeal1Game(t)
	attempt := startAttempt(t, fc, g, "c7", "challenge")
	p.expect("Challenge started.")

	// close asks first.
	p.typeLine("close")
	p.expect("Close challenge c7 now? Nobody can start it after, and its deal and replays go public. [y/N]\n")
	p.typeLine("n")
	p.expect("not closed\n")
	fc.quiet()
	p.typeLine("close")
	p.typeLine("yes")
	cl := fc.next("close_challenge")
	if cl["round_id"] != "c7" {
		t.Fatalf("close_challenge = %v", cl)
	}
	closed := asyncInfo("c7", "challenge", "draw1")
	closed["creator_id"], closed["closed"], closed["closed_early"] = "alice", true, true
	closed["seed"], closed["salt"], closed["closes_at"] = "1", "s1", time.Now().UTC()
	fc.send(map[string]any{"type": "attempt_over", "round_id": attempt, "async_round_id": "c7", "players": 1, "finished": 1,
		"result": map[string]any{"player_id": "alice", "name": "alice", "rank": 1, "score": 0, "foundation": 0, "moves": 0,
			"status": "timed_out", "elapsed_ms": 1000}})
	p.expect("Challenge over: timed_out at 0:01.0")
	boardReply(t, fc, "c7")
	fc.reply(cl, map[string]any{"type": "async_round", "round": closed, "url": "/c/c7",
		"attempt": map[string]any{"state": "finished", "result": map[string]any{"player_id": "alice", "rank": 1, "status": "timed_out"}}})
	p.expect("  Window: closed early by its creator (")
	p.expect("Challenge closed: nobody can start it now.\n")
	p.expect("Deal: #1  salt s1: verified, the commitment matches\nlayout checked: deal #1, as dealt to you\n")
	p.expect("Replay: http://127.0.0.1:")
	p.expect("/api/v1/rounds/c7/replay\n")
	p.expect("You have played it: timed_out")
	boardReply(t, fc, "c7")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if out := p.out.String(); strings.Contains(out, "WARNING") {
		t.Errorf("warning in the output:\n%s", out)
	}
}

// TestPlayAsyncCommands plays from the lobby's prompt: daily lists, daily 1
// meets an attempt played already, challenge takes a link, a game under
// way is resumed after a drop and its quit line says how to come back.
func TestPlayAsyncCommands(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url})
	fc := fs.accept()
	welcome(fc, "alice")
	fc.reply(fc.next("list_matches"), map[string]any{"type": "matches", "matches": []any{}})

	p.typeLine("daily")
	gd := fc.next("get_daily")
	fc.reply(gd, map[string]any{"type": "daily", "day": "2026-12-05", "rounds": []any{asyncInfo("d3", "daily", "draw3")}})
	// The server cannot say whether the player played it: "?".
	fc.reply(fc.next("get_async_round"), map[string]any{"type": "error", "code": "unavailable", "message": "try again"})
	p.expect("Daily deals of 2026-12-05 (UTC):\n  Variant   Time  Players  Finished  You  Closes\n")
	p.expect("  draw3    15:00        3         2  ?    ")
	p.expect("Type daily 3 to play: one attempt each, on your own clock.\n")
	fc.quiet()

	p.typeLine("daily 1")
	fc.reply(fc.next("get_daily"), map[string]any{"type": "daily", "day": "2026-12-05", "rounds": []any{asyncInfo("d3", "daily", "draw3")}})
	p.expect("No daily deal of draw 1 today (2026-12-05).\n")

	// start_attempt refused as played already (a race with another
	// client): the board instead.
	p.typeLine("daily 3")
	fc.reply(fc.next("get_daily"), map[string]any{"type": "daily", "day": "2026-12-05", "rounds": []any{asyncInfo("d3", "daily", "draw3")}})
	ga := fc.next("get_async_round")
	fc.reply(ga, map[string]any{"type": "async_round", "round": asyncInfo("d3", "daily", "draw3"), "attempt": map[string]any{"state": "none"}})
	p.expect("Type play to start your game")
	p.typeLine("play")
	sa := fc.next("start_attempt")
	fc.reply(sa, map[string]any{"type": "error", "code": "already_played", "message": "you have played this round already"})
	p.expect("You have played this round already: one attempt a player.\n")
	boardReply(t, fc, "d3")
	p.expect("Your rank: 2 of 3.\n")

	for _, c := range []struct{ line, want string }{
		{"daily 2", "Usage: daily lists today's daily deals; daily 3 or daily 1 shows one, to play.\n"},
		{"challenge", "Usage: challenge ID (or its link) plays a challenge; challenge create [WINDOW] makes one.\n"},
		{"challenge http://h/c/", `challenge "http://h/c/": want its id, or its link ending in /c/ID` + "\n"},
		{"challenge create 3s", `challenge create: window "3s": want a duration from 1m to 7d, such as 2h` + "\n"},
		{"challenge create 2h --rounds 3", "challenge create: --rounds goes with --create: a challenge is one game that each player plays alone, on their own clock\n"},
		{"challenge create 2h 3h", `challenge create: unexpected ["3h"]: want one window, such as 2h` + "\n"},
		{"records a b", "Usage: records [PLAYER_ID]\n"},
		{"close", "No challenge in view: close ID closes one of yours.\n"},
		{"dialy", `unknown command "dialy": did you mean daily? Type help for the commands.` + "\n"},
	} {
		p.typeLine(c.line)
		p.expect(c.want)
	}
	fc.quiet()

	p.typeLine("challenge https://klondike.example/c/c9?from=mail")
	ga = fc.next("get_async_round")
	if ga["round_id"] != "c9" {
		t.Fatalf("get_async_round = %v, want c9", ga)
	}
	fc.reply(ga, map[string]any{"type": "async_round", "round": asyncInfo("c9", "challenge", "draw3"),
		"attempt": map[string]any{"state": "playing", "round_id": "c9.alice"}})
	// Under way: its clock runs, so it is resumed at once.
	p.expect("Your game of it is under way, on its clock: resuming it.\n")
	g := newDeal1Game(t)
	attempt := startAttempt(t, fc, g, "c9", "challenge")
	p.expect("Challenge started.")
	p.typeLine("daily 3")
	p.expect("Finish the challenge first (or resign it).\n")

	// The connection drops: start_attempt again resumes the attempt.
	p.typeLine("D")
	fc.next("move")
	g.apply("D")
	fc.ws.Close()
	p.expect("connection lost")
	fc = fs.accept()
	hello := fc.next("hello")
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": "alice", "name": "alice", "token": "t", "resumed": true})
	sa = fc.next("start_attempt")
	if sa["round_id"] != "c9" {
		t.Fatalf("start_attempt after the drop = %v", sa)
	}
	now := time.Now().UTC()
	fc.reply(sa, map[string]any{"type": "round_started", "match_id": "c9", "round_id": attempt, "starts_at": now,
		"ends_at": now.Add(time.Minute), "rules": matchRules, "view": g.view(), "last_seq": 1, "resumed": true, "kind": "challenge"})
	p.expect("Challenge resumed after your move 1.")
	p.expect("D was played before the connection dropped.")
	p.typeLine("quit")
	p.expect("Your game goes on until its time runs out; resume with: klondike play --server " + fs.url + " --token t --challenge c9\n")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// TestPlayDailyEndOfInput: a scripted daily game waits, at the end of its
// input, for the attempt to end and for its board.
func TestPlayDailyEndOfInput(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "daily", Draw: 1})
	fc := fs.accept()
	welcome(fc, "alice")
	fc.reply(fc.next("get_daily"), map[string]any{"type": "daily", "day": "2026-12-05", "rounds": []any{asyncInfo("d1", "daily", "draw1")}})
	fc.reply(fc.next("get_async_round"), map[string]any{"type": "async_round", "round": asyncInfo("d1", "daily", "draw1"),
		"attempt": map[string]any{"state": "none"}})
	p.typeLine("play")
	g := newDeal1Game(t)
	attempt := startAttempt(t, fc, g, "d1", "daily")
	p.in.Close()
	p.expect("(end of input: waiting for your game to end; Ctrl-C leaves)\n")
	fc.send(map[string]any{"type": "attempt_over", "round_id": attempt, "async_round_id": "d1", "players": 1, "finished": 1,
		"result": map[string]any{"player_id": "alice", "name": "alice", "rank": 1, "status": "timed_out", "elapsed_ms": 900000}})
	boardReply(t, fc, "d1")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	p.expect("Your rank: 2 of 3.\n")
}

// TestPlayChallengeWaitsForPlay: --challenge shows the challenge and
// waits for play; input that ends without it starts nothing, and the
// client ends at once, with a clean exit.
func TestPlayChallengeWaitsForPlay(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "challenge", Code: "c9"})
	fc := fs.accept()
	welcome(fc, "alice")
	fc.reply(fc.next("get_async_round"), map[string]any{"type": "async_round", "round": asyncInfo("c9", "challenge", "draw3"),
		"url": "/c/c9", "attempt": map[string]any{"state": "none"}})
	p.expect("  Rules: draw 3, passes unlimited, foundation-to-tableau on, undo no_reveal, scoring standard, race mode\n" +
		"  Time limit: 15:00 on your own clock, one attempt\n")
	p.expect("Type play to start your game: your clock (15:00) starts then")
	p.typeLine("y")
	p.expect("Your game has not started: type play to start it (your clock starts then).\n")
	p.typeLine("help")
	p.expect("play       start your game of the round shown: its clock starts now\n")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	for m := range fc.msgs { // until the client's close
		t.Errorf("the client sent %v after the challenge was shown", m)
	}
	if p.client.failed {
		t.Error("a challenge left for later counts as a failure")
	}
}

// TestPlayAsyncRefused: a refused request made by a flag is exit status 1.
func TestPlayAsyncRefused(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "challenge", Code: "nosuch"})
	fc := fs.accept()
	welcome(fc, "alice")
	ga := fc.next("get_async_round")
	fc.reply(ga, map[string]any{"type": "error", "code": "not_found", "message": "no such round"})
	p.expect("Could not load the challenge: no such round\n")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if !p.client.failed {
		t.Error("a refused --challenge is no failure")
	}
}

func TestPlayAsyncFlags(t *testing.T) {
	for _, c := range []struct {
		args   string
		errOut string
	}{
		{"--daily 2", "--daily 2: want the draw, 1 or 3"},
		{"--daily 3 --draw 1", "--daily takes the draw"},
		{"--daily 3 --challenge x", "at most one of"},
		{"--create-challenge --create", "at most one of"},
		{"--challenge http://h/c/", "--challenge \"http://h/c/\": want its id"},
		{"--window 2h", "--window goes with --create-challenge"},
		{"--create-challenge --window 30s", "--window \"30s\": want a duration from 1m to 7d, such as 2h"},
		{"--create-challenge --window 8d", "--window \"8d\": want a duration from 1m to 7d, such as 2h"},
		{"--create-challenge --window soon", "--window \"soon\": want a duration from 1m to 7d, such as 2h"},
		{"--quick --seed 1", "--seed goes with --create and --create-challenge"},
		{"--challenge c9 --seed 1", "--seed goes with --create, --quick and --create-challenge"},
		{"--create-challenge --seed x", "--seed \"x\": want a deal number"},
		{"--create-challenge --rounds 2", "--rounds goes with --create: a challenge is one game"},
	} {
		var out, errOut strings.Builder
		_, ok, status := playSetup(append([]string{"--server", "ws://h/ws"}, strings.Fields(c.args)...), testPlayEnv(), &out, &errOut)
		if ok || status != exitUsage || !strings.Contains(errOut.String(), c.errOut) {
			t.Errorf("%s: ok %v, exit %d, stderr %q; want usage error %q", c.args, ok, status, errOut.String(), c.errOut)
		}
	}
	for _, c := range []struct {
		args, action, code string
		draw               int
		window             time.Duration
		seed               string
	}{
		{"--daily 1", "daily", "", 1, 0, ""},
		{"--daily=3", "daily", "", 3, 0, ""},
		{"--challenge 9f3a", "challenge", "9f3a", 0, 0, ""},
		{"--challenge https://k.example/c/9f3a/", "challenge", "9f3a", 0, 0, ""},
		{"--challenge http://127.0.0.1:8080/c/9f3a#top", "challenge", "9f3a", 0, 0, ""},
		{"--create-challenge --draw 1", "create-challenge", "", 1, 0, ""},
		{"--create-challenge --window 90m --seed 007", "create-challenge", "", 0, 90 * time.Minute, "7"},
		{"--create-challenge --window 2d", "create-challenge", "", 0, 48 * time.Hour, ""},
		{"--create-challenge --window 90", "create-challenge", "", 0, 90 * time.Minute, ""}, // whole minutes
		{"--create-challenge --window 1m30s", "create-challenge", "", 0, 90 * time.Second, ""},
		{"--seed 5", "", "", 0, 0, "5"}, // for the lobby's create and challenge create
		{"--create --seed 5", "create", "", 0, 0, "5"},
	} {
		var out, errOut strings.Builder
		cfg, ok, _ := playSetup(append([]string{"--server", "ws://h/ws"}, strings.Fields(c.args)...), testPlayEnv(), &out, &errOut)
		seed := ""
		if cfg.Settings.Seed != nil {
			seed = *cfg.Settings.Seed
		}
		if !ok || cfg.Action != c.action || cfg.Code != c.code || cfg.Draw != c.draw || cfg.Window != c.window || seed != c.seed {
			t.Errorf("%s: ok %v, action %q, code %q, draw %d, window %s, seed %q; stderr %q", c.args, ok,
				cfg.Action, cfg.Code, cfg.Draw, cfg.Window, seed, errOut.String())
		}
	}
	out, _, status := runCmd(t, "", "play", "--help")
	for _, want := range []string{"--daily 1|3", "--challenge ID", "--create-challenge", "--window D", "--seed N",
		"records [PLAYER_ID]", "challenge create [WINDOW]", "close [ID]", "\n  play            start your game"} {
		if status != 0 || !strings.Contains(out, want) {
			t.Errorf("play --help: exit %d, no %q", status, want)
		}
	}
}

// TestAsyncStatusWords keeps the words a result is written with those of
// the engine's statuses.
func TestAsyncStatusWords(t *testing.T) {
	for _, s := range []engine.Status{engine.Won, engine.Stuck, engine.Resigned, engine.TimedOut} {
		e := entry(1, "x", 0, 0, s, 0)
		if got := renderResult(&e, 1, 1); !strings.HasPrefix(got, s.String()+" ") {
			t.Errorf("renderResult of %s = %q", s, got)
		}
	}
}
