package challenge_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"klondike/engine"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/match"
)

// TestRecentMadeAndForget: a player's recent games are their attempts and
// race rounds, newest first, each finished when the game ended (an
// attempt's where the player's clock stopped, a race round's when the
// round ended, or when it was counted if the round does not say); the
// challenges they made are listed newest first, daily rounds and other
// players' not; forgetting the player forgets their records and recent
// games, no one else's, and leaves their challenges.
func TestRecentMadeAndForget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		l := challengeNode(t, mem, &rawSink{})
		alice, bob := hello(t, l, "alice"), hello(t, l, "bob")
		if _, _, err := l.Daily(ctx); err != nil {
			t.Fatal(err)
		}
		var made []challenge.Record
		for range 3 {
			rec, err := l.Create(ctx, alice.PlayerID, match.PartialSettings{}, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			made = append([]challenge.Record{rec}, made...)
			time.Sleep(time.Second)
		}
		bobs, err := l.Create(ctx, bob.PlayerID, match.PartialSettings{}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		wantMade := func(player string, want ...challenge.Record) {
			t.Helper()
			got, err := l.Made(ctx, player)
			if err != nil || len(got) != len(want) {
				t.Fatalf("Made(%s) = %d challenges, %v; want %d", player, len(got), err, len(want))
			}
			for i := range got {
				if got[i].ID != want[i].ID || got[i].CreatorID != player || got[i].Kind != challenge.KindChallenge {
					t.Fatalf("Made(%s)[%d] = %s by %s, want %s", player, i, got[i].ID, got[i].CreatorID, want[i].ID)
				}
			}
		}
		wantMade(alice.PlayerID, made...)
		wantMade(bob.PlayerID, bobs)

		// Alice's attempt at her first challenge: she resigns 40 s in, and
		// her node ends the attempt.
		ev, err := l.StartAttempt(ctx, alice.PlayerID, made[2].ID)
		if err != nil {
			t.Fatal(err)
		}
		r, err := l.Round(ctx, ev.RoundID)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * time.Second)
		resigned := time.Now()
		if err := r.Resign(ctx, alice.PlayerID, resigned); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()

		// A race round that ended 90 s after it started, an hour from
		// now; and one that does not say when it ended.
		won := int64(80_000)
		race := func(id, phase string, starts time.Time) *match.Round {
			r, err := match.RoundFromRecord(match.RoundRecord{
				ID: id, MatchID: "m-" + id, Number: 1, Rules: engine.DefaultRules(), Mode: match.ModeRace,
				StartsAt: starts, EndsAt: starts.Add(10 * time.Minute), Phase: phase, EndMs: 90_000,
				Players: []match.Player{{ID: alice.PlayerID, Name: "alice"}, {ID: bob.PlayerID, Name: "bob"}},
			}, mem.Store)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		results := []match.Entry{
			{PlayerID: alice.PlayerID, Status: engine.Won, Score: 700, FinishedMs: &won},
			{PlayerID: bob.PlayerID, Status: engine.Playing, Score: 10},
		}
		later := time.Now().Add(time.Hour)
		l.CountRound(race("race-1", "over", later), results)
		counted := time.Now()
		l.CountRound(race("race-2", "running", later.Add(time.Hour)), results[:1])

		rs, err := l.Recent(ctx, alice.PlayerID)
		if err != nil || len(rs) != 3 {
			t.Fatalf("alice's recent games = %+v, %v; want 3", rs, err)
		}
		if rs[0].GameID != "race-1" || !rs[0].Finished.Equal(later.Add(90*time.Second)) || !rs[0].Won || rs[0].ElapsedMs != won {
			t.Fatalf("alice's newest game %+v; want race-1, won, finished at %v", rs[0], later.Add(90*time.Second))
		}
		if rs[1].GameID != "race-2" || !rs[1].Finished.Equal(counted) {
			t.Fatalf("alice's second game %+v; want race-2, finished when counted, %v", rs[1], counted)
		}
		if rs[2].GameID != ev.RoundID || !rs[2].Finished.Equal(resigned) || rs[2].Won || rs[2].Variant != made[2].Variant {
			t.Fatalf("alice's oldest game %+v; want her attempt %s, finished when she resigned, %v", rs[2], ev.RoundID, resigned)
		}
		if rs, err := l.Recent(ctx, bob.PlayerID); err != nil || len(rs) != 1 || rs[0].GameID != "race-1" {
			t.Fatalf("bob's recent games = %+v, %v; want race-1", rs, err)
		}

		if err := l.ForgetPlayer(ctx, alice.PlayerID); err != nil {
			t.Fatal(err)
		}
		if rs, err := l.Recent(ctx, alice.PlayerID); err != nil || len(rs) != 0 {
			t.Fatalf("alice's recent games once forgotten = %+v, %v", rs, err)
		}
		if rs, err := l.Records(ctx, alice.PlayerID); err != nil || len(rs) != 0 {
			t.Fatalf("alice's records once forgotten = %+v, %v", rs, err)
		}
		if rs, err := l.Records(ctx, bob.PlayerID); err != nil || len(rs) != 1 || rs[0].Played != 1 {
			t.Fatalf("bob's records once alice is forgotten = %+v, %v", rs, err)
		}
		wantMade(alice.PlayerID, made...)
	})
}
