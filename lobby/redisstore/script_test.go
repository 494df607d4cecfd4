package redisstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// scriptFixture runs append.lua itself, with arguments a caller could pass
// that the Store's own state never makes: a stale rank member, no memory.
type scriptFixture struct {
	t   *testing.T
	s   *Store
	ctx context.Context
}

func newScriptFixture(t *testing.T, ttl time.Duration) *scriptFixture {
	srv := redistest.Start(t)
	s := New(srv.Client(t), Config{Prefix: redistest.Prefix(t), TTL: ttl})
	t.Cleanup(func() { s.Close() })
	return &scriptFixture{t: t, s: s, ctx: context.Background()}
}

func (f *scriptFixture) keys(player string) []string {
	return []string{
		f.s.logKey("r", player), f.s.roundKey("r", "epochs"), f.s.roundKey("r", "standings"),
		f.s.roundKey("r", "rank"), f.s.roundKey("r", "rankm"),
	}
}

// append runs the script for the player's seq-th move with its standing
// st, naming known as the rank member written last, with renewal renew.
func (f *scriptFixture) append(st match.Standing, seq int, known, renew string) {
	f.t.Helper()
	stJSON, err := encodeStanding(st)
	if err != nil {
		f.t.Fatal(err)
	}
	e := match.LogEntry{Seq: seq, Move: "T7-F", AtMs: int64(seq)}
	res, err := appendScript.Run(f.ctx, f.s.c, f.keys(st.PlayerID),
		st.PlayerID, "1", seq, encodeEntry(e), stJSON, rankMember(st), f.s.ttlMs, known, renew).Text()
	if err != nil || res != "OK" {
		f.t.Fatalf("append %d of %s: %q, %v", seq, st.PlayerID, res, err)
	}
}

// ranked returns the rank set's members and the rank members hash.
func (f *scriptFixture) ranked() ([]string, map[string]string) {
	f.t.Helper()
	set, err := f.s.c.ZRange(f.ctx, f.s.roundKey("r", "rank"), 0, -1).Result()
	if err != nil {
		f.t.Fatal(err)
	}
	m, err := f.s.c.HGetAll(f.ctx, f.s.roundKey("r", "rankm")).Result()
	if err != nil {
		f.t.Fatal(err)
	}
	return set, m
}

// TestAppendScriptRank: whatever rank member the caller names as its last
// (the right one, none, one that is out of date, one never written), the
// rank set ends with the player's one member, the standing's, and the rank
// members hash names it.
func TestAppendScriptRank(t *testing.T) {
	t.Parallel()
	f := newScriptFixture(t, time.Hour)
	st := standingFor("p", 1)
	other := standingFor("q", 1)
	f.append(other, 1, "", "")
	f.append(st, 1, "", "")
	seq := 1
	for _, c := range []struct {
		name  string
		known func(prev string) string
	}{
		{"the right member", func(prev string) string { return prev }},
		{"none", func(string) string { return "" }},
		{"a member replaced since", func(string) string { return rankMember(standingFor("p", 1)) }},
		{"a member never written", func(string) string { return "0zz:p" }},
		{"the new member itself, wrongly", nil},
	} {
		prev := rankMember(st)
		seq++
		st = standingFor("p", seq)
		known := rankMember(st)
		if c.known != nil {
			known = c.known(prev)
		}
		f.append(st, seq, known, "0")
		set, m := f.ranked()
		want := []string{rankMember(other), rankMember(st)}
		if c.known == nil {
			// The caller's word is taken: the set keeps the old member.
			want[1] = prev
		}
		slices.Sort(want)
		if !slices.Equal(set, want) {
			t.Errorf("%s: rank set %q, want %q", c.name, set, want)
		}
		if c.known == nil {
			continue
		}
		if m["p"] != rankMember(st) {
			t.Errorf("%s: rank members hash names %q, want %q", c.name, m["p"], rankMember(st))
		}
	}
}

// TestAppendScriptRenewal: with renewal "" (a caller with no memory) the
// script renews the keys when the log's TTL has fallen a sixtieth of the
// TTL behind, as the store did before it kept the time itself; "0" leaves
// them, "1" renews them, and so does the log's first entry, whatever the
// caller says.
func TestAppendScriptRenewal(t *testing.T) {
	t.Parallel()
	const ttl = time.Hour
	f := newScriptFixture(t, ttl)
	pttl := func(k string) time.Duration { return f.s.c.PTTL(f.ctx, k).Val() }
	fresh := func(k string) bool { d := pttl(k); return d > ttl-time.Minute && d <= ttl }
	log, standings := f.keys("p")[0], f.keys("p")[2]

	f.append(standingFor("p", 1), 1, "", "0")
	if !fresh(log) || !fresh(standings) {
		t.Fatalf("the log's first entry: TTLs %v and %v, want the TTL", pttl(log), pttl(standings))
	}
	short := 30 * time.Minute
	f.s.c.PExpire(f.ctx, standings, short)
	f.append(standingFor("p", 2), 2, "", "")
	if d := pttl(standings); d > short {
		t.Errorf("no memory, the log's TTL fresh: %s renewed to %v", standings, d)
	}
	f.s.c.PExpire(f.ctx, log, ttl-2*time.Minute)
	f.append(standingFor("p", 3), 3, "", "0")
	if d := pttl(standings); d > short {
		t.Errorf("renewal 0: %s renewed to %v", standings, d)
	}
	f.append(standingFor("p", 4), 4, "", "")
	for _, k := range f.keys("p") {
		if !fresh(k) {
			t.Errorf("no memory, the log's TTL two minutes behind: %s has TTL %v, want about %v", k, pttl(k), ttl)
		}
	}
	f.s.c.PExpire(f.ctx, standings, short)
	f.append(standingFor("p", 5), 5, "", "1")
	if !fresh(standings) {
		t.Errorf("renewal 1: %s has TTL %v, want about %v", standings, pttl(standings), ttl)
	}
}

// standingFor is a standing after moves moves, whose rank member changes
// with each (its points do).
func standingFor(player string, moves int) match.Standing {
	return match.Standing{PlayerID: player, Name: player, Points: 5 * moves, Moves: moves, FinishedMs: -1, ReachedMs: int64(moves)}
}
