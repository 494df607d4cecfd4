package lobby

import "testing"

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
