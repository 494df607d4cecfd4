package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/match"
)

// RunPlayers runs the conformance suite of lobby.Players; newPlayers
// returns the Players a subtest uses. Subtests run in parallel and use
// player ids, credentials, passkey ids and ceremony ids of their own, so a
// factory may hand all of them one Players.
//
//	func TestPlayersConformance(t *testing.T) {
//		storetest.RunPlayers(t, func(*testing.T) lobby.Players { return memstore.NewPlayers() })
//	}
func RunPlayers(t *testing.T, newPlayers func(t *testing.T) lobby.Players) {
	t.Helper()
	stamp := time.Now().UnixNano()
	tests := []struct {
		name string
		fn   func(t *testing.T, h *playersHarness)
	}{
		{"CreateResumeGetRename", testPlayerCreate},
		{"CreateTakenID", testPlayerCreateTaken},
		{"Unknown", testPlayerUnknown},
		{"SeveralCredentials", testPlayerCredentials},
		{"MaxCredentialsRevokesOldest", testPlayerMaxCredentials},
		{"RevokeCredential", testPlayerRevoke},
		{"RevokeCredentials", testPlayerRevokeAll},
		{"IdleExpiry", testPlayerExpiry},
		{"ReadsKeepNoOneAlive", testPlayerReadsDoNotTouch},
		{"ResumeExtendsIdle", testPlayerResumeExtends},
		{"AddCredentialExtendsIdle", testPlayerAddCredentialExtends},
		{"UpdatePasskeyExtendsIdle", testPlayerUpdatePasskeyExtends},
		{"Passkeys", testPlayerPasskeys},
		{"TooManyPasskeys", testPlayerTooManyPasskeys},
		{"PasskeyTaken", testPlayerPasskeyTaken},
		{"Ceremonies", testPlayerCeremonies},
		{"CeremonyExpiry", testPlayerCeremonyExpiry},
		{"Delete", testPlayerDelete},
		{"TombstoneExpiry", testPlayerTombstoneExpiry},
		{"UnusualNamesAndIDs", testPlayerUnusual},
		{"ConcurrentPlayers", testPlayersConcurrent},
		{"ConcurrentCredentials", testPlayerConcurrentCredentials},
		{"ConcurrentPasskeys", testPlayerConcurrentPasskeys},
		{"ConcurrentCeremonyTakes", testPlayerConcurrentCeremony},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			t.Cleanup(cancel)
			tc.fn(t, &playersHarness{
				t: t, s: newPlayers(t), ctx: ctx,
				prefix: fmt.Sprintf("pl%x-%s-", stamp, tc.name),
			})
		})
	}
}

// playersHarness carries a subtest's Players and the prefix of its ids.
type playersHarness struct {
	t      *testing.T
	s      lobby.Players
	ctx    context.Context
	prefix string
}

// id, cred, pkID and cer return the subtest's player id, credential
// digest, passkey id and ceremony id named name.
func (h *playersHarness) id(name string) string   { return h.prefix + "id-" + name }
func (h *playersHarness) cred(name string) string { return h.prefix + "cred-" + name }
func (h *playersHarness) pkID(name string) []byte { return []byte(h.prefix + "pk-" + name) }
func (h *playersHarness) cer(name string) string  { return h.prefix + "cer-" + name }

// player returns a new player of the subtest named name, made now.
func (h *playersHarness) player(name string) lobby.Player {
	return lobby.Player{ID: h.id(name), Name: "N " + name, Created: time.Now()}
}

// passkey returns a passkey of the subtest named name.
func (h *playersHarness) passkey(name string) lobby.Passkey {
	return lobby.Passkey{ID: h.pkID(name), Created: time.Now(), Data: []byte("data of " + name)}
}

func (h *playersHarness) create(p lobby.Player, cred string, idle time.Duration) {
	h.t.Helper()
	if err := h.s.Create(h.ctx, p, cred, idle); err != nil {
		h.t.Fatalf("Create(%+v, %q, %v): %v", p, cred, idle, err)
	}
}

