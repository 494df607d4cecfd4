package api_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/engine"
	"klondike/match"
)

// TestRaceOnEveryGame races two players over the WebSocket in each game:
// the match and the lobby list show the game, round_started its rules and
// board, the players move from their views' legal moves (an undo and a
// redo among them), resign, and round_over reveals the game's deal, whose
// commitment checks and whose replay verifies under the game's rules.
func TestRaceOnEveryGame(t *testing.T) {
	for _, game := range []string{"klondike", "thumb_and_pouch", "whitehead", "double_klondike"} {
		t.Run(game, func(t *testing.T) {
			v, _ := engine.ParseVariant(game)
			_, base := testServer(t)
			a, b := apitest.Dial(t, base), apitest.Dial(t, base)
			a.Hello("alice")
			b.Hello("bob")
			settings := protocol.PartialSettings{Game: new(game), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2), Public: new(true)}
			info := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: settings}).Match
			wantGame := game
			if v == engine.Klondike {
				wantGame = "" // left out, as in the rules
			}
			if info.Settings.Game != wantGame {
				t.Fatalf("the match's settings name the game %q, want %q", info.Settings.Game, wantGame)
			}
			var page struct{ Matches []*protocol.MatchInfo }
			getJSON(t, base+"/api/v1/matches", &page)
			if len(page.Matches) != 1 || page.Matches[0].Settings.Game != wantGame {
				t.Fatalf("the lobby list %+v: want the match of %q", page.Matches, wantGame)
			}
			apitest.Request[protocol.Match](b, protocol.MatchRef{Type: protocol.TypeJoinMatch, MatchID: info.ID})
			a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
			sa, sb := apitest.Expect[protocol.RoundStarted](a), apitest.Expect[protocol.RoundStarted](b)
			if sa.Rules.Game != v || sa.Commitment == "" || sa.Commitment != sb.Commitment {
				t.Fatalf("round_started rules %v, commitment %q (bob's %q)", sa.Rules, sa.Commitment, sb.Commitment)
			}
			if string(sa.View) != string(sb.View) {
				t.Fatalf("round_started views differ:\n%s\n%s", sa.View, sb.View)
			}
			if view := viewOf(t, sa.View); view.Piles() != v.Piles() {
				t.Fatalf("a board of %d piles, want %d", view.Piles(), v.Piles())
			}
			roundID := sa.RoundID
			if ans := a.Move(roundID, 1, "Y"); ans.Type != protocol.TypeMoveRejected || !strings.Contains(ans.String(), "redo") {
				t.Fatalf("Y with nothing taken back: %s", ans)
			}
			va := raceMoves(t, a, sa, 40, true)
			vb := raceMoves(t, b, sb, 8, false)
			for _, p := range []struct {
				c *apitest.Client
				v engine.View
			}{{a, va}, {b, vb}} {
				if p.v.Status == engine.Playing {
					apitest.Request[protocol.Resigned](p.c, protocol.Resign{Type: protocol.TypeResign, RoundID: roundID})
				}
			}
			over := apitest.Expect[protocol.RoundOver](a)
			seed, err := strconv.ParseUint(over.Deal.Seed, 10, 64)
			if err != nil || over.Deal.KnownDeal || match.Commitment(over.Deal.Salt, seed) != sa.Commitment {
				t.Fatalf("round_over's deal %+v does not check against the commitment %s", over.Deal, sa.Commitment)
			}
			layout, err := engine.ParseDeal(over.Deal.Layout)
			if err != nil {
				t.Fatalf("round_over's layout: %v", err)
			}
			want, _ := json.Marshal(engine.NumberedDealFor(v, seed))
			if got, _ := json.Marshal(layout); string(got) != string(want) || layout.Decks() != v.Decks() || 7+len(layout.MorePiles) != v.Piles() {
				t.Fatalf("round_over's layout %s, want the game's deal %s", over.Deal.Layout, want)
			}
			var rep protocol.Replay
			getJSON(t, base+over.ReplayURL, &rep)
			if rep.Rules != sa.Rules {
				t.Fatalf("the replay's rules %v, want %v", rep.Rules, sa.Rules)
			}
			if got, _ := json.Marshal(rep.Layout); string(got) != string(want) {
				t.Fatalf("the replay's layout %s, want %s", got, want)
			}
			var played int
			for _, p := range rep.Players {
				if p.PlayerID == a.PlayerID {
					played = len(p.Moves)
				}
			}
			if played < 5 {
				t.Fatalf("alice's replay has %d moves", played)
			}
			checkReplay(t, rep, over.Results)
			apitest.Expect[protocol.MatchOver](b)
		})
	}
}

