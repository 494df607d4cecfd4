package lobby_test

import (
	"context"
	"testing"
	"testing/synctest"

	"klondike/match"
)

// TestQuickMatchByGame: quick match seats players only with the same game,
// Klondike whether it is named or left out; the lobby list shows the game.
func TestQuickMatchByGame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		l := newLobby(t)
		a, b, c, d := hello(t, l, "alice"), hello(t, l, "bob"), hello(t, l, "carol"), hello(t, l, "dave")
		tp := match.PartialSettings{Game: new("thumb_and_pouch"), MaxPlayers: new(3)}
		ia, err := l.QuickMatch(ctx, a.PlayerID, tp)
		if err != nil {
			t.Fatal(err)
		}
		ib, err := l.QuickMatch(ctx, b.PlayerID, match.PartialSettings{MaxPlayers: new(3)})
		if err != nil {
			t.Fatal(err)
		}
		ic, _ := l.QuickMatch(ctx, c.PlayerID, match.PartialSettings{Game: new("klondike"), MaxPlayers: new(3)})
		id, _ := l.QuickMatch(ctx, d.PlayerID, tp)
		if ia.ID == ib.ID {
			t.Errorf("Klondike joined a Thumb and Pouch quick match")
		}
		if ia.ID != id.ID || ib.ID != ic.ID {
			t.Errorf("the same game went to different matches: %s %s, %s %s", ia.ID, id.ID, ib.ID, ic.ID)
		}
		page, _, err := l.OpenMatches(ctx, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		games := map[string]string{}
		for _, info := range page {
			games[info.ID] = info.Settings.Game
		}
		if len(games) != 2 || games[ia.ID] != "thumb_and_pouch" || games[ib.ID] != "" {
			t.Errorf("the lobby list's games: %v, want %s thumb_and_pouch and %s Klondike (\"\")", games, ia.ID, ib.ID)
		}
		if _, err := l.QuickMatch(ctx, a.PlayerID, match.PartialSettings{Game: new("whitehead"), Draw: new(3)}); err == nil {
			t.Errorf("a quick match of Whitehead in draw 3 was taken")
		}
	})
}
