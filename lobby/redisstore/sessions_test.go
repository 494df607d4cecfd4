package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/lobby/storetest"
	"klondike/match"
)

// TestSessionsConformance runs the sessions suite on one server, sessions
// with a prefix of their own for each subtest.
func TestSessionsConformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	storetest.RunSessions(t, func(t *testing.T) lobby.Sessions {
		return redisstore.NewSessions(c, redistest.Prefix(t))
	})
}

// TestSessionsConformanceCluster runs the suite through a cluster client
// on the package's one-node cluster.
func TestSessionsConformanceCluster(t *testing.T) {
	t.Parallel()
	srv := redistest.Shared(t, redistest.WithCluster())
	c := srv.Client(t)
	if _, ok := c.(*redis.ClusterClient); !ok {
		t.Fatalf("client is a %T, want a cluster client", c)
	}
	storetest.RunSessions(t, func(t *testing.T) lobby.Sessions {
		return redisstore.NewSessions(c, redistest.Prefix(t))
	})
}

// TestSessionsAcrossNodes: a session saved through one client resumes
// through another on the same Redis and prefix, as on two nodes; the
// token itself is in no key, and a Redis that is down is unavailable.
func TestSessionsAcrossNodes(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	prefix := redistest.Prefix(t)
	// a's client does not retry, so that the outage below is seen at once.
	ca, err := redisstore.Dial(redisstore.Options{URL: rs.URL(), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	a, b := redisstore.NewSessions(ca, prefix), redisstore.NewSessions(rs.Client(t), prefix)
	ctx := context.Background()
	s := lobby.Session{PlayerID: "p1", Name: "alice", Token: "secret-token-of-alice"}
	if err := a.Save(ctx, s, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Resume(ctx, s.Token, time.Minute); err != nil || got != s {
		t.Fatalf("Resume on the other node = %+v, %v; want %+v", got, err, s)
	}
	if got, err := redisstore.NewSessions(rs.Client(t), redistest.Prefix(t)).Resume(ctx, s.Token, time.Minute); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("Resume under another prefix = %+v, %v; want match.ErrNotFound", got, err)
	}
	keys, err := rs.Client(t).Keys(ctx, prefix+"*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys under the prefix: %q, %v; want one", keys, err)
	}
	if strings.Contains(keys[0], s.Token) {
		t.Errorf("key %q holds the token", keys[0])
	}
	rs.Kill()
	if _, err := a.Resume(ctx, s.Token, time.Minute); !errors.Is(err, match.ErrUnavailable) {
		t.Errorf("Resume with Redis down = %v, want match.ErrUnavailable", err)
	}
	if err := a.Save(ctx, s, time.Minute); !errors.Is(err, match.ErrUnavailable) {
		t.Errorf("Save with Redis down = %v, want match.ErrUnavailable", err)
	}
}

// TestSessionsNotASession: a value under a session's key that does not
// read as a session resumes nothing.
func TestSessionsNotASession(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	prefix := redistest.Prefix(t)
	ss := redisstore.NewSessions(rs.Client(t), prefix)
	ctx := context.Background()
	if err := ss.Save(ctx, lobby.Session{Name: "no player", Token: "t"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, err := ss.Resume(ctx, "t", time.Minute); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("Resume of a session without a player = %+v, %v; want match.ErrNotFound", got, err)
	}
	keys, _ := rs.Client(t).Keys(ctx, prefix+"*").Result()
	for _, k := range keys {
		rs.Client(t).Set(ctx, k, "{not json", time.Minute)
	}
	if got, err := ss.Resume(ctx, "t", time.Minute); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("Resume of a value that is not JSON = %+v, %v; want match.ErrNotFound", got, err)
	}
}