func (h *playersHarness) addCred(id, cred string, idle time.Duration) {
	h.t.Helper()
	if err := h.s.AddCredential(h.ctx, id, cred, idle); err != nil {
		h.t.Fatalf("AddCredential(%q, %q, %v): %v", id, cred, idle, err)
	}
}

func (h *playersHarness) addPasskey(id string, pk lobby.Passkey, idle time.Duration) {
	h.t.Helper()
	if err := h.s.AddPasskey(h.ctx, id, pk, idle); err != nil {
		h.t.Fatalf("AddPasskey(%q, %q, %v): %v", id, pk.ID, idle, err)
	}
}

// samePlayer reports whether a and b are equal, their Created times the
// same instant.
func samePlayer(a, b lobby.Player) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Created.Equal(b.Created)
}

// samePasskey reports whether a and b are equal, their Created times the
// same instant.
func samePasskey(a, b lobby.Passkey) bool {
	return bytes.Equal(a.ID, b.ID) && bytes.Equal(a.Data, b.Data) && a.Created.Equal(b.Created)
}

// wantResume resumes cred and fails the test unless it gives want.
func (h *playersHarness) wantResume(cred string, idle time.Duration, want lobby.Player) {
	h.t.Helper()
	got, err := h.s.Resume(h.ctx, cred, idle)
	if err != nil || !samePlayer(got, want) {
		h.t.Fatalf("Resume(%q, %v) = %+v, %v; want %+v", cred, idle, got, err, want)
	}
}

// wantNoResume fails the test unless cred resumes nothing.
func (h *playersHarness) wantNoResume(cred string) {
	h.t.Helper()
	if got, err := h.s.Resume(h.ctx, cred, long); !errors.Is(err, match.ErrNotFound) {
		h.t.Fatalf("Resume(%q) = %+v, %v; want match.ErrNotFound", cred, got, err)
	}
}

// wantGet fails the test unless Get(want.ID) gives want.
func (h *playersHarness) wantGet(want lobby.Player) {
	h.t.Helper()
	got, err := h.s.Get(h.ctx, want.ID)
	if err != nil || !samePlayer(got, want) {
		h.t.Fatalf("Get(%q) = %+v, %v; want %+v", want.ID, got, err, want)
	}
}

// wantNoPlayer fails the test unless Get(id) finds nothing.
func (h *playersHarness) wantNoPlayer(id string) {
	h.t.Helper()
	if got, err := h.s.Get(h.ctx, id); !errors.Is(err, match.ErrNotFound) {
		h.t.Fatalf("Get(%q) = %+v, %v; want match.ErrNotFound", id, got, err)
	}
}

// wantCreds fails the test unless the player id has n credentials.
func (h *playersHarness) wantCreds(id string, n int) {
	h.t.Helper()
	if got, err := h.s.Credentials(h.ctx, id); err != nil || got != n {
		h.t.Fatalf("Credentials(%q) = %d, %v; want %d", id, got, err, n)
	}
}

// wantOwner fails the test unless the passkey pk.ID is owner's and
// equals pk.
func (h *playersHarness) wantOwner(owner string, pk lobby.Passkey) {
	h.t.Helper()
	id, got, err := h.s.PasskeyOwner(h.ctx, pk.ID)
	if err != nil || id != owner || !samePasskey(got, pk) {
		h.t.Fatalf("PasskeyOwner(%q) = %q, %+v, %v; want %q, %+v", pk.ID, id, got, err, owner, pk)
	}
}

// wantNoOwner fails the test unless no player has the passkey id.
func (h *playersHarness) wantNoOwner(id []byte) {
	h.t.Helper()
	if owner, pk, err := h.s.PasskeyOwner(h.ctx, id); !errors.Is(err, match.ErrNotFound) {
		h.t.Fatalf("PasskeyOwner(%q) = %q, %+v, %v; want match.ErrNotFound", id, owner, pk, err)
	}
}

