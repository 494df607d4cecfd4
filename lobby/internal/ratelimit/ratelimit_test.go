package ratelimit

import (
	"net/netip"
	"testing"
	"time"
)

// perMinute is the lobby's default of new sessions an address.
const perMinute = 30

// TestBucketsBounded: the budgets are forgotten once full again, and never
// more than maxKeys are kept, however many keys come.
func TestBucketsBounded(t *testing.T) {
	b := New(perMinute, time.Minute)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ip := netip.MustParseAddr("10.0.0.0")
	for range maxKeys + 1000 {
		ip = ip.Next()
		if !b.Take(ip.String(), now) {
			t.Fatalf("the first take for %s refused", ip)
		}
		if len(b.full) > maxKeys {
			t.Fatalf("%d addresses kept, want at most %d", len(b.full), maxKeys)
		}
	}
	// Each address spent one session: its bucket is full again one
	// refill later, and forgotten.
	b.Sweep(now.Add(time.Minute / perMinute))
	if n := len(b.full); n != 0 {
		t.Fatalf("%d addresses kept after their buckets refilled, want 0", n)
	}
	// An address at its limit is kept until it has refilled.
	for range perMinute {
		b.Take("10.9.9.9", now)
	}
	if b.Take("10.9.9.9", now) {
		t.Fatal("a session over the limit was allowed")
	}
	b.Sweep(now.Add(time.Minute - time.Second))
	if _, kept := b.full["10.9.9.9"]; !kept {
		t.Fatal("an address forgotten before its bucket refilled")
	}
	b.Sweep(now.Add(time.Minute))
	if _, kept := b.full["10.9.9.9"]; kept {
		t.Fatal("an address kept after its bucket refilled")
	}
}
