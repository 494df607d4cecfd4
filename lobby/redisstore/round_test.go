package redisstore_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"klondike/lobby/redisstore"
	"klondike/match"
)

// TestCloseRound: after CloseRound an Append fails with ErrRoundClosed
// while a retry of the last entry still succeeds, also after SCRIPT FLUSH;
// the marker is the empty field of the round's epochs hash, which has the
// store's TTL.
func TestCloseRound(t *testing.T) {
	t.Parallel()
	const ttl = time.Hour
	f := newFixture(t, redisstore.Config{TTL: ttl})
	for seq := 1; seq <= 3; seq++ {
		f.append(t, "r", "p", seq)
	}
	if err := f.s.CloseRound(f.ctx, "r"); err != nil {
		t.Fatal(err)
	}
	for _, flush := range []bool{false, true} {
		if flush {
			if err := f.c.ScriptFlush(f.ctx).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.s.Append(f.ctx, "r", 0, entry(4), standing("p", 4)); !errors.Is(err, match.ErrRoundClosed) {
			t.Fatalf("Append after CloseRound: %v, want ErrRoundClosed", err)
		}
		if err := f.s.Append(f.ctx, "r", 0, entry(3), standing("p", 3)); err != nil {
			t.Fatalf("retry of the last entry after CloseRound: %v, want nil", err)
		}
	}
	if n, err := f.c.LLen(f.ctx, f.prefix+"{round:r}:log:p").Result(); err != nil || n != 3 {
		t.Fatalf("LLEN: %d, %v; want 3", n, err)
	}
	key := f.prefix + "{round:r}:epochs"
	if v, err := f.c.HGet(f.ctx, key, "").Result(); err != nil || v != "1" {
		t.Fatalf("closed marker (field \"\" of %s): %q, %v; want \"1\"", key, v, err)
	}
	d, err := f.c.PTTL(f.ctx, key).Result()
	if err != nil || d <= ttl-time.Minute || d > ttl {
		t.Fatalf("closed marker's hash %s: TTL %v, %v; want about %v", key, d, err, ttl)
	}
	// A player id that would be the marker is refused.
	if err := f.s.Append(f.ctx, "r2", 0, entry(1), standing("", 1)); err == nil {
		t.Fatal("Append of an empty player id succeeded")
	}
	if _, err := f.s.ClaimSeat(f.ctx, "r2", ""); err == nil {
		t.Fatal("ClaimSeat of an empty player id succeeded")
	}
	if err := f.s.SetStanding(f.ctx, "r2", standing("", 0)); err == nil {
		t.Fatal("SetStanding of an empty player id succeeded")
	}
}

// TestClaimSeatKeys: ClaimSeat writes the epoch as append.lua reads it
// (a decimal string) and renews the epochs hash's TTL.
func TestClaimSeatKeys(t *testing.T) {
	t.Parallel()
	const ttl = time.Hour
	f := newFixture(t, redisstore.Config{TTL: ttl})
	if err := f.s.Append(f.ctx, "r", math.MaxInt64, entry(1), standing("p", 1)); err != nil {
		t.Fatal(err)
	}
	e, err := f.s.ClaimSeat(f.ctx, "r", "p")
	if err != nil || e != math.MaxInt64+1 {
		t.Fatalf("ClaimSeat: %d, %v", e, err)
	}
	key := f.prefix + "{round:r}:epochs"
	if v, err := f.c.HGet(f.ctx, key, "p").Result(); err != nil || v != "9223372036854775808" {
		t.Fatalf("epochs hash holds %q, %v", v, err)
	}
	if d, err := f.c.PTTL(f.ctx, key).Result(); err != nil || d <= ttl-time.Minute || d > ttl {
		t.Fatalf("epochs hash TTL %v, %v", d, err)
	}
	if _, err := f.s.ClaimSeat(f.ctx, "r", "q"); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Append(f.ctx, "r", math.MaxUint64, entry(2), standing("p", 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.ClaimSeat(f.ctx, "r", "p"); !errors.Is(err, redisstore.ErrEpochsExhausted) {
		t.Fatalf("ClaimSeat at 2⁶⁴−1: %v, want ErrEpochsExhausted", err)
	}
}
