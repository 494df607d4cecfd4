package lobby

import (
	"net/netip"
	"testing"
	"time"
)

// TestAddrBucketsBounded: the new-session budgets are forgotten once full
// again, and never more than maxAddrBuckets are kept, however many
// addresses come.
func TestAddrBucketsBounded(t *testing.T) {
	b := newAddrBuckets(DefaultNewSessionsPerMinute)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ip := netip.MustParseAddr("10.0.0.0")
	for range maxAddrBuckets + 1000 {
		ip = ip.Next()
		if !b.take(ip.String(), now) {
			t.Fatalf("the first session from %s refused", ip)
		}
		if len(b.full) > maxAddrBuckets {
			t.Fatalf("%d addresses kept, want at most %d", len(b.full), maxAddrBuckets)
		}
	}
	// Each address spent one session: its bucket is full again one
	// refill later, and forgotten.
	b.sweep(now.Add(time.Minute / DefaultNewSessionsPerMinute))
	if n := len(b.full); n != 0 {
		t.Fatalf("%d addresses kept after their buckets refilled, want 0", n)
	}
	// An address at its limit is kept until it has refilled.
	for range DefaultNewSessionsPerMinute {
		b.take("10.9.9.9", now)
	}
	if b.take("10.9.9.9", now) {
		t.Fatal("a session over the limit was allowed")
	}
	b.sweep(now.Add(time.Minute - time.Second))
	if _, kept := b.full["10.9.9.9"]; !kept {
		t.Fatal("an address forgotten before its bucket refilled")
	}
	b.sweep(now.Add(time.Minute))
	if _, kept := b.full["10.9.9.9"]; kept {
		t.Fatal("an address kept after its bucket refilled")
	}
}

func TestAddrKey(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "",
		"192.0.2.1":              "192.0.2.1",
		"::ffff:192.0.2.1":       "192.0.2.1",
		"2001:db8:1:2:3:4:5:6":   "2001:db8:1:2::/64",
		"2001:db8:1:2::9":        "2001:db8:1:2::/64",
		"fe80::1%eth0":           "fe80::/64",
		"not an address, a name": "not an address, a name",
	} {
		if got := addrKey(in); got != want {
			t.Errorf("addrKey(%q) = %q, want %q", in, got, want)
		}
	}
}
