package lobby

import (
	"context"
	"net/netip"
	"time"
)

// New sessions are limited per address: every limit per player rests on
// identities, and a hello without a token mints one. Each address has a
// token bucket that holds Config.NewSessionsPerMinute and refills at that
// rate a minute, in Config.Allowances, so that every node sharing them
// counts into one bucket; resuming a session with its token takes nothing.

// AllowNew takes one from addr's allowance of new players (hello without
// a token, or a passkey sign-in's ceremony): nil if there was one,
// ErrTooManyNewSessions if not, or an error matching match.ErrUnavailable
// when the allowances cannot be reached (a new player is never let in
// uncounted). addr "" has no limit.
func (l *Lobby) AllowNew(ctx context.Context, addr string) error {
	return l.allowNew(ctx, addrKey(addr))
}

// allowNew is AllowNew for the key of an address (addrKey).
func (l *Lobby) allowNew(ctx context.Context, key string) error {
	if key == "" {
		return nil
	}
	ok, err := l.cfg.Allowances.Take(ctx, "new-sessions:"+key, l.cfg.NewSessionsPerMinute, time.Minute, time.Now())
	switch {
	case err != nil:
		return err
	case !ok:
		return ErrTooManyNewSessions
	}
	return nil
}

// addrKey is the key of a client's address in the limits per address:
// the IP address, or for IPv6 its /64 prefix, which one subscriber of a
// provider usually holds whole; "" for none.
func addrKey(addr string) string {
	if addr == "" {
		return ""
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return ip.String()
	}
	return p.String()
}
