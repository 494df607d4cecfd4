package api_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
)

// TestAttemptCapsOverTheWire: a player past their attempts in play is
// rate_limited, a node past its own is unavailable, each with its words.
func TestAttemptCapsOverTheWire(t *testing.T) {
	srv := servertest.New(servertest.Config{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxAttemptsPerPlayer: 1, MaxAttempts: 2,
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	player := func(name string) *apitest.Client {
		c := apitest.Dial(t, hs.URL)
		c.Hello(name)
		return c
	}
	refused := func(c *apitest.Client, id, code, msg string) {
		t.Helper()
		f := c.Reply(protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: id})
		if f.Type != protocol.TypeError {
			t.Fatalf("got %s, want an error", f)
		}
		if e := apitest.Decode[protocol.Error](t, f); e.Code != code || e.Message != msg {
			t.Fatalf("start_attempt: %s %q, want %s %q", e.Code, e.Message, code, msg)
		}
	}
	alice := player("alice")
	first := apitest.Request[protocol.AsyncRound](alice, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge}).Round.RoundID
	second := apitest.Request[protocol.AsyncRound](alice, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge}).Round.RoundID
	bob := player("bob")
	apitest.Request[protocol.RoundStarted](bob, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: first})
	refused(bob, second, protocol.CodeRateLimited, "you have too many attempts in play: finish one first")
	apitest.Request[protocol.RoundStarted](bob, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: first}) // a resume
	apitest.Request[protocol.RoundStarted](player("carol"), protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: first})
	refused(player("dave"), first, protocol.CodeUnavailable, "the server has too many attempts in play; try again later")
}
