package memstore_test

import (
	"testing"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/lobby/storetest"
)

func TestSessionsConformance(t *testing.T) {
	t.Parallel()
	storetest.RunSessions(t, func(*testing.T) lobby.Sessions { return memstore.NewSessions() })
}

func TestSessionsConformanceShared(t *testing.T) {
	t.Parallel()
	s := memstore.NewSessions()
	storetest.RunSessions(t, func(*testing.T) lobby.Sessions { return s })
}
