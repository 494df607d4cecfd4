package api_test

import (
	"testing"
)

// TestHintSoloOnly asks for hints: in a solo round the solver's next move
// comes back, plays, and the game is marked as played with help; in a
// round with a rival the request is refused.
func TestHintSoloOnly(t *testing.T) {
	_, base := testServer(t)
	a := dial(t, base)
	a.hello("alice")
	a.send(map[string]any{"type": "create_match", "settings": map[string]any{"seed": "1", "countdown_s": 0, "max_players": 1}})
	info := a.expect("match")["match"].(map[string]any)
	a.send(map[string]any{"type": "start_match", "match_id": info["id"]})
	roundID := a.expect("round_started")["round_id"].(string)
	// Following the hints wins: while the player follows the line of the
	// last hint, the next hint is its next move (no new search that could
	// lead elsewhere).
	won := false
	for seq := 1; seq <= 500 && !won; seq++ {
		a.send(map[string]any{"type": "hint", "round_id": roundID})
		h := a.expect("hint")
		mv, ok := h["move"].(string)
		if !ok || h["verdict"] != "winnable" || h["round_id"] != roundID {
			t.Fatalf("hint %d = %v, want a move of a winnable line", seq, h)
		}
		ans := a.move(roundID, seq, mv)
		if ans["type"] != "move_ok" {
			t.Fatalf("the hinted move %s: %v", mv, ans)
		}
		won = ans["view"].(map[string]any)["status"] == "won"
	}
	if !won {
		t.Fatal("500 hinted moves did not win deal #1")
	}
	// The win ends the solo round: its result says the game had help.
	over := a.expect("round_over")
	if e := over["results"].([]any)[0].(map[string]any); e["status"] != "won" || e["helped"] != true {
		t.Fatalf("result %v: want won, helped", e)
	}

	b, _, sb, _ := startRace(t, base, map[string]any{"seed": "1", "countdown_s": 0, "max_players": 2})
	b.send(map[string]any{"type": "hint", "round_id": sb["round_id"]})
	if e := b.expectAny("hint", "error"); e["type"] != "error" || e["code"] != "bad_request" {
		t.Fatalf("hint in a race = %v, want error bad_request", e)
	}
}
