package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"klondike/engine"
	"klondike/engine/solver"
)

// defaultSolveBudget is the time klondike solve gives the solver when no
// --budget is set: long enough for nearly every deal (most take a few
// milliseconds), short enough that the few hardest ones end as unknown.
const defaultSolveBudget = 10 * time.Second

// solveMovesPerLine is how many moves a line of klondike solve's text
// output holds.
const solveMovesPerLine = 16

// budgetFlagsHelp documents the solver's budget flags.
const budgetFlagsHelp = `  --budget DURATION
                  the most time the solver may take, such as 2s or 500ms;
                  0 for no time limit (default %v)
  --nodes N       the most positions the solver may expand (default 0: no
                  limit). A node budget makes the verdict, the moves and
                  the node count the same on every run and machine; a time
                  budget cuts wherever the clock says
`

func solveUsage(w io.Writer) {
	fmt.Fprintf(w, `Usage: klondike solve [--seed N | --deal FILE] [rule flags] [--budget DURATION] [--nodes N] [--json] [MOVES_FILE | -]

Solve decides whether a deal can be won under the rules, seeing every card
(the face-down ones and the order of the stock), and prints a winning line
when there is one. With MOVES_FILE ('-' for stdin) it first plays those
moves and solves the position they reach; the line then continues them.

The verdict is one of:
  winnable    a winning line was found; it has been replayed through the
              engine to a won game
  unwinnable  the search went through every reachable position: no line wins
  unknown     the budget ran out first

The text output is a moves file that 'klondike replay' reads as it is: the
verdict, the number of moves, the nodes searched and the time on comment
lines ('#'), then the winning line, %d moves a line.

With --json it prints exactly one JSON object instead:
  {"verdict":"winnable","moves":["T5-F","D",…],"nodes":1234,"ms":5}
"moves" is empty unless the verdict is winnable; "ms" is the solver's time
in whole milliseconds.

The solver sees cards that a player cannot: it is for checking deals and
practice, never for a player during a race. It plays klondike and
thumb_and_pouch; for whitehead and double_klondike it has no solver yet,
and solve says so (exit status 2).

`+movesFileHelp+`
`+gameFlagsHelp+`
Solver:
`+budgetFlagsHelp+`  --json          print one JSON object instead of text

Exit status: 0 when the solver ran (whatever its verdict), 1 when a move of
MOVES_FILE was refused or the output could not be written, 2 for bad usage
or a bad deal or moves file.

Examples:
  klondike solve --seed 1
  klondike solve --seed 1 --draw 1 --json
  klondike solve --seed 1 --game thumb_and_pouch
  klondike solve --seed 7 --passes 3 --budget 30s > win.txt && klondike replay --seed 7 --passes 3 win.txt
  klondike solve --deal layout.json --nodes 1000000 --json
  echo "T6-F D" | klondike solve --seed 1 -
`, solveMovesPerLine, defaultSolveBudget)
}

// solveJSON is klondike solve's --json output.
type solveJSON struct {
	Verdict string   `json:"verdict"`
	Moves   []string `json:"moves"`
	Nodes   int64    `json:"nodes"`
	MS      int64    `json:"ms"`
}

// budgetFlags holds the solver's budget flags.
type budgetFlags struct {
	time  time.Duration
	nodes int64
}

// addBudgetFlags defines --budget and --nodes on fs with def as the time
// budget's default.
func addBudgetFlags(fs *flag.FlagSet, def time.Duration) *budgetFlags {
	b := &budgetFlags{}
	fs.DurationVar(&b.time, "budget", def, "time the solver may take (0: no limit)")
	fs.Int64Var(&b.nodes, "nodes", 0, "positions the solver may expand (0: no limit)")
	return b
}

// budget returns the solver budget the flags ask for, or an error for a
// negative value.
func (b *budgetFlags) budget() (solver.Budget, error) {
	switch {
	case b.time < 0:
		return solver.Budget{}, fmt.Errorf("--budget %v: must not be negative", b.time)
	case b.nodes < 0:
		return solver.Budget{}, fmt.Errorf("--nodes %d: must not be negative", b.nodes)
	}
	return solver.Budget{Time: b.time, Nodes: b.nodes}, nil
}

func runSolve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("solve")
	gf := addGameFlags(fs)
	bf := addBudgetFlags(fs, defaultSolveBudget)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if ok, status := parseFlags(fs, args, solveUsage, stdout, stderr); !ok {
		return status
	}
	budget, err := bf.budget()
	if err != nil {
		return usageError(stderr, fs.Name(), err)
	}
	if err := gf.checkSolvable(); err != nil {
		return usageError(stderr, fs.Name(), err)
	}
	g, err := gf.newGame(fs)
	if err != nil {
		return fail(stderr, fs, err)
	}
	noteTerminalInput(fs, stdin, stderr, false)
	toks, err := readMoves(fs.Args(), stdin, false)
	if err != nil {
		return fail(stderr, fs, err)
	}
	refused := playMoves(g, toks, func(i int, tok moveToken, m engine.Move, ev engine.Events, err error) {
		if err != nil {
			fmt.Fprintf(stderr, "%s: move %d (%q, line %d) refused: %v\n", fs.Name(), i, tok.text, tok.line, err)
		}
	})
	if refused > 0 {
		fmt.Fprintf(stderr, "%s: %d moves refused; not solving a position the moves file does not describe\n", fs.Name(), refused)
		return exitFailure
	}
	if s := g.Status(); s.Over() && s != engine.Won {
		// The engine ends a game as stuck when no useful move is left: the
		// solver still proves it, but say why there is nothing to play.
		fmt.Fprintf(stderr, "%s: the game is %v\n", fs.Name(), s)
	}

	res := solver.SolveGame(g, budget)
	moves := make([]string, len(res.Moves))
	for i, m := range res.Moves {
		moves[i] = m.String()
	}
	ms := res.Elapsed.Milliseconds()
	w := bufio.NewWriter(stdout)
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(solveJSON{Verdict: res.Verdict.String(), Moves: moves, Nodes: res.Nodes, MS: ms})
		return flush(w, stderr, fs.Name(), exitOK)
	}
	fmt.Fprintf(w, "# %s\n", g.Rules())
	switch res.Verdict {
	case solver.Winnable:
		fmt.Fprintf(w, "# winnable: %d moves; %d nodes searched in %d ms\n", len(moves), res.Nodes, ms)
	case solver.Unwinnable:
		fmt.Fprintf(w, "# unwinnable: every reachable position searched (%d nodes in %d ms)\n", res.Nodes, ms)
	default:
		fmt.Fprintf(w, "# unknown: the budget ran out after %d nodes in %d ms\n", res.Nodes, ms)
	}
	for len(moves) > 0 {
		n := min(len(moves), solveMovesPerLine)
		w.WriteString(strings.Join(moves[:n], " "))
		w.WriteByte('\n')
		moves = moves[n:]
	}
	return flush(w, stderr, fs.Name(), exitOK)
}

// checkSolvable returns an error when --game names a game the solver does
// not play (solver.Supports); a bad name is left to rules to report.
func (f *gameFlags) checkSolvable() error {
	v, err := f.variant()
	if err != nil || solver.Supports(v) {
		return nil
	}
	return fmt.Errorf("--game %v: %w (it plays klondike and thumb_and_pouch)", v, solver.ErrUnsupportedGame)
}

// errNoDealFlags is the error of a command that solves numbered deals by
// range when it is given a single deal.
var errNoDealFlags = errors.New("--seed and --deal do not apply: give the deals with --from and --count")
