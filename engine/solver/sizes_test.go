package solver

import (
	"flag"
	"testing"
)

// long asks for the large sizes of the checks that sample positions: more
// positions, deals and exhaustive-search positions, for a run of minutes
// after a change to the search (go test ./engine/solver -long).
var long = flag.Bool("long", false, "run the sampling checks at their large sizes (minutes)")

// A size is how much a test samples, by the kind of run: with -long, by
// default, with -short, and under the race detector (which slows the
// search many times over).
type size struct {
	long, normal, short, race int
}

// get returns the size for this run.
func (s size) get() int {
	switch {
	case raceOn:
		return s.race
	case testing.Short():
		return s.short
	case *long:
		return s.long
	}
	return s.normal
}
