package memstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"klondike/lobby"
	"klondike/match"
)

// MaxCeremonies bounds the WebAuthn ceremonies that Players keep at once:
// past it PutCeremony fails with an error matching match.ErrUnavailable
// until some are taken or expire, so that a flood of ceremonies begun and
// never finished cannot grow the process's memory without bound.
const MaxCeremonies = 100_000

// ceremonySweepEvery is how often a PutCeremony that finds MaxCeremonies
// kept looks for expired ones to forget before it refuses: a flood that
// keeps the map full then costs a scan of it at most that often.
const ceremonySweepEvery = time.Second

// Players keep the players, their credentials and passkeys, the WebAuthn
// ceremonies and the deleted players' tombstones in memory, for the lobby
// of one process (lobby.Players). A player and all it holds expire
// together, idle after its last Resume, AddCredential, AddPasskey or
// UpdatePasskey; what has expired is checked on use and swept at most once
// a sweepEvery by a write. Its zero value is not usable: call NewPlayers.
type Players struct {
	mu         sync.Mutex
	players    map[string]*memPlayer
	creds      map[string]string // credential digest -> player id
	passkeys   map[string]string // passkey id -> player id
	ceremonies map[string]expiring[[]byte]
	deleted    map[string]time.Time // deleted player id -> when its tombstone goes
	lastSweep  time.Time

	maxCeremonies     int // MaxCeremonies, less in tests
	lastCeremonySweep time.Time
}

// memPlayer is a player with what it holds, all gone at expires.
type memPlayer struct {
	p        lobby.Player
	expires  time.Time
	creds    []string        // credential digests, oldest first
	passkeys []lobby.Passkey // oldest first
}

var _ lobby.Players = (*Players)(nil)

// errPlayerExists is Create's error for an id that a live player has.
var errPlayerExists = errors.New("memstore: a player with this id exists")

// NewPlayers returns empty players.
func NewPlayers() *Players {
	now := time.Now()
	return &Players{
		players:           map[string]*memPlayer{},
		creds:             map[string]string{},
		passkeys:          map[string]string{},
		ceremonies:        map[string]expiring[[]byte]{},
		deleted:           map[string]time.Time{},
		lastSweep:         now,
		maxCeremonies:     MaxCeremonies,
		lastCeremonySweep: now,
	}
}

// Create stores p with its first credential, for idle; it fails, changing
// nothing, when a live player has p.ID.
func (ps *Players) Create(_ context.Context, p lobby.Player, cred string, idle time.Duration) error {
	now := time.Now()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.sweep(now)
	if ps.live(p.ID, now) != nil {
		return fmt.Errorf("%w: %q", errPlayerExists, p.ID)
	}
	if old, ok := ps.creds[cred]; ok {
		ps.forgetCred(old, cred)
	}
	ps.players[p.ID] = &memPlayer{p: p, expires: now.Add(idle), creds: []string{cred}}
	ps.creds[cred] = p.ID
	return nil
}

// Resume returns the player of cred and gives it and what it holds idle
// from now; match.ErrNotFound when cred is of no live player.
func (ps *Players) Resume(_ context.Context, cred string, idle time.Duration) (lobby.Player, error) {
	now := time.Now()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	id, ok := ps.creds[cred]
	if !ok {
		return lobby.Player{}, match.ErrNotFound
	}
	mp := ps.live(id, now)
	if mp == nil || !slices.Contains(mp.creds, cred) {
		return lobby.Player{}, match.ErrNotFound
	}
	mp.expires = now.Add(idle)
	return mp.p, nil
}

// Get returns the player id; match.ErrNotFound when there is none.
func (ps *Players) Get(_ context.Context, id string) (lobby.Player, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	mp := ps.live(id, time.Now())
	if mp == nil {
		return lobby.Player{}, match.ErrNotFound
	}
	return mp.p, nil
}

// Rename sets the name of the player id; match.ErrNotFound when there is
// none.
func (ps *Players) Rename(_ context.Context, id, name string) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	mp := ps.live(id, time.Now())
	if mp == nil {
		return match.ErrNotFound
	}
	mp.p.Name = name
	return nil
}

