package api_test

import (
	"klondike/api"
	"klondike/api/servertest"
)

func init() {
	api.NewTestServer = func(c api.TestConfig) *api.Server {
		return servertest.New(servertest.Config{Limits: c.Limits, NewSessionsPerMinute: c.NewSessionsPerMinute, Logger: c.Logger})
	}
}