// wantPasskeys fails the test unless the player's passkeys are want, in
// order.
func (h *playersHarness) wantPasskeys(id string, want ...lobby.Passkey) {
	h.t.Helper()
	got, err := h.s.Passkeys(h.ctx, id)
	ok := err == nil && len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = samePasskey(got[i], want[i])
	}
	if !ok {
		h.t.Fatalf("Passkeys(%q) = %+v, %v; want %+v", id, got, err, want)
	}
}

// wantGone fails the test unless nothing of the player p is left: no
// player, none of creds resumes, none of the passkeys has an owner.
func (h *playersHarness) wantGone(id string, creds []string, pkIDs ...[]byte) {
	h.t.Helper()
	h.wantNoPlayer(id)
	for _, c := range creds {
		h.wantNoResume(c)
	}
	for _, k := range pkIDs {
		h.wantNoOwner(k)
	}
	h.wantCreds(id, 0)
	h.wantPasskeys(id)
}

func testPlayerCreate(t *testing.T, h *playersHarness) {
	p := h.player("alice")
	h.create(p, h.cred("a"), long)
	h.wantResume(h.cred("a"), long, p)
	h.wantResume(h.cred("a"), long, p) // resuming again changes nothing
	h.wantGet(p)
	h.wantCreds(p.ID, 1)
	h.wantPasskeys(p.ID)

	if err := h.s.Rename(h.ctx, p.ID, "Alice B"); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	p.Name = "Alice B"
	h.wantGet(p)
	h.wantResume(h.cred("a"), long, p)

	// Another player is another.
	q := h.player("bob")
	h.create(q, h.cred("b"), long)
	h.wantResume(h.cred("b"), long, q)
	h.wantResume(h.cred("a"), long, p)
	h.wantGet(q)
}

// testPlayerCreateTaken: a Create under the id of a live player fails and
// leaves that player as it was.
func testPlayerCreateTaken(t *testing.T, h *playersHarness) {
	p := h.player("alice")
	h.create(p, h.cred("a"), long)
	other := lobby.Player{ID: p.ID, Name: "Mallory", Created: time.Now()}
	if err := h.s.Create(h.ctx, other, h.cred("m"), long); err == nil || errors.Is(err, match.ErrNotFound) {
		t.Fatalf("Create under a taken id = %v; want an error", err)
	}
	h.wantGet(p)
	h.wantResume(h.cred("a"), long, p)
	h.wantNoResume(h.cred("m"))
	h.wantCreds(p.ID, 1)
}

func testPlayerUnknown(t *testing.T, h *playersHarness) {
	h.wantNoResume(h.cred("never"))
	h.wantNoResume("")
	h.wantNoPlayer(h.id("never"))
	h.wantNoPlayer("")
	h.wantCreds(h.id("never"), 0)
	h.wantPasskeys(h.id("never"))
	h.wantNoOwner(h.pkID("never"))
	if err := h.s.Rename(h.ctx, h.id("never"), "x"); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("Rename of no player = %v; want match.ErrNotFound", err)
	}
	if err := h.s.AddCredential(h.ctx, h.id("never"), h.cred("c"), long); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("AddCredential to no player = %v; want match.ErrNotFound", err)
	}
	h.wantNoResume(h.cred("c"))
	if err := h.s.AddPasskey(h.ctx, h.id("never"), h.passkey("k"), long); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("AddPasskey to no player = %v; want match.ErrNotFound", err)
	}
	h.wantNoOwner(h.pkID("k"))
	if err := h.s.UpdatePasskey(h.ctx, h.id("never"), h.passkey("k"), long); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("UpdatePasskey of no player = %v; want match.ErrNotFound", err)
	}
	for name, err := range map[string]error{
		"RevokeCredential":  h.s.RevokeCredential(h.ctx, h.cred("never")),
		"RevokeCredentials": h.s.RevokeCredentials(h.ctx, h.id("never")),
	} {
		if err != nil {
			t.Errorf("%s of nothing = %v; want nil", name, err)
		}
	}
	if got, err := h.s.Deleted(h.ctx, []string{h.id("never")}); err != nil || got[h.id("never")] {
		t.Errorf("Deleted(a player never made) = %v, %v; want not deleted", got, err)
	}
	if got, err := h.s.Deleted(h.ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("Deleted(none) = %v, %v; want none", got, err)
	}
	// A credential of one player is no other's.
	p := h.player("p")
	h.create(p, h.cred("p"), long)
	if err := h.s.UpdatePasskey(h.ctx, p.ID, h.passkey("k"), long); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("UpdatePasskey of a passkey the player has not = %v; want match.ErrNotFound", err)
	}
}

