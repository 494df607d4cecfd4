package match

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"klondike/engine"
)

// TestOutMsgJSON: every event a match tells the other nodes reads back as
// itself, kind and all.
func TestOutMsgJSON(t *testing.T) {
	at := time.Date(2026, 12, 2, 12, 47, 37, 687103101, time.UTC)
	yes := true
	finished := int64(836)
	g, err := engine.NewGame(engine.NumberedDealFor(engine.DoubleKlondike, 3), engine.DefaultRulesFor(engine.DoubleKlondike))
	if err != nil {
		t.Fatal(err)
	}
	entries := []Entry{{PlayerID: "a", Name: "alice", Rank: 1, Score: 10, Status: engine.Won, FinishedMs: &finished, Helped: true}}
	totals := []Total{{PlayerID: "a", Name: "alice", Total: 10, Wins: 1, Placings: []int{1}, Rank: 1}}
	for _, ev := range []Event{
		MatchUpdate{Info: &MatchInfo{ID: "m1", Settings: DefaultSettings(), Players: []MemberInfo{{PlayerID: "a", Name: "alice"}}, State: StateOpen}},
		RoundStarting{MatchID: "m1", RoundID: "r1", Round: 1, StartsAt: at, EndsAt: at, Rules: engine.DefaultRules(), Deal: DealAnnouncement{Commitment: "c", Winnable: &yes}},
		RoundStarted{MatchID: "m1", RoundID: "r1", Round: 1, StartsAt: at, EndsAt: at, Rules: g.Rules(), View: g.View(42), LastSeq: 3, Resumed: true, Kind: "challenge"},
		Leaderboard{MatchID: "m1", RoundID: "r1", Entries: entries},
		RoundOver{MatchID: "m1", RoundID: "r1", Round: 1, Results: entries, Deal: KnownDeal(7), Layout: engine.NumberedDeal(7), Totals: totals, Void: "lost"},
		MatchOver{MatchID: "m1", Totals: totals, Void: "abandoned"},
		GhostUpdate{RoundID: "r1", ElapsedMs: 5, Ghosts: []Ghost{{PlayerID: "b", Name: "bob", Role: "leader", Score: 3, Won: true}}},
		AttemptOver{RoundID: "r1", ChallengeID: "c1", Result: BoardEntry{PlayerID: "a", Name: "alice", Rank: 2}, Players: 3, Finished: 2},
	} {
		b, err := json.Marshal(outMsg{To: []string{"a", "b"}, Ev: ev})
		if err != nil {
			t.Fatalf("%T: %v", ev, err)
		}
		var got outMsg
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%T: %v\n%s", ev, err, b)
		}
		if !reflect.DeepEqual(got.Ev, ev) || len(got.To) != 2 {
			t.Errorf("%s reads back as %+v, want %+v", b, got.Ev, ev)
		}
	}
}
