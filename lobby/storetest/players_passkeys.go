package storetest

// The players' suite (RunPlayers) on passkeys, WebAuthn ceremonies and
// deletion.

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/match"
)

func testPlayerPasskeys(t *testing.T, h *playersHarness) {
	p, q := h.player("p"), h.player("q")
	h.create(p, h.cred("p"), long)
	h.create(q, h.cred("q"), long)
	k1, k2, k3 := h.passkey("1"), h.passkey("2"), h.passkey("3")
	h.addPasskey(p.ID, k1, long)
	h.addPasskey(p.ID, k2, long)
	h.addPasskey(q.ID, k3, long)
	h.wantPasskeys(p.ID, k1, k2)
	h.wantPasskeys(q.ID, k3)
	h.wantOwner(p.ID, k1)
	h.wantOwner(p.ID, k2)
	h.wantOwner(q.ID, k3)

	// An update changes the data only.
	up := k1
	up.Data = []byte("counter 7")
	up.Created = time.Now().Add(time.Hour)
	if err := h.s.UpdatePasskey(h.ctx, p.ID, up, long); err != nil {
		t.Fatalf("UpdatePasskey: %v", err)
	}
	k1.Data = up.Data
	h.wantOwner(p.ID, k1)
	h.wantPasskeys(p.ID, k1, k2)
	if err := h.s.UpdatePasskey(h.ctx, q.ID, k1, long); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("UpdatePasskey of another player's passkey = %v; want match.ErrNotFound", err)
	}
	if err := h.s.UpdatePasskey(h.ctx, p.ID, h.passkey("none"), long); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("UpdatePasskey of no passkey = %v; want match.ErrNotFound", err)
	}
	h.wantPasskeys(q.ID, k3)

	// What a caller does with what it passed or got changes nothing stored.
	k4 := h.passkey("4")
	h.addPasskey(q.ID, k4, long)
	want := h.passkey("4")
	want.Created = k4.Created
	k4.Data[0]++
	_, got, err := h.s.PasskeyOwner(h.ctx, k4.ID)
	if err != nil {
		t.Fatal(err)
	}
	got.Data[0]++
	h.wantOwner(q.ID, want)
	h.wantNoOwner(h.pkID("none"))
	h.wantNoOwner(nil)
}

func testPlayerTooManyPasskeys(t *testing.T, h *playersHarness) {
	p := h.player("p")
	h.create(p, h.cred("p"), long)
	var want []lobby.Passkey
	for i := range lobby.MaxPasskeys {
		k := h.passkey(fmt.Sprint(i))
		h.addPasskey(p.ID, k, long)
		want = append(want, k)
	}
	extra := h.passkey("extra")
	if err := h.s.AddPasskey(h.ctx, p.ID, extra, long); !errors.Is(err, lobby.ErrTooManyPasskeys) {
		t.Fatalf("AddPasskey past the most = %v; want lobby.ErrTooManyPasskeys", err)
	}
	h.wantPasskeys(p.ID, want...)
	h.wantNoOwner(extra.ID)
	// The passkey refused is free for another player.
	q := h.player("q")
	h.create(q, h.cred("q"), long)
	h.addPasskey(q.ID, extra, long)
	h.wantOwner(q.ID, extra)
}

func testPlayerPasskeyTaken(t *testing.T, h *playersHarness) {
	p, q := h.player("p"), h.player("q")
	h.create(p, h.cred("p"), long)
	h.create(q, h.cred("q"), long)
	k := h.passkey("k")
	h.addPasskey(p.ID, k, long)
	other := k
	other.Data = []byte("another key")
	if err := h.s.AddPasskey(h.ctx, q.ID, other, long); !errors.Is(err, lobby.ErrPasskeyTaken) {
		t.Fatalf("AddPasskey of another player's passkey = %v; want lobby.ErrPasskeyTaken", err)
	}
	if err := h.s.AddPasskey(h.ctx, p.ID, other, long); !errors.Is(err, lobby.ErrPasskeyTaken) {
		t.Fatalf("AddPasskey of the player's own passkey = %v; want lobby.ErrPasskeyTaken", err)
	}
	h.wantOwner(p.ID, k)
	h.wantPasskeys(p.ID, k)
	h.wantPasskeys(q.ID)
}