// testPlayerCredentials: every credential of a player resumes it, each
// player its own.
func testPlayerCredentials(t *testing.T, h *playersHarness) {
	p, q := h.player("p"), h.player("q")
	h.create(p, h.cred("p1"), long)
	h.create(q, h.cred("q1"), long)
	h.addCred(p.ID, h.cred("p2"), long)
	h.addCred(p.ID, h.cred("p3"), long)
	h.addCred(q.ID, h.cred("q2"), long)
	for _, c := range []string{"p1", "p2", "p3"} {
		h.wantResume(h.cred(c), long, p)
	}
	for _, c := range []string{"q1", "q2"} {
		h.wantResume(h.cred(c), long, q)
	}
	h.wantCreds(p.ID, 3)
	h.wantCreds(q.ID, 2)
	// Adding a credential the player has already keeps one of it.
	h.addCred(p.ID, h.cred("p2"), long)
	h.wantCreds(p.ID, 3)
	h.wantResume(h.cred("p2"), long, p)
	h.wantNoResume(h.cred("p4"))
}

// testPlayerMaxCredentials: past lobby.MaxCredentials, adding one revokes
// the oldest.
func testPlayerMaxCredentials(t *testing.T, h *playersHarness) {
	p := h.player("p")
	h.create(p, h.cred("0"), long)
	for i := 1; i < lobby.MaxCredentials; i++ {
		h.addCred(p.ID, h.cred(fmt.Sprint(i)), long)
	}
	h.wantCreds(p.ID, lobby.MaxCredentials)
	h.wantResume(h.cred("0"), long, p)
	h.addCred(p.ID, h.cred(fmt.Sprint(lobby.MaxCredentials)), long)
	h.wantCreds(p.ID, lobby.MaxCredentials)
	h.wantNoResume(h.cred("0"))
	for i := 1; i <= lobby.MaxCredentials; i++ {
		h.wantResume(h.cred(fmt.Sprint(i)), long, p)
	}
	h.addCred(p.ID, h.cred("last"), long)
	h.wantCreds(p.ID, lobby.MaxCredentials)
	h.wantNoResume(h.cred("1"))
	h.wantResume(h.cred("2"), long, p)
	h.wantResume(h.cred("last"), long, p)
}

func testPlayerRevoke(t *testing.T, h *playersHarness) {
	p := h.player("p")
	h.create(p, h.cred("1"), long)
	h.addCred(p.ID, h.cred("2"), long)
	if err := h.s.RevokeCredential(h.ctx, h.cred("1")); err != nil {
		t.Fatalf("RevokeCredential: %v", err)
	}
	h.wantNoResume(h.cred("1"))
	h.wantResume(h.cred("2"), long, p)
	h.wantCreds(p.ID, 1)
	if err := h.s.RevokeCredential(h.ctx, h.cred("1")); err != nil {
		t.Fatalf("RevokeCredential again: %v", err)
	}
	h.wantCreds(p.ID, 1)
	// The credential may be given again.
	h.addCred(p.ID, h.cred("1"), long)
	h.wantResume(h.cred("1"), long, p)
	h.wantCreds(p.ID, 2)
}

