package api_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
)

// lockedBuffer is a log that the server's goroutines write together.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCredentialNeverLogged: with every log line on (debug), a player's
// device credential appears in none, whatever it is used for: a hello, a
// resume, a hello with a credential the server does not know, the
// player's routes with it right or wrong, signing out.
func TestCredentialNeverLogged(t *testing.T) {
	var log lockedBuffer
	srv := servertest.New(servertest.Config{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	a := apitest.Dial(t, hs.URL)
	w := a.Hello("alice")
	b := apitest.Dial(t, hs.URL)
	b.Resume(w.Token)
	c := apitest.Dial(t, hs.URL)
	forged := strings.Repeat("f", 48)
	c.Send(protocol.Hello{Type: protocol.TypeHello, Token: forged})
	if e := apitest.Expect[protocol.Error](c); e.Code != protocol.CodeUnauthorized {
		t.Fatalf("hello with an unknown token = %+v", e)
	}
	for _, tc := range []struct{ method, path, token string }{
		{http.MethodGet, "/api/v1/me", w.Token},
		{http.MethodGet, "/api/v1/me", forged},
		{http.MethodGet, "/api/v1/me/export", w.Token},
		{http.MethodPatch, "/api/v1/me", w.Token}, // no body: 400
		{http.MethodPost, "/api/v1/me/signout", w.Token},
		{http.MethodGet, "/api/v1/me", w.Token}, // signed out: 401
	} {
		req, _ := http.NewRequest(tc.method, hs.URL+tc.path, nil)
		req.Header.Set("Authorization", "Bearer "+tc.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	a.Send(protocol.Hello{Type: protocol.TypeHello, Token: w.Token}) // a second hello on a connection
	apitest.Expect[protocol.Error](a)
	srv.Close()
	got := log.String()
	if got == "" {
		t.Fatal("nothing was logged: the test would prove nothing")
	}
	for _, secret := range []string{w.Token, forged} {
		if strings.Contains(got, secret) {
			t.Errorf("a credential is in the log:\n%s", got)
		}
	}
}
