package lobby

import "net/netip"

// New sessions are limited per address: every limit per player rests on
// identities, and a hello without a token mints one. Each address has a
// token bucket that holds Config.NewSessionsPerMinute and refills at that
// rate a minute (lobby/internal/ratelimit); resuming a session with its
// token takes nothing.

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