// testPlayerRevokeAll: RevokeCredentials forgets every credential of the
// player and no other's; the player stays, and a new credential resumes
// it.
func testPlayerRevokeAll(t *testing.T, h *playersHarness) {
	p, q := h.player("p"), h.player("q")
	h.create(p, h.cred("p1"), long)
	h.addCred(p.ID, h.cred("p2"), long)
	h.addCred(p.ID, h.cred("p3"), long)
	h.create(q, h.cred("q1"), long)
	pk := h.passkey("k")
	h.addPasskey(p.ID, pk, long)
	if err := h.s.RevokeCredentials(h.ctx, p.ID); err != nil {
		t.Fatalf("RevokeCredentials: %v", err)
	}
	for _, c := range []string{"p1", "p2", "p3"} {
		h.wantNoResume(h.cred(c))
	}
	h.wantCreds(p.ID, 0)
	h.wantResume(h.cred("q1"), long, q)
	h.wantGet(p)
	h.wantOwner(p.ID, pk)
	if err := h.s.RevokeCredentials(h.ctx, p.ID); err != nil {
		t.Fatalf("RevokeCredentials again: %v", err)
	}
	h.addCred(p.ID, h.cred("p4"), long)
	h.wantResume(h.cred("p4"), long, p)
	h.wantNoResume(h.cred("p1"))
	h.wantCreds(p.ID, 1)
}

// testPlayerExpiry: a player not seen for its idle time is gone with its
// credentials and passkeys; its id and passkey may be had again.
func testPlayerExpiry(t *testing.T, h *playersHarness) {
	const idle = 100 * time.Millisecond
	p := h.player("p")
	pk := h.passkey("k")
	h.create(p, h.cred("1"), idle)
	h.addCred(p.ID, h.cred("2"), idle)
	h.addPasskey(p.ID, pk, idle)
	time.Sleep(3 * idle)
	h.wantGone(p.ID, []string{h.cred("1"), h.cred("2")}, pk.ID)
	if err := h.s.AddCredential(h.ctx, p.ID, h.cred("3"), long); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("AddCredential to an expired player = %v; want match.ErrNotFound", err)
	}
	if err := h.s.Rename(h.ctx, p.ID, "x"); !errors.Is(err, match.ErrNotFound) {
		t.Errorf("Rename of an expired player = %v; want match.ErrNotFound", err)
	}

	q := h.player("q")
	h.create(q, h.cred("q"), long)
	h.addPasskey(q.ID, pk, long)
	h.wantOwner(q.ID, pk)
	h.create(p, h.cred("4"), long)
	h.wantResume(h.cred("4"), long, p)
	h.wantCreds(p.ID, 1)
	h.wantPasskeys(p.ID)
}

// testPlayerReadsDoNotTouch: Get, Rename, Credentials, Passkeys,
// PasskeyOwner and RevokeCredential restart no clock.
func testPlayerReadsDoNotTouch(t *testing.T, h *playersHarness) {
	const idle = 200 * time.Millisecond
	p := h.player("p")
	pk := h.passkey("k")
	start := time.Now()
	h.create(p, h.cred("1"), idle)
	h.addCred(p.ID, h.cred("2"), idle)
	h.addPasskey(p.ID, pk, idle)
	if time.Since(start) >= idle {
		t.Skipf("making the player took %v, longer than the idle time %v", time.Since(start), idle)
	}
	for range 3 {
		_, _ = h.s.Get(h.ctx, p.ID)
		_ = h.s.Rename(h.ctx, p.ID, "renamed")
		_, _ = h.s.Credentials(h.ctx, p.ID)
		_, _ = h.s.Passkeys(h.ctx, p.ID)
		_, _, _ = h.s.PasskeyOwner(h.ctx, pk.ID)
		_ = h.s.RevokeCredential(h.ctx, h.cred("2"))
		time.Sleep(idle / 4)
	}
	time.Sleep(time.Until(start.Add(2 * idle)))
	h.wantGone(p.ID, []string{h.cred("1"), h.cred("2")}, pk.ID)
}

