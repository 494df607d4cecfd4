package main

import (
	"bufio"
	"fmt"
	"io"

	"klondike/engine"
)

func movesUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: klondike moves [--seed N | --deal FILE] [rule flags] [MOVES_FILE | -]

Moves plays the moves of MOVES_FILE (stdin when it is '-' or not given, as
for 'klondike replay') on a deal, then prints every legal move of the
position reached, one a line in canonical notation, in the engine's order:
D, R, W-F, W-Tn, Tn-F, Tn-Tm, Fs-Tn, U (Y, the redo, is never listed). In
thumb_and_pouch and whitehead, where an empty pile takes any part of a run,
a run's move to an empty pile is followed by Tn:k-Tm for each shorter part.
It prints nothing when the game is over. A refused move is reported on stderr, changes nothing, and the replay
goes on. For the opening position give no moves: an empty file, or stdin
from /dev/null; on a terminal, type the moves and end them with Ctrl-D.

`+movesFileHelp+`
`+gameFlagsHelp+`
Exit status: 0 when every move was legal, 1 when any was refused, 2 for bad
usage or a bad deal or moves file.

Examples:
  klondike moves --seed 1 < /dev/null
  klondike moves --seed 1 game.txt
  echo "T6-F T7-F" | klondike moves --seed 1 --undo no_reveal
  klondike moves --seed 1 --game double_klondike < /dev/null
`)
}

func runMoves(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("moves")
	gf := addGameFlags(fs)
	if ok, status := parseFlags(fs, args, movesUsage, stdout, stderr); !ok {
		return status
	}
	g, err := gf.newGame(fs)
	if err != nil {
		return fail(stderr, fs, err)
	}
	noteTerminalInput(fs, stdin, stderr, true)
	toks, err := readMoves(fs.Args(), stdin, true)
	if err != nil {
		return fail(stderr, fs, err)
	}
	refused := playMoves(g, toks, func(i int, tok moveToken, m engine.Move, ev engine.Events, err error) {
		if err != nil {
			fmt.Fprintf(stderr, "%s: move %d (%q, line %d) refused: %v\n", fs.Name(), i, tok.text, tok.line, err)
		}
	})
	w := bufio.NewWriter(stdout)
	for _, m := range g.LegalMoves(nil) {
		w.WriteString(m.String())
		w.WriteByte('\n')
	}
	status := exitOK
	if refused > 0 {
		status = exitFailure
	}
	return flush(w, stderr, fs.Name(), status)
}
