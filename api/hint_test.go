package api_test

import (
	"testing"

	"klondike/api/protocol"
	"klondike/engine"
)

// TestHintSoloOnly asks for hints: in a solo round the solver's next move
// comes back, plays, and the game is marked as played with help; in a
// round with a rival the request is refused.
func TestHintSoloOnly(t *testing.T) {
	_, base := testServer(t)
	a := dial(t, base)
	a.hello("alice")
	a.send(map[string]any{"type": "create_match", "settings": map[string]any{"seed": "1", "countdown_s": 0, "max_players": 1}})
	info := as[protocol.Match](t, a.expect(protocol.TypeMatch)).Match
	a.send(map[string]any{"type": "start_match", "match_id": info.ID})
	roundID := as[protocol.RoundStarted](t, a.expect(protocol.TypeRoundStarted)).RoundID
	// Following the hints wins: while the player follows the line of the
	// last hint, the next hint is its next move (no new search that could
	// lead elsewhere).
	won := false
	for seq := 1; seq <= 500 && !won; seq++ {
		a.send(map[string]any{"type": "hint", "round_id": roundID})
		h := as[protocol.HintReply](t, a.expect(protocol.TypeHint))
		if h.Move == nil || h.Verdict != "winnable" || h.RoundID != roundID {
			t.Fatalf("hint %d = %+v, want a move of a winnable line", seq, h)
		}
		ans := withView[protocol.MoveOK](t, a.move(roundID, seq, *h.Move))
		if ans.Msg.Type != protocol.TypeMoveOK {
			t.Fatalf("the hinted move %s: %+v", *h.Move, ans.Msg)
		}
		won = ans.View.Status == engine.Won
	}
	if !won {
		t.Fatal("500 hinted moves did not win deal #1")
	}
	// The win ends the solo round: its result says the game had help.
	over := as[protocol.RoundOver](t, a.expect(protocol.TypeRoundOver))
	if e := over.Results[0]; e.Status != engine.Won || !e.Helped {
		t.Fatalf("result %+v: want won, helped", e)
	}

	b, _, sb, _ := startRace(t, base, map[string]any{"seed": "1", "countdown_s": 0, "max_players": 2})
	b.send(map[string]any{"type": "hint", "round_id": sb["round_id"]})
	if e := as[protocol.Error](t, b.expectAny(protocol.TypeHint, protocol.TypeError)); e.Type != protocol.TypeError || e.Code != protocol.CodeBadRequest {
		t.Fatalf("hint in a race = %+v, want error bad_request", e)
	}
}
