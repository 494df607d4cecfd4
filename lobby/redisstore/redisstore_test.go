package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/engine"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/lobby/storetest"
	"klondike/match"
)

// TestConformance runs the store suite on one server, a store with a prefix
// of its own for each subtest.
func TestConformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	storetest.Run(t, func(t *testing.T) match.Store {
		return redisstore.New(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	})
}

// TestConformanceCluster runs the suite through a cluster client on the
// package's one-node cluster, which refuses a script whose keys are in
// different slots.
func TestConformanceCluster(t *testing.T) {
	t.Parallel()
	srv := redistest.Shared(t, redistest.WithCluster())
	c := srv.Client(t)
	if _, ok := c.(*redis.ClusterClient); !ok {
		t.Fatalf("client is a %T, want a cluster client", c)
	}
	storetest.Run(t, func(t *testing.T) match.Store {
		return redisstore.New(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	})
}

// fixture is a store with a prefix of its own on a server.
type fixture struct {
	srv    *redistest.Server
	c      redis.UniversalClient
	s      *redisstore.Store
	prefix string
	ctx    context.Context
}

// newFixture is a fixture on a server of the test's own.
func newFixture(t *testing.T, cfg redisstore.Config) *fixture {
	return newFixtureOn(t, redistest.Start(t), cfg)
}

func newFixtureOn(t *testing.T, srv *redistest.Server, cfg redisstore.Config) *fixture {
	c := srv.Client(t)
	if cfg.Prefix == "" {
		cfg.Prefix = redistest.Prefix(t)
	}
	return &fixture{srv: srv, c: c, s: redisstore.New(c, cfg), prefix: cfg.Prefix, ctx: context.Background()}
}

func entry(seq int) match.LogEntry {
	return match.LogEntry{Seq: seq, Move: "T7-F", AtMs: int64(seq) * 10}
}

func standing(player string, moves int) match.Standing {
	return match.Standing{PlayerID: player, Name: player, Moves: moves, Points: moves, Status: engine.Playing, FinishedMs: -1}
}

func (f *fixture) append(t *testing.T, round, player string, seq int) {
	t.Helper()
	if err := f.s.Append(f.ctx, round, 0, entry(seq), standing(player, seq)); err != nil {
		t.Fatalf("Append(%s, %s, %d): %v", round, player, seq, err)
	}
}

// keys returns every key under the fixture's prefix.
func (f *fixture) keys(t *testing.T) []string {
	t.Helper()
	var out []string
	iter := f.c.Scan(f.ctx, 0, f.prefix+"*", 100).Iterator()
	for iter.Next(f.ctx) {
		out = append(out, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// writeRounds writes two rounds of two players each, moves and standings.
func (f *fixture) writeRounds(t *testing.T) []string {
	rounds := []string{"r1", "r2"}
	for _, r := range rounds {
		for _, p := range []string{"alice", "bob"} {
			f.append(t, r, p, 1)
			f.append(t, r, p, 2)
		}
		if err := f.s.SetStanding(f.ctx, r, standing("carol", 0)); err != nil {
			t.Fatal(err)
		}
	}
	return rounds
}

func TestKeysCarryTheRoundsHashTag(t *testing.T) {
	t.Parallel()
	for _, cluster := range []bool{false, true} {
		t.Run(fmt.Sprintf("cluster=%v", cluster), func(t *testing.T) {
			t.Parallel()
			var srv *redistest.Server
			if cluster {
				srv = redistest.Shared(t, redistest.WithCluster())
			} else {
				srv = redistest.Start(t)
			}
			f := newFixtureOn(t, srv, redisstore.Config{})
			f.writeRounds(t)
			keys := f.keys(t)
			want := []string{
				"{round:r1}:epochs", "{round:r1}:log:alice", "{round:r1}:log:bob",
				"{round:r1}:rank", "{round:r1}:rankm", "{round:r1}:standings",
				"{round:r2}:epochs", "{round:r2}:log:alice", "{round:r2}:log:bob",
				"{round:r2}:rank", "{round:r2}:rankm", "{round:r2}:standings",
			}
			for i := range want {
				want[i] = f.prefix + want[i]
			}
			if !slices.Equal(keys, want) {
				t.Fatalf("keys:\n got %q\nwant %q", keys, want)
			}
			if !cluster {
				return
			}
			// On a cluster the server says which slot each key is in.
			slot := map[string]string{}
			for _, k := range keys {
				s, err := f.srv.Do("CLUSTER", "KEYSLOT", k)
				if err != nil {
					t.Fatal(err)
				}
				r := k[strings.Index(k, "{"):strings.Index(k, "}")]
				if slot[r] == "" {
					slot[r] = s
				}
				if slot[r] != s {
					t.Errorf("key %s is in slot %s, the round's other keys in %s", k, s, slot[r])
				}
			}
		})
	}
}

func TestEveryKeyHasTheTTL(t *testing.T) {
	t.Parallel()
	const ttl = time.Hour
	f := newFixture(t, redisstore.Config{TTL: ttl})
	f.writeRounds(t)
	// A refused append to a new round still leaves its epoch, with a TTL
	// (a writer that never claimed: a claimed one would find the round's
	// data lost, and write nothing).
	if err := f.s.Append(f.ctx, "r3", 0, entry(3), standing("dan", 3)); !errors.Is(err, match.ErrSeqGap) {
		t.Fatalf("Append with a gap: %v", err)
	}
	keys := f.keys(t)
	if len(keys) != 13 {
		t.Fatalf("%d keys, want 13: %q", len(keys), keys)
	}
	for _, k := range keys {
		d, err := f.c.PTTL(f.ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if d <= ttl-time.Minute || d > ttl {
			t.Errorf("key %s has TTL %v, want about %v", k, d, ttl)
		}
	}
}

// TestAppendRenewsTTLOnceBehind: Append gives a player's keys the TTL again
// only once a sixtieth of the TTL (at most a minute) has passed since it
// last did, by the store's clock, not on every move; and then every key it
// writes gets the whole TTL again.
func TestAppendRenewsTTLOnceBehind(t *testing.T) {
	t.Parallel()
	const ttl = time.Minute // renewed once a second
	f := newFixture(t, redisstore.Config{TTL: ttl})
	start := time.Now()
	f.append(t, "r", "p", 1)
	keys := f.keys(t)
	if len(keys) < 5 {
		t.Fatalf("%d keys after an append, want at least 5: %q", len(keys), keys)
	}
	roundKey := f.prefix + "{round:r}:standings"
	if !slices.Contains(keys, roundKey) {
		t.Fatalf("no key %s among %q", roundKey, keys)
	}
	// Another move at once leaves a shortened key as it is...
	short := 30 * time.Second
	f.c.PExpire(f.ctx, roundKey, short)
	f.append(t, "r", "p", 2)
	if d := f.c.PTTL(f.ctx, roundKey).Val(); d > short && time.Since(start) < ttl/60 {
		t.Errorf("%s has TTL %v after a move right after the renewal, want it left at %v", roundKey, d, short)
	}
	// ...and one a second later gives every key the TTL.
	time.Sleep(ttl/60 + 10*time.Millisecond)
	f.append(t, "r", "p", 3)
	for _, k := range f.keys(t) {
		if d := f.c.PTTL(f.ctx, k).Val(); d <= ttl-time.Second || d > ttl {
			t.Errorf("key %s has TTL %v after the renewal, want about %v", k, d, ttl)
		}
	}
}

func TestDefaultTTL(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redisstore.Config{})
	f.append(t, "r", "p", 1)
	for _, k := range f.keys(t) {
		d, err := f.c.PTTL(f.ctx, k).Result()
		if err != nil || d <= redisstore.DefaultTTL-time.Hour || d > redisstore.DefaultTTL {
			t.Errorf("key %s has TTL %v (%v), want about %v", k, d, err, redisstore.DefaultTTL)
		}
	}
}

func TestRoundExpires(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redisstore.Config{TTL: 200 * time.Millisecond})
	f.append(t, "r", "p", 1)
	if _, err := f.s.Standings(f.ctx, "r"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := f.s.Standings(f.ctx, "r")
		if errors.Is(err, match.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Standings 5 s after the TTL: %v, want ErrNotFound", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := f.s.Log(f.ctx, "r", "p"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("Log after the TTL: %v, want ErrNotFound", err)
	}
}

// TestKeepOutlivesTheTTL: a kept round's keys, its logs among them, live
// past the store's TTL until the time kept, and a later Keep never
// shortens them.
func TestKeepOutlivesTheTTL(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redisstore.Config{TTL: time.Minute})
	f.append(t, "r", "p", 1)
	f.append(t, "r", "q", 1)
	until := time.Now().Add(time.Hour)
	if err := f.s.Keep(f.ctx, "r", until); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Keep(f.ctx, "r", time.Now().Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	keys, err := f.c.Keys(f.ctx, f.prefix+"{round:r}:*").Result()
	if err != nil || len(keys) < 4 {
		t.Fatalf("keys %v, %v", keys, err)
	}
	for _, k := range keys {
		d, err := f.c.PTTL(f.ctx, k).Result()
		if err != nil || d < 59*time.Minute || d > time.Hour {
			t.Errorf("%s: TTL %v, %v; want about an hour", k, d, err)
		}
	}
}

func TestScriptFlush(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redisstore.Config{})
	f.append(t, "r", "p", 1)
	if err := f.c.ScriptFlush(f.ctx).Err(); err != nil {
		t.Fatal(err)
	}
	f.append(t, "r", "p", 2)
	if err := f.c.ScriptFlush(f.ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetStanding(f.ctx, "r", standing("q", 0)); err != nil {
		t.Fatal(err)
	}
	if err := f.c.ScriptFlush(f.ctx).Err(); err != nil {
		t.Fatal(err)
	}
	// A retry after the flush is still a retry.
	f.append(t, "r", "p", 2)
	log, err := f.s.Log(f.ctx, "r", "p")
	if err != nil || !slices.Equal(log, []match.LogEntry{entry(1), entry(2)}) {
		t.Fatalf("Log: %v, %v", log, err)
	}
}

// TestDoubleCall sends Append twice, as go-redis does when the first reply
// is lost: the second is answered nil and the log holds the entry once.
func TestDoubleCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redisstore.Config{})
	for seq := 1; seq <= 20; seq++ {
		f.append(t, "r", "p", seq)
		f.append(t, "r", "p", seq)
	}
	log, err := f.s.Log(f.ctx, "r", "p")
	if err != nil || len(log) != 20 {
		t.Fatalf("Log: %d entries, %v; want 20", len(log), err)
	}
	if n, err := f.c.LLen(f.ctx, f.prefix+"{round:r}:log:p").Result(); err != nil || n != 20 {
		t.Fatalf("LLEN: %d, %v; want 20", n, err)
	}
}

// TestRanked checks the rank set against match.Rank in race mode at time 0,
// through every write, and against the final order of finished games.
func TestRanked(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redisstore.Config{})
	sts := []match.Standing{
		{PlayerID: "a", Join: 0, Points: 40, Foundation: 20, Moves: 60, Status: engine.TimedOut, FinishedMs: 600000, ReachedMs: 500000},
		{PlayerID: "b", Join: 1, Points: 140, Foundation: 52, Moves: 90, Status: engine.Won, FinishedMs: 300000, ReachedMs: 300000},
		{PlayerID: "c", Join: 2, Points: 45, Foundation: 20, Moves: 61, Status: engine.Resigned, FinishedMs: 400000, ReachedMs: 400000},
		{PlayerID: "d", Join: 3, Points: 150, Foundation: 52, Moves: 80, Status: engine.Won, FinishedMs: 200000, ReachedMs: 200000},
		{PlayerID: "e", Join: 4, Points: 10, Foundation: 30, Moves: 70, Status: engine.Stuck, FinishedMs: 100000, ReachedMs: 90000},
		{PlayerID: "f", Join: 5, Points: 40, Foundation: 20, Moves: 50, Status: engine.TimedOut, FinishedMs: 600000, ReachedMs: 450000},
	}
	order := func(sts []match.Standing, atMs int64) []string {
		var ids []string
		for _, e := range match.Rank(match.ModeRace, engine.DefaultRules(), sts, atMs) {
			ids = append(ids, e.PlayerID)
		}
		return ids
	}
	check := func(cur []match.Standing) {
		t.Helper()
		got, err := f.s.Ranked(f.ctx, "r")
		if err != nil {
			t.Fatal(err)
		}
		if want := order(cur, 0); !slices.Equal(got, want) {
			t.Fatalf("Ranked: %v, want %v", got, want)
		}
	}
	// Each player first plays, then finishes: by a move or by SetStanding.
	// The set must drop each earlier member.
	cur := make([]match.Standing, 0, len(sts))
	for i, st := range sts {
		early := st
		early.Status, early.FinishedMs, early.Foundation, early.Points = engine.Playing, -1, i, 5*i
		if err := f.s.Append(f.ctx, "r", 0, entry(1), early); err != nil {
			t.Fatal(err)
		}
		cur = append(cur, early)
		check(cur)
	}
	for i, st := range sts {
		if i%2 == 0 {
			if err := f.s.SetStanding(f.ctx, "r", st); err != nil {
				t.Fatal(err)
			}
		} else if err := f.s.Append(f.ctx, "r", 0, entry(2), st); err != nil {
			t.Fatal(err)
		}
		cur[i] = st
		check(cur)
	}
	if n, err := f.c.ZCard(f.ctx, f.prefix+"{round:r}:rank").Result(); err != nil || n != int64(len(sts)) {
		t.Fatalf("rank set has %d members (%v), want %d", n, err, len(sts))
	}
	// At the round's end the time penalty brings every score without a win
	// to 0 and Rank orders those by ReachedMs; here that agrees with points.
	got, _ := f.s.Ranked(f.ctx, "r")
	if want := order(sts, 600000); !slices.Equal(got, want) {
		t.Fatalf("Ranked: %v, final order %v", got, want)
	}
	if _, err := f.s.Ranked(f.ctx, "unknown"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("Ranked of an unknown round: %v", err)
	}
}

// quickClient returns a client that gives up fast on a dead server.
func quickClient(t *testing.T, srv *redistest.Server) redis.UniversalClient {
	opts := srv.UniversalOptions()
	opts.DialTimeout = 200 * time.Millisecond
	opts.ReadTimeout = 200 * time.Millisecond
	opts.WriteTimeout = 200 * time.Millisecond
	opts.MaxRetries = 1
	opts.DialerRetries = 1 // go-redis dials 5 times, 100 ms apart, by default
	opts.MinRetryBackoff = time.Millisecond
	opts.MaxRetryBackoff = 10 * time.Millisecond
	c := redis.NewUniversalClient(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestOutage(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := quickClient(t, srv)
	s := redisstore.New(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	ctx := context.Background()
	if err := s.Append(ctx, "r", 0, entry(1), standing("p", 1)); err != nil {
		t.Fatal(err)
	}
	srv.Kill()

	ops := map[string]func() error{
		"Append":      func() error { return s.Append(ctx, "r", 0, entry(2), standing("p", 2)) },
		"SetStanding": func() error { return s.SetStanding(ctx, "r", standing("p", 1)) },
		"Log":         func() error { _, err := s.Log(ctx, "r", "p"); return err },
		"Standings":   func() error { _, err := s.Standings(ctx, "r"); return err },
		"Ping":        func() error { return s.Ping(ctx) },
	}
	for name, op := range ops {
		start := time.Now()
		err := op()
		if !errors.Is(err, match.ErrUnavailable) {
			t.Errorf("%s with Redis down: %v, want ErrUnavailable", name, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s with Redis down took %v", name, d)
		}
	}

	// Back up, without its data (no AOF): the log starts again.
	srv.Start(t)
	var err error
	for try := 0; try < 50; try++ {
		if err = s.Append(ctx, "r", 0, entry(1), standing("p", 1)); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Append after the restart: %v", err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping after the restart: %v", err)
	}
}

// TestContextDeadline: a context that ends first gives both ErrUnavailable
// and the context's error.
func TestContextDeadline(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redisstore.Config{})
	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	err := f.s.Append(ctx, "r", 0, entry(1), standing("p", 1))
	if !errors.Is(err, match.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Append with a canceled context: %v", err)
	}
}

func TestAOFRestartKeepsTheRound(t *testing.T) {
	t.Parallel()
	f := newFixtureOn(t, redistest.Start(t, redistest.WithAOF()), redisstore.Config{})
	for seq := 1; seq <= 30; seq++ {
		f.append(t, "r", "p", seq)
	}
	f.srv.Restart(t)
	var log []match.LogEntry
	var err error
	for try := 0; try < 50; try++ { // the pool's old connections fail first
		if log, err = f.s.Log(f.ctx, "r", "p"); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || len(log) != 30 || log[29] != entry(30) {
		t.Fatalf("Log after the restart: %d entries, %v", len(log), err)
	}
	sts, err := f.s.Standings(f.ctx, "r")
	if err != nil || len(sts) != 1 || sts[0] != standing("p", 30) {
		t.Fatalf("Standings after the restart: %v, %v", sts, err)
	}
	f.append(t, "r", "p", 31)
	// The epoch came back too.
	if err := f.s.Append(f.ctx, "r", 3, entry(32), standing("p", 32)); err != nil {
		t.Fatal(err)
	}
	f.srv.Restart(t)
	for try := 0; try < 50; try++ {
		if err = f.s.Ping(f.ctx); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := f.s.Append(f.ctx, "r", 2, entry(33), standing("p", 33)); !errors.Is(err, match.ErrStaleWriter) {
		t.Fatalf("Append at an older epoch after the restart: %v", err)
	}
}

// TestBadData: a key that is not the store's gives an error, not a panic
// and not a wrong answer.
func TestBadData(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redisstore.Config{})
	f.c.RPush(f.ctx, f.prefix+"{round:r}:log:p", "garbage")
	f.c.HSet(f.ctx, f.prefix+"{round:r}:standings", "p", "{not json")
	if _, err := f.s.Log(f.ctx, "r", "p"); err == nil || errors.Is(err, match.ErrUnavailable) {
		t.Fatalf("Log of a bad entry: %v", err)
	}
	if _, err := f.s.Standings(f.ctx, "r"); err == nil || errors.Is(err, match.ErrUnavailable) {
		t.Fatalf("Standings of a bad standing: %v", err)
	}
}
