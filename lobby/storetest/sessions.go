package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/match"
)

// RunSessions runs the conformance suite of lobby.Sessions; newSessions
// returns the Sessions a subtest uses. Subtests run in parallel and use
// tokens of their own, so a factory may hand all of them one Sessions.
//
//	func TestSessionsConformance(t *testing.T) {
//		storetest.RunSessions(t, func(*testing.T) lobby.Sessions { return memstore.NewSessions() })
//	}
func RunSessions(t *testing.T, newSessions func(t *testing.T) lobby.Sessions) {
	t.Helper()
	stamp := time.Now().UnixNano()
	tests := []struct {
		name string
		fn   func(t *testing.T, h *sessionsHarness)
	}{
		{"SaveAndResume", testSessionSaveResume},
		{"UnknownToken", testSessionUnknown},
		{"SaveReplaces", testSessionSaveReplaces},
		{"TokensAreIsolated", testSessionTokens},
		{"UnusualTokensAndNames", testSessionUnusual},
		{"IdleExpiry", testSessionExpiry},
		{"ResumeShortensIdle", testSessionResumeShortens},
		{"ResumeExtendsIdle", testSessionResumeExtends},
		{"Concurrent", testSessionsConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			t.Cleanup(cancel)
			tc.fn(t, &sessionsHarness{
				t: t, s: newSessions(t), ctx: ctx,
				prefix: fmt.Sprintf("ses%x-%s-", stamp, tc.name),
			})
		})
	}
}

// sessionsHarness carries a subtest's Sessions and the prefix of its
// tokens.
type sessionsHarness struct {
	t      *testing.T
	s      lobby.Sessions
	ctx    context.Context
	prefix string
}

// tok returns the subtest's token named name.
func (h *sessionsHarness) tok(name string) string { return h.prefix + name }

func (h *sessionsHarness) save(s lobby.Session, idle time.Duration) {
	h.t.Helper()
	if err := h.s.Save(h.ctx, s, idle); err != nil {
		h.t.Fatalf("Save(%+v, %v): %v", s, idle, err)
	}
}

// want resumes token and fails the test unless it gives want, its Token
// set.
func (h *sessionsHarness) want(token string, idle time.Duration, want lobby.Session) {
	h.t.Helper()
	want.Token = token
	got, err := h.s.Resume(h.ctx, token, idle)
	if err != nil || got != want {
		h.t.Fatalf("Resume(%q, %v) = %+v, %v; want %+v", token, idle, got, err, want)
	}
}

// wantGone fails the test unless token resumes nothing.
func (h *sessionsHarness) wantGone(token string) {
	h.t.Helper()
	if got, err := h.s.Resume(h.ctx, token, long); !errors.Is(err, match.ErrNotFound) {
		h.t.Fatalf("Resume(%q) = %+v, %v; want match.ErrNotFound", token, got, err)
	}
}

func testSessionSaveResume(t *testing.T, h *sessionsHarness) {
	s := lobby.Session{PlayerID: "p1", Name: "alice", Token: h.tok("a")}
	h.save(s, long)
	h.want(s.Token, long, s)
	h.want(s.Token, long, s) // resuming again changes nothing
}

func testSessionUnknown(t *testing.T, h *sessionsHarness) {
	h.wantGone(h.tok("never-saved"))
	h.wantGone("")
}

// testSessionSaveReplaces: a Save under a token already saved replaces
// the session (a player renamed on resume).
func testSessionSaveReplaces(t *testing.T, h *sessionsHarness) {
	s := lobby.Session{PlayerID: "p1", Name: "alice", Token: h.tok("a")}
	h.save(s, long)
	s.Name = "alice2"
	h.save(s, long)
	h.want(s.Token, long, s)
}

func testSessionTokens(t *testing.T, h *sessionsHarness) {
	sessions := []lobby.Session{
		{PlayerID: "p1", Name: "one", Token: h.tok("t")},
		{PlayerID: "p2", Name: "two", Token: h.tok("t2")},
		{PlayerID: "p3", Name: "three", Token: h.tok("T")},
		{PlayerID: "p4", Name: "four", Token: h.tok("t ")},
	}
	for _, s := range sessions {
		h.save(s, long)
	}
	for _, s := range sessions {
		h.want(s.Token, long, s)
	}
	h.wantGone(h.tok(""))
	h.wantGone(h.tok("t3"))
}