// AddCredential gives the player id the credential cred, its newest (a
// credential it has already becomes its newest), revokes the oldest past
// lobby.MaxCredentials, and gives the player idle from now;
// match.ErrNotFound when there is no such player.
func (ps *Players) AddCredential(_ context.Context, id, cred string, idle time.Duration) error {
	now := time.Now()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.sweep(now)
	mp := ps.live(id, now)
	if mp == nil {
		return match.ErrNotFound
	}
	if old, ok := ps.creds[cred]; ok && old != id {
		ps.forgetCred(old, cred)
	}
	mp.creds = append(slices.DeleteFunc(mp.creds, func(c string) bool { return c == cred }), cred)
	for len(mp.creds) > lobby.MaxCredentials {
		ps.forgetCred(id, mp.creds[0])
	}
	ps.creds[cred] = id
	mp.expires = now.Add(idle)
	return nil
}

// Credentials returns how many credentials the player id has: none when
// there is no such player.
func (ps *Players) Credentials(_ context.Context, id string) (int, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if mp := ps.live(id, time.Now()); mp != nil {
		return len(mp.creds), nil
	}
	return 0, nil
}

// RevokeCredential forgets cred.
func (ps *Players) RevokeCredential(_ context.Context, cred string) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if id, ok := ps.creds[cred]; ok {
		ps.forgetCred(id, cred)
	}
	return nil
}

// RevokeCredentials forgets every credential of the player id.
func (ps *Players) RevokeCredentials(_ context.Context, id string) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if mp := ps.live(id, time.Now()); mp != nil {
		for len(mp.creds) > 0 {
			ps.forgetCred(id, mp.creds[0])
		}
	}
	return nil
}

// AddPasskey stores pk as the player's newest passkey and gives the player
// idle from now: lobby.ErrPasskeyTaken when a live player has pk.ID
// already, match.ErrNotFound when there is no such player,
// lobby.ErrTooManyPasskeys when it has lobby.MaxPasskeys.
func (ps *Players) AddPasskey(_ context.Context, playerID string, pk lobby.Passkey, idle time.Duration) error {
	now := time.Now()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.sweep(now)
	if owner, ok := ps.passkeys[string(pk.ID)]; ok && ps.live(owner, now) != nil {
		return lobby.ErrPasskeyTaken
	}
	mp := ps.live(playerID, now)
	if mp == nil {
		return match.ErrNotFound
	}
	if len(mp.passkeys) >= lobby.MaxPasskeys {
		return lobby.ErrTooManyPasskeys
	}
	mp.passkeys = append(mp.passkeys, clonePasskey(pk))
	ps.passkeys[string(pk.ID)] = playerID
	mp.expires = now.Add(idle)
	return nil
}

// UpdatePasskey sets the Data of the player's passkey pk.ID to pk.Data and
// gives the player idle from now; match.ErrNotFound when the player has no
// such passkey.
func (ps *Players) UpdatePasskey(_ context.Context, playerID string, pk lobby.Passkey, idle time.Duration) error {
	now := time.Now()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	mp := ps.live(playerID, now)
	if mp == nil {
		return match.ErrNotFound
	}
	i := slices.IndexFunc(mp.passkeys, func(k lobby.Passkey) bool { return bytes.Equal(k.ID, pk.ID) })
	if i < 0 {
		return match.ErrNotFound
	}
	mp.passkeys[i].Data = bytes.Clone(pk.Data)
	mp.expires = now.Add(idle)
	return nil
}

// PasskeyOwner returns the player with the passkey id, and the passkey;
// match.ErrNotFound when no live player has it.
func (ps *Players) PasskeyOwner(_ context.Context, id []byte) (string, lobby.Passkey, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	owner, ok := ps.passkeys[string(id)]
	if !ok {
		return "", lobby.Passkey{}, match.ErrNotFound
	}
	if mp := ps.live(owner, time.Now()); mp != nil {
		for _, k := range mp.passkeys {
			if bytes.Equal(k.ID, id) {
				return owner, clonePasskey(k), nil
			}
		}
	}
	return "", lobby.Passkey{}, match.ErrNotFound
}

// Passkeys returns the passkeys of the player, oldest first: none when
// there is no such player.
func (ps *Players) Passkeys(_ context.Context, playerID string) ([]lobby.Passkey, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	mp := ps.live(playerID, time.Now())
	if mp == nil {
		return nil, nil
	}
	out := make([]lobby.Passkey, len(mp.passkeys))
	for i, k := range mp.passkeys {
		out[i] = clonePasskey(k)
	}
	return out, nil
}

