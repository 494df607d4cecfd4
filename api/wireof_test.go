package api

import (
	"encoding/json"
	"testing"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
	"klondike/lobby/challenge"
	"klondike/match"
)

// TestWireObjects: each object of the protocol writes what the match's
// value it is made from writes, byte for byte, with every field set and
// with none; a client reads the protocol's back as the same.
func TestWireObjects(t *testing.T) {
	at := time.Date(2026, 12, 2, 12, 47, 37, 0, time.UTC)
	best, fast := 120, int64(91_000)
	full := match.DefaultSettings()
	full.Seed, full.Public, full.Game, full.Deals, full.Mode = "7", true, "whitehead", match.DealsWinnable, match.ModeScore
	info := challenge.Info{RoundID: "a1", Kind: challenge.KindChallenge, Variant: "klondike-draw3", Rules: engine.DefaultRules(),
		Mode: match.ModeRace, LimitMs: 900_000, OpensAt: at, ClosesAt: at.Add(time.Hour), Day: "2026-12-02", CreatorID: "p1",
		CreatorName: "alice", Commitment: "c", KnownDeal: true, Winnable: true, Closed: true, ClosedEarly: true, Seed: "7",
		Salt: "s", Players: 3, Finished: 2}
	entry := match.BoardEntry{PlayerID: "p1", Name: "alice", Rank: 1, Score: 5, Foundation: 52, Moves: 90,
		Status: engine.Won, ElapsedMs: 91_000, ReachedMs: 91_000, Key: "k"}
	page := challenge.BoardPage{Players: 3, Finished: 2, Top: []match.BoardEntry{entry}, Around: []match.BoardEntry{entry}, Rank: 1}
	rec := challenge.VariantRecord{Variant: "klondike-draw3", Played: 4, Won: 1, BestScore: &best, FastestMs: &fast,
		DailyStreak: 2, BestDailyStreak: 3, LastDaily: "2026-12-02"}
	ghost := match.Ghost{PlayerID: "p2", Name: "bob", Role: challenge.GhostFriend, Score: 3, Foundation: 4, Won: true}
	for _, c := range []struct {
		name      string
		dom, wire any
		back      any
	}{
		{"settings", full, wireSettings(full), new(protocol.Settings)},
		{"default settings", match.DefaultSettings(), wireSettings(match.DefaultSettings()), new(protocol.Settings)},
		{"challenge info", info, wireChallengeInfo(info), new(protocol.AsyncInfo)},
		{"empty challenge info", challenge.Info{}, wireChallengeInfo(challenge.Info{}), new(protocol.AsyncInfo)},
		{"board page", page, wireBoardPage(page), new(protocol.BoardPage)},
		{"empty board page", challenge.BoardPage{}, wireBoardPage(challenge.BoardPage{}), new(protocol.BoardPage)},
		{"records", []challenge.VariantRecord{rec, {}}, wireRecords([]challenge.VariantRecord{rec, {}}), new([]protocol.VariantRecord)},
		{"ghosts", []match.Ghost{ghost, {}}, wireGhosts([]match.Ghost{ghost, {}}), new([]protocol.GhostStanding)},
	} {
		want, err := json.Marshal(c.dom)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(c.wire)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
		if err := json.Unmarshal(want, c.back); err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(c.back); string(again) != string(want) {
			t.Errorf("%s reads back as\n%s\nwant %s", c.name, again, want)
		}
	}
	p := protocol.PartialSettings{Draw: new(1), Mode: new("score"), Game: new("whitehead"), Public: new(true)}
	if got := match.WithDefaults(settingsOf(p)); got.Draw != 1 || got.Mode != match.ModeScore || got.Game != "whitehead" || !got.Public {
		t.Errorf("settingsOf(%+v) asks for %+v", p, got)
	}
}

// TestWireReplay: the replay the HTTP API writes reads as protocol.Replay
// and writes back the same.
func TestWireReplay(t *testing.T) {
	rep := match.Replay{RoundID: "r1", MatchID: "m1", Round: 2, Seed: "7", Salt: "s", Commitment: "c", KnownDeal: true,
		Rules: engine.DefaultRules(), Layout: engine.NumberedDeal(7), StartsAt: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		Players: []match.PlayerReplay{{PlayerID: "p1", Name: "alice", Moves: []match.LogEntry{{Seq: 1, Move: "D", AtMs: 5}},
			Status: "won", Points: 3, Score: 4, Elapsed: 6, Helped: true}}}
	want, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back protocol.Replay
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(back); string(got) != string(want) {
		t.Errorf("replay reads back as\n%s\nwant %s", got, want)
	}
}
