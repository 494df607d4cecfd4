package challenge_test

import (
	"testing"
	"time"

	"klondike/engine"
	"klondike/lobby/challenge"
	"klondike/match"
)

// attemptEnd returns an attempt's end on its player's clock, as the
// service passes it to EntryOf: its round's EndsAt less its StartsAt.
func attemptEnd(rec *challenge.Record, a challenge.Attempt) int64 {
	rr := rec.AttemptRecord(a)
	return rr.EndsAt.Sub(rr.StartsAt).Milliseconds()
}

// TestEntryOfChargesUntilTheAttemptsEnd: a game that stops early, stuck or
// resigned, is charged its time penalty up to its attempt's end, so a
// probe that stops at 30 s ranks below an honest game with more points
// that ran out of time, exactly as if the probe had waited out its time;
// a win stops the clock at the win; the end is cut at the window's close.
func TestEntryOfChargesUntilTheAttemptsEnd(t *testing.T) {
	opens := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	for _, mode := range []match.Mode{match.ModeRace, match.ModeScore} {
		rec := challenge.Record{
			ID: "r", Kind: challenge.KindDaily, Rules: engine.DefaultRules(), Mode: mode,
			LimitMs: 10 * 60 * 1000, OpensAt: opens, ClosesAt: opens.Add(24 * time.Hour),
		}
		st := func(p string, status engine.Status, points int, finished, reached int64) match.Standing {
			return match.Standing{
				PlayerID: p, Name: p, Points: points, Foundation: 10, Moves: 40,
				Status: status, FinishedMs: finished, ReachedMs: reached,
			}
		}
		end := attemptEnd(&rec, challenge.Attempt{PlayerID: "p", StartedAt: opens.Add(time.Hour)})
		if end != rec.LimitMs {
			t.Fatalf("%s: attempt's end %d ms, want the limit %d", mode, end, rec.LimitMs)
		}
		honest := challenge.EntryOf(&rec, st("honest", engine.TimedOut, 150, end, 500_000), end)
		waited := challenge.EntryOf(&rec, st("probe", engine.TimedOut, 130, end, 20_000), end)
		for _, status := range []engine.Status{engine.Resigned, engine.Stuck} {
			probe := challenge.EntryOf(&rec, st("probe", status, 130, 30_000, 20_000), end)
			if probe.Score != waited.Score || probe.Key != waited.Key {
				t.Errorf("%s: a game %s at 30 s = score %d, key %q; want as if it had waited out its time: %d, %q",
					mode, status, probe.Score, probe.Key, waited.Score, waited.Key)
			}
			if probe.Key <= honest.Key {
				t.Errorf("%s: a game %s at 30 s with 130 points (score %d) ranks above one timed out with 150 (score %d)",
					mode, status, probe.Score, honest.Score)
			}
			if probe.ElapsedMs != 30_000 {
				t.Errorf("%s: a game %s at 30 s has elapsed %d ms, want where it ended", mode, status, probe.ElapsedMs)
			}
		}

		won := challenge.EntryOf(&rec, match.Standing{
			PlayerID: "w", Points: 600, Foundation: engine.NumCards, Status: engine.Won, FinishedMs: 200_000, ReachedMs: 200_000,
		}, end)
		if want := engine.TimedScore(rec.Rules.Scoring, 600, 200*time.Second, true); won.Score != want || won.ElapsedMs != 200_000 {
			t.Errorf("%s: a win at 200 s = score %d, elapsed %d; want %d at 200000: a win stops the clock", mode, won.Score, won.ElapsedMs, want)
		}

		// Started two minutes before the close: the attempt ends there.
		late := attemptEnd(&rec, challenge.Attempt{PlayerID: "p", StartedAt: rec.ClosesAt.Add(-2 * time.Minute)})
		if late != 120_000 {
			t.Fatalf("%s: a late attempt's end %d ms, want 120000, the close", mode, late)
		}
		cut := challenge.EntryOf(&rec, st("late", engine.Resigned, 130, 30_000, 20_000), late)
		if want := engine.TimedScore(rec.Rules.Scoring, 130, 2*time.Minute, false); cut.Score != want {
			t.Errorf("%s: resigned at 30 s of an attempt cut at 2 min = score %d, want %d", mode, cut.Score, want)
		}
		// A window closed early: a game that timed out there is charged to
		// its end, not to the end its attempt had before.
		closed := challenge.EntryOf(&rec, st("closed", engine.TimedOut, 130, 60_000, 20_000), end)
		if want := engine.TimedScore(rec.Rules.Scoring, 130, time.Minute, false); closed.Score != want {
			t.Errorf("%s: timed out at 60 s by an early close = score %d, want %d", mode, closed.Score, want)
		}
	}
}
