package challenge_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/match"
)

// TestChallengesPerPlayerAcrossNodes: two nodes that share their
// allowances, as two nodes share Redis's, let a player make
// ChallengesPerHour challenges an hour in all, not that many on each.
func TestChallengesPerPlayerAcrossNodes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		a, b := challengeNode(t, mem, &rawSink{}), challengeNode(t, mem, &rawSink{})
		p := hello(t, a, "alice")
		if _, _, err := b.Hello(ctx, "", p.Token); err != nil {
			t.Fatal(err)
		}
		nodes := []*node{a, b}
		for i := range challenge.DefaultChallengesPerHour {
			if _, err := nodes[i%2].Create(ctx, p.PlayerID, match.PartialSettings{}, 0); err != nil {
				t.Fatalf("challenge %d: %v", i+1, err)
			}
		}
		for i, n := range nodes {
			if _, err := n.Create(ctx, p.PlayerID, match.PartialSettings{}, 0); !errors.Is(err, challenge.ErrTooManyChallenges) {
				t.Errorf("challenge %d, on node %d = %v; want ErrTooManyChallenges",
					challenge.DefaultChallengesPerHour+1, i, err)
			}
		}
		// One comes back each hour / ChallengesPerHour, for either node.
		time.Sleep(time.Hour / challenge.DefaultChallengesPerHour)
		if _, err := b.Create(ctx, p.PlayerID, match.PartialSettings{}, 0); err != nil {
			t.Fatalf("after a refill: %v", err)
		}
		if _, err := a.Create(ctx, p.PlayerID, match.PartialSettings{}, 0); !errors.Is(err, challenge.ErrTooManyChallenges) {
			t.Fatalf("after a refill used on the other node = %v, want ErrTooManyChallenges", err)
		}
	})
}
