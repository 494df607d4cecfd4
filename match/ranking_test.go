package match

import (
	"slices"
	"strings"
	"testing"

	"klondike/engine"
)

func TestRankRace(t *testing.T) {
	r := engine.DefaultRules()
	st := []Standing{
		{PlayerID: "a", Join: 0, Points: 300, Foundation: 20, Status: engine.Playing, FinishedMs: -1, ReachedMs: 5000},
		{PlayerID: "b", Join: 1, Points: 600, Foundation: 52, Status: engine.Won, FinishedMs: 90000, ReachedMs: 90000},
		{PlayerID: "c", Join: 2, Points: 650, Foundation: 52, Status: engine.Won, FinishedMs: 80000, ReachedMs: 80000},
		{PlayerID: "d", Join: 3, Points: 400, Foundation: 20, Status: engine.Stuck, FinishedMs: 4000, ReachedMs: 4000},
		{PlayerID: "e", Join: 4, Points: 300, Foundation: 20, Status: engine.Playing, FinishedMs: -1, ReachedMs: 3000},
		{PlayerID: "f", Join: 5, Points: 0, Foundation: 0, Status: engine.Playing, FinishedMs: -1},
	}
	got := Rank(ModeRace, r, st, 100000)
	// Winners by finish time; then foundation, then score (d: 400 − 0 at its
	// finish beats 300 − 20); a and e tie at 300−20 and 20 cards: e reached it first.
	want := []string{"c", "b", "d", "e", "a", "f"}
	for i, e := range got {
		if e.PlayerID != want[i] || e.Rank != i+1 {
			t.Fatalf("race ranking = %v, want %v", ids(got), want)
		}
	}
	if got[0].FinishedMs == nil || *got[0].FinishedMs != 80000 || got[4].FinishedMs != nil {
		t.Errorf("finished_ms: %v %v", got[0].FinishedMs, got[4].FinishedMs)
	}
	// 650 points, 80 s: penalty 16, bonus 700000/80 = 8750.
	if got[0].Score != 650-16+8750 {
		t.Errorf("winner's round score = %d, want %d", got[0].Score, 650-16+8750)
	}
}

func TestRankScore(t *testing.T) {
	r := engine.DefaultRules()
	r.Scoring = engine.ScoringVegas
	st := []Standing{
		{PlayerID: "a", Join: 0, Points: -12, Status: engine.Playing, FinishedMs: -1, ReachedMs: 900},
		{PlayerID: "b", Join: 1, Points: 8, Status: engine.Won, FinishedMs: 500, ReachedMs: 500},
		{PlayerID: "c", Join: 2, Points: -12, Status: engine.Playing, FinishedMs: -1, ReachedMs: 100},
		{PlayerID: "d", Join: 3, Points: -12, Status: engine.Playing, FinishedMs: -1, ReachedMs: 100},
	}
	got := Rank(ModeScore, r, st, 1000)
	want := []string{"b", "c", "d", "a"} // c and d tie on everything: seat order
	for i, e := range got {
		if e.PlayerID != want[i] {
			t.Fatalf("score ranking = %v, want %v", ids(got), want)
		}
	}
}

func ids(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.PlayerID
	}
	return out
}

func TestCommitment(t *testing.T) {
	// printf '%s:%s' 00112233445566778899aabbccddeeff 123456 | sha256sum
	got := Commitment("00112233445566778899aabbccddeeff", 123456)
	if want := "4f9ac7ae71cf56cee74feae26deb5b857d11d4039f0e05a7f43aeca882741017"; got != want {
		t.Fatalf("Commitment = %s, want %s", got, want)
	}
	d, err := NewFairDeal(randomReader)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Salt) != 32 || d.Commitment != Commitment(d.Salt, d.Seed) || d.Known {
		t.Errorf("NewFairDeal = %+v", d)
	}
}

// TestRankKeyOrdersAsRank checks that the keys of finished standings sort
// exactly as Rank ranks them, in both modes.
func TestRankKeyOrdersAsRank(t *testing.T) {
	r := engine.DefaultRules()
	st := []Standing{
		{PlayerID: "a", Join: 0, Points: 300, Foundation: 20, Status: engine.Resigned, FinishedMs: 50000, ReachedMs: 5000},
		{PlayerID: "b", Join: 1, Points: 600, Foundation: 52, Status: engine.Won, FinishedMs: 90000, ReachedMs: 90000},
		{PlayerID: "c", Join: 2, Points: 650, Foundation: 52, Status: engine.Won, FinishedMs: 80000, ReachedMs: 80000},
		{PlayerID: "d", Join: 3, Points: 400, Foundation: 20, Status: engine.Stuck, FinishedMs: 4000, ReachedMs: 4000},
		{PlayerID: "e", Join: 4, Points: 300, Foundation: 20, Status: engine.TimedOut, FinishedMs: 50000, ReachedMs: 3000},
		{PlayerID: "f", Join: 5, Points: 0, Foundation: 0, Status: engine.TimedOut, FinishedMs: 100000},
		{PlayerID: "g", Join: 6, Points: 0, Foundation: 0, Status: engine.TimedOut, FinishedMs: 100000},
	}
	for _, mode := range []Mode{ModeRace, ModeScore} {
		want := ids(Rank(mode, r, st, 100000))
		keys := make([]string, len(st))
		for i, s := range st {
			keys[i] = RankKey(mode, r, s, 100000)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if id := k[strings.LastIndexByte(k, ':')+1:]; id != want[i] {
				t.Fatalf("%s: keys order %v, Rank %v", mode, keys, want)
			}
		}
	}
}
