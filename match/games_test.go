package match_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"klondike/engine"
	"klondike/lobby/memstore"
	"klondike/match"
)

// games are the values of the setting game, as a client sends them.
var games = []string{"klondike", "thumb_and_pouch", "whitehead", "double_klondike"}

// TestSettingsGame checks the setting game: its defaults of draw and
// passes, Whitehead's fixed draw and passes, the refusal of winnable deals
// where the solver does not play, and Klondike's JSON left as it was.
func TestSettingsGame(t *testing.T) {
	for _, c := range []struct {
		name         string
		p            match.PartialSettings
		game         engine.Variant
		draw, passes int
	}{
		{"nothing", match.PartialSettings{}, engine.Klondike, 3, 0},
		{"klondike", match.PartialSettings{Game: new("klondike")}, engine.Klondike, 3, 0},
		{"klondike vegas", match.PartialSettings{Game: new("klondike"), Scoring: new("vegas")}, engine.Klondike, 3, 3},
		{"thumb_and_pouch", match.PartialSettings{Game: new("thumb_and_pouch")}, engine.ThumbAndPouch, 1, 1},
		{"thumb_and_pouch draw 3", match.PartialSettings{Game: new("thumb_and_pouch"), Draw: new(3)}, engine.ThumbAndPouch, 3, 1},
		{"thumb_and_pouch draw 3 vegas", match.PartialSettings{Game: new("thumb_and_pouch"), Draw: new(3), Scoring: new("vegas")}, engine.ThumbAndPouch, 3, 3},
		{"thumb_and_pouch passes 0", match.PartialSettings{Game: new("thumb_and_pouch"), Passes: new(0)}, engine.ThumbAndPouch, 1, 0},
		{"whitehead", match.PartialSettings{Game: new("whitehead")}, engine.Whitehead, 1, 1},
		{"whitehead vegas", match.PartialSettings{Game: new("whitehead"), Scoring: new("vegas")}, engine.Whitehead, 1, 1},
		{"double_klondike", match.PartialSettings{Game: new("double_klondike")}, engine.DoubleKlondike, 3, 0},
		{"double_klondike draw 1 vegas", match.PartialSettings{Game: new("double_klondike"), Draw: new(1), Scoring: new("vegas")}, engine.DoubleKlondike, 1, 1},
	} {
		s := match.WithDefaults(c.p)
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		r, _ := s.Rules()
		if r.Game != c.game || r.Draw != c.draw || r.Passes != c.passes || s.Variant() != c.game {
			t.Errorf("%s: rules %v (variant %v), want %v, draw %d, passes %d", c.name, r, s.Variant(), c.game, c.draw, c.passes)
		}
		b, _ := json.Marshal(s)
		if has := strings.Contains(string(b), `"game"`); has != (c.game != engine.Klondike) {
			t.Errorf("%s: settings JSON %s: game written %v, want it only for a game other than Klondike", c.name, b, has)
		}
		if c.game != engine.Klondike && !strings.Contains(string(b), `"game":"`+c.game.String()+`"`) {
			t.Errorf("%s: settings JSON %s lacks the game", c.name, b)
		}
	}
	for _, c := range []struct {
		name string
		p    match.PartialSettings
		want string
	}{
		{"unknown game", match.PartialSettings{Game: new("spider")}, "want klondike, thumb_and_pouch, whitehead or double_klondike"},
		{"whitehead draw 3", match.PartialSettings{Game: new("whitehead"), Draw: new(3)}, "draw 1"},
		{"whitehead passes 0", match.PartialSettings{Game: new("whitehead"), Passes: new(0)}, "passes 1"},
		{"whitehead passes 3", match.PartialSettings{Game: new("whitehead"), Passes: new(3)}, "passes 1"},
	} {
		err := match.WithDefaults(c.p).Validate()
		if !errors.Is(err, match.ErrBadSettings) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrBadSettings saying %q", c.name, err, c.want)
		}
	}
	// Winnable deals where the solver plays the game (Klondike at least),
	// refused elsewhere with the games it plays named.
	if !match.Solvable(engine.Klondike) {
		t.Errorf("the solver does not play Klondike")
	}
	for _, game := range games {
		v, _ := engine.ParseVariant(game)
		err := match.WithDefaults(match.PartialSettings{Game: new(game), Deals: new("winnable")}).Validate()
		switch {
		case match.Solvable(v) && err != nil:
			t.Errorf("winnable %s: %v", game, err)
		case !match.Solvable(v) && (!errors.Is(err, match.ErrBadSettings) ||
			!strings.Contains(err.Error(), "winnable deals are offered for Klondike") || !strings.Contains(err.Error(), "this game deals any deal")):
			t.Errorf("winnable %s: %v, want ErrBadSettings naming the games with winnable deals", game, err)
		}
	}
}

