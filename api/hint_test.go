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
	for seq := 1; seq <= 3; seq++ {
		a.send(map[string]any{"type": "hint", "round_id": roundID})
		h := a.expect("hint")
		mv, ok := h["move"].(string)
		if !ok || h["verdict"] != "winnable" || h["round_id"] != roundID {
			t.Fatalf("hint %d = %v, want a move of a winnable line", seq, h)
		}
		if ans := a.move(roundID, seq, mv); ans["type"] != "move_ok" {
			t.Fatalf("the hinted move %s: %v", mv, ans)
		}
	}
	for {
		lb := a.expect("leaderboard")
		e := lb["entries"].([]any)[0].(map[string]any)
		if int(e["moves"].(float64)) < 3 {
			continue
		}
		if e["helped"] != true {
			t.Fatalf("leaderboard entry %v: want helped", e)
		}
		break
	}

	b, _, sb, _ := startRace(t, base, map[string]any{"seed": "1", "countdown_s": 0, "max_players": 2})
	b.send(map[string]any{"type": "hint", "round_id": sb["round_id"]})
	if e := b.expectAny("hint", "error"); e["type"] != "error" || e["code"] != "bad_request" {
		t.Fatalf("hint in a race = %v, want error bad_request", e)
	}
}
