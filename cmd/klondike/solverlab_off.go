//go:build !solverlab

package main

// solveWithoutTwins is nil: the solver's measurement hooks are only in a
// build tagged solverlab (solverlab.go), so --compare-twins is refused.
var solveWithoutTwins solveFunc
