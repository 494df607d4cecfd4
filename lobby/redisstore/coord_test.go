package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/lobby/storetest"
	"klondike/match"
)

// TestCoordConformance runs the Coord suite on one server, a Coord with a
// prefix of its own for each subtest.
func TestCoordConformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	storetest.RunCoord(t, func(t *testing.T) lobby.Coord {
		return redisstore.NewCoord(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	})
}

// TestCoordConformanceCluster runs the suite through a cluster client on
// the package's one-node cluster, which refuses a script or a MULTI whose
// keys are in different slots.
func TestCoordConformanceCluster(t *testing.T) {
	t.Parallel()
	srv := redistest.Shared(t, redistest.WithCluster())
	c := srv.Client(t)
	if _, ok := c.(*redis.ClusterClient); !ok {
		t.Fatalf("client is a %T, want a cluster client", c)
	}
	storetest.RunCoord(t, func(t *testing.T) lobby.Coord {
		return redisstore.NewCoord(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	})
}

// coordFixture is a Coord with a prefix of its own on a server.
type coordFixture struct {
	srv    *redistest.Server
	c      redis.UniversalClient
	co     *redisstore.Coord
	prefix string
	ctx    context.Context
}

// newCoordFixture is a coordFixture on a server of the test's own.
func newCoordFixture(t *testing.T) *coordFixture {
	return newCoordFixtureOn(t, redistest.Start(t))
}

func newCoordFixtureOn(t *testing.T, srv *redistest.Server) *coordFixture {
	c := srv.Client(t)
	prefix := redistest.Prefix(t)
	return &coordFixture{srv: srv, c: c, co: redisstore.NewCoord(c, redisstore.Config{Prefix: prefix}), prefix: prefix, ctx: t.Context()}
}

// retry calls op until it succeeds, for up to 10 s: after a restart the
// pool's old connections fail first.
func retry(t *testing.T, what string, op func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := op()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCoordSubscribeSurvivesRestart: a subscription made before the
// redis-server restarted says that it was made again (f(nil): what was
// published meanwhile is lost) and delivers what is published after it.
func TestCoordSubscribeSurvivesRestart(t *testing.T) {
	t.Parallel()
	f := newCoordFixture(t)
	got := make(chan string, 1000)
	var gaps atomic.Int32
	if err := f.co.Subscribe(f.ctx, func(m []byte) {
		if m == nil {
			gaps.Add(1)
			return
		}
		got <- string(m)
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.co.Publish(f.ctx, []byte("before")); err != nil {
		t.Fatal(err)
	}
	if m := <-got; m != "before" {
		t.Fatalf("got %q", m)
	}
	if n := gaps.Load(); n != 0 {
		t.Fatalf("%d gaps reported before the restart", n)
	}
	f.srv.Restart(t)
	// Publish until one arrives: those published before the subscription is
	// made again are lost, as the interface allows.
	deadline := time.Now().Add(15 * time.Second)
	for i := 0; ; i++ {
		if time.Now().After(deadline) {
			t.Fatal("no message arrived within 15 s of the restart")
		}
		_ = f.co.Publish(f.ctx, fmt.Appendf(nil, "after %d", i))
		select {
		case m := <-got:
			if !strings.HasPrefix(m, "after ") {
				t.Fatalf("got %q", m)
			}
			// And then in order, without loss.
			for j := range 50 {
				if err := f.co.Publish(f.ctx, fmt.Appendf(nil, "then %d", j)); err != nil {
					t.Fatal(err)
				}
			}
			for j := 0; j < 50; {
				m := <-got
				if strings.HasPrefix(m, "after ") {
					continue // a late one of the probes
				}
				if want := fmt.Sprintf("then %d", j); m != want {
					t.Fatalf("got %q, want %q", m, want)
				}
				j++
			}
			// The new SUBSCRIBE was confirmed before anything arrived.
			if gaps.Load() == 0 {
				t.Fatal("no gap reported across a restart")
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestCoordScriptFlush: the scripts are loaded again after SCRIPT FLUSH
// (go-redis falls back to EVAL on NOSCRIPT), for the Coord and the Store.
func TestCoordScriptFlush(t *testing.T) {
	t.Parallel()
	f := newCoordFixture(t)
	s := redisstore.New(f.c, redisstore.Config{Prefix: f.prefix})
	flush := func() {
		t.Helper()
		if err := f.c.ScriptFlush(f.ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var v int64
	for i := range 3 {
		flush()
		var err error
		if v, err = f.co.SaveMatch(f.ctx, "m", v, fmt.Appendf(nil, "rec %d", i), true, time.Hour); err != nil {
			t.Fatalf("SaveMatch after SCRIPT FLUSH: %v", err)
		}
		flush()
		if ok, err := f.co.Lease(f.ctx, "l", "node", time.Hour); err != nil || !ok {
			t.Fatalf("Lease after SCRIPT FLUSH: %v, %v", ok, err)
		}
		flush()
		if err := s.Append(f.ctx, "r", 0, entry(i+1), standing("p", i+1)); err != nil {
			t.Fatalf("Append after SCRIPT FLUSH: %v", err)
		}
		flush()
		if _, err := s.ClaimSeat(f.ctx, "r", "q"); err != nil {
			t.Fatalf("ClaimSeat after SCRIPT FLUSH: %v", err)
		}
		flush()
		if err := f.co.ReleaseLease(f.ctx, "l", "node"); err != nil {
			t.Fatalf("ReleaseLease after SCRIPT FLUSH: %v", err)
		}
	}
	if ms, err := f.co.OpenMatches(f.ctx, 0, 0); err != nil || len(ms) != 1 || ms[0].ID != "m" {
		t.Fatalf("OpenMatches: %v, %v", ms, err)
	}
}

// TestCoordDataEpochAfterFlush: the data epoch is stable until Redis loses
// its data, then new.
func TestCoordDataEpochAfterFlush(t *testing.T) {
	t.Parallel()
	f := newCoordFixture(t)
	e1, err := f.co.DataEpoch(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Another node, on the same Redis, sees the same.
	other := redisstore.NewCoord(f.srv.Client(t), redisstore.Config{Prefix: f.prefix})
	if e, err := other.DataEpoch(f.ctx); err != nil || e != e1 {
		t.Fatalf("the other node's data epoch: %q, %v; want %q", e, err, e1)
	}
	if d, err := f.c.PTTL(f.ctx, f.prefix+"data-epoch").Result(); err != nil || d != -1 {
		t.Fatalf("data epoch TTL %v, %v; want none", d, err)
	}
	// FLUSHALL on the test's own server.
	if _, err := f.srv.Do("FLUSHALL"); err != nil {
		t.Fatal(err)
	}
	e2, err := other.DataEpoch(f.ctx)
	if err != nil || e2 == e1 || e2 == "" {
		t.Fatalf("data epoch after FLUSHALL: %q, %v; before %q", e2, err, e1)
	}
	if e, err := f.co.DataEpoch(f.ctx); err != nil || e != e2 {
		t.Fatalf("data epoch after FLUSHALL on the first node: %q, %v; want %q", e, err, e2)
	}
}

// TestCoordKeys: every key but the data epoch and the open list's last
// place has a TTL; a match's key
// carries its hash tag and a round's record is in the slot of the round's
// other keys.
func TestCoordKeys(t *testing.T) {
	t.Parallel()
	f := newCoordFixtureOn(t, redistest.Shared(t, redistest.WithCluster()))
	s := redisstore.New(f.c, redisstore.Config{Prefix: f.prefix, TTL: time.Hour})
	const ttl = 30 * time.Minute
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.co.SaveMatch(f.ctx, "m1", 0, []byte("rec"), true, ttl)
	must(err)
	_, err = f.co.SaveMatch(f.ctx, "m2", 0, []byte("rec"), false, ttl)
	must(err)
	_, err = f.co.ClaimCode(f.ctx, "CODE", "m1", ttl)
	must(err)
	must(f.co.SetPlayerMatch(f.ctx, "p", "m1", ttl))
	must(f.co.SaveRound(f.ctx, "r1", []byte("rec"), ttl))
	_, err = f.co.Lease(f.ctx, "clock", "node", ttl)
	must(err)
	_, err = f.co.DataEpoch(f.ctx)
	must(err)
	must(s.Append(f.ctx, "r1", 0, entry(1), standing("p", 1)))
	must(s.CloseRound(f.ctx, "r1"))

	want := map[string]bool{ // key -> has a TTL of about ttl (else the store's hour)
		"{m:m1}:rec": true, "{m:m2}:rec": true, "{open}:list": true, "{open}:seen": true, "{open}:gone": true,
		"{open}:seq": false, "code:CODE": true, "player:p:match": true, "{round:r1}:record": true, "lease:clock": true, "data-epoch": false,
		"{round:r1}:log:p": false, "{round:r1}:epochs": false, "{round:r1}:standings": false,
		"{round:r1}:rank": false, "{round:r1}:rankm": false,
	}
	var keys []string
	iter := f.c.Scan(f.ctx, 0, f.prefix+"*", 100).Iterator()
	for iter.Next(f.ctx) {
		keys = append(keys, iter.Val())
	}
	must(iter.Err())
	if len(keys) != len(want) {
		t.Fatalf("%d keys, want %d: %q", len(keys), len(want), keys)
	}
	for _, k := range keys {
		name := strings.TrimPrefix(k, f.prefix)
		short, ok := want[name]
		if !ok {
			t.Fatalf("unexpected key %s", k)
		}
		d, err := f.c.PTTL(f.ctx, k).Result()
		must(err)
		switch {
		case name == "data-epoch" || name == "{open}:seq":
			if d != -1 {
				t.Errorf("%s has TTL %v, want none", k, d)
			}
		case short && (d <= ttl-time.Minute || d > ttl):
			t.Errorf("%s has TTL %v, want about %v", k, d, ttl)
		case !short && (d <= time.Hour-time.Minute || d > time.Hour):
			t.Errorf("%s has TTL %v, want about an hour", k, d)
		}
	}
	slot := func(k string) string {
		s, err := f.srv.Do("CLUSTER", "KEYSLOT", f.prefix+k)
		must(err)
		return s
	}
	if a, b := slot("{round:r1}:record"), slot("{round:r1}:standings"); a != b {
		t.Errorf("the round's record is in slot %s, its standings in %s", a, b)
	}
	if a, b := slot("{m:m1}:rec"), slot("{m:m1}"); a != b {
		t.Errorf("the match's record is in slot %s, its tag's slot is %s", a, b)
	}
}

// TestCoordOutage: with Redis down every method fails fast with an error
// matching ErrUnavailable, and works again once Redis is back.
func TestCoordOutage(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := quickClient(t, srv)
	co := redisstore.NewCoord(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	ctx := context.Background()
	if _, err := co.SaveMatch(ctx, "m", 0, []byte("rec"), true, time.Hour); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	ops := map[string]func() error{
		"LoadMatch":   func() error { _, _, err := co.LoadMatch(ctx, "m"); return err },
		"SaveMatch":   func() error { _, err := co.SaveMatch(ctx, "m", 1, []byte("x"), true, time.Hour); return err },
		"OpenMatches": func() error { _, err := co.OpenMatches(ctx, 0, 0); return err },
		"ClaimCode":   func() error { _, err := co.ClaimCode(ctx, "C", "m", time.Hour); return err },
		"CodeMatch":   func() error { _, err := co.CodeMatch(ctx, "C"); return err },
		"SetPlayerMatch": func() error {
			return co.SetPlayerMatch(ctx, "p", "m", time.Hour)
		},
		"PlayerMatch":  func() error { _, err := co.PlayerMatch(ctx, "p"); return err },
		"SaveRound":    func() error { return co.SaveRound(ctx, "r", []byte("x"), time.Hour) },
		"LoadRound":    func() error { _, err := co.LoadRound(ctx, "r"); return err },
		"Publish":      func() error { return co.Publish(ctx, []byte("x")) },
		"Subscribe":    func() error { return co.Subscribe(ctx, func([]byte) {}) },
		"Lease":        func() error { _, err := co.Lease(ctx, "l", "n", time.Second); return err },
		"ReleaseLease": func() error { return co.ReleaseLease(ctx, "l", "n") },
		"DataEpoch":    func() error { _, err := co.DataEpoch(ctx); return err },
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
	srv.Start(t)
	retry(t, "SaveMatch after the restart", func() error {
		_, err := co.SaveMatch(ctx, "m", 0, []byte("rec"), true, time.Hour)
		return err
	})
}

// TestCoordLostReplies saves a match over and over through a proxy that
// loses a fifth of the scripts' replies: go-redis resends those, and every
// save still answers the next version, never a conflict with itself.
func TestCoordLostReplies(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	px := startDropProxy(t, srv.Addr(), 0.2, 7)
	c := redis.NewClient(&redis.Options{
		Addr: px.addr(), MaxRetries: 10, MinRetryBackoff: time.Millisecond, MaxRetryBackoff: 5 * time.Millisecond,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
	})
	t.Cleanup(func() { c.Close() })
	prefix := redistest.Prefix(t)
	co := redisstore.NewCoord(c, redisstore.Config{Prefix: prefix})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	const matches, saves = 4, 100
	var wg sync.WaitGroup
	errs := make(chan error, matches)
	for m := range matches {
		wg.Go(func() {
			id := fmt.Sprintf("m%d", m)
			for v := int64(0); v < saves; v++ {
				got, err := co.SaveMatch(ctx, id, v, fmt.Appendf(nil, "%s v%d", id, v+1), v%2 == 0, time.Hour)
				if err != nil || got != v+1 {
					errs <- fmt.Errorf("%s: save from %d: %d, %w", id, v, got, err)
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
	if px.drops.Load() == 0 {
		t.Fatalf("the proxy dropped no reply of %d scripts", px.scripts.Load())
	}
	t.Logf("%d saves, %d script runs, %d replies lost", matches*saves, px.scripts.Load(), px.drops.Load())
	direct := redisstore.NewCoord(srv.Client(t), redisstore.Config{Prefix: prefix})
	for m := range matches {
		id := fmt.Sprintf("m%d", m)
		rec, v, err := direct.LoadMatch(ctx, id)
		if err != nil || v != saves || string(rec) != fmt.Sprintf("%s v%d", id, saves) {
			t.Fatalf("LoadMatch(%s) = %q, %d, %v", id, rec, v, err)
		}
	}
	// The last save of each was closed (from an odd version).
	if ms, err := direct.OpenMatches(ctx, 0, 0); err != nil || len(ms) != 0 {
		t.Fatalf("OpenMatches = %v, %v; want none", ms, err)
	}
}
