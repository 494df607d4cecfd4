//go:build solverlab

package solver

import "klondike/engine"

// SolveGameWithoutTwins is SolveGame with the twin-stack reduction
// switched off, to measure what the reduction is worth ('klondike
// winnability --compare-twins'). Its verdicts are SolveGame's where both
// decide; it takes more nodes. It exists only in a build tagged solverlab,
// so that the package's API stays what its users need.
func SolveGameWithoutTwins(g *engine.Game, b Budget) Result {
	return solveWith(g, b, searchOpts{noTwins: true})
}
