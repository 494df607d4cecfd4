package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/lobby/storetest"
	"klondike/match"
)

// The conformance suites on the package's shared Redis Cluster of three
// masters with a replica each: the keys of a test spread over the
// masters, and a pipeline of appends is split by node.

// realCluster returns the shared cluster and a client of it.
func realCluster(t *testing.T) (*redistest.Cluster, *redis.ClusterClient) {
	t.Helper()
	cl := redistest.SharedCluster(t)
	return cl, cl.Client(t)
}

func TestConformanceRealCluster(t *testing.T) {
	t.Parallel()
	_, c := realCluster(t)
	storetest.Run(t, func(t *testing.T) match.Store {
		return redisstore.New(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	})
}

func TestCoordConformanceRealCluster(t *testing.T) {
	t.Parallel()
	_, c := realCluster(t)
	storetest.RunCoord(t, func(t *testing.T) lobby.Coord {
		return redisstore.NewCoord(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	})
}

func TestChallengesConformanceRealCluster(t *testing.T) {
	t.Parallel()
	_, c := realCluster(t)
	storetest.RunChallenges(t, func(t *testing.T) challenge.Store { return redisstore.NewChallenges(c, redistest.Prefix(t)) })
}

func TestRecordsConformanceRealCluster(t *testing.T) {
	t.Parallel()
	_, c := realCluster(t)
	storetest.RunRecords(t, func(t *testing.T) challenge.RecordStore { return redisstore.NewChallenges(c, redistest.Prefix(t)) })
}

// TestRealClusterSpreadsRounds: rounds played at once through one store
// land on every master, each round's keys on one, and every append of the
// batches that mixed them is in its log.
func TestRealClusterSpreadsRounds(t *testing.T) {
	t.Parallel()
	cl, c := realCluster(t)
	prefix := redistest.Prefix(t)
	s := redisstore.New(c, redisstore.Config{Prefix: prefix})
	defer s.Close()
	ctx := context.Background()
	const rounds, moves = 24, 20
	var wg sync.WaitGroup
	errs := make(chan error, rounds)
	for r := range rounds {
		wg.Go(func() {
			id := fmt.Sprintf("r%d", r)
			for seq := 1; seq <= moves; seq++ {
				if err := s.Append(ctx, id, 0, entry(seq), standing("p", seq)); err != nil {
					errs <- fmt.Errorf("round %s, seq %d: %w", id, seq, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	masters := map[string]bool{}
	for r := range rounds {
		id := fmt.Sprintf("r%d", r)
		log, err := s.Log(ctx, id, "p")
		if err != nil || len(log) != moves {
			t.Fatalf("round %s: %d entries, %v; want %d", id, len(log), err, moves)
		}
		var master string
		for _, name := range []string{"log:p", "standings", "epochs", "rank", "rankm"} {
			m, err := cl.MasterOf(prefix + "{round:" + id + "}:" + name)
			if err != nil {
				t.Fatal(err)
			}
			if master != "" && m.Addr() != master {
				t.Fatalf("round %s's keys are on %s and %s", id, master, m.Addr())
			}
			master = m.Addr()
		}
		masters[master] = true
	}
	if len(masters) != 3 {
		t.Fatalf("%d rounds on %d masters, want all 3", rounds, len(masters))
	}
}