func testPlayerCeremonies(t *testing.T, h *playersHarness) {
	data := []byte("{\"challenge\":\"x\"}\x00\xff")
	if err := h.s.PutCeremony(h.ctx, h.cer("a"), data, long); err != nil {
		t.Fatalf("PutCeremony: %v", err)
	}
	if err := h.s.PutCeremony(h.ctx, h.cer("b"), []byte("b"), long); err != nil {
		t.Fatalf("PutCeremony: %v", err)
	}
	data[0] = 'X' // the store keeps its own copy
	got, err := h.s.TakeCeremony(h.ctx, h.cer("a"))
	if err != nil || string(got) != "{\"challenge\":\"x\"}\x00\xff" {
		t.Fatalf("TakeCeremony = %q, %v", got, err)
	}
	if got, err := h.s.TakeCeremony(h.ctx, h.cer("a")); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("TakeCeremony again = %q, %v; want match.ErrNotFound", got, err)
	}
	if got, err := h.s.TakeCeremony(h.ctx, h.cer("never")); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("TakeCeremony of one never put = %q, %v; want match.ErrNotFound", got, err)
	}
	if got, err := h.s.TakeCeremony(h.ctx, h.cer("b")); err != nil || string(got) != "b" {
		t.Fatalf("TakeCeremony(b) = %q, %v", got, err)
	}
	for _, id := range []string{"{x}", "a:b c", "ünï", strings.Repeat("z", 500)} {
		if err := h.s.PutCeremony(h.ctx, h.cer(id), []byte(id), long); err != nil {
			t.Fatalf("PutCeremony(%q): %v", id, err)
		}
		if got, err := h.s.TakeCeremony(h.ctx, h.cer(id)); err != nil || string(got) != id {
			t.Fatalf("TakeCeremony(%q) = %q, %v", id, got, err)
		}
	}
}

func testPlayerCeremonyExpiry(t *testing.T, h *playersHarness) {
	if err := h.s.PutCeremony(h.ctx, h.cer("short"), []byte("s"), 50*time.Millisecond); err != nil {
		t.Fatalf("PutCeremony: %v", err)
	}
	if err := h.s.PutCeremony(h.ctx, h.cer("long"), []byte("l"), long); err != nil {
		t.Fatalf("PutCeremony: %v", err)
	}
	time.Sleep(150 * time.Millisecond)
	if got, err := h.s.TakeCeremony(h.ctx, h.cer("short")); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("TakeCeremony of an expired ceremony = %q, %v; want match.ErrNotFound", got, err)
	}
	if got, err := h.s.TakeCeremony(h.ctx, h.cer("long")); err != nil || string(got) != "l" {
		t.Fatalf("TakeCeremony(long) = %q, %v", got, err)
	}
}

// testPlayerDelete: a deleted player is gone with what it held, reported
// by Deleted, and no other player is touched.
func testPlayerDelete(t *testing.T, h *playersHarness) {
	p, q := h.player("p"), h.player("q")
	h.create(p, h.cred("p1"), long)
	h.addCred(p.ID, h.cred("p2"), long)
	k1, k2, kq := h.passkey("1"), h.passkey("2"), h.passkey("q")
	h.addPasskey(p.ID, k1, long)
	h.addPasskey(p.ID, k2, long)
	h.create(q, h.cred("q"), long)
	h.addPasskey(q.ID, kq, long)
	if err := h.s.Delete(h.ctx, p.ID, long); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	h.wantGone(p.ID, []string{h.cred("p1"), h.cred("p2")}, k1.ID, k2.ID)
	if err := h.s.AddCredential(h.ctx, p.ID, h.cred("p3"), long); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("AddCredential to a deleted player = %v; want match.ErrNotFound", err)
	}
	if err := h.s.UpdatePasskey(h.ctx, p.ID, k1, long); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("UpdatePasskey of a deleted player = %v; want match.ErrNotFound", err)
	}
	got, err := h.s.Deleted(h.ctx, []string{p.ID, q.ID, h.id("never")})
	if err != nil || !got[p.ID] || got[q.ID] || got[h.id("never")] {
		t.Fatalf("Deleted = %v, %v; want only %q", got, err, p.ID)
	}
	h.wantResume(h.cred("q"), long, q)
	h.wantOwner(q.ID, kq)

	if err := h.s.Delete(h.ctx, p.ID, long); err != nil {
		t.Fatalf("Delete of a deleted player: %v", err)
	}
	if err := h.s.Delete(h.ctx, h.id("never"), long); err != nil {
		t.Fatalf("Delete of a player never made: %v", err)
	}
	if got, err := h.s.Deleted(h.ctx, []string{h.id("never")}); err != nil || !got[h.id("never")] {
		t.Fatalf("Deleted after deleting a player never made = %v, %v; want it deleted", got, err)
	}
	// The deleted player's passkeys are free again.
	h.addPasskey(q.ID, k1, long)
	h.wantOwner(q.ID, k1)
}

func testPlayerTombstoneExpiry(t *testing.T, h *playersHarness) {
	p, q := h.player("p"), h.player("q")
	h.create(p, h.cred("p"), long)
	h.create(q, h.cred("q"), long)
	if err := h.s.Delete(h.ctx, p.ID, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Delete(h.ctx, q.ID, long); err != nil {
		t.Fatal(err)
	}
	if got, err := h.s.Deleted(h.ctx, []string{p.ID, q.ID}); err != nil || !got[p.ID] || !got[q.ID] {
		t.Fatalf("Deleted = %v, %v; want both", got, err)
	}
	time.Sleep(150 * time.Millisecond)
	if got, err := h.s.Deleted(h.ctx, []string{p.ID, q.ID}); err != nil || got[p.ID] || !got[q.ID] {
		t.Fatalf("Deleted after p's tombstone expired = %v, %v; want only q", got, err)
	}
	h.wantNoPlayer(p.ID)
	h.wantNoResume(h.cred("p"))
}
