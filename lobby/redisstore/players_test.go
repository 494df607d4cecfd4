package redisstore_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/lobby/storetest"
	"klondike/match"
)

// TestPlayersConformance runs the players' suite on one server, players
// with a prefix of their own for each subtest.
func TestPlayersConformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	storetest.RunPlayers(t, func(t *testing.T) lobby.Players {
		return redisstore.NewPlayers(c, redistest.Prefix(t))
	})
}

// TestPlayersConformanceCluster runs the suite through a cluster client
// on the package's one-node cluster.
func TestPlayersConformanceCluster(t *testing.T) {
	t.Parallel()
	srv := redistest.Shared(t, redistest.WithCluster())
	c := srv.Client(t)
	if _, ok := c.(*redis.ClusterClient); !ok {
		t.Fatalf("client is a %T, want a cluster client", c)
	}
	storetest.RunPlayers(t, func(t *testing.T) lobby.Players {
		return redisstore.NewPlayers(c, redistest.Prefix(t))
	})
}

// TestPlayersConformanceRealCluster runs the suite on the shared cluster
// of three masters, where a player's keys and those of its credentials and
// passkeys are on different masters.
func TestPlayersConformanceRealCluster(t *testing.T) {
	t.Parallel()
	_, c := realCluster(t)
	storetest.RunPlayers(t, func(t *testing.T) lobby.Players {
		return redisstore.NewPlayers(c, redistest.Prefix(t))
	})
}

