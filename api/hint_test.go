package api_test

import (
	"testing"

	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/engine"
)

// TestHintSoloOnly asks for hints: in a solo round the solver's next move
// comes back, plays, and the game is marked as played with help; in a
// round with a rival the request is refused.
func TestHintSoloOnly(t *testing.T) {
	_, base := testServer(t)
	a := apitest.Dial(t, base)
	a.Hello("alice")
	info := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch,
		Settings: protocol.PartialSettings{Seed: new("1"), CountdownS: new(0), MaxPlayers: new(1)}}).Match
	a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	roundID := apitest.Expect[protocol.RoundStarted](a).RoundID
	// Following the hints wins: while the player follows the line of the
	// last hint, the next hint is its next move (no new search that could
	// lead elsewhere).
	won := false
	for seq := 1; seq <= 500 && !won; seq++ {
		h := apitest.Request[protocol.HintReply](a, protocol.Hint{Type: protocol.TypeHint, RoundID: roundID})
		if h.Move == nil || h.Verdict != "winnable" || h.RoundID != roundID {
			t.Fatalf("hint %d = %+v, want a move of a winnable line", seq, h)
		}
		won = viewOf(t, moveOK(t, a, roundID, seq, *h.Move).View).Status == engine.Won
	}
	if !won {
		t.Fatal("500 hinted moves did not win deal #1")
	}
	// The win ends the solo round: its result says the game had help.
	over := apitest.Expect[protocol.RoundOver](a)
	if e := over.Results[0]; e.Status != engine.Won || !e.Helped {
		t.Fatalf("result %+v: want won, helped", e)
	}

	b, _, sb, _ := startRace(t, base, protocol.PartialSettings{Seed: new("1"), CountdownS: new(0), MaxPlayers: new(2)})
	if e := apitest.Request[protocol.Error](b, protocol.Hint{Type: protocol.TypeHint, RoundID: sb.RoundID}); e.Code != protocol.CodeBadRequest {
		t.Fatalf("hint in a race = %+v, want error bad_request", e)
	}
}
