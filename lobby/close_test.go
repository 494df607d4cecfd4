package lobby_test

import (
	"testing"

	"klondike/lobby"
	"klondike/lobby/memstore"
)

// TestCloseWhileAMatchIsBeingMade checks that Close skips a replica still
// being made (its entry has no match yet) instead of crashing on it, as it
// did when a node shut down in the middle of a quick-match rush.
func TestCloseWhileAMatchIsBeingMade(t *testing.T) {
	mem := memstore.NewBackends()
	l := lobby.New(lobby.Config{Store: mem.Store, Coord: mem.Coord, Players: mem.Players, Allowances: mem.Allowances, Sink: &sink{}})
	lobby.AddMatchBeingMade(l, "being-made")
	l.Close() // panicked on the nil match
	if !lobby.Closed(l) {
		t.Fatal("the lobby is not closed")
	}
}
