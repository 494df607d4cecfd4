package memstore_test

import (
	"testing"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/lobby/storetest"
)

func TestAllowancesConformance(t *testing.T) {
	t.Parallel()
	a := memstore.NewAllowances()
	storetest.RunAllowances(t, func(*testing.T) lobby.Allowances { return a })
}
