package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"testing"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

func TestMatchmakingSpearman(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		// Wikipedia's example (IQ against hours of television a week): no
		// ties, rho = 1 - 6·194/(10·99) = -29/165.
		{"no ties",
			[]float64{106, 100, 86, 101, 99, 103, 97, 113, 112, 110},
			[]float64{7, 27, 2, 50, 28, 29, 20, 12, 6, 17},
			-29.0 / 165},
		// Ranks 1, 2.5, 2.5, 4 against 1, 3, 2, 4: Pearson's r of the ranks
		// is 4.5/sqrt(4.5·5) = 3/sqrt(10) (what scipy.stats.spearmanr gives).
		{"ties", []float64{1, 2, 2, 3}, []float64{1, 3, 2, 4}, 3 / math.Sqrt(10)},
		// Ties on both sides: ranks 1.5, 1.5, 3.5, 3.5 against 2, 2, 2, 4.
		{"ties both", []float64{5, 5, 9, 9}, []float64{0, 0, 0, 7}, 1 / math.Sqrt(3)},
		{"reversed", []float64{1, 2, 3, 4, 5}, []float64{50, 40, 30, 20, 10}, -1},
		{"monotone, not linear", []float64{1, 2, 3, 4}, []float64{1, 10, 100, 1000}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := spearman(tt.x, tt.y); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("spearman(%v, %v) = %.15f, want %.15f", tt.x, tt.y, got, tt.want)
			}
		})
	}
	for _, bad := range [][2][]float64{{{1}, {2}}, {{1, 2}, {3}}, {{1, 1, 1}, {1, 2, 3}}} {
		if got := spearman(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("spearman(%v, %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
}

func TestMatchmakingAverageRanks(t *testing.T) {
	t.Parallel()
	got := averageRanks([]float64{30, 10, 20, 10, 30, 30})
	want := []float64{5, 1.5, 3, 1.5, 5, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("averageRanks = %v, want %v", got, want)
		}
	}
}

func TestMatchmakingPlaces(t *testing.T) {
	t.Parallel()
	ms := func(v int64) *int64 { return &v }
	results := []protocol.Entry{
		{PlayerID: "a", Status: engine.Won, FinishedMs: ms(900)},
		{PlayerID: "b", Status: engine.TimedOut, Foundation: 20, Score: 150},
		{PlayerID: "c", Status: engine.TimedOut, Foundation: 20, Score: 150},
		{PlayerID: "d", Status: engine.Stuck, Foundation: 12, Score: 90},
		{PlayerID: "e", Status: engine.Resigned, Foundation: 30},
	}
	got := mmPlaces("race", results)
	want := []int{1, 2, 2, 4, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("mmPlaces = %v, want %v", got, want)
		}
	}
}

func TestMatchmakingGreedyScore(t *testing.T) {
	t.Parallel()
	card := func(s string) engine.Card {
		c, err := engine.ParseCard(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var v engine.View
	v.Tableau[0] = engine.PileView{Down: 2, Up: []engine.Card{card("5H")}}             // reveals when moved
	v.Tableau[1] = engine.PileView{Down: 0, Up: []engine.Card{card("6S")}}             // takes 5H
	v.Tableau[2] = engine.PileView{Down: 0, Up: []engine.Card{card("4C")}}             // empties its column onto 5H
	v.Tableau[3] = engine.PileView{Down: 0, Up: []engine.Card{card("KD"), card("QC")}} // a whole pile
	v.Tableau[4] = engine.PileView{Down: 1, Up: []engine.Card{card("9D"), card("8S")}} // 8S moves without revealing
	v.Tableau[5] = engine.PileView{Down: 0, Up: []engine.Card{card("9H")}}             // takes 8S
	tests := []struct {
		move string
		want int
	}{
		{"T1-T2", 802}, // turns a card up
		{"T3-T1", 600}, // empties a column
		{"T5-T6", 0},   // leaves 9D on top: nothing gained
		{"D", 200},
		{"R", 100},
	}
	for _, tt := range tests {
		m, err := engine.ParseMove(tt.move)
		if err != nil {
			t.Fatal(err)
		}
		if got := greedyScore(&v, m); got != tt.want {
			t.Errorf("greedyScore(%s) = %d, want %d", tt.move, got, tt.want)
		}
	}
}

// TestMatchmakingShortRun runs the measurement briefly against the
// embedded server: it must produce its figures.
func TestMatchmakingShortRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays rounds against the embedded server")
	}
	args := []string{"--matchmaking", "--mm-bots", "4", "--mm-rounds", "2", "--mm-levels", "4",
		"--mm-think", "2ms", "--time-limit", "3", "--countdown", "0"}
	cfg, err := parseConfig(args, io.Discard)
	if err != nil {
		t.Fatalf("parseConfig(%q): %v", args, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var log bytes.Buffer
	rep, err := executeMM(ctx, cfg, &log)
	if err != nil {
		t.Fatalf("executeMM: %v\n%s", err, log.String())
	}
	var text bytes.Buffer
	rep.writeText(&text)
	t.Logf("%s\n%s", log.String(), text.String())
	if rep.RoundsPlayed < 2 || rep.RoundsRated < 1 {
		t.Errorf("rounds played %d, rated %d: want at least 2 played, 1 rated", rep.RoundsPlayed, rep.RoundsRated)
	}
	if rep.WaitS.N < 4 || rep.Spread.N < 2 || rep.PairGames < 1 {
		t.Errorf("waits %d, spreads %d, pair-games %d: want figures of every round", rep.WaitS.N, rep.Spread.N, rep.PairGames)
	}
	if len(rep.Spearman) != 4 || rep.Spearman[3].Rho == nil || math.IsNaN(*rep.Spearman[3].Rho) {
		t.Errorf("spearman %+v: want four points, the last a number", rep.Spearman)
	}
	if !rep.OK {
		t.Errorf("report not OK: failures %v %q", rep.Failures, rep.Samples)
	}
}