// TestPlayersAcrossNodes: a player made through one client resumes
// through another on the same Redis and prefix, as on two nodes, and what
// one node changes the other sees; a Redis that is down is unavailable.
func TestPlayersAcrossNodes(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	prefix := redistest.Prefix(t)
	// a's client does not retry, so that the outage below is seen at once.
	ca, err := redisstore.Dial(redisstore.Options{URL: rs.URL(), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	a, b := redisstore.NewPlayers(ca, prefix), redisstore.NewPlayers(rs.Client(t), prefix)
	ctx := context.Background()
	p := lobby.Player{ID: "3f2a9c0d11e4b7a8", Name: "Tess", Created: time.Now()}
	if err := a.Create(ctx, p, "digest-of-tess", time.Minute); err != nil {
		t.Fatal(err)
	}
	got, err := b.Resume(ctx, "digest-of-tess", time.Minute)
	if err != nil || got.ID != p.ID || got.Name != p.Name || !got.Created.Equal(p.Created) {
		t.Fatalf("Resume on the other node = %+v, %v; want %+v", got, err, p)
	}
	// A passkey added on b signs in on a, which gives a new credential.
	pk := lobby.Passkey{ID: []byte{1, 2, 3}, Created: time.Now(), Data: []byte("key")}
	if err := b.AddPasskey(ctx, p.ID, pk, time.Minute); err != nil {
		t.Fatal(err)
	}
	if owner, _, err := a.PasskeyOwner(ctx, pk.ID); err != nil || owner != p.ID {
		t.Fatalf("PasskeyOwner on the other node = %q, %v", owner, err)
	}
	if err := a.AddCredential(ctx, p.ID, "digest-of-device-2", time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Resume(ctx, "digest-of-device-2", time.Minute); err != nil || got.ID != p.ID {
		t.Fatalf("Resume of the new credential on the other node = %+v, %v", got, err)
	}
	if err := a.PutCeremony(ctx, "c1", []byte("challenge"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, err := b.TakeCeremony(ctx, "c1"); err != nil || string(got) != "challenge" {
		t.Fatalf("TakeCeremony on the other node = %q, %v", got, err)
	}
	if got, err := redisstore.NewPlayers(rs.Client(t), redistest.Prefix(t)).Resume(ctx, "digest-of-tess", time.Minute); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("Resume under another prefix = %+v, %v; want match.ErrNotFound", got, err)
	}
	if err := b.Delete(ctx, p.ID, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Resume(ctx, "digest-of-tess", time.Minute); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("Resume of a player deleted on the other node = %+v, %v; want match.ErrNotFound", got, err)
	}
	if d, err := a.Deleted(ctx, []string{p.ID}); err != nil || !d[p.ID] {
		t.Errorf("Deleted on the other node = %v, %v", d, err)
	}

	rs.Kill()
	for name, err := range map[string]error{
		"Resume":      func() error { _, err := a.Resume(ctx, "digest-of-device-2", time.Minute); return err }(),
		"Create":      a.Create(ctx, lobby.Player{ID: "x"}, "y", time.Minute),
		"Get":         func() error { _, err := a.Get(ctx, p.ID); return err }(),
		"PutCeremony": a.PutCeremony(ctx, "c2", nil, time.Minute),
		"Deleted":     func() error { _, err := a.Deleted(ctx, []string{"x"}); return err }(),
	} {
		if !errors.Is(err, match.ErrUnavailable) {
			t.Errorf("%s with Redis down = %v, want match.ErrUnavailable", name, err)
		}
	}
}

// TestPlayersKeys: the keys of a player, its credentials and passkeys
// are as the doc says, a player's own share one slot, every one expires,
// and a Delete leaves only the tombstone.
func TestPlayersKeys(t *testing.T) {
	t.Parallel()
	cl, c := realCluster(t)
	prefix := redistest.Prefix(t)
	ps := redisstore.NewPlayers(c, prefix)
	ctx := context.Background()
	const id = "0123456789abcdef"
	if err := ps.Create(ctx, lobby.Player{ID: id, Name: "n", Created: time.Now()}, "d1", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := ps.AddCredential(ctx, id, "d2", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := ps.AddPasskey(ctx, id, lobby.Passkey{ID: []byte{0xfb, 0xff}, Created: time.Now()}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := ps.PutCeremony(ctx, "cer", []byte("x"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := ps.Rename(ctx, id, "m"); err != nil {
		t.Fatal(err)
	}
	keys := clusterKeys(t, c, prefix)
	want := []string{
		prefix + "{player:" + id + "}:profile",
		prefix + "{player:" + id + "}:creds",
		prefix + "{player:" + id + "}:passkeys",
		prefix + "cred:d1",
		prefix + "cred:d2",
		prefix + "passkey:-_8",
		prefix + "ceremony:cer",
	}
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Fatalf("keys:\n%q\nwant\n%q", keys, want)
	}
	for _, k := range keys {
		if ttl, err := c.PTTL(ctx, k).Result(); err != nil || ttl <= 0 {
			t.Errorf("PTTL(%q) = %v, %v; want an expiry", k, ttl, err)
		}
	}
	var slots []int
	for _, k := range keys {
		if strings.Contains(k, "{player:") {
			s, err := cl.Slot(k)
			if err != nil {
				t.Fatal(err)
			}
			slots = append(slots, s)
		}
	}
	if slices.Sort(slots); len(slices.Compact(slots)) != 1 {
		t.Errorf("a player's keys are in slots %v; want one", slots)
	}

	if err := ps.Delete(ctx, id, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := ps.TakeCeremony(ctx, "cer"); err != nil {
		t.Fatal(err)
	}
	if keys, want := clusterKeys(t, c, prefix), []string{prefix + "deleted:" + id}; !slices.Equal(keys, want) {
		t.Fatalf("keys after Delete: %q; want %q", keys, want)
	}
}

// clusterKeys returns the keys under prefix on every master of c, sorted.
func clusterKeys(t *testing.T, c *redis.ClusterClient, prefix string) []string {
	t.Helper()
	ctx := context.Background()
	var (
		mu   sync.Mutex
		keys []string
	)
	err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		ks, err := m.Keys(ctx, prefix+"*").Result()
		mu.Lock()
		keys = append(keys, ks...)
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	return keys
}
