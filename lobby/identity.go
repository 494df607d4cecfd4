package lobby

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"klondike/match"
)

// A player's credentials and its lasting data: the lobby hashes device
// credentials before they reach the store (Players), and keeps what a
// node knows of a connected player (known) in step with renames and
// deletions.

// knownIdle is how long a node remembers a player who said hello on it
// and has not been seen since; the player itself lasts Config.PlayerIdle
// in the store.
const knownIdle = 24 * time.Hour

// DeletedName is the name that replays and boards show for a deleted
// player.
const DeletedName = "Deleted player"

// newToken returns a new device credential: 24 random bytes in hex.
func newToken() string { return randomHex(24) }

// digest is what the store keeps of a device credential.
func digest(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Authenticate returns the player of a device credential and restarts
// its idle clock; ErrUnknownToken when the credential is unknown,
// revoked, expired or its player deleted.
func (l *Lobby) Authenticate(ctx context.Context, token string) (Player, error) {
	if token == "" {
		return Player{}, ErrUnknownToken
	}
	p, err := l.store.Resume(ctx, digest(token), l.cfg.PlayerIdle)
	if errors.Is(err, match.ErrNotFound) {
		return Player{}, ErrUnknownToken
	}
	return p, err
}

// PlayerByID returns a player; ErrNoSuchPlayer when there is none (never
// made, expired or deleted).
func (l *Lobby) PlayerByID(ctx context.Context, id string) (Player, error) {
	p, err := l.store.Get(ctx, id)
	if errors.Is(err, match.ErrNotFound) {
		return Player{}, ErrNoSuchPlayer
	}
	return p, err
}

// Rename gives the player a new name (see CleanName) and returns it.
// Matches the player is in show the new name from their next snapshot of
// the player on this node.
func (l *Lobby) Rename(ctx context.Context, id, name string) (Player, error) {
	n, err := CleanName(name)
	if err != nil {
		return Player{}, err
	}
	if err := l.store.Rename(ctx, id, n); errors.Is(err, match.ErrNotFound) {
		return Player{}, ErrNoSuchPlayer
	} else if err != nil {
		return Player{}, err
	}
	l.mu.Lock()
	if k, ok := l.players[id]; ok {
		k.Name = n
	}
	l.mu.Unlock()
	return l.PlayerByID(ctx, id)
}

// NewCredential mints a device credential for the player, as a passkey
// sign-in on a new device does, and returns it.
func (l *Lobby) NewCredential(ctx context.Context, id string) (string, error) {
	token := newToken()
	err := l.store.AddCredential(ctx, id, digest(token), l.cfg.PlayerIdle)
	if errors.Is(err, match.ErrNotFound) {
		return "", ErrNoSuchPlayer
	}
	return token, err
}

// Devices returns how many device credentials the player has.
func (l *Lobby) Devices(ctx context.Context, id string) (int, error) {
	return l.store.Credentials(ctx, id)
}

// SignOut revokes one device credential.
func (l *Lobby) SignOut(ctx context.Context, token string) error {
	return l.store.RevokeCredential(ctx, digest(token))
}

// SignOutEverywhere revokes every device credential of the player: a
// stolen one stops working. Connections open with one stay open until
// they close; the caller closes them (the api's Hub).
func (l *Lobby) SignOutEverywhere(ctx context.Context, id string) error {
	if err := l.store.RevokeCredentials(ctx, id); err != nil {
		return err
	}
	l.announceSignedOut(ctx, id)
	return nil
}

// announceSignedOut has every node close the player's connections: this
// one at once, the others through the bus. A bus that cannot be reached
// leaves the others' connections open until they close; the credentials
// are revoked all the same, so none can say hello again.
func (l *Lobby) announceSignedOut(ctx context.Context, id string) {
	l.signedOut(id)
	msg, err := json.Marshal(match.BusMessage{Node: l.cfg.Match.Node, SignedOut: id})
	if err == nil {
		err = l.cfg.Coord.Publish(ctx, msg)
	}
	if err != nil {
		l.cfg.Logger.Warn("telling the other nodes of a sign-out failed", "player", id, "err", err)
	}
}

// signedOut forgets a player whose credentials were revoked, and has its
// connections on this node closed.
func (l *Lobby) signedOut(id string) {
	l.mu.Lock()
	delete(l.players, id)
	l.mu.Unlock()
	if l.cfg.OnSignedOut != nil {
		l.cfg.OnSignedOut(id)
	}
}

// DeletePlayer forgets the player and its credentials and passkeys, and
// takes it out of its current match on this node. What it left in
// rounds and boards stays, shown under DeletedName (see Deleted), so that
// those results can still be verified.
func (l *Lobby) DeletePlayer(ctx context.Context, id string) error {
	// The tombstone first: a round the leaving ends is counted in the
	// background, and must find the player deleted (OnRoundResults).
	if err := l.store.Delete(ctx, id, l.cfg.PlayerIdle); err != nil {
		return err
	}
	if mid := l.Current(ctx, id); mid != "" {
		_ = l.LeaveMatch(ctx, id, mid)
	}
	l.announceSignedOut(ctx, id)
	if l.cfg.Ratings != nil {
		return l.cfg.Ratings.Forget(ctx, id)
	}
	return nil
}

// Deleted reports which of ids belong to deleted players.
func (l *Lobby) Deleted(ctx context.Context, ids []string) (map[string]bool, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return l.store.Deleted(ctx, ids)
}

// PlayerIdle is how long a player not seen lives (Config.PlayerIdle).
func (l *Lobby) PlayerIdle() time.Duration { return l.cfg.PlayerIdle }

// Passkeys is the store of players' passkeys and WebAuthn ceremonies,
// for the relying party (the api's passkey routes).
func (l *Lobby) Passkeys() Players { return l.store }
