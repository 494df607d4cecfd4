package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/engine"
	"klondike/lobby/challenge"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/lobby/storetest"
	"klondike/match"
)

// TestChallengesConformance runs the challenges' suite on one server,
// a Challenges with a prefix of its own for each subtest.
func TestChallengesConformance(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	storetest.RunChallenges(t, func(t *testing.T) challenge.Store { return redisstore.NewChallenges(c, redistest.Prefix(t)) })
}

// TestChallengesConformanceCluster runs the suite through a cluster client on
// the package's one-node cluster, which refuses a script whose keys are in
// different slots.
func TestChallengesConformanceCluster(t *testing.T) {
	t.Parallel()
	c := clusterClient(t)
	storetest.RunChallenges(t, func(t *testing.T) challenge.Store { return redisstore.NewChallenges(c, redistest.Prefix(t)) })
}

// TestRecordsConformance runs the records' suite on one server.
func TestRecordsConformance(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	storetest.RunRecords(t, func(t *testing.T) challenge.RecordStore { return redisstore.NewChallenges(c, redistest.Prefix(t)) })
}

// TestRecordsConformanceCluster runs the records' suite on the cluster.
func TestRecordsConformanceCluster(t *testing.T) {
	t.Parallel()
	c := clusterClient(t)
	storetest.RunRecords(t, func(t *testing.T) challenge.RecordStore { return redisstore.NewChallenges(c, redistest.Prefix(t)) })
}

func clusterClient(t *testing.T) redis.UniversalClient {
	t.Helper()
	c := redistest.Shared(t, redistest.WithCluster()).Client(t)
	if _, ok := c.(*redis.ClusterClient); !ok {
		t.Fatalf("client is a %T, want a cluster client", c)
	}
	return c
}

// testRecord is a round's record for the tests here.
func testRecord(id string) challenge.Record {
	opens := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	return challenge.Record{
		ID: id, Kind: challenge.KindDaily, Variant: "draw3", Rules: engine.DefaultRules(), Mode: match.ModeRace,
		Fair: match.FairDeal{Seed: 7, Salt: "00", Commitment: "ab"}, LimitMs: 600_000,
		OpensAt: opens, ClosesAt: opens.Add(24 * time.Hour), Day: "2026-12-05",
	}
}

// fillRound makes a round with players p0..p(n-1), each finished.
func fillRound(t *testing.T, a *redisstore.Challenges, id string, n int, ttl time.Duration) challenge.Record {
	t.Helper()
	ctx := context.Background()
	rec := testRecord(id)
	if _, created, err := a.Create(ctx, rec, ttl); err != nil || !created {
		t.Fatalf("Create = %v, %v", created, err)
	}
	for i := range n {
		p := fmt.Sprintf("p%d", i)
		if _, _, err := a.StartAttempt(ctx, id, challenge.Attempt{PlayerID: p, Name: p, StartedAt: rec.OpensAt}); err != nil {
			t.Fatal(err)
		}
		st := match.Standing{PlayerID: p, Name: p, Points: 500, Foundation: 52, Status: engine.Won, FinishedMs: int64(60_000 + i), ReachedMs: int64(60_000 + i)}
		if ok, err := a.Finish(ctx, id, challenge.EntryOf(&rec, st, st.FinishedMs)); err != nil || !ok {
			t.Fatalf("Finish(%s) = %v, %v", p, ok, err)
		}
	}
	return rec
}

