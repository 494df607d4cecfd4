package lobby_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/lobby/rating"
	"klondike/match"
)

// newRatedLobby is a lobby that keeps ratings, on shared memory backends.
func newRatedLobby(t *testing.T, mem memstore.Backends) *lobby.Lobby {
	l := lobby.New(lobby.Config{
		Store: mem.Store, Coord: mem.Coord, Players: mem.Players, Allowances: mem.Allowances, Ratings: mem.Ratings,
		Sink: &sink{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Match: match.Config{QuickWait: time.Second, Intermission: time.Second},
	})
	t.Cleanup(l.Close)
	return l
}

// establish gives a player an established rating r under key.
func establish(t *testing.T, rs lobby.Ratings, key, id string, r float64) {
	t.Helper()
	after := rating.Rating{Rating: r, Deviation: 50, Volatility: rating.InitialVol, Rounds: 30, At: time.Now()}
	rr := lobby.RatedRound{RoundID: "seed-" + id, Key: key, At: time.Now(),
		Changes: []lobby.RatedPlayer{{PlayerID: id, Name: id, Place: 1, Before: rating.New(), After: after}}}
	if _, _, err := rs.Apply(context.Background(), rr); err != nil {
		t.Fatal(err)
	}
}

// TestRatedRound: a rated quick match's round changes its two players'
// ratings once, the winner up and the loser down by as much, and the match
// tells its players; a casual one changes nothing.
func TestRatedRound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		l := newRatedLobby(t, mem)
		a, b := hello(t, l, "alice"), hello(t, l, "bob")
		two, limit, zero := 2, 2, 0
		s := match.PartialSettings{MaxPlayers: &two, TimeLimitS: &limit, CountdownS: &zero}
		ia, err := l.QuickMatch(ctx, a.PlayerID, s)
		if err != nil {
			t.Fatal(err)
		}
		ib, err := l.QuickMatch(ctx, b.PlayerID, s)
		if err != nil {
			t.Fatal(err)
		}
		if ia.ID != ib.ID || !ib.Settings.Rated || len(ib.Players) != 2 || ib.Players[1].Rating != 1500 || !ib.Players[1].Provisional {
			t.Fatalf("two new players' quick matches %+v and %+v: want one rated match showing 1500?", ia, ib)
		}
		synctest.Wait()
		m, _ := l.Match(ctx, ia.ID)
		r := m.Round()
		if r == nil {
			t.Fatal("a full quick match did not start")
		}
		for _, p := range []string{a.PlayerID, b.PlayerID} {
			if _, err := r.Move(ctx, p, 1, "D", time.Now(), nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Resign(ctx, a.PlayerID, time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second) // bob's time runs out: he is first
		synctest.Wait()
		info := m.Info()
		if info.Ratings == nil || info.Ratings.RoundID != r.ID || len(info.Ratings.Changes) != 2 {
			t.Fatalf("the match's ratings after its round: %+v", info.Ratings)
		}
		ch := map[string]match.RatingChange{}
		for _, c := range info.Ratings.Changes {
			ch[c.PlayerID] = c
		}
		ca, cb := ch[a.PlayerID], ch[b.PlayerID]
		if cb.Place != 1 || ca.Place != 2 || cb.Change <= 0 || ca.Change >= 0 || cb.Change+ca.Change != 0 {
			t.Fatalf("changes bob %+v, alice %+v: want bob first and up, alice down by as much", cb, ca)
		}
		if info.Players[0].Rating != ca.After && info.Players[1].Rating != ca.After {
			t.Errorf("players %+v do not show the new ratings", info.Players)
		}
		got, err := mem.Ratings.Get(ctx, "klondike/3", []string{a.PlayerID, b.PlayerID})
		if err != nil || got[0].Rounds != 1 || got[1].Rounds != 1 || got[1].Display() != cb.After {
			t.Fatalf("stored ratings %+v, %v", got, err)
		}
		rec, err := mem.Ratings.Round(ctx, r.ID)
		if err != nil || len(rec.Changes) != 2 {
			t.Fatalf("the round's record %+v, %v", rec, err)
		}
		// The record explains the change: recomputed from its places and
		// the ratings before, it gives the ratings after.
		round := make([]rating.Placing, len(rec.Changes))
		for i, c := range rec.Changes {
			round[i] = rating.Placing{Rating: c.Before, Place: c.Place}
		}
		for i, after := range rating.Update(round, rec.At) {
			if after != rec.Changes[i].After {
				t.Errorf("recomputed %+v, recorded %+v", after, rec.Changes[i].After)
			}
		}

		// A casual quick match rates nobody.
		no := false
		s.Rated = &no
		ic, _ := l.QuickMatch(ctx, a.PlayerID, s)
		id, _ := l.QuickMatch(ctx, b.PlayerID, s)
		if ic.ID != id.ID || ic.Settings.Rated || ic.Players[0].Rating != 0 {
			t.Fatalf("casual quick matches %+v and %+v", ic, id)
		}
	})
}

