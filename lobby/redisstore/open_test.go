package redisstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// TestOpen opens the backends on a server and on a cluster through their
// URLs, and each of them works on the client Open made.
func TestOpen(t *testing.T) {
	t.Parallel()
	for _, cluster := range []bool{false, true} {
		t.Run(map[bool]string{false: "Single", true: "Cluster"}[cluster], func(t *testing.T) {
			t.Parallel()
			var srv *redistest.Server
			if cluster {
				srv = redistest.Shared(t, redistest.WithCluster())
			} else {
				srv = redistest.Start(t)
			}
			url := srv.URL()
			if cluster {
				url = "redis://" + srv.Addr()
			}
			b, err := redisstore.Open(redisstore.Options{URL: url, Cluster: cluster, Config: redisstore.Config{Prefix: redistest.Prefix(t)}})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			_, isCluster := b.Client.(*redis.ClusterClient)
			_, isSingle := b.Client.(*redis.Client)
			if isCluster != cluster || isSingle == cluster {
				t.Fatalf("Open(Cluster: %v) made a %T", cluster, b.Client)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := b.Store.Ping(ctx); err != nil {
				t.Fatalf("Store.Ping: %v", err)
			}
			if err := b.Store.SetStanding(ctx, "r1", match.Standing{PlayerID: "p", Name: "p", FinishedMs: -1}); err != nil {
				t.Fatalf("Store.SetStanding: %v", err)
			}
			if _, err := b.Coord.SaveMatch(ctx, "m1", 0, []byte("rec"), true, time.Minute); err != nil {
				t.Fatalf("Coord.SaveMatch: %v", err)
			}
			if err := b.Players.Create(ctx, lobby.Player{ID: "p", Name: "n", Created: time.Now()}, "cred", time.Minute); err != nil {
				t.Fatalf("Players.Create: %v", err)
			}
			if got, err := b.Players.Resume(ctx, "cred", time.Minute); err != nil || got.ID != "p" {
				t.Fatalf("Players.Resume = %+v, %v; want p", got, err)
			}
			if err := b.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := b.Client.Ping(ctx).Err(); err == nil {
				t.Fatal("the client answers after Close")
			}
		})
	}
}

// TestOpenRefuses: a URL that does not parse, or a prefix with a brace, is
// an error, and nothing is opened.
func TestOpenRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    redisstore.Options
		want error
	}{
		{"NotRedis", redisstore.Options{URL: "http://nope"}, nil},
		{"NotRedisCluster", redisstore.Options{URL: "http://nope", Cluster: true}, nil},
		{"Empty", redisstore.Options{}, nil},
		{"OpenBrace", redisstore.Options{URL: "redis://127.0.0.1:1/0", Config: redisstore.Config{Prefix: "a{b"}}, redisstore.ErrBadPrefix},
		{"CloseBrace", redisstore.Options{URL: "redis://127.0.0.1:1/0", Config: redisstore.Config{Prefix: "a}"}}, redisstore.ErrBadPrefix},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := redisstore.Open(tc.o)
			if err == nil || b != nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("Open(%+v) = %v, %v; want nil and an error matching %v", tc.o, b, err, tc.want)
			}
		})
	}
}

// TestDialOptions: Dial applies the timeouts and retries, their defaults
// when zero, and no retry when MaxRetries is negative.
func TestDialOptions(t *testing.T) {
	for _, tc := range []struct {
		o        redisstore.Options
		dial, rw time.Duration
		retries  int
	}{
		{redisstore.Options{}, redisstore.DefaultDialTimeout, redisstore.DefaultIOTimeout, redisstore.DefaultMaxRetries},
		{redisstore.Options{DialTimeout: 3 * time.Second, IOTimeout: 5 * time.Second, MaxRetries: 7}, 3 * time.Second, 5 * time.Second, 7},
		{redisstore.Options{MaxRetries: -1}, redisstore.DefaultDialTimeout, redisstore.DefaultIOTimeout, -1},
	} {
		for _, cluster := range []bool{false, true} {
			o := tc.o
			o.URL, o.Cluster = "redis://127.0.0.1:1/0", cluster
			if cluster {
				o.URL = "redis://127.0.0.1:1"
			}
			c, err := redisstore.Dial(o)
			if err != nil {
				t.Fatalf("Dial(%+v): %v", o, err)
			}
			var dial, read, write time.Duration
			var retries int
			switch c := c.(type) {
			case *redis.Client:
				opt := c.Options()
				dial, read, write, retries = opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.MaxRetries
			case *redis.ClusterClient:
				opt := c.Options()
				dial, read, write, retries = opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.MaxRetries
			}
			c.Close()
			if tc.retries < 0 && retries <= 0 {
				retries = tc.retries // never, as go-redis spells it for the client's kind
			}
			if dial != tc.dial || read != tc.rw || write != tc.rw || retries != tc.retries {
				t.Errorf("Dial(%+v): dial %v, read %v, write %v, retries %d; want %v, %v, %v, %d",
					o, dial, read, write, retries, tc.dial, tc.rw, tc.rw, tc.retries)
			}
		}
	}
}
