package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSolveJSONReplays solves deals with --json and replays the moves with
// klondike replay under the same rules: the game must end won.
func TestSolveJSONReplays(t *testing.T) {
	for _, rules := range [][]string{
		{},
		{"--draw", "1"},
		{"--draw", "3", "--passes", "3"},
		{"--draw", "1", "--no-foundation-to-tableau", "--undo", "no_reveal"},
	} {
		for _, seed := range []string{"1", "3"} {
			args := append([]string{"solve", "--seed", seed, "--nodes", "200000", "--json"}, rules...)
			out, errOut, status := runCmd(t, "", args...)
			if status != 0 {
				t.Fatalf("%q: exit %d, stderr %q", args, status, errOut)
			}
			if strings.Count(out, "\n") != 1 {
				t.Fatalf("%q: want exactly one line, got %q", args, out)
			}
			var res solveJSON
			dec := json.NewDecoder(strings.NewReader(out))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&res); err != nil {
				t.Fatalf("%q: %v in %q", args, err, out)
			}
			if res.Moves == nil || res.Nodes <= 0 || res.MS < 0 {
				t.Errorf("%q: %+v", args, res)
			}
			switch res.Verdict {
			case "winnable":
				replayArgs := append([]string{"replay", "--seed", seed}, rules...)
				rout, rerr, rstatus := runCmd(t, strings.Join(res.Moves, "\n"), replayArgs...)
				ls := lines(rout)
				if rstatus != 0 || len(ls) == 0 || !strings.Contains(ls[len(ls)-1], `"won":true`) {
					t.Errorf("%q: the solution does not replay to a win: exit %d, %q, last line %q", args, rstatus, rerr, ls[len(ls)-1])
				}
			case "unwinnable", "unknown":
				if len(res.Moves) != 0 {
					t.Errorf("%q: %s with %d moves", args, res.Verdict, len(res.Moves))
				}
			default:
				t.Errorf("%q: verdict %q", args, res.Verdict)
			}
		}
	}
}

// TestSolveTextIsAMovesFile: the text output, comments included, is a moves
// file that klondike replay plays to a win.
func TestSolveTextIsAMovesFile(t *testing.T) {
	out, errOut, status := runCmd(t, "", "solve", "--seed", "1", "--draw", "1", "--nodes", "200000")
	if status != 0 {
		t.Fatalf("exit %d, stderr %q", status, errOut)
	}
	ls := lines(out)
	if len(ls) < 3 || !strings.HasPrefix(ls[0], "# draw 1,") || !strings.HasPrefix(ls[1], "# winnable: ") {
		t.Fatalf("output does not start with the rules and the verdict:\n%s", out)
	}
	rout, _, rstatus := runCmd(t, out, "replay", "--seed", "1", "--draw", "1")
	rl := lines(rout)
	if rstatus != 0 || !strings.Contains(rl[len(rl)-1], `"won":true`) {
		t.Errorf("replay of the text output: exit %d, last line %q", rstatus, rl[len(rl)-1])
	}
}

// TestSolveFromMoves solves the position that a moves file reaches: the
// line continues those moves.
func TestSolveFromMoves(t *testing.T) {
	played := "T6-F T7-F"
	out, errOut, status := runCmd(t, played, "solve", "--seed", "1", "--nodes", "200000", "--json", "-")
	if status != 0 {
		t.Fatalf("exit %d, stderr %q", status, errOut)
	}
	var res solveJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Verdict != "winnable" {
		t.Fatalf("%q: %v", out, err)
	}
	all := played + "\n" + strings.Join(res.Moves, " ")
	rout, _, rstatus := runCmd(t, all, "replay", "--seed", "1")
	rl := lines(rout)
	if rstatus != 0 || !strings.Contains(rl[len(rl)-1], `"won":true`) {
		t.Errorf("moves then solution: exit %d, last line %q", rstatus, rl[len(rl)-1])
	}
}

// TestSolveUnwinnableAndUnknown: deal 10 is stuck from the start in draw 3;
// one node decides nothing on deal 2.
func TestSolveUnwinnableAndUnknown(t *testing.T) {
	out, errOut, status := runCmd(t, "", "solve", "--seed", "10", "--json")
	if status != 0 || !strings.HasPrefix(out, `{"verdict":"unwinnable","moves":[],`) {
		t.Errorf("deal 10: exit %d, %q, stderr %q", status, out, errOut)
	}
	if !strings.Contains(errOut, "stuck") {
		t.Errorf("deal 10: stderr %q does not say the game is stuck", errOut)
	}
	out, _, status = runCmd(t, "", "solve", "--seed", "2", "--nodes", "1", "--json")
	if status != 0 || !strings.HasPrefix(out, `{"verdict":"unknown","moves":[],"nodes":1,`) {
		t.Errorf("deal 2 with one node: exit %d, %q", status, out)
	}
	out, _, _ = runCmd(t, "", "solve", "--seed", "2", "--nodes", "1")
	if !strings.Contains(out, "# unknown: the budget ran out") {
		t.Errorf("deal 2 with one node, text: %q", out)
	}
}

func TestSolveBadUsage(t *testing.T) {
	deal := writeFile(t, "bad.json", `{"tableau":[["QH"]],"stock":[]}`)
	for _, tc := range []struct {
		stdin  string
		args   []string
		status int
		want   string
	}{
		{"", []string{"solve"}, 2, "no deal"},
		{"", []string{"solve", "--seed", "x"}, 2, "want a deal number"},
		{"", []string{"solve", "--seed", "1", "--deal", deal}, 2, "not both"},
		{"", []string{"solve", "--deal", deal}, 2, "tableau has 1 piles"},
		{"", []string{"solve", "--seed", "1", "--budget", "-1s"}, 2, "must not be negative"},
		{"", []string{"solve", "--seed", "1", "--nodes", "-5"}, 2, "must not be negative"},
		{"", []string{"solve", "--seed", "1", "--budget", "soon"}, 2, "invalid value"},
		{"", []string{"solve", "--seed", "1", "--draw", "2"}, 2, "draw 2"},
		{"T1-T2", []string{"solve", "--seed", "1", "-"}, 1, "refused"},
		{"", []string{"solve", "--seed", "1", "a", "b"}, 2, "too many arguments"},
	} {
		out, errOut, status := runCmd(t, tc.stdin, tc.args...)
		if status != tc.status || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, status, out, errOut, tc.status, tc.want)
		}
	}
}

func TestSolveAndWinnabilityHelp(t *testing.T) {
	for cmd, flags := range map[string][]string{
		"solve":       {"--seed", "--deal", "--draw", "--passes", "--no-foundation-to-tableau", "--budget", "--nodes", "--json", "never for a player during a race"},
		"winnability": {"--from", "--count", "--draw", "--passes", "--budget", "--nodes", "--workers", "--out", "Wilson"},
	} {
		for _, args := range [][]string{{cmd, "--help"}, {"help", cmd}} {
			out, errOut, status := runCmd(t, "", args...)
			if status != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: klondike "+cmd) || !strings.Contains(out, "Examples:") {
				t.Errorf("%q: exit %d, stderr %q, stdout:\n%s", args, status, errOut, out)
			}
			for _, f := range flags {
				if !strings.Contains(out, f) {
					t.Errorf("%q does not mention %s", args, f)
				}
			}
		}
	}
}
