package memstore_test

import (
	"testing"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/lobby/storetest"
)

func TestRatingsConformance(t *testing.T) {
	t.Parallel()
	r := memstore.NewRatings()
	storetest.RunRatings(t, func(*testing.T) lobby.Ratings { return r })
}
