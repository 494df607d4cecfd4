package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"klondike/engine"
)

func dealUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: klondike deal --seed N

Deal prints the layout of deal number N, the deal of PySolFC's Klondike game
N, as one line of canonical layout JSON: the seven tableau piles bottom card
first (the last card of a pile is its face-up card), then the stock in the
order it is drawn.

Flags:
`+seedFlagHelp+`
Examples:
  klondike deal --seed 1
  klondike deal --seed 1 > layout.json && klondike replay --deal layout.json game.txt
`)
}

func runDeal(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("deal")
	seed := fs.String("seed", "", "deal number `N`")
	if ok, status := parseFlags(fs, args, dealUsage, stdout, stderr); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fs.Name(), fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if !isSet(fs, "seed") {
		return usageError(stderr, fs.Name(), errors.New("no deal: give --seed N"))
	}
	n, err := parseSeed(*seed)
	if err != nil {
		return usageError(stderr, fs.Name(), err)
	}
	b, err := engine.NumberedDeal(n).MarshalJSON()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return exitFailure
	}
	w := bufio.NewWriter(stdout)
	w.Write(b)
	w.WriteByte('\n')
	return flush(w, stderr, fs.Name(), exitOK)
}

// flush flushes w and returns status, or reports the write error and returns
// exitFailure.
func flush(w *bufio.Writer, stderr io.Writer, cmd string, status int) int {
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "%s: writing output: %v\n", cmd, err)
		return exitFailure
	}
	return status
}