func testSessionUnusual(t *testing.T, h *sessionsHarness) {
	names := []string{`"quoted" \ back`, "Zoë 🂡", strings.Repeat("é", 24), "{tag}", "a\u00a0b"}
	tokens := []string{"a:b", "{x}", "with space", "ünï", strings.Repeat("x", 1000), "\x00\xff"}
	for i, tok := range tokens {
		s := lobby.Session{PlayerID: fmt.Sprintf("p%d:{x}", i), Name: names[i%len(names)], Token: h.tok(tok)}
		h.save(s, long)
		h.want(s.Token, long, s)
	}
}

// testSessionExpiry: a session not used for its idle time is gone; a new
// Save under its token works.
func testSessionExpiry(t *testing.T, h *sessionsHarness) {
	s := lobby.Session{PlayerID: "p1", Name: "alice", Token: h.tok("a")}
	h.save(s, 50*time.Millisecond)
	time.Sleep(150 * time.Millisecond)
	h.wantGone(s.Token)
	h.save(s, long)
	h.want(s.Token, long, s)
}

// testSessionResumeShortens: Resume gives the session its idle time anew,
// even a shorter one than the Save's.
func testSessionResumeShortens(t *testing.T, h *sessionsHarness) {
	s := lobby.Session{PlayerID: "p1", Name: "alice", Token: h.tok("a")}
	h.save(s, long)
	h.want(s.Token, 50*time.Millisecond, s)
	time.Sleep(150 * time.Millisecond)
	h.wantGone(s.Token)
}

// testSessionResumeExtends: a session resumed before its idle time ran
// out lives the idle time of the Resume from then.
func testSessionResumeExtends(t *testing.T, h *sessionsHarness) {
	const idle = 300 * time.Millisecond
	s := lobby.Session{PlayerID: "p1", Name: "alice", Token: h.tok("a")}
	start := time.Now()
	h.save(s, idle)
	got, err := h.s.Resume(h.ctx, s.Token, long)
	if errors.Is(err, match.ErrNotFound) && time.Since(start) >= idle {
		t.Skipf("Save and Resume took %v, longer than the idle time %v", time.Since(start), idle)
	}
	if err != nil || got != s {
		t.Fatalf("Resume(%q) = %+v, %v; want %+v", s.Token, got, err, s)
	}
	time.Sleep(time.Until(start.Add(2 * idle)))
	h.want(s.Token, long, s)
}

// testSessionsConcurrent saves and resumes many players' sessions at once,
// and one token's from many writers: it resumes as one of the sessions
// written.
func testSessionsConcurrent(t *testing.T, h *sessionsHarness) {
	const players = 32
	var wg sync.WaitGroup
	for i := range players {
		wg.Go(func() {
			s := lobby.Session{PlayerID: fmt.Sprintf("p%d", i), Name: fmt.Sprintf("n%d", i), Token: h.tok(fmt.Sprintf("t%d", i))}
			for range 5 {
				if err := h.s.Save(h.ctx, s, long); err != nil {
					t.Errorf("Save(%+v): %v", s, err)
					return
				}
				if got, err := h.s.Resume(h.ctx, s.Token, long); err != nil || got != s {
					t.Errorf("Resume(%q) = %+v, %v; want %+v", s.Token, got, err, s)
					return
				}
			}
			shared := lobby.Session{PlayerID: "shared", Name: fmt.Sprintf("n%d", i), Token: h.tok("shared")}
			if err := h.s.Save(h.ctx, shared, long); err != nil {
				t.Errorf("Save(%+v): %v", shared, err)
			}
		})
	}
	wg.Wait()
	got, err := h.s.Resume(h.ctx, h.tok("shared"), long)
	if err != nil || got.PlayerID != "shared" || !strings.HasPrefix(got.Name, "n") || got.Token != h.tok("shared") {
		t.Fatalf("Resume of the token saved by %d writers = %+v, %v", players, got, err)
	}
}