// gameRound starts a round of the players on deal #1 of the game, with no
// countdown, and returns it running. It must run inside a synctest bubble.
func gameRound(t *testing.T, p match.PartialSettings, players ...match.Player) *match.Round {
	t.Helper()
	ctx := context.Background()
	p.Seed, p.CountdownS = new("1"), new(0)
	s := match.WithDefaults(p)
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg := matchConfig(memstore.New(), memstore.NewCoord(), newSink())
	cfg.NewID = func() string { return "r1" }
	m, err := match.New("m1", "ABCDEF", s, false, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	for _, pl := range players {
		if err := m.Join(ctx, pl); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Start(ctx, players[0].ID); err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	return m.Round()
}

// TestRoundOnEveryGame plays a round of each game: the game's numbered
// deal, its rules, moves from the view (Double Klondike's piles 8 and 9
// among them) and a seat made again from the store's log.
func TestRoundOnEveryGame(t *testing.T) {
	for _, game := range games {
		t.Run(game, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				r := gameRound(t, match.PartialSettings{Game: new(game), Undo: new("on")}, alice)
				v, _ := engine.ParseVariant(game)
				if r.Rules.Game != v {
					t.Fatalf("round rules %v, want game %v", r.Rules, v)
				}
				want, _ := json.Marshal(engine.NumberedDealFor(v, 1))
				if got, _ := json.Marshal(r.Deal); string(got) != string(want) {
					t.Fatalf("the round dealt %s, want %s", got, want)
				}
				if v == engine.DoubleKlondike {
					playPile89(t, r)
				}
				playSome(t, r, "a", 30)
				before, last, err := r.View(ctx, "a", time.Now())
				if err != nil || last == 0 {
					t.Fatalf("after playing: %d moves, %v", last, err)
				}
				r.Reseat("a")
				after, again, err := r.View(ctx, "a", time.Now())
				if err != nil || again != last || string(jsonOf(after)) != string(jsonOf(before)) {
					t.Fatalf("the seat made again from the log differs: %d moves, %v\n%s\n%s", again, err, jsonOf(after), jsonOf(before))
				}
				if v == engine.DoubleKlondike {
					if after.Piles() != 9 {
						t.Fatalf("Double Klondike view of %d piles", after.Piles())
					}
				} else if _, err := r.Move(ctx, "a", last+1, "W-T8", time.Now(), nil); !errors.Is(err, engine.ErrSyntax) {
					t.Fatalf("W-T8 in %s: %v, want a syntax error", game, err)
				}
			})
		})
	}
}

// playPile89 plays, as alice's first moves, legal moves of Double
// Klondike's deal #1 until one that names pile 8 or 9.
func playPile89(t *testing.T, r *match.Round) {
	t.Helper()
	g, err := engine.NewGame(r.Deal, r.Rules)
	if err != nil {
		t.Fatal(err)
	}
	for seq := 1; seq <= 20; seq++ {
		moves := g.LegalMoves(nil)
		if len(moves) == 0 {
			break
		}
		m := moves[0]
		for _, c := range moves {
			if c.From >= 8 && c.Kind != engine.FoundationToTableau || c.To >= 8 {
				m = c
				break
			}
		}
		if _, err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Move(context.Background(), "a", seq, m.String(), time.Now(), nil); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if strings.ContainsAny(m.String(), "89") {
			return
		}
	}
	t.Fatal("no move of piles 8 or 9 in Double Klondike's deal #1")
}

