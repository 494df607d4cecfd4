package challenge_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"klondike/engine"
	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/match"
)

// TestChallengeOnEveryGame: a challenge of each game deals the game's
// numbered deal, names its records' variant after the game, gives the
// next player a ghost replayed on that deal, and publishes replays that
// verify under the game's rules.
func TestChallengeOnEveryGame(t *testing.T) {
	for _, game := range []string{"klondike", "thumb_and_pouch", "whitehead", "double_klondike"} {
		t.Run(game, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				sk := &rawSink{}
				l := challengeNode(t, memstore.NewBackends(), sk)
				alice, bob := hello(t, l, "alice"), hello(t, l, "bob")
				rec, err := l.Create(ctx, alice.PlayerID, match.PartialSettings{Game: new(game)}, time.Hour)
				if err != nil {
					t.Fatal(err)
				}
				v, _ := engine.ParseVariant(game)
				wantVariant := challenge.Variant(engine.DefaultRulesFor(v))
				if rec.Rules.Game != v || rec.Variant != wantVariant {
					t.Fatalf("challenge of %s: rules %v, variant %q; want %q", game, rec.Rules, rec.Variant, wantVariant)
				}
				for _, p := range []lobby.Session{alice, bob} {
					ev, err := l.StartAttempt(ctx, p.PlayerID, rec.ID)
					if err != nil {
						t.Fatal(err)
					}
					r, err := l.Round(ctx, ev.RoundID)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := r.Deal.Decks(), v.Decks(); got != want {
						t.Fatalf("%s's attempt dealt %d decks, want %d", p.Name, got, want)
					}
					time.Sleep(3 * time.Second)
					playLegal(t, r, p.PlayerID, 12)
					// The random deal may have ended the game already (stuck,
					// from the start or after the moves): nothing to resign.
					if err := r.Resign(ctx, p.PlayerID, time.Now()); err != nil && !errors.Is(err, engine.ErrGameOver) {
						t.Fatal(err)
					}
					synctest.Wait()
				}
				var ghost struct{ Event match.GhostUpdate }
				ghosts := sk.of(bob.PlayerID, "GhostUpdate")
				if len(ghosts) == 0 || json.Unmarshal(ghosts[len(ghosts)-1], &ghost) != nil || len(ghost.Event.Ghosts) == 0 {
					t.Fatalf("bob got no ghost of alice: %q", ghosts)
				}
				rs, err := l.Records(ctx, alice.PlayerID)
				if err != nil || len(rs) != 1 || rs[0].Variant != wantVariant || rs[0].Played != 1 {
					t.Fatalf("alice's records %+v, %v; want one game of %s", rs, err, wantVariant)
				}
				if rec, err = l.CloseEarly(ctx, alice.PlayerID, rec.ID); err != nil {
					t.Fatal(err)
				}
				page, err := l.Board(ctx, &rec, 10, "", 0)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := l.Replay(ctx, &rec, 1, 10)
				if err != nil {
					t.Fatal(err)
				}
				verifyReplay(t, rep, page.Top)
			})
		})
	}
}

// playLegal makes up to n moves in the player's round, each the first
// legal move of their view that is not a draw after a recycle (so the
// game goes on rather than turn the stock round and round).
func playLegal(t *testing.T, r *match.Round, playerID string, n int) {
	t.Helper()
	ctx := context.Background()
	v, last, err := r.View(ctx, playerID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		moves := v.LegalMoves(r.Rules, nil)
		if len(moves) == 0 || v.Status != engine.Playing {
			return
		}
		m := moves[0]
		for _, c := range moves {
			if c.Kind != engine.Draw && c.Kind != engine.Recycle {
				m = c
				break
			}
		}
		last++
		if _, err := r.Move(ctx, playerID, last, m.String(), time.Now(), func(_ match.MoveResult, after *engine.View) {
			// The view is the match's until the ack returns: a copy.
			b, _ := json.Marshal(after)
			v = engine.View{}
			_ = json.Unmarshal(b, &v)
		}); err != nil {
			t.Fatalf("move %d %s: %v", last, m, err)
		}
	}
}

// winnablePool hands out a deal for every rule set it is asked, and
// counts the asks.
type winnablePool struct{ asked []engine.Rules }

func (p *winnablePool) Take(r engine.Rules) (uint64, bool) {
	p.asked = append(p.asked, r)
	return 7, true
}

// TestDailyOfAnotherGame: a daily variant of a game the solver does not
// play is dealt any deal at once, said so, without asking the pool; its
// id names the game.
func TestDailyOfAnotherGame(t *testing.T) {
	other := engine.Klondike
	for v := range engine.Variant(engine.NumVariants) {
		if !match.Solvable(v) {
			other = v
			break
		}
	}
	if other == engine.Klondike {
		t.Skip("the solver plays every game")
	}
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		name := other.String() + "-draw1"
		tp, err := challenge.ParseVariant(name)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := challenge.ParseVariant("draw3")
		pool := &winnablePool{}
		l := newNode(t, mem, &rawSink{}, challenge.Config{Winnable: pool, DailyVariants: []engine.Rules{k, tp}})
		start := time.Now()
		day, recs, err := l.Daily(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 2 || !recs[0].Fair.Winnable || recs[1].Fair.Winnable || time.Since(start) != 0 {
			t.Fatalf("daily rounds %+v after %v: want Klondike's winnable, %s's any deal at once", recs, time.Since(start), other)
		}
		if want := "daily-" + day + "-" + name; recs[1].ID != want || recs[1].Rules.Game != other {
			t.Fatalf("%s's daily round %s (%v), want %s", other, recs[1].ID, recs[1].Rules, want)
		}
		for _, r := range pool.asked {
			if r.Game != engine.Klondike {
				t.Fatalf("the pool was asked for %v", r)
			}
		}
	})
}

// TestAttemptOnAStuckDealEndsAtOnce: an attempt dealt a deal that is stuck
// before its first move (deal #10 in draw 3, docs/rules.md) is over as it
// starts: the player hears so, and the game counts in their records, at
// once rather than at the attempt's time limit.
func TestAttemptOnAStuckDealEndsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		sk := &rawSink{}
		l := challengeNode(t, memstore.NewBackends(), sk)
		alice := hello(t, l, "alice")
		rec, err := l.Create(ctx, alice.PlayerID, match.PartialSettings{Seed: new("10"), Draw: new(3)}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.StartAttempt(ctx, alice.PlayerID, rec.ID); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := sk.of(alice.PlayerID, "AttemptOver"); len(got) != 1 {
			t.Fatalf("attempt_over %d times as the stuck deal started, want once", len(got))
		}
		rs, err := l.Records(ctx, alice.PlayerID)
		if err != nil || len(rs) != 1 || rs[0].Played != 1 || rs[0].Won != 0 {
			t.Fatalf("alice's records %+v, %v; want one game played, lost", rs, err)
		}
	})
}
