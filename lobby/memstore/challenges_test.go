package memstore_test

import (
	"testing"

	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/lobby/storetest"
)

func TestChallengesConformance(t *testing.T) {
	t.Parallel()
	storetest.RunChallenges(t, func(*testing.T) challenge.Store { return memstore.NewChallenges() })
}

func TestChallengesConformanceShared(t *testing.T) {
	t.Parallel()
	s := memstore.NewChallenges()
	storetest.RunChallenges(t, func(*testing.T) challenge.Store { return s })
}

func TestRecordsConformance(t *testing.T) {
	t.Parallel()
	storetest.RunRecords(t, func(*testing.T) challenge.RecordStore { return memstore.NewChallenges() })
}

func TestRecordsConformanceShared(t *testing.T) {
	t.Parallel()
	s := memstore.NewChallenges()
	storetest.RunRecords(t, func(*testing.T) challenge.RecordStore { return s })
}
