package memstore

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby"
)

// TestSessionsSwept: expired sessions that no one resumes are forgotten by
// a later Save, once a sweepEvery has passed; live ones are kept.
func TestSessionsSwept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss, ctx := NewSessions(), context.Background()
		for i := range 1000 {
			_ = ss.Save(ctx, lobby.Session{PlayerID: "p", Token: fmt.Sprint(i)}, time.Second)
		}
		_ = ss.Save(ctx, lobby.Session{PlayerID: "kept", Token: "kept"}, 2*sweepEvery)
		time.Sleep(sweepEvery)
		_ = ss.Save(ctx, lobby.Session{PlayerID: "new", Token: "new"}, time.Second)
		ss.mu.Lock()
		n := len(ss.m)
		ss.mu.Unlock()
		if n != 2 {
			t.Fatalf("%d sessions kept after a sweep, want 2 (the live ones)", n)
		}
		if s, err := ss.Resume(ctx, "kept", time.Second); err != nil || s.PlayerID != "kept" {
			t.Fatalf("Resume(kept) = %+v, %v", s, err)
		}
	})
}
