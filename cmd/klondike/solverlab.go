//go:build solverlab

package main

import "klondike/engine/solver"

// solveWithoutTwins is the solver without its twin-stack reduction, for
// --compare-twins.
var solveWithoutTwins solveFunc = solver.SolveGameWithoutTwins