// TestChallengeKeys: a round's keys are those the package doc lists, all with
// the round's hash tag and the record's expiry; a player's records keys
// carry the player's tag and live long.
func TestChallengeKeys(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	prefix := redistest.Prefix(t)
	a := redisstore.NewChallenges(c, prefix)
	ctx := context.Background()
	const ttl = 90 * time.Minute
	fillRound(t, a, "r1", 3, ttl)
	if _, _, err := a.StartAttempt(ctx, "r1", challenge.Attempt{PlayerID: "late", Name: "late"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CloseEarly(ctx, "r1", time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddResult(ctx, "p0", challenge.GameResult{GameID: "g1", Variant: "draw3", Score: 5}); err != nil {
		t.Fatal(err)
	}
	keys, err := c.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"{async:r1}:rec": "string", "{async:r1}:attempts": "hash", "{async:r1}:started": "list",
		"{async:r1}:board": "zset", "{async:r1}:entries": "hash", "{async:r1}:members": "hash",
		"{player:p0}:records": "hash", "{player:p0}:games": "zset", "{player:p0}:recent": "zset",
	}
	if len(keys) != len(want) {
		t.Fatalf("keys %q; want %d", keys, len(want))
	}
	recExpiry, err := c.PExpireTime(ctx, prefix+"{async:r1}:rec").Result()
	if err != nil || recExpiry <= 0 {
		t.Fatalf("the record's expiry: %v, %v", recExpiry, err)
	}
	if left := time.Until(time.UnixMilli(int64(recExpiry / time.Millisecond))); left < ttl-time.Minute || left > ttl {
		t.Fatalf("the record expires in %v, want about %v", left, ttl)
	}
	for _, k := range keys {
		name := strings.TrimPrefix(k, prefix)
		typ, err := c.Type(ctx, k).Result()
		if err != nil || typ != want[name] {
			t.Fatalf("key %q is a %q (%v), want a %q", name, typ, err, want[name])
		}
		at, err := c.PExpireTime(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(name, "{async:") {
			// The scripts set these at the record's expiry time itself.
			if d := at - recExpiry; d != 0 {
				t.Errorf("key %q expires %v after the record", name, d)
			}
			continue
		}
		if left := time.Until(time.UnixMilli(int64(at / time.Millisecond))); left < 399*24*time.Hour {
			t.Errorf("key %q expires in %v, want 400 days", name, left)
		}
	}
}

// madeRecord is a challenge the player made, for the tests here.
func madeRecord(id, creator string, opens time.Time) challenge.Record {
	rec := testRecord(id)
	rec.Kind, rec.Day, rec.CreatorID, rec.CreatorName = challenge.KindChallenge, "", creator, creator
	rec.OpensAt, rec.ClosesAt = opens, opens.Add(time.Hour)
	return rec
}

// TestChallengeMadeKeys: the index of a player's challenges is the two
// sorted sets the package doc lists, under the player's tag, living as long
// as the last challenge in them (and a minute); a new challenge forgets
// the entries expired, and Made those whose record is gone.
func TestChallengeMadeKeys(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	prefix := redistest.Prefix(t)
	a := redisstore.NewChallenges(c, prefix)
	ctx := context.Background()
	made, exp := prefix+"{player:alice}:made", prefix+"{player:alice}:madeexp"
	opens := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	r1, r2 := madeRecord("r1", "alice", opens), madeRecord("r2", "alice", opens.Add(time.Minute))
	for _, m := range []struct {
		rec challenge.Record
		ttl time.Duration
	}{{r1, 2 * time.Hour}, {r2, time.Hour}} {
		if _, created, err := a.Create(ctx, m.rec, m.ttl); err != nil || !created {
			t.Fatalf("Create(%s) = %v, %v", m.rec.ID, created, err)
		}
	}
	for _, k := range []string{made, exp} {
		if typ, err := c.Type(ctx, k).Result(); err != nil || typ != "zset" {
			t.Fatalf("key %q is a %q (%v), want a zset", k, typ, err)
		}
		if n, err := c.ZCard(ctx, k).Result(); err != nil || n != 2 {
			t.Fatalf("key %q has %d members (%v), want 2", k, n, err)
		}
		// The last to expire is r1, made first.
		if left, err := c.PTTL(ctx, k).Result(); err != nil || left < 2*time.Hour || left > 2*time.Hour+time.Minute+time.Second {
			t.Fatalf("key %q expires in %v (%v), want 2 hours and a minute", k, left, err)
		}
	}
	if score, err := c.ZScore(ctx, made, "r2").Result(); err != nil || int64(score) != r2.OpensAt.UnixMilli() {
		t.Fatalf("r2's score in %q = %v, %v; want its opening", made, score, err)
	}

	// An entry expired (as if made long ago) goes at the next challenge.
	past := time.Now().Add(-time.Hour).UnixMilli()
	if err := c.ZAdd(ctx, made, redis.Z{Score: float64(past), Member: "old"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ZAdd(ctx, exp, redis.Z{Score: float64(past), Member: "old"}).Err(); err != nil {
		t.Fatal(err)
	}
	r3 := madeRecord("r3", "alice", opens.Add(2*time.Minute))
	if _, _, err := a.Create(ctx, r3, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{made, exp} {
		if ids, err := c.ZRange(ctx, k, 0, -1).Result(); err != nil || !slices.Equal(ids, []string{"r1", "r2", "r3"}) && !slices.Equal(ids, []string{"r3", "r2", "r1"}) {
			t.Fatalf("key %q holds %q (%v), want r1, r2 and r3", k, ids, err)
		}
		if left, err := c.PTTL(ctx, k).Result(); err != nil || left < 2*time.Hour-time.Minute {
			t.Fatalf("key %q expires in %v (%v) after a shorter challenge, want about 2 hours", k, left, err)
		}
	}

	// A record gone before its entry: Made skips it and forgets it.
	if err := c.Del(ctx, prefix+"{async:r2}:rec").Err(); err != nil {
		t.Fatal(err)
	}
	got, err := a.Made(ctx, "alice", 2)
	if err != nil || len(got) != 2 || got[0].ID != "r3" || got[1].ID != "r1" {
		t.Fatalf("Made = %+v, %v; want r3 and r1", got, err)
	}
	for _, k := range []string{made, exp} {
		if ids, err := c.ZRange(ctx, k, 0, -1).Result(); err != nil || slices.Contains(ids, "r2") || len(ids) != 2 {
			t.Fatalf("key %q holds %q (%v) after Made, want r1 and r3", k, ids, err)
		}
	}
}

// countHook counts the round trips a client makes: a command, or a
// pipeline, but for those that set up a connection.
type countHook struct{ n atomic.Int64 }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !setup(cmd) {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && !setup(cmds[0]) {
			h.n.Add(1)
		}
		return next(ctx, cmds)
	}
}

// setup reports whether cmd sets up a new connection.
func setup(cmd redis.Cmder) bool { return cmd.Name() == "hello" || cmd.Name() == "client" }

// TestChallengeRoundTrips: each read and write of a round is one round trip,
// once the scripts are loaded.
func TestChallengeRoundTrips(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	hook := &countHook{}
	c.AddHook(hook)
	a := redisstore.NewChallenges(c, redistest.Prefix(t))
	ctx := context.Background()
	rec := fillRound(t, a, "r1", 30, time.Hour)
	if _, err := a.Board(ctx, "r1", 10, "p3", 5); err != nil { // loads the script
		t.Fatal(err)
	}
	if _, _, err := a.Attempts(ctx, "r1", "", 5); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		fn   func() error
	}{
		{"Board", func() error {
			page, err := a.Board(ctx, "r1", 10, "p20", 3)
			if err == nil && (len(page.Top) != 10 || len(page.Around) != 7 || page.Rank != 21) {
				err = fmt.Errorf("page %+v", page)
			}
			return err
		}},
		{"BoardRange", func() error { _, err := a.BoardRange(ctx, "r1", 5, 10); return err }},
		{"PlayerEntry", func() error { _, err := a.PlayerEntry(ctx, "r1", "p7"); return err }},
		{"Attempts", func() error { _, _, err := a.Attempts(ctx, "r1", "5", 10); return err }},
		{"Attempt", func() error { _, err := a.Attempt(ctx, "r1", "p7"); return err }},
		{"StartAttempt", func() error {
			_, _, err := a.StartAttempt(ctx, "r1", challenge.Attempt{PlayerID: "new", Name: "new"})
			return err
		}},
		{"Finish", func() error {
			st := match.Standing{PlayerID: "new", Name: "new", Status: engine.Stuck, FinishedMs: 5, Foundation: 3}
			_, err := a.Finish(ctx, "r1", challenge.EntryOf(&rec, st, 5))
			return err
		}},
		{"Recent", func() error { _, err := a.Recent(ctx, "p0", 20); return err }},
		{"Records", func() error { _, err := a.Records(ctx, "p0"); return err }},
		{"DeleteRecords", func() error { return a.DeleteRecords(ctx, "p0") }},
	}
	for _, call := range calls {
		before := hook.n.Load()
		if err := call.fn(); err != nil {
			t.Fatalf("%s: %v", call.name, err)
		}
		if n := hook.n.Load() - before; n != 1 {
			t.Errorf("%s took %d round trips, want 1", call.name, n)
		}
	}
	// A challenge a player made: its record, then its creator's index.
	// Made: the index, then every record listed (one pipeline).
	for i := range 5 {
		if _, _, err := a.Create(ctx, madeRecord(fmt.Sprintf("m%d", i), "maker", rec.OpensAt.Add(time.Duration(i)*time.Minute)), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	before := hook.n.Load()
	if _, _, err := a.Create(ctx, madeRecord("m5", "maker", rec.OpensAt), time.Hour); err != nil {
		t.Fatal(err)
	}
	if n := hook.n.Load() - before; n != 2 {
		t.Errorf("Create of a challenge a player made took %d round trips, want 2", n)
	}
	before = hook.n.Load()
	if got, err := a.Made(ctx, "maker", 20); err != nil || len(got) != 6 {
		t.Fatalf("Made = %d records, %v; want 6", len(got), err)
	}
	if n := hook.n.Load() - before; n != 2 {
		t.Errorf("Made took %d round trips, want 2", n)
	}
}

// TestChallengeUnavailable: with Redis down, every method fails as
// unavailable.
func TestChallengeUnavailable(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c, err := redisstore.Dial(redisstore.Options{URL: srv.URL(), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a := redisstore.NewChallenges(c, redistest.Prefix(t))
	rec := fillRound(t, a, "r1", 2, time.Hour)
	srv.Kill()
	ctx := context.Background()
	e := challenge.EntryOf(&rec, match.Standing{PlayerID: "p9", FinishedMs: -1}, 0)
	calls := map[string]func() error{
		"Create":     func() error { _, _, err := a.Create(ctx, rec, time.Hour); return err },
		"Load":       func() error { _, err := a.Load(ctx, "r1"); return err },
		"CloseEarly": func() error { _, err := a.CloseEarly(ctx, "r1", rec.OpensAt); return err },
		"StartAttempt": func() error {
			_, _, err := a.StartAttempt(ctx, "r1", challenge.Attempt{PlayerID: "p9"})
			return err
		},
		"Attempt":     func() error { _, err := a.Attempt(ctx, "r1", "p0"); return err },
		"Attempts":    func() error { _, _, err := a.Attempts(ctx, "r1", "", 10); return err },
		"Finish":      func() error { _, err := a.Finish(ctx, "r1", e); return err },
		"Board":       func() error { _, err := a.Board(ctx, "r1", 10, "p0", 2); return err },
		"BoardRange":  func() error { _, err := a.BoardRange(ctx, "r1", 1, 10); return err },
		"PlayerEntry": func() error { _, err := a.PlayerEntry(ctx, "r1", "p0"); return err },
		"AddResult": func() error {
			_, err := a.AddResult(ctx, "p0", challenge.GameResult{GameID: "g", Variant: "draw3"})
			return err
		},
		"Records":       func() error { _, err := a.Records(ctx, "p0"); return err },
		"Recent":        func() error { _, err := a.Recent(ctx, "p0", 10); return err },
		"DeleteRecords": func() error { return a.DeleteRecords(ctx, "p0") },
		"Made":          func() error { _, err := a.Made(ctx, "p0", 10); return err },
		"Create a challenge": func() error {
			_, _, err := a.Create(ctx, madeRecord("r2", "p0", rec.OpensAt), time.Hour)
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, match.ErrUnavailable) {
			t.Errorf("%s with Redis down: %v, want match.ErrUnavailable", name, err)
		}
	}
}

// TestChallengeAcrossNodes: two Challenges on one Redis and prefix, as on two
// nodes, share rounds; the backends Open makes have one.
func TestChallengeAcrossNodes(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	b, err := redisstore.Open(redisstore.Options{URL: srv.URL(), Config: redisstore.Config{Prefix: prefix}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fillRound(t, b.Challenges, "r1", 4, time.Hour)
	other := redisstore.NewChallenges(srv.Client(t), prefix)
	ctx := context.Background()
	page, err := other.Board(ctx, "r1", 2, "p3", 1)
	if err != nil || page.Finished != 4 || page.Players != 4 || len(page.Top) != 2 || page.Rank != 4 || len(page.Around) != 2 {
		t.Fatalf("Board on the other node = %+v, %v", page, err)
	}
	if _, err := redisstore.NewChallenges(srv.Client(t), redistest.Prefix(t)).Load(ctx, "r1"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("Load under another prefix: %v, want match.ErrNotFound", err)
	}
}
