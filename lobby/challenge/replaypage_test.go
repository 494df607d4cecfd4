package challenge_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"klondike/engine"
	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// longGame plays n moves in the player's attempt that only turn the stock
// (or take back and play again), so that the game never ends.
func longGame(t *testing.T, r *match.Round, playerID string, n int) {
	t.Helper()
	g, err := engine.NewGame(r.Deal, r.Rules)
	if err != nil {
		t.Fatal(err)
	}
	for seq := 1; seq <= n; seq++ {
		var played engine.Move
		ok := false
		for _, m := range []engine.Move{{Kind: engine.Draw}, {Kind: engine.Recycle}, engine.UndoMove(), engine.RedoMove()} {
			if _, err := g.Apply(m); err == nil {
				played, ok = m, true
				break
			}
		}
		if !ok || g.Status() != engine.Playing {
			t.Fatalf("move %d: the game cannot go on by the stock alone", seq)
		}
		if _, err := r.Move(context.Background(), playerID, seq, played.String(), time.Now(), nil); err != nil {
			t.Fatalf("move %d (%s): %v", seq, played, err)
		}
	}
}

// TestReplayPageBytes: a page of a closed challenge's replays stops before
// the player whose log would take it past match.MaxReplayPageBytes of
// JSON, and says where the next page starts; the pages together hold every
// player once, in rank order.
func TestReplayPageBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		l := challengeNode(t, memstore.NewBackends(), &rawSink{})
		var players []lobby.Session
		for i := range 5 {
			players = append(players, hello(t, l, "p"+strconv.Itoa(i)))
		}
		seed := "1"
		rec, err := l.Create(ctx, players[0].PlayerID, match.PartialSettings{Seed: &seed}, 0)
		if err != nil {
			t.Fatal(err)
		}
		// About a third of the budget each: three to a page.
		const moves = 10_000
		for _, p := range players {
			ev, err := l.StartAttempt(ctx, p.PlayerID, rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			r, err := l.Round(ctx, ev.RoundID)
			if err != nil {
				t.Fatal(err)
			}
			longGame(t, r, p.PlayerID, moves)
			if err := r.Resign(ctx, p.PlayerID, time.Now()); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		time.Sleep(time.Until(rec.ClosesAt))
		board, err := l.BoardRange(ctx, &rec, 1, 10)
		if err != nil || len(board) != len(players) {
			t.Fatalf("board %v, %v: want all %d", board, err, len(players))
		}

		var got []string
		for from, pages := 1, 0; from != 0; pages++ {
			if pages == len(players) {
				t.Fatalf("more pages than players")
			}
			rep, err := l.Replay(ctx, &rec, from, 100)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(rep.Players)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Players) == 0 || len(rep.Players) > 1 && len(b) > match.MaxReplayPageBytes {
				t.Fatalf("replay page from %d: %d players in %d bytes of JSON; want one or more within %d",
					from, len(rep.Players), len(b), match.MaxReplayPageBytes)
			}
			next := from + len(rep.Players)
			if next <= len(players) && rep.NextFrom != next || next > len(players) && rep.NextFrom != 0 {
				t.Fatalf("replay page from %d holds %d players, next_from %d", from, len(rep.Players), rep.NextFrom)
			}
			if rep.NextFrom != 0 {
				// The page stopped for its size: the next player would not fit.
				more, err := l.Replay(ctx, &rec, rep.NextFrom, 1)
				if err != nil {
					t.Fatal(err)
				}
				if c, _ := json.Marshal(append(rep.Players, more.Players...)); len(c) <= match.MaxReplayPageBytes {
					t.Fatalf("replay page from %d stopped at %d bytes though the next player fits (%d)", from, len(b), len(c))
				}
			}
			for _, p := range rep.Players {
				if len(p.Moves) != moves {
					t.Fatalf("%s's replay has %d moves, want %d", p.Name, len(p.Moves), moves)
				}
				got = append(got, p.PlayerID)
			}
			from = rep.NextFrom
		}
		for i, e := range board {
			if i >= len(got) || got[i] != e.PlayerID {
				t.Fatalf("the pages' players %v, want the board's order %v", got, board)
			}
		}
		if len(got) != len(board) {
			t.Fatalf("the pages hold %d players, want %d", len(got), len(board))
		}
	})
}
