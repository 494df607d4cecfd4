package memstore_test

import (
	"testing"

	"klondike/lobby/memstore"
	"klondike/lobby/storetest"
	"klondike/match"
)

func TestAsyncConformance(t *testing.T) {
	t.Parallel()
	storetest.RunAsync(t, func(*testing.T) match.AsyncStore { return memstore.NewAsync() })
}

func TestAsyncConformanceShared(t *testing.T) {
	t.Parallel()
	s := memstore.NewAsync()
	storetest.RunAsync(t, func(*testing.T) match.AsyncStore { return s })
}

func TestRecordsConformance(t *testing.T) {
	t.Parallel()
	storetest.RunRecords(t, func(*testing.T) match.RecordStore { return memstore.NewAsync() })
}

func TestRecordsConformanceShared(t *testing.T) {
	t.Parallel()
	s := memstore.NewAsync()
	storetest.RunRecords(t, func(*testing.T) match.RecordStore { return s })
}
