//go:build race

package solver

// raceOn: the race detector slows the search many times over, so the
// heaviest tests do less.
const raceOn = true
