package ws

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestLimitsDefaults(t *testing.T) {
	l := Limits{}.WithDefaults()
	want := Limits{
		ReadLimit: 4096, HelloTimeout: 10 * time.Second, PongWait: time.Minute,
		WriteWait: 10 * time.Second, CloseWait: 2 * time.Second, SendQueue: 256,
		MsgRate: 50, MsgBurst: 100, MaxConnsPerIP: 64,
	}
	if l.ReadLimit != want.ReadLimit || l.HelloTimeout != want.HelloTimeout || l.PongWait != want.PongWait ||
		l.WriteWait != want.WriteWait || l.CloseWait != want.CloseWait || l.SendQueue != want.SendQueue ||
		l.MsgRate != want.MsgRate || l.MsgBurst != want.MsgBurst || l.MaxConnsPerIP != want.MaxConnsPerIP {
		t.Fatalf("defaults %+v", l)
	}
	if p := l.PingPeriod(); p != 54*time.Second {
		t.Fatalf("ping period %v", p)
	}
	// Set fields stay; negatives that mean "off" stay.
	l = Limits{ReadLimit: 100, MsgRate: -1, MaxConnsPerIP: -1, PongWait: 10 * time.Second}.WithDefaults()
	if l.ReadLimit != 100 || l.MsgRate != -1 || l.MaxConnsPerIP != -1 || l.PingPeriod() != 9*time.Second {
		t.Fatalf("explicit %+v", l)
	}
}

func TestOriginAllowed(t *testing.T) {
	for _, tc := range []struct {
		allowed []string
		host    string
		origin  string
		ok      bool
	}{
		{nil, "game.example", "", true},
		{nil, "game.example", "https://game.example", true},
		{nil, "game.example:8080", "http://GAME.example:8080", true},
		{nil, "game.example:8080", "http://game.example", false},
		{nil, "game.example", "https://evil.example", false},
		{nil, "game.example", "null", false},
		{nil, "game.example", "::bad", false},
		{[]string{"https://app.example"}, "api.example", "https://APP.example", true},
		{[]string{"https://app.example"}, "api.example", "http://app.example", false},
		{[]string{"*"}, "api.example", "https://anything.example", true},
	} {
		r := httptest.NewRequest("GET", "http://"+tc.host+"/ws", nil)
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if got := (Limits{AllowedOrigins: tc.allowed}).originAllowed(r); got != tc.ok {
			t.Errorf("allowed %v host %s origin %q: %v, want %v", tc.allowed, tc.host, tc.origin, got, tc.ok)
		}
	}
}

func TestTokenBucket(t *testing.T) {
	t0 := time.Unix(1000, 0)
	b := newTokenBucket(10, 5, t0)
	var got []rateVerdict
	for range 11 {
		got = append(got, b.take(t0))
	}
	want := []rateVerdict{rateOK, rateOK, rateOK, rateOK, rateOK,
		rateLimited, rateLimited, rateLimited, rateLimited, rateFlood, rateFlood}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("take %d: %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
	// The debt (-6 tokens) is paid back at 10 a second: one token again
	// after 0.7 s, a full bucket after 1.1 s.
	if v := b.take(t0.Add(600 * time.Millisecond)); v == rateOK {
		t.Fatal("ok while still in debt")
	}
	b = newTokenBucket(10, 5, t0)
	for range 5 {
		b.take(t0)
	}
	// A steady 10 a second never runs out.
	for i := 1; i <= 100; i++ {
		if v := b.take(t0.Add(time.Duration(i) * 100 * time.Millisecond)); v != rateOK {
			t.Fatalf("steady rate, message %d: %v", i, v)
		}
	}
	// Time going backwards refills nothing and breaks nothing.
	if v := b.take(t0); v != rateLimited {
		t.Fatalf("after a clock step back: %v", v)
	}
	if v := b.take(t0.Add(20 * time.Second)); v != rateOK {
		t.Fatalf("after the clock caught up: %v", v)
	}
	// A nil bucket (rate limiting off) allows everything.
	var off *tokenBucket
	if off.take(t0) != rateOK {
		t.Fatal("nil bucket refused")
	}
}

func TestCloseReasonTruncated(t *testing.T) {
	s := newTestServer(t, Limits{})
	c := s.hello(t, "p1")
	s.h.conn("p1").Close(4001, strings.Repeat("é", 100)) // 200 bytes
	ce, _ := readClose(t, c)
	if ce.Code != 4001 || len(ce.Text) > maxCloseReason || !utf8.ValidString(ce.Text) || ce.Text == "" {
		t.Fatalf("closed with %d %q", ce.Code, ce.Text)
	}
}

func TestClientIP(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	tests := []struct {
		name    string
		trusted []netip.Prefix
		peer    string
		xff     []string
		want    string
	}{
		{"no proxy trusted: the header is ignored", nil, "10.0.0.5:1234", []string{"203.0.113.9"}, "10.0.0.5"},
		{"an untrusted peer's header is ignored", proxies, "198.51.100.7:1", []string{"203.0.113.9"}, "198.51.100.7"},
		{"a trusted proxy names the client", proxies, "10.0.0.5:1234", []string{"203.0.113.9"}, "203.0.113.9"},
		{"a forged first hop is not believed", proxies, "10.0.0.5:1", []string{"1.1.1.1, 203.0.113.9"}, "203.0.113.9"},
		{"through two trusted proxies", proxies, "10.0.0.5:1", []string{"203.0.113.9, 10.1.2.3"}, "203.0.113.9"},
		{"several header lines", proxies, "10.0.0.5:1", []string{"1.1.1.1", "203.0.113.9"}, "203.0.113.9"},
		{"no header: the proxy itself", proxies, "10.0.0.5:1", nil, "10.0.0.5"},
		{"a broken hop: the last proxy", proxies, "10.0.0.5:1", []string{"203.0.113.9, nonsense"}, "10.0.0.5"},
		{"IPv6 proxy, IPv4-mapped client", proxies, "[::1]:80", []string{"::ffff:203.0.113.9"}, "203.0.113.9"},
		{"every hop trusted: the first proxy", proxies, "10.0.0.5:1", []string{"10.9.9.9, 10.1.1.1"}, "10.9.9.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/ws", nil)
			r.RemoteAddr = tt.peer
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := (Limits{TrustedProxies: tt.trusted}).ClientIP(r); got != tt.want {
				t.Errorf("ClientIP(peer %s, X-Forwarded-For %q) = %s, want %s", tt.peer, tt.xff, got, tt.want)
			}
		})
	}
}