// PutCeremony keeps data under id for ttl; past MaxCeremonies it fails
// with an error matching match.ErrUnavailable.
func (ps *Players) PutCeremony(_ context.Context, id string, data []byte, ttl time.Duration) error {
	now := time.Now()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.sweep(now)
	if _, ok := ps.ceremonies[id]; !ok && len(ps.ceremonies) >= ps.maxCeremonies {
		if now.Sub(ps.lastCeremonySweep) >= ceremonySweepEvery {
			ps.sweepCeremonies(now)
		}
		if len(ps.ceremonies) >= ps.maxCeremonies {
			return fmt.Errorf("%w: %d passkey ceremonies are under way, the most kept at once", match.ErrUnavailable, ps.maxCeremonies)
		}
	}
	ps.ceremonies[id] = expiring[[]byte]{bytes.Clone(data), now.Add(ttl)}
	return nil
}

// TakeCeremony returns the data under id and forgets it;
// match.ErrNotFound when there is none.
func (ps *Players) TakeCeremony(_ context.Context, id string) ([]byte, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	e, ok := ps.ceremonies[id]
	delete(ps.ceremonies, id)
	if !ok || !e.live(time.Now()) {
		return nil, match.ErrNotFound
	}
	return e.val, nil
}

// Delete forgets the player id with what it holds and keeps its
// tombstone for tombstone.
func (ps *Players) Delete(_ context.Context, id string, tombstone time.Duration) error {
	now := time.Now()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.sweep(now)
	ps.drop(id)
	ps.deleted[id] = now.Add(tombstone)
	return nil
}

// Deleted returns the ids of ids that have a tombstone, each true.
func (ps *Players) Deleted(_ context.Context, ids []string) (map[string]bool, error) {
	now := time.Now()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	out := make(map[string]bool)
	for _, id := range ids {
		if t, ok := ps.deleted[id]; ok && now.Before(t) {
			out[id] = true
		}
	}
	return out, nil
}

// live returns the player id, or nil when there is none or it has expired
// (then forgotten with what it held); ps.mu is held.
func (ps *Players) live(id string, now time.Time) *memPlayer {
	mp, ok := ps.players[id]
	if !ok {
		return nil
	}
	if !now.Before(mp.expires) {
		ps.drop(id)
		return nil
	}
	return mp
}

// drop forgets the player id and what it holds; ps.mu is held.
func (ps *Players) drop(id string) {
	mp, ok := ps.players[id]
	if !ok {
		return
	}
	for _, c := range mp.creds {
		if ps.creds[c] == id {
			delete(ps.creds, c)
		}
	}
	for _, k := range mp.passkeys {
		if ps.passkeys[string(k.ID)] == id {
			delete(ps.passkeys, string(k.ID))
		}
	}
	delete(ps.players, id)
}

// forgetCred takes cred from the player id and from the index; ps.mu is
// held.
func (ps *Players) forgetCred(id, cred string) {
	if ps.creds[cred] == id {
		delete(ps.creds, cred)
	}
	if mp, ok := ps.players[id]; ok {
		mp.creds = slices.DeleteFunc(mp.creds, func(c string) bool { return c == cred })
	}
}

// sweep forgets expired players, ceremonies and tombstones, at most once
// a sweepEvery; ps.mu is held.
func (ps *Players) sweep(now time.Time) {
	if now.Sub(ps.lastSweep) < sweepEvery {
		return
	}
	ps.lastSweep = now
	for id, mp := range ps.players {
		if !now.Before(mp.expires) {
			ps.drop(id)
		}
	}
	for id, t := range ps.deleted {
		if !now.Before(t) {
			delete(ps.deleted, id)
		}
	}
	ps.sweepCeremonies(now)
}

// sweepCeremonies forgets expired ceremonies; ps.mu is held.
func (ps *Players) sweepCeremonies(now time.Time) {
	ps.lastCeremonySweep = now
	for id, e := range ps.ceremonies {
		if !e.live(now) {
			delete(ps.ceremonies, id)
		}
	}
}

// clonePasskey returns a copy of pk that shares no bytes with it.
func clonePasskey(pk lobby.Passkey) lobby.Passkey {
	pk.ID, pk.Data = bytes.Clone(pk.ID), bytes.Clone(pk.Data)
	return pk
}