// extendsIdle makes a player with two credentials and a passkey that live
// idle, calls touch before idle has run out, and checks that all of it is
// still there at twice idle.
func (h *playersHarness) extendsIdle(touch func(p lobby.Player, pk lobby.Passkey)) {
	h.t.Helper()
	const idle = 200 * time.Millisecond
	p := h.player("p")
	pk := h.passkey("k")
	start := time.Now()
	h.create(p, h.cred("1"), idle)
	h.addCred(p.ID, h.cred("2"), idle)
	h.addPasskey(p.ID, pk, idle)
	time.Sleep(idle / 2)
	// A machine so busy that idle ran out before the touch tests nothing:
	// the player is rightly gone.
	if time.Since(start) >= idle*3/4 {
		h.t.Skipf("making the player took %v, too close to the idle time %v", time.Since(start), idle)
	}
	touch(p, pk)
	if time.Since(start) >= idle {
		h.t.Skipf("the calls took %v, longer than the idle time %v", time.Since(start), idle)
	}
	time.Sleep(time.Until(start.Add(2 * idle)))
	h.wantGet(p)
	h.wantCreds(p.ID, 2)
	h.wantOwner(p.ID, pk)
	h.wantPasskeys(p.ID, pk)
	h.wantResume(h.cred("1"), long, p)
	h.wantResume(h.cred("2"), long, p)
}

// testPlayerResumeExtends: a Resume of one credential before the idle time
// ran out keeps the player, every credential and passkey, idle from then.
func testPlayerResumeExtends(t *testing.T, h *playersHarness) {
	h.extendsIdle(func(p lobby.Player, _ lobby.Passkey) {
		h.wantResume(h.cred("2"), long, p)
	})
}

func testPlayerAddCredentialExtends(t *testing.T, h *playersHarness) {
	h.extendsIdle(func(p lobby.Player, _ lobby.Passkey) {
		h.addCred(p.ID, h.cred("2"), long)
	})
}

func testPlayerUpdatePasskeyExtends(t *testing.T, h *playersHarness) {
	h.extendsIdle(func(p lobby.Player, pk lobby.Passkey) {
		if err := h.s.UpdatePasskey(h.ctx, p.ID, pk, long); err != nil {
			h.t.Fatalf("UpdatePasskey: %v", err)
		}
	})
}

