package api_test

import (
	"testing"

	"klondike/api"
	"klondike/api/servertest"
)

// TestNewServerNeedsItsParts: NewServer builds no lobby, service, hub,
// metrics or store; a Config without one, or whose Hub counts into other
// Metrics, panics with a message naming it.
func TestNewServerNeedsItsParts(t *testing.T) {
	srv := servertest.New(servertest.Config{})
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		drop func(*api.Config)
		want string
	}{
		{func(c *api.Config) { c.Lobby = nil }, "api: Config needs a Lobby"},
		{func(c *api.Config) { c.Challenges = nil }, "api: Config needs Challenges"},
		{func(c *api.Config) { c.Hub = nil }, "api: Config needs a Hub"},
		{func(c *api.Config) { c.Metrics = nil }, "api: Config needs Metrics"},
		{func(c *api.Config) { c.Store = nil }, "api: Config needs a Store"},
		{func(c *api.Config) { c.Hub = api.NewHub(api.NewMetrics("test")) }, "api: Config's Hub counts into other Metrics"},
	} {
		cfg := api.Config{Lobby: srv.Lobby, Challenges: srv.Challenges, Hub: srv.Hub, Metrics: srv.Metrics, Store: srv.Store}
		tc.drop(&cfg)
		func() {
			defer func() {
				if got := recover(); got != tc.want {
					t.Errorf("NewServer panicked with %v, want %q", got, tc.want)
				}
			}()
			api.NewServer(cfg)
		}()
	}
}
