package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"klondike/engine"
)

// sampleRound builds a server-style replay of deal #1 with two players:
// alice played three moves and resigned after 20 s, bob timed out at 45 s
// without moving.
func sampleRound(t *testing.T) map[string]any {
	t.Helper()
	salt := "00112233445566778899aabbccddeeff"
	sum := sha256.Sum256([]byte(salt + ":1"))
	rules := engine.DefaultRules()
	rules.Undo = engine.UndoNoReveal
	g, _ := engine.NewGame(engine.NumberedDeal(1), rules)
	for _, m := range []string{"T6-F", "T7-F", "D"} {
		mv, _ := engine.ParseMove(m)
		if _, err := g.Apply(mv); err != nil {
			t.Fatal(err)
		}
	}
	aliceScore := engine.TimedScore(rules.Scoring, g.Score(), 20*time.Second, false)
	return map[string]any{
		"round_id": "r1", "seed": "1", "salt": salt, "commitment": hex.EncodeToString(sum[:]),
		"rules": rules, "layout": engine.NumberedDeal(1),
		"players": []map[string]any{
			{"player_id": "a", "name": "alice", "status": "resigned", "score": aliceScore, "elapsed_ms": 20000,
				"moves": []map[string]any{{"seq": 1, "move": "T6-F", "at_ms": 1000}, {"seq": 2, "move": "T7-F", "at_ms": 2000}, {"seq": 3, "move": "D", "at_ms": 3000}}},
			{"player_id": "b", "name": "bob", "status": "timed_out", "score": 0, "elapsed_ms": 45000, "moves": []map[string]any{}},
		},
	}
}

func runRound(t *testing.T, rep map[string]any) (int, string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "round.json")
	b, _ := json.Marshal(rep)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"replay", "--round", path}, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestReplayRoundVerifies(t *testing.T) {
	code, out, errs := runRound(t, sampleRound(t))
	if code != 0 {
		t.Fatalf("exit %d, stderr %s, out:\n%s", code, errs, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got:\n%s", out)
	}
	if !strings.Contains(lines[0], `"commitment_ok":true`) || !strings.Contains(lines[0], `"layout_ok":true`) {
		t.Errorf("deal line = %s", lines[0])
	}
	if !strings.Contains(lines[1], `"name":"alice"`) || !strings.Contains(lines[1], `"status":"resigned"`) || !strings.Contains(lines[1], `"verified":true`) {
		t.Errorf("alice's line = %s", lines[1])
	}
}

func TestReplayRoundCatchesTampering(t *testing.T) {
	for name, tamper := range map[string]func(map[string]any){
		"score":      func(r map[string]any) { r["players"].([]map[string]any)[0]["score"] = 9999 },
		"commitment": func(r map[string]any) { r["salt"] = "ff" },
		"move": func(r map[string]any) {
			r["players"].([]map[string]any)[0]["moves"].([]map[string]any)[1]["move"] = "T1-T2"
		},
		"layout": func(r map[string]any) { r["seed"] = "2" },
	} {
		t.Run(name, func(t *testing.T) {
			rep := sampleRound(t)
			tamper(rep)
			if code, out, _ := runRound(t, rep); code != 1 {
				t.Errorf("exit %d, want 1; out:\n%s", code, out)
			}
		})
	}
	var out, errb bytes.Buffer
	if code := run([]string{"replay", "--round", "x.json", "--seed", "1"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("--round with --seed: exit %d, want 2", code)
	}
	if code := run([]string{"replay", "--round", filepath.Join(t.TempDir(), "missing.json")}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("missing round file: exit %d, want 2", code)
	}
}
