package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"klondike/engine"
)

// engineMoves returns the canonical legal moves of deal n under r after the
// moves, as the engine lists them.
func engineMoves(t *testing.T, n uint64, r engine.Rules, moves string) []string {
	t.Helper()
	g, err := engine.NewGame(engine.NumberedDeal(n), r)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range strings.Fields(moves) {
		m, err := engine.ParseMove(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Apply(m); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	var out []string
	for _, m := range g.LegalMoves(nil) {
		out = append(out, m.String())
	}
	return out
}

func TestMoves(t *testing.T) {
	noReveal := engine.DefaultRules()
	noReveal.Undo = engine.UndoNoReveal
	draw1 := engine.DefaultRules()
	draw1.Draw = 1
	for _, tc := range []struct {
		name  string
		args  []string
		rules engine.Rules
		moves string
		want  []string
	}{
		// Deal #1 opens with its aces on T6 and T7 and nothing else to build.
		{"start", nil, engine.DefaultRules(), "", []string{"D", "T6-F", "T7-F"}},
		// The aces up turn QD and JS: JS goes on QH or QD; U is allowed.
		{"aces up", nil, engine.DefaultRules(), "T6-F T7-F", []string{"D", "T7-T1", "T7-T6", "U"}},
		// Undo no_reveal: T7-F turned JS face up, so no U.
		{"no reveal", []string{"--undo", "no_reveal"}, noReveal, "T6-F T7-F", []string{"D", "T7-T1", "T7-T6"}},
		// 9D on TS, 3H on 4C, then D shows 4D, which fits 5C and 5S; JS
		// can still move from QD to QH.
		{"waste", nil, engine.DefaultRules(), "T6-F T7-F T7-T6 T7-T2 T7-T4 D",
			[]string{"D", "W-T3", "W-T7", "T6-T1", "U"}},
		// Draw 1: D shows 4H, which fits 5S once it is turned.
		{"draw 1", []string{"--draw", "1"}, draw1, "T6-F T7-F T7-T6 T7-T2 T7-T4 D", nil},
		{"recycle", []string{"--draw", "1"}, draw1, strings.Repeat("D ", 24), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := engineMoves(t, 1, tc.rules, tc.moves)
			if tc.want != nil && !slices.Equal(want, tc.want) {
				t.Fatalf("engine lists %q, test expects %q", want, tc.want)
			}
			for _, how := range []string{"file", "stdin"} {
				args := append([]string{"moves", "--seed", "1"}, tc.args...)
				stdin := ""
				if tc.moves != "" {
					if how == "file" {
						args = append(args, writeFile(t, "game.txt", "# moves\n"+tc.moves+"\n"))
					} else {
						args, stdin = append(args, "-"), tc.moves
					}
				}
				out, errOut, status := runCmd(t, stdin, args...)
				if status != 0 || errOut != "" {
					t.Errorf("%s: exit %d, stderr %q", how, status, errOut)
				}
				if got := lines(out); !slices.Equal(got, want) {
					t.Errorf("%s: moves %q, want %q", how, got, want)
				}
			}
		})
	}
}

// TestMovesReadStdinAsReplayDoes checks the one convention of moves and
// replay: the moves come from stdin when no file is given or the file is
// "-", from the file otherwise, and nothing else reads stdin.
func TestMovesReadStdinAsReplayDoes(t *testing.T) {
	file := writeFile(t, "game.txt", "T6-F T7-F\n")
	const played = "T6-F T7-F"
	for _, cmd := range []string{"moves", "replay"} {
		for _, c := range []struct {
			name      string
			file      []string // the arguments after the flags
			stdin     string
			readStdin bool
		}{
			{"no file", nil, played, true},
			{"-", []string{"-"}, played, true},
			{"a file", []string{file}, "", false},
			{"no file, empty stdin", nil, "", true},
		} {
			args := append([]string{cmd, "--seed", "1"}, c.file...)
			var stdin io.Reader = strings.NewReader(c.stdin)
			if !c.readStdin {
				stdin = failReader{t}
			}
			var out, errOut strings.Builder
			if status := run(args, stdin, &out, &errOut); status != 0 {
				t.Errorf("%q: exit %d, stderr %q", args, status, errOut.String())
				continue
			}
			wantPlayed := c.stdin != "" || !c.readStdin
			switch cmd {
			case "moves":
				want := engineMoves(t, 1, engine.DefaultRules(), "")
				if wantPlayed {
					want = engineMoves(t, 1, engine.DefaultRules(), played)
				}
				if got := lines(out.String()); !slices.Equal(got, want) {
					t.Errorf("%q with stdin %q: moves %q, want %q", args, c.stdin, got, want)
				}
			case "replay":
				want := float64(0)
				if wantPlayed {
					want = 2
				}
				if sum := summaryOf(t, out.String()); sum["moves"] != want {
					t.Errorf("%q with stdin %q: summary %v, want %v moves", args, c.stdin, sum, want)
				}
			}
		}
	}
}

func TestMovesRefused(t *testing.T) {
	out, errOut, status := runCmd(t, "T6-F\nX9 T1-T2\nT7-F\n", "moves", "--seed", "1", "-")
	if status != 1 {
		t.Errorf("exit %d, want 1", status)
	}
	if want := engineMoves(t, 1, engine.DefaultRules(), "T6-F T7-F"); !slices.Equal(lines(out), want) {
		t.Errorf("moves %q, want %q", lines(out), want)
	}
	for _, w := range []string{`move 2 ("X9", line 2)`, "bad move", `move 3 ("T1-T2", line 2)`, "QH on TS"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr %q does not say %q", errOut, w)
		}
	}
	if n := len(lines(errOut)); n != 2 {
		t.Errorf("%d stderr lines, want one for each of the 2 refused moves", n)
	}
}

func TestMovesGameOver(t *testing.T) {
	deal := writeFile(t, "won.json", wonDeal)
	out, errOut, status := runCmd(t, wonMoves, "moves", "--deal", deal, "--draw", "1", "-")
	if status != 0 || errOut != "" || out != "" {
		t.Errorf("exit %d, out %q, stderr %q; want 0 and no moves after a win", status, out, errOut)
	}
}
