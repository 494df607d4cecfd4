package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"

	"klondike/engine"
)

func dealUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: klondike deal [--game GAME] --seed N
       klondike deal N [--game GAME]

Deal prints the layout of deal number N of the game as one line of
canonical layout JSON: the tableau piles bottom card first (the last card of
a pile is its face-up card), then the stock in the order it is drawn. It is
PySolFC's game N: its Klondike deal in Klondike, Thumb and Pouch and
Whitehead, which deal alike (Whitehead's foundations start with the first
stock card), and its Double Klondike deal, nine piles of two decks, in
Double Klondike.

Flags:
`+seedFlagHelp+gameFlagHelp+`
Examples:
  klondike deal --seed 1
  klondike deal 1 --game double_klondike
  klondike deal --seed 1 > layout.json && klondike replay --deal layout.json game.txt
`)
}

func runDeal(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("deal")
	seed := fs.String("seed", "", "deal number `N`")
	gameName := fs.String("game", engine.Klondike.String(), "the `GAME`")
	if ok, status := parseFlags(fs, args, dealUsage, stdout, stderr); !ok {
		return status
	}
	seedSet, positional := isSet(fs, "seed"), false
	if !seedSet && fs.NArg() > 0 {
		// The deal number given as an argument; flags may follow it.
		*seed, seedSet, positional = fs.Arg(0), true, true
		if ok, status := parseFlags(fs, fs.Args()[1:], dealUsage, stdout, stderr); !ok {
			return status
		}
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fs.Name(), fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if !seedSet {
		return usageError(stderr, fs.Name(), errors.New("no deal: give --seed N"))
	}
	n, err := parseSeed(*seed)
	if err != nil {
		if positional {
			err = fmt.Errorf("deal number %q: want a whole number from 0 to %d", *seed, uint64(math.MaxUint64))
		}
		return usageError(stderr, fs.Name(), err)
	}
	game, err := engine.ParseVariant(*gameName)
	if err != nil {
		return usageError(stderr, fs.Name(), fmt.Errorf("--game %q: want klondike, thumb_and_pouch, whitehead or double_klondike", *gameName))
	}
	b, err := engine.NumberedDealFor(game, n).MarshalJSON()
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