// TestRedoInRound checks Y in a round whose undo is no_reveal: a move that
// reveals nothing, taken back and played again, leaves the view as the
// move did, and the log of the three replays on a new seat.
func TestRedoInRound(t *testing.T) {
	for _, game := range games {
		t.Run(game, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				r := gameRound(t, match.PartialSettings{Game: new(game), Undo: new("no_reveal")}, alice, bob)
				if _, err := r.Move(ctx, "a", 1, "Y", time.Now(), nil); !errors.Is(err, engine.ErrIllegal) {
					t.Fatalf("Y with nothing taken back: %v, want a refusal", err)
				}
				line := undoableMove(t, r)
				var played []byte
				for i, mv := range line {
					var err error
					if _, played, err = moveView(r, "a", i+1, mv); err != nil {
						t.Fatalf("%s: %v", mv, err)
					}
				}
				n, mv := len(line), line[len(line)-1]
				if _, _, err := moveView(r, "a", n+1, "U"); err != nil {
					t.Fatalf("U after %s: %v", mv, err)
				}
				res, redone, err := moveView(r, "a", n+2, "y")
				if err != nil || res.Events&engine.Redid == 0 {
					t.Fatalf("Y: %+v, %v", res, err)
				}
				if !sameBoard(t, played, redone) {
					t.Fatalf("after Y the view is\n%s\nwant, as after %s,\n%s", redone, mv, played)
				}
				r.Reseat("a")
				view, last, err := r.View(ctx, "a", time.Now())
				if err != nil || last != n+2 || !sameBoard(t, jsonOf(view), redone) {
					t.Fatalf("the seat made again: %d moves, %v\n%s", last, err, jsonOf(view))
				}
				if _, err := r.Move(ctx, "a", n+3, "Y", time.Now(), nil); !errors.Is(err, engine.ErrIllegal) {
					t.Fatalf("a second Y: %v, want a refusal", err)
				}
			})
		})
	}
}

// undoableMove returns moves of deal #1 under the round's rules, the last
// of which the undo policy lets the player take back: the first moves of
// a deal all turn a card over, so it looks a few moves deep.
func undoableMove(t *testing.T, r *match.Round) []string {
	t.Helper()
	g, err := engine.NewGame(r.Deal, r.Rules)
	if err != nil {
		t.Fatal(err)
	}
	var find func(g *engine.Game, depth int) []string
	find = func(g *engine.Game, depth int) []string {
		for _, m := range g.LegalMoves(nil) {
			c := g.Clone()
			if _, err := c.Apply(m); err != nil {
				continue
			}
			if c.CanUndo() {
				return []string{m.String()}
			}
			if depth > 1 {
				if rest := find(c, depth-1); rest != nil {
					return append([]string{m.String()}, rest...)
				}
			}
		}
		return nil
	}
	line := find(g, 3)
	if line == nil {
		t.Fatalf("no move of deal #1 in %v can be undone", r.Rules)
	}
	return line
}

// sameBoard reports whether two views show the same game but for the
// count of moves, which U and Y add to.
func sameBoard(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb engine.View
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	va.Moves, vb.Moves = 0, 0
	va.ElapsedMs, vb.ElapsedMs = 0, 0
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}

// TestHintsWhereTheSolverPlays: a solo round of a game the solver plays
// gets hints; one of a game it does not play is refused, with the reason,
// and is not marked as helped.
func TestHintsWhereTheSolverPlays(t *testing.T) {
	for _, game := range games {
		v, _ := engine.ParseVariant(game)
		t.Run(game, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				r := gameRound(t, match.PartialSettings{Game: new(game)}, alice)
				asked := false
				hint := func(*engine.Game) ([]string, string) { asked = true; return []string{"D"}, "winnable" }
				mv, _, err := r.Hint(ctx, "a", time.Now(), hint)
				if match.Solvable(v) {
					if err != nil || !asked || mv != "D" {
						t.Fatalf("hint in %s: %q, %v (solver asked: %v), want the solver's move", game, mv, err, asked)
					}
					return
				}
				if !errors.Is(err, match.ErrNoHintsForGame) || asked {
					t.Fatalf("hint in %s: %v (solver asked: %v), want ErrNoHintsForGame", game, err, asked)
				}
				sts, err := r.Standings(ctx)
				if err != nil || len(sts) != 1 || sts[0].Helped {
					t.Fatalf("standings after a refused hint: %+v, %v", sts, err)
				}
			})
		})
	}
}