// raceMoves plays up to n moves of the player's view's legal moves, and
// with undo, once, takes the third back and plays it again by Y, which
// must leave the board as the move did. It returns the last view.
func raceMoves(t *testing.T, c *apitest.Client, started protocol.RoundStarted, n int, undo bool) engine.View {
	t.Helper()
	v, rules, roundID := viewOf(t, started.View), started.Rules, started.RoundID
	seq := 0
	for i := 0; i < n && v.Status == engine.Playing; i++ {
		moves := v.LegalMoves(rules, nil)
		if len(moves) == 0 {
			break
		}
		seq++
		v = viewOf(t, moveOK(t, c, roundID, seq, moves[(i*7)%len(moves)].String()).View)
		if undo && seq == 3 && v.Status == engine.Playing {
			played := v
			seq++
			moveOK(t, c, roundID, seq, "U")
			seq++
			ok := moveOK(t, c, roundID, seq, "Y")
			v = viewOf(t, ok.View)
			if !slices.Contains(ok.Events, "redo") || !sameView(played, v) {
				t.Fatalf("Y: events %s, board\n%+v\nwant, as after the move,\n%+v", ok.Events, v, played)
			}
		}
	}
	return v
}

// sameView reports whether two views show the same board, whatever their
// counts of moves and times.
func sameView(a, b engine.View) bool {
	a.Moves, b.Moves, a.ElapsedMs, b.ElapsedMs = 0, 0, 0, 0
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// TestGamesTheSolverDoesNotPlay: over the WebSocket, winnable deals and
// hints are refused in a game the solver does not play, each with its
// reason, and Whitehead's rules are its own.
func TestGamesTheSolverDoesNotPlay(t *testing.T) {
	other := ""
	for v := range engine.Variant(engine.NumVariants) {
		if !match.Solvable(v) {
			other = v.String()
			break
		}
	}
	if other == "" {
		t.Skip("the solver plays every game")
	}
	_, base := testServer(t)
	a := apitest.Dial(t, base)
	a.Hello("alice")
	for _, c := range []struct {
		settings protocol.PartialSettings
		want     string
	}{
		{protocol.PartialSettings{Game: new(other), Deals: new("winnable")}, match.ErrNotSolvable.Error()},
		{protocol.PartialSettings{Game: new("whitehead"), Draw: new(3)}, "draw 1"},
		{protocol.PartialSettings{Game: new("whitehead"), Passes: new(0)}, "passes 1"},
		{protocol.PartialSettings{Game: new("spider")}, "want klondike, thumb_and_pouch, whitehead or double_klondike"},
	} {
		e := apitest.Request[protocol.Error](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: c.settings})
		if e.Code != protocol.CodeBadRequest || !strings.Contains(e.Message, c.want) {
			t.Errorf("create_match %+v = %+v, want bad_request saying %q", c.settings, e, c.want)
		}
	}
	info := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch,
		Settings: protocol.PartialSettings{Game: new(other), CountdownS: new(0), MaxPlayers: new(1), Seed: new("1")}}).Match
	a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	roundID := apitest.Expect[protocol.RoundStarted](a).RoundID
	e := apitest.Request[protocol.Error](a, protocol.Hint{Type: protocol.TypeHint, RoundID: roundID})
	if e.Code != protocol.CodeBadRequest || e.Message != match.ErrNoHintsForGame.Error() {
		t.Fatalf("hint in %s = %+v, want bad_request saying why", other, e)
	}
}

// TestThumbAndPouchSettings: the game's own draw and passes when the
// client leaves them out and, where the solver plays it, winnable deals
// and a hint.
func TestThumbAndPouchSettings(t *testing.T) {
	_, base := testServer(t)
	a := apitest.Dial(t, base)
	a.Hello("alice")
	settings := protocol.PartialSettings{Game: new("thumb_and_pouch"), CountdownS: new(0), MaxPlayers: new(1), Seed: new("1")}
	info := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: settings}).Match
	if s := info.Settings; s.Draw != 1 || s.Passes != 1 || s.Game != "thumb_and_pouch" {
		t.Errorf("Thumb and Pouch's settings %+v: want the game's draw 1 and passes 1", s)
	}
	if !match.Solvable(engine.ThumbAndPouch) {
		return
	}
	a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	roundID := apitest.Expect[protocol.RoundStarted](a).RoundID
	h := apitest.Request[protocol.HintReply](a, protocol.Hint{Type: protocol.TypeHint, RoundID: roundID})
	if h.Verdict == "" || h.RoundID != roundID {
		t.Fatalf("hint in Thumb and Pouch = %+v", h)
	}
	if h.Move != nil {
		moveOK(t, a, roundID, 1, *h.Move)
	}
	b := apitest.Dial(t, base)
	b.Hello("bob")
	winnable := protocol.PartialSettings{Game: new("thumb_and_pouch"), Deals: new("winnable")}
	if got := apitest.Request[protocol.Match](b, protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: winnable}).Match; got.Settings.Deals != "winnable" {
		t.Fatalf("winnable Thumb and Pouch: settings %+v", got.Settings)
	}
}
