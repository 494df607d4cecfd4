package match

import (
	"testing"

	"klondike/engine"
)

// TestMoveText holds moveText to Move.String for every move of the
// notation, and for malformed ones.
func TestMoveText(t *testing.T) {
	for k := range 16 {
		for from := range 256 {
			for to := range 16 {
				for _, count := range []int{0, 1, 2, 13, 14, 255} {
					m := engine.Move{Kind: engine.MoveKind(k), From: uint8(from), To: uint8(to), Count: uint8(count)}
					if got, want := moveText(m), m.String(); got != want {
						t.Fatalf("moveText(%+v) = %q, want %q", m, got, want)
					}
				}
			}
		}
	}
	for _, m := range []engine.Move{engine.PileToPile(3, 5, 0), engine.PileToPile(9, 8, 0), engine.WasteToPile(9), engine.RedoMove()} {
		if n := testing.AllocsPerRun(100, func() { _ = moveText(m) }); n != 0 {
			t.Errorf("moveText(%v) allocates %v times", m, n)
		}
	}
}
