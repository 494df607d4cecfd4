//go:build !race

package solver

const raceOn = false
