//go:build race

package solver

// raceOn: the race detector slows the search about tenfold, so the
// heaviest tests do less.
const raceOn = true
