package main

import (
	"strings"
	"testing"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

func TestRenderGhosts(t *testing.T) {
	for _, c := range []struct {
		name    string
		scoring string
		ghosts  []protocol.GhostStanding
		want    string
	}{
		{"leader and friend", "standard", []protocol.GhostStanding{
			{PlayerID: "a", Name: "Alice", Role: "leader", Score: 1234, Foundation: 20},
			{PlayerID: "b", Name: "Bob", Role: "friend", Score: 345, Foundation: 1},
		}, "Ghosts at 1:23: leader Alice: timed score 1234, 20 cards home; friend Bob: timed score 345, 1 card home\n"},
		{"one player in both roles, won", "standard", []protocol.GhostStanding{
			{PlayerID: "a", Name: "Alice", Role: "leader", Score: 5000, Foundation: 52, Won: true},
			{PlayerID: "a", Name: "Alice", Role: "friend", Score: 5000, Foundation: 52, Won: true},
		}, "Ghosts at 1:23: leader and friend Alice: timed score 5000, 52 cards home (won)\n"},
		{"vegas: the game score, as the board says", "vegas", []protocol.GhostStanding{
			{PlayerID: "a", Name: "Alice", Role: "leader", Score: -42, Foundation: 2},
		}, "Ghosts at 1:23: leader Alice: game score -42, 2 cards home\n"},
		{"a name with an escape", "", []protocol.GhostStanding{
			{PlayerID: "e", Name: "\x1b[31mEve", Role: "leader", Score: 0, Foundation: 0},
		}, "Ghosts at 1:23: leader ?[31mEve: score 0, 0 cards home\n"},
	} {
		got := renderGhosts(&protocol.Ghost{ElapsedMs: 83_400, Ghosts: c.ghosts}, c.scoring)
		checkText(t, c.name, got, c.want)
	}
	// Only scores changed: the same key, so the line is not printed again.
	a := []protocol.GhostStanding{{PlayerID: "a", Name: "A", Role: "leader", Score: 10, Foundation: 2}}
	b := []protocol.GhostStanding{{PlayerID: "a", Name: "A", Role: "leader", Score: 8, Foundation: 2}}
	if ghostKey(a) != ghostKey(b) {
		t.Error("ghostKey differs on the score alone")
	}
	b[0].Foundation = 3
	if ghostKey(a) == ghostKey(b) {
		t.Error("ghostKey is the same with other cards home")
	}
}

// entry returns a board entry for the tests.
func entry(rank int, id string, score, foundation int, status engine.Status, ms int64) protocol.BoardEntry {
	return protocol.BoardEntry{PlayerID: id, Name: id, Rank: rank, Score: score, Foundation: foundation,
		Moves: foundation * 2, Status: status, ElapsedMs: ms}
}

func TestRenderBoardPage(t *testing.T) {
	in := &protocol.AsyncInfo{RoundID: "d3", Kind: protocol.KindDaily, Variant: "draw3", Day: "2026-12-05"}
	page := &protocol.Board{RoundID: "d3", BoardPage: protocol.BoardPage{Players: 15, Finished: 12,
		Top: []protocol.BoardEntry{
			entry(1, "alice", 5123, 52, engine.Won, 192_400),
			entry(2, "bob", 4000, 52, engine.Won, 250_000),
		},
		Around: []protocol.BoardEntry{
			entry(6, "carl", 300, 12, engine.Stuck, 60_000),
			entry(7, "me", 250, 10, engine.Resigned, 61_000),
			entry(8, "dora", 0, 0, engine.TimedOut, 900_000),
		},
		Rank: 7}}
	want := `Board of Daily deal 2026-12-05 (draw3), live: 15 players started, 12 finished
   #  Player  Timed score  Cards  Moves  Status        Time
   1  alice          5123     52    104  won         3:12.4
   2  bob            4000     52    104  won         4:10.0
      ...
   6  carl            300     12     24  stuck       1:00.0
>  7  me              250     10     20  resigned    1:01.0
   8  dora              0      0      0  timed_out  15:00.0
Ties: the earlier to reach the result ranks first.
Your rank: 7 of 12.
`
	checkText(t, "board", renderBoardPage(page, in, "me", "standard"), want)

	// The reader among the top: their neighbours add nothing. A closed
	// open deal says so; an unknown round is named by its id.
	page.Closed = true
	page.Around = page.Top
	page.Rank = 1
	in.KnownDeal, in.Seed = true, "42"
	want = `Board of Daily deal 2026-12-05 (draw3), final: 15 players started, 12 finished
Open deal #42: anyone can look it up.
   #  Player  Game score  Cards  Moves  Status    Time
>  1  alice         5123     52    104  won     3:12.4
   2  bob           4000     52    104  won     4:10.0
Ties: the earlier to reach the result ranks first.
Your rank: 1 of 12.
`
	checkText(t, "closed board", renderBoardPage(page, in, "alice", "vegas"), want)

	empty := &protocol.Board{RoundID: "c9", BoardPage: protocol.BoardPage{Players: 1}}
	checkText(t, "empty board", renderBoardPage(empty, nil, "me", ""),
		"Board of round c9, live: 1 player started, 0 finished\n  (nobody has finished yet)\n")
}

func TestRenderRecords(t *testing.T) {
	best, fastest := 4321, int64(192_400)
	zero := 0
	rs := []protocol.VariantRecord{
		{Variant: "draw1", Played: 2, Won: 0, BestScore: &zero},
		{Variant: "draw3", Played: 12, Won: 5, BestScore: &best, FastestMs: &fastest,
			DailyStreak: 3, BestDailyStreak: 5, LastDaily: "2026-12-05"},
	}
	want := `  Variant  Played  Won  Best score  Fastest win  Daily streak  Best streak  Last daily
  draw1         2    0           0            -             0            0  -
  draw3        12    5        4321       3:12.4             3            5  2026-12-05
`
	checkText(t, "records", renderRecords(rs), want)
	checkText(t, "no records", renderRecords(nil), "  (no games yet)\n")
}

func TestRenderAsyncInfo(t *testing.T) {
	now := time.Date(2026, 12, 5, 14, 0, 30, 0, time.UTC)
	in := &protocol.AsyncInfo{
		RoundID: "9f3a", Kind: protocol.KindChallenge, CreatorID: "a1", CreatorName: "alice",
		Rules: engine.DefaultRules(), Mode: protocol.ModeRace, LimitMs: 15 * 60_000,
		OpensAt: now.Add(-time.Minute), ClosesAt: now.Add(24 * time.Hour), Players: 3, Finished: 2,
	}
	want := `Challenge 9f3a by alice
  Rules: draw 3, passes unlimited, foundation-to-tableau on, undo on, scoring standard, race mode
  Time limit: 15:00 on your own clock, one attempt
  Window: closes 2026-12-06 14:00 UTC, in 24h00m
  Players: 3 started, 2 finished
`
	checkText(t, "open challenge", renderAsyncInfo(in, now), want)

	in.Closed, in.ClosedEarly, in.ClosesAt = true, true, now.Add(-5*time.Minute)
	in.KnownDeal, in.Seed = true, "7"
	want = `Challenge 9f3a by alice
  Rules: draw 3, passes unlimited, foundation-to-tableau on, undo on, scoring standard, race mode
  Time limit: 15:00 on your own clock, one attempt
  Window: closed early by its creator (2026-12-05 13:55 UTC, 5m ago)
  Players: 3 started, 2 finished
  Open deal #7: anyone can look it up.
`
	checkText(t, "closed challenge", renderAsyncInfo(in, now), want)

	// Closed a moment ago by the server's clock, ahead of ours; opened a
	// moment from now by ours.
	in.ClosesAt, in.ClosedEarly = now.Add(2*time.Second), false
	if got := renderAsyncInfo(in, now); !strings.Contains(got, "  Window: closed 2026-12-05 14:00 UTC, <1m ago\n") {
		t.Errorf("closed a moment ago:\n%s", got)
	}
	in.Closed, in.OpensAt, in.ClosesAt = false, now.Add(2*time.Second), now.Add(time.Hour)
	if got := renderAsyncInfo(in, now); !strings.Contains(got, "  Window: closes 2026-12-05 15:00 UTC, in 1h00m\n") {
		t.Errorf("opened a moment from now:\n%s", got)
	}
	in.OpensAt = now.Add(3 * time.Minute)
	if got := renderAsyncInfo(in, now); !strings.Contains(got, "  Window: opens 2026-12-05 14:03 UTC, in 3m; closes 2026-12-05 15:00 UTC, in 1h00m\n") {
		t.Errorf("opens later:\n%s", got)
	}

	checkText(t, "no daily", renderDaily(&protocol.Daily{Day: "2026-12-05"}, nil, now), "No daily deals today (2026-12-05).\n")
}

// TestRenderDaily: the list of today's daily deals says which the player
// has played, with the result, and offers only the others to play.
func TestRenderDaily(t *testing.T) {
	now := time.Date(2026, 12, 5, 14, 0, 30, 0, time.UTC)
	round := func(id, variant string) protocol.AsyncInfo {
		return protocol.AsyncInfo{RoundID: id, Kind: protocol.KindDaily, Variant: variant, Rules: engine.DefaultRules(),
			LimitMs: 10 * 60_000, ClosesAt: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC), Players: 40, Finished: 31}
	}
	d := &protocol.Daily{Day: "2026-12-05", Rounds: []protocol.AsyncInfo{round("d3", "draw3"), round("d1", "draw1")}}
	won := entry(2, "me", 5000, 52, engine.Won, 192_400)
	played := map[string]protocol.AttemptState{
		"d3": {State: protocol.AttemptFinished, Result: &won},
		"d1": {State: protocol.AttemptNone},
	}
	checkText(t, "draw 3 played", renderDaily(d, played, now), `Daily deals of 2026-12-05 (UTC):
  Variant   Time  Players  Finished  You                    Closes
  draw3    10:00       40        31  won in 3:12.4, rank 2  2026-12-06 00:00 UTC, in 9h59m
  draw1    10:00       40        31  not played             2026-12-06 00:00 UTC, in 9h59m
Type daily 1 to play: one attempt each, on your own clock.
daily 3 shows your result and its board.
`)
	gone := entry(9, "me", 0, 3, engine.Resigned, 1_000)
	both := map[string]protocol.AttemptState{
		"d3": {State: protocol.AttemptFinished, Result: &won},
		"d1": {State: protocol.AttemptFinished, Result: &gone},
	}
	checkText(t, "both played", renderDaily(d, both, now), `Daily deals of 2026-12-05 (UTC):
  Variant   Time  Players  Finished  You                    Closes
  draw3    10:00       40        31  won in 3:12.4, rank 2  2026-12-06 00:00 UTC, in 9h59m
  draw1    10:00       40        31  resigned, rank 9       2026-12-06 00:00 UTC, in 9h59m
daily 3 or daily 1 shows your result and its board.
`)
	// Unknown (the server did not say) and under way: both offered.
	checkText(t, "unknown", renderDaily(d, map[string]protocol.AttemptState{"d1": {State: protocol.AttemptPlaying}}, now), `Daily deals of 2026-12-05 (UTC):
  Variant   Time  Players  Finished  You      Closes
  draw3    10:00       40        31  ?        2026-12-06 00:00 UTC, in 9h59m
  draw1    10:00       40        31  playing  2026-12-06 00:00 UTC, in 9h59m
Type daily 3 or daily 1 to play: one attempt each, on your own clock.
`)
}

func TestRenderResult(t *testing.T) {
	e := entry(3, "me", 1234, 52, engine.Won, 192_400)
	checkText(t, "won", renderResult(&e, 12, 15),
		"won in 3:12.4, score 1234, 52 cards home, 104 moves: rank 3 of 12 finished (15 players started)\n")
	e = entry(1, "me", 5, 1, engine.Stuck, 1_000)
	checkText(t, "stuck", renderResult(&e, 1, 1), "stuck at 0:01.0, score 5, 1 card home, 2 moves: rank 1 of 1 finished\n")
}

func TestRoughDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "<1m", 59 * time.Second: "<1m", time.Minute: "1m", 59 * time.Minute: "59m",
		time.Hour: "1h00m", 47*time.Hour + 59*time.Minute: "47h59m", 48 * time.Hour: "2d",
		7*24*time.Hour + 3*time.Hour: "7d3h",
	} {
		if got := roughDuration(d); got != want {
			t.Errorf("roughDuration(%s) = %q, want %q", d, got, want)
		}
	}
}
