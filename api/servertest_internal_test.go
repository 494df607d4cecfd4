package api

import "log/slog"

// TestConfig is what the tests inside the package set of a server.
type TestConfig struct {
	Limits               Limits
	NewSessionsPerMinute int
	Logger               *slog.Logger
}

// NewTestServer wires a server on memory backends with api/servertest.
// The tests inside the package cannot import servertest, which imports
// api: servertest_hook_test.go, outside the package but in the same test
// binary, sets it.
var NewTestServer func(TestConfig) *Server
