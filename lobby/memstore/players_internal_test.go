package memstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby"
	"klondike/match"
)

// TestPlayersSwept: expired players, with their credentials and passkeys,
// ceremonies and tombstones that no one asks for are forgotten by a later
// write, once a sweepEvery has passed; live ones are kept.
func TestPlayersSwept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ps, ctx := NewPlayers(), context.Background()
		for i := range 100 {
			id := fmt.Sprint("p", i)
			_ = ps.Create(ctx, lobby.Player{ID: id}, "c"+id, time.Second)
			_ = ps.AddCredential(ctx, id, "d"+id, time.Second)
			_ = ps.AddPasskey(ctx, id, lobby.Passkey{ID: []byte("k" + id)}, time.Second)
			_ = ps.PutCeremony(ctx, id, nil, time.Second)
			_ = ps.Delete(ctx, "gone"+id, time.Second)
		}
		_ = ps.Create(ctx, lobby.Player{ID: "kept"}, "kept", 2*sweepEvery)
		_ = ps.AddPasskey(ctx, "kept", lobby.Passkey{ID: []byte("kept")}, 2*sweepEvery)
		_ = ps.PutCeremony(ctx, "kept", []byte("c"), 2*sweepEvery)
		_ = ps.Delete(ctx, "tomb", 2*sweepEvery)
		time.Sleep(sweepEvery)
		_ = ps.PutCeremony(ctx, "new", nil, time.Second)
		ps.mu.Lock()
		sizes := []int{len(ps.players), len(ps.creds), len(ps.passkeys), len(ps.ceremonies), len(ps.deleted)}
		ps.mu.Unlock()
		if want := []int{1, 1, 1, 2, 1}; fmt.Sprint(sizes) != fmt.Sprint(want) {
			t.Fatalf("players, credentials, passkeys, ceremonies, tombstones kept after a sweep: %v, want %v", sizes, want)
		}
		if p, err := ps.Resume(ctx, "kept", time.Second); err != nil || p.ID != "kept" {
			t.Fatalf("Resume(kept) = %+v, %v", p, err)
		}
	})
}

// TestPlayersCeremonyCap: past the most ceremonies kept, PutCeremony is
// unavailable until one is taken or, a ceremonySweepEvery later, expires;
// putting one kept again is no new one.
func TestPlayersCeremonyCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ps, ctx := NewPlayers(), context.Background()
		ps.maxCeremonies = 3
		_ = ps.PutCeremony(ctx, "a", nil, time.Minute)
		_ = ps.PutCeremony(ctx, "b", nil, time.Minute)
		_ = ps.PutCeremony(ctx, "short", nil, time.Millisecond)
		if err := ps.PutCeremony(ctx, "d", nil, time.Minute); !errors.Is(err, match.ErrUnavailable) {
			t.Fatalf("PutCeremony past the most = %v; want match.ErrUnavailable", err)
		}
		if err := ps.PutCeremony(ctx, "a", []byte("again"), time.Minute); err != nil {
			t.Fatalf("PutCeremony of one kept, at the most: %v", err)
		}
		if _, err := ps.TakeCeremony(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		if err := ps.PutCeremony(ctx, "d", nil, time.Minute); err != nil {
			t.Fatalf("PutCeremony after a take: %v", err)
		}
		// "short" has expired, but the last look for expired ones was too
		// recent; a ceremonySweepEvery later it is forgotten.
		time.Sleep(2 * time.Millisecond)
		if err := ps.PutCeremony(ctx, "e", nil, time.Minute); !errors.Is(err, match.ErrUnavailable) {
			t.Fatalf("PutCeremony past the most = %v; want match.ErrUnavailable", err)
		}
		time.Sleep(ceremonySweepEvery)
		if err := ps.PutCeremony(ctx, "e", nil, time.Minute); err != nil {
			t.Fatalf("PutCeremony once the expired one can go: %v", err)
		}
		if got, err := ps.TakeCeremony(ctx, "a"); err != nil || string(got) != "again" {
			t.Fatalf("TakeCeremony(a) = %q, %v", got, err)
		}
		if MaxCeremonies != 100_000 || NewPlayers().maxCeremonies != MaxCeremonies {
			t.Fatalf("the most ceremonies is %d, %d; want 100,000", MaxCeremonies, NewPlayers().maxCeremonies)
		}
	})
}
