package lobby

import (
	"math"
	"slices"
	"testing"
	"time"

	"klondike/engine"
	"klondike/match"
)

func finished(ms int64) *int64 { return &ms }

// TestRatingPlaces: ties but for time share a place; resigning is last.
func TestRatingPlaces(t *testing.T) {
	race := []match.Entry{
		{PlayerID: "a", Status: engine.Won, FinishedMs: finished(9000)},
		{PlayerID: "b", Status: engine.Won, FinishedMs: finished(9000)},
		{PlayerID: "c", Status: engine.Stuck, Foundation: 20, Score: 50, ReachedMs: 100},
		{PlayerID: "d", Status: engine.TimedOut, Foundation: 20, Score: 50, ReachedMs: 200},
		{PlayerID: "e", Status: engine.TimedOut, Foundation: 20, Score: 40},
		{PlayerID: "f", Status: engine.Resigned, Foundation: 30, Score: 90},
		{PlayerID: "g", Status: engine.Resigned, Foundation: 1},
	}
	if got, want := ratingPlaces(match.ModeRace, race), []int{1, 1, 3, 3, 5, 6, 6}; !slices.Equal(got, want) {
		t.Errorf("race places %v, want %v", got, want)
	}
	score := []match.Entry{
		{PlayerID: "a", Status: engine.Won, Score: 300},
		{PlayerID: "b", Status: engine.Stuck, Score: 300},
		{PlayerID: "c", Status: engine.Stuck, Score: 10},
	}
	if got, want := ratingPlaces(match.ModeScore, score), []int{1, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("score places %v, want %v", got, want)
	}
}

// TestRatedWindow: the window widens with the wait and opens at the cap.
func TestRatedWindow(t *testing.T) {
	if w := ratedWindow(0); w != RatedWindow {
		t.Errorf("window at once %v, want %v", w, RatedWindow)
	}
	if w := ratedWindow(10 * time.Second); w != RatedWindow+10*RatedWiden {
		t.Errorf("window after 10 s %v, want %v", w, RatedWindow+10*RatedWiden)
	}
	if w := ratedWindow(RatedMaxWait); !math.IsInf(w, 1) {
		t.Errorf("window at the cap %v, want anyone", w)
	}
	if w := ratedWindow(-time.Second); w != RatedWindow {
		t.Errorf("window for a clock that went back %v, want %v", w, RatedWindow)
	}
}