// TestRatedRoundRatesNobodyWithoutTwoPlayersMoving: a player who never
// moved is left out, and one player alone is not rated.
func TestRatedRoundRatesNobodyWithoutTwoPlayersMoving(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		l := newRatedLobby(t, mem)
		a, b := hello(t, l, "alice"), hello(t, l, "bob")
		two, limit, zero := 2, 2, 0
		s := match.PartialSettings{MaxPlayers: &two, TimeLimitS: &limit, CountdownS: &zero}
		ia, _ := l.QuickMatch(ctx, a.PlayerID, s)
		_, _ = l.QuickMatch(ctx, b.PlayerID, s)
		synctest.Wait()
		m, _ := l.Match(ctx, ia.ID)
		if _, err := m.Round().Move(ctx, a.PlayerID, 1, "D", time.Now(), nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		rr := m.Info().Ratings
		if rr == nil || len(rr.Changes) != 0 || rr.Unrated == "" {
			t.Fatalf("ratings %+v: want none, with the reason", rr)
		}
		if got, _ := mem.Ratings.Get(ctx, "klondike/3", []string{a.PlayerID}); got[0].Rounds != 0 {
			t.Errorf("alice rated alone: %+v", got[0])
		}
	})
}

// TestRatedQuickMatchSeatsByRating: a player is seated at once with the
// nearest players within the window, and two far apart are not.
func TestRatedQuickMatchSeatsByRating(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		l1, l2 := newRatedLobby(t, mem), newRatedLobby(t, mem)
		lo, hi, near := hello(t, l1, "low"), hello(t, l2, "high"), hello(t, l1, "near")
		establish(t, mem.Ratings, "klondike/3", lo.PlayerID, 1400)
		establish(t, mem.Ratings, "klondike/3", hi.PlayerID, 1800)
		establish(t, mem.Ratings, "klondike/3", near.PlayerID, 1780)
		four := 4
		s := match.PartialSettings{MaxPlayers: &four}
		il, err := l1.QuickMatch(ctx, lo.PlayerID, s)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		ih, err := l2.QuickMatch(ctx, hi.PlayerID, s)
		if err != nil {
			t.Fatal(err)
		}
		if il.ID == ih.ID {
			t.Fatalf("1400 and 1800 seated together at once")
		}
		in, _ := l1.QuickMatch(ctx, near.PlayerID, s)
		if in.ID != ih.ID {
			t.Fatalf("1780 seated in %s, want the 1800's match %s, not the 1400's %s", in.ID, ih.ID, il.ID)
		}
		if in.Players[0].Rating != 1800 || in.Players[1].Rating != 1780 || in.Players[1].Provisional {
			t.Errorf("players %+v: want their established ratings shown", in.Players)
		}
	})
}

// TestRatedQuickMatchMovesALonePlayer: a lone player in a younger match is
// moved into an older one once the window has widened to their gap, on
// another node, and not before.
func TestRatedQuickMatchMovesALonePlayer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		l1, l2 := newRatedLobby(t, mem), newRatedLobby(t, mem)
		x, y := hello(t, l1, "x"), hello(t, l2, "y")
		establish(t, mem.Ratings, "klondike/3", x.PlayerID, 1400)
		establish(t, mem.Ratings, "klondike/3", y.PlayerID, 1800)
		four := 4
		s := match.PartialSettings{MaxPlayers: &four}
		ix, _ := l1.QuickMatch(ctx, x.PlayerID, s)
		time.Sleep(time.Second)
		iy, _ := l2.QuickMatch(ctx, y.PlayerID, s)
		if ix.ID == iy.ID {
			t.Fatalf("1400 and 1800 seated together at once")
		}
		// A gap of 400 is within the window after (400-100)/20 = 15 s of
		// the older match's wait.
		gapWait := time.Duration((400-lobby.RatedWindow)/lobby.RatedWiden) * time.Second
		time.Sleep(gapWait - 3*time.Second)
		synctest.Wait()
		if cur := l2.Current(ctx, y.PlayerID); cur != iy.ID {
			t.Fatalf("y moved to %s before the window reached the gap", cur)
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if cur := l2.Current(ctx, y.PlayerID); cur != ix.ID {
			t.Fatalf("y is in %s after the window reached the gap, want the older match %s", cur, ix.ID)
		}
		if cur := l1.Current(ctx, x.PlayerID); cur != ix.ID {
			t.Fatalf("x moved to %s: only the younger match's player moves", cur)
		}
	})
}
