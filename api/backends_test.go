package api_test

import (
	"testing"

	"klondike/api"
	"klondike/lobby/memstore"
)

// withMemory returns cfg with the memory backends of this process in place
// of any it leaves nil, so that a test may replace one backend alone.
func withMemory(cfg api.Config) api.Config {
	mem := memstore.NewBackends()
	if cfg.Store == nil {
		cfg.Store = mem.Store
	}
	if cfg.Sessions == nil {
		cfg.Sessions = mem.Sessions
	}
	if cfg.Coord == nil {
		cfg.Coord = mem.Coord
	}
	if cfg.Challenges == nil {
		cfg.Challenges = mem.Challenges
	}
	if cfg.Records == nil {
		cfg.Records = mem.Challenges
	}
	return cfg
}

// TestNewServerNeedsBackends: NewServer builds no backend; a Config
// without one panics with a message naming it.
func TestNewServerNeedsBackends(t *testing.T) {
	for _, tc := range []struct {
		drop func(*api.Config)
		want string
	}{
		{func(c *api.Config) { c.Store = nil }, "api: Config needs a Store"},
		{func(c *api.Config) { c.Sessions = nil }, "api: Config needs Sessions"},
		{func(c *api.Config) { c.Coord = nil }, "api: Config needs a Coord"},
	} {
		cfg := withMemory(api.Config{})
		tc.drop(&cfg)
		func() {
			defer func() {
				if got := recover(); got != tc.want {
					t.Errorf("NewServer panicked with %v, want %q", got, tc.want)
				}
			}()
			api.NewServer(cfg).Close()
		}()
	}
}
