package memstore_test

import (
	"testing"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/lobby/storetest"
)

func TestPlayersConformance(t *testing.T) {
	t.Parallel()
	storetest.RunPlayers(t, func(*testing.T) lobby.Players { return memstore.NewPlayers() })
}

func TestPlayersConformanceShared(t *testing.T) {
	t.Parallel()
	ps := memstore.NewPlayers()
	storetest.RunPlayers(t, func(*testing.T) lobby.Players { return ps })
}