// testPlayerUnusual: ids, names, credentials and passkey ids with
// characters that a key scheme might take for its own.
func testPlayerUnusual(t *testing.T, h *playersHarness) {
	names := []string{`"quoted" \ back`, "Zoë 🂡", strings.Repeat("é", 24), "{tag}", "a\u00a0b", "", "a|b|c"}
	ids := []string{"a:b", "{x}", "}x{", "with space", "ünï", strings.Repeat("x", 300), "\x00\xff", "|", "{"}
	var all []string
	for i, raw := range ids {
		p := lobby.Player{ID: h.id(raw), Name: names[i%len(names)], Created: time.Now()}
		cred := h.cred(raw)
		h.create(p, cred, long)
		h.addCred(p.ID, cred+"{2}", long)
		k := lobby.Passkey{ID: append(h.pkID(raw), 0, 0xff, '|', '{', '}'), Created: time.Now(), Data: []byte("|" + raw + "|\x00")}
		h.addPasskey(p.ID, k, long)
		h.wantResume(cred, long, p)
		h.wantResume(cred+"{2}", long, p)
		h.wantGet(p)
		h.wantOwner(p.ID, k)
		h.wantPasskeys(p.ID, k)
		k.Data = []byte("||")
		if err := h.s.UpdatePasskey(h.ctx, p.ID, k, long); err != nil {
			t.Fatalf("UpdatePasskey(%q): %v", p.ID, err)
		}
		h.wantOwner(p.ID, k)
		h.wantCreds(p.ID, 2)
		all = append(all, p.ID)
	}
	for i, id := range all {
		if i%2 == 0 {
			if err := h.s.Delete(h.ctx, id, long); err != nil {
				t.Fatalf("Delete(%q): %v", id, err)
			}
			h.wantNoPlayer(id)
		}
	}
	got, err := h.s.Deleted(h.ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range all {
		if got[id] != (i%2 == 0) {
			t.Errorf("Deleted[%q] = %v, want %v", id, got[id], i%2 == 0)
		}
	}
}

// testPlayersConcurrent makes and uses many players at once.
func testPlayersConcurrent(t *testing.T, h *playersHarness) {
	const players = 32
	var wg sync.WaitGroup
	for i := range players {
		wg.Go(func() {
			name := fmt.Sprint(i)
			p := h.player(name)
			if err := h.s.Create(h.ctx, p, h.cred(name), long); err != nil {
				t.Errorf("Create(%q): %v", p.ID, err)
				return
			}
			for j := range 3 {
				c := fmt.Sprintf("%s-%d", name, j)
				if err := h.s.AddCredential(h.ctx, p.ID, h.cred(c), long); err != nil {
					t.Errorf("AddCredential(%q): %v", p.ID, err)
					return
				}
				if got, err := h.s.Resume(h.ctx, h.cred(c), long); err != nil || !samePlayer(got, p) {
					t.Errorf("Resume(%q) = %+v, %v; want %+v", h.cred(c), got, err, p)
					return
				}
			}
			k := h.passkey(name)
			if err := h.s.AddPasskey(h.ctx, p.ID, k, long); err != nil {
				t.Errorf("AddPasskey(%q): %v", p.ID, err)
				return
			}
			if owner, _, err := h.s.PasskeyOwner(h.ctx, k.ID); err != nil || owner != p.ID {
				t.Errorf("PasskeyOwner(%q) = %q, %v; want %q", k.ID, owner, err, p.ID)
			}
			if n, err := h.s.Credentials(h.ctx, p.ID); err != nil || n != 4 {
				t.Errorf("Credentials(%q) = %d, %v; want 4", p.ID, n, err)
			}
			if i%4 == 0 {
				if err := h.s.Delete(h.ctx, p.ID, long); err != nil {
					t.Errorf("Delete(%q): %v", p.ID, err)
				} else if _, err := h.s.Resume(h.ctx, h.cred(name), long); !errors.Is(err, match.ErrNotFound) {
					t.Errorf("Resume after Delete = %v; want match.ErrNotFound", err)
				}
			}
		})
	}
	wg.Wait()
}

// testPlayerConcurrentCredentials adds many credentials to one player at
// once: it keeps lobby.MaxCredentials of them, and just those resume.
func testPlayerConcurrentCredentials(t *testing.T, h *playersHarness) {
	const adds = 2 * lobby.MaxCredentials
	p := h.player("p")
	h.create(p, h.cred("first"), long)
	var wg sync.WaitGroup
	for i := range adds {
		wg.Go(func() {
			if err := h.s.AddCredential(h.ctx, p.ID, h.cred(fmt.Sprint(i)), long); err != nil {
				t.Errorf("AddCredential: %v", err)
			}
			_, _ = h.s.Resume(h.ctx, h.cred(fmt.Sprint(i)), long)
		})
	}
	wg.Wait()
	h.wantCreds(p.ID, lobby.MaxCredentials)
	resumed := 0
	for i := range adds {
		if _, err := h.s.Resume(h.ctx, h.cred(fmt.Sprint(i)), long); err == nil {
			resumed++
		} else if !errors.Is(err, match.ErrNotFound) {
			t.Fatalf("Resume: %v", err)
		}
	}
	h.wantNoResume(h.cred("first"))
	if resumed != lobby.MaxCredentials {
		t.Fatalf("%d credentials of %d added at once resume; want %d", resumed, adds, lobby.MaxCredentials)
	}
}

// testPlayerConcurrentPasskeys: of players adding one passkey id at once,
// one gets it; of passkeys added to one player at once, lobby.MaxPasskeys
// are kept.
func testPlayerConcurrentPasskeys(t *testing.T, h *playersHarness) {
	const players = 8
	k := h.passkey("shared")
	var won atomic.Int32
	var wg sync.WaitGroup
	for i := range players {
		wg.Go(func() {
			p := h.player(fmt.Sprint(i))
			if err := h.s.Create(h.ctx, p, h.cred(fmt.Sprint(i)), long); err != nil {
				t.Errorf("Create: %v", err)
				return
			}
			switch err := h.s.AddPasskey(h.ctx, p.ID, k, long); {
			case err == nil:
				won.Add(1)
			case !errors.Is(err, lobby.ErrPasskeyTaken):
				t.Errorf("AddPasskey = %v; want nil or lobby.ErrPasskeyTaken", err)
			}
		})
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d players added one passkey at once; want 1", won.Load())
	}
	owner, _, err := h.s.PasskeyOwner(h.ctx, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range players {
		id := h.id(fmt.Sprint(i))
		if id == owner {
			h.wantPasskeys(id, k)
		} else {
			h.wantPasskeys(id)
		}
	}

	p := h.player("many")
	h.create(p, h.cred("many"), long)
	const adds = lobby.MaxPasskeys + 6
	var added atomic.Int32
	for i := range adds {
		wg.Go(func() {
			switch err := h.s.AddPasskey(h.ctx, p.ID, h.passkey(fmt.Sprint("many", i)), long); {
			case err == nil:
				added.Add(1)
			case !errors.Is(err, lobby.ErrTooManyPasskeys):
				t.Errorf("AddPasskey = %v; want nil or lobby.ErrTooManyPasskeys", err)
			}
		})
	}
	wg.Wait()
	if added.Load() != lobby.MaxPasskeys {
		t.Fatalf("%d of %d passkeys added at once; want %d", added.Load(), adds, lobby.MaxPasskeys)
	}
	got, err := h.s.Passkeys(h.ctx, p.ID)
	if err != nil || len(got) != lobby.MaxPasskeys {
		t.Fatalf("Passkeys = %d, %v; want %d", len(got), err, lobby.MaxPasskeys)
	}
	owned := 0
	for i := range adds {
		switch owner, _, err := h.s.PasskeyOwner(h.ctx, h.pkID(fmt.Sprint("many", i))); {
		case err == nil && owner == p.ID:
			owned++
		case err != nil && !errors.Is(err, match.ErrNotFound):
			t.Fatal(err)
		}
	}
	if owned != lobby.MaxPasskeys {
		t.Fatalf("%d passkeys have an owner; want %d", owned, lobby.MaxPasskeys)
	}
}

// testPlayerConcurrentCeremony: of many takes of one ceremony at once, one
// gets it.
func testPlayerConcurrentCeremony(t *testing.T, h *playersHarness) {
	if err := h.s.PutCeremony(h.ctx, h.cer("c"), []byte("c"), long); err != nil {
		t.Fatal(err)
	}
	var took atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			switch got, err := h.s.TakeCeremony(h.ctx, h.cer("c")); {
			case err == nil && string(got) == "c":
				took.Add(1)
			case err != nil && !errors.Is(err, match.ErrNotFound):
				t.Errorf("TakeCeremony: %v", err)
			}
		})
	}
	wg.Wait()
	if took.Load() != 1 {
		t.Fatalf("%d takes of one ceremony got it; want 1", took.Load())
	}
}
