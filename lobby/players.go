package lobby

import (
	"context"
	"errors"
	"strings"
	"time"
)

// A Player is a lasting identity: what a player earns (records, streaks,
// the one attempt at a deal, the challenges made) is keyed by its ID and
// follows it across connections, tabs, restarts and devices. A player
// proves who it is with a credential: a device credential (the token a
// welcome hands out, one per browser or terminal profile) or a passkey,
// which mints a device credential on a new device.
type Player struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
}

// Tag tells two players of one name apart: "#" and the first four
// characters of the id, upper-case.
func (p Player) Tag() string {
	id := p.ID
	if len(id) > 4 {
		id = id[:4]
	}
	return "#" + strings.ToUpper(id)
}

// A Passkey is a WebAuthn credential of a player: its credential id, when
// it was added, and what the relying party keeps of it (the public key and
// its counters), which is opaque to the store.
type Passkey struct {
	ID      []byte    `json:"id"`
	Created time.Time `json:"created"`
	Data    []byte    `json:"data"`
}

// The bounds of what one player holds in the store.
const (
	// MaxCredentials is how many device credentials a player keeps: adding
	// one more revokes the oldest.
	MaxCredentials = 20
	// MaxPasskeys is how many passkeys a player may add.
	MaxPasskeys = 10
)

var (
	// ErrTooManyPasskeys: the player has MaxPasskeys passkeys already.
	ErrTooManyPasskeys = errors.New("a player can have at most 10 passkeys")
	// ErrPasskeyTaken: a passkey with that credential id is stored already.
	ErrPasskeyTaken = errors.New("this passkey is registered already")
)

// Players keep the players and their credentials where every node can
// find them: memstore.Players serve one process, redisstore.Players every
// node of a deployment. A device credential reaches the store only as its
// digest (the lobby hashes the token), so the store never holds one a
// client could present.
//
// Everything a player holds lives idle long after the player's last
// Resume, AddCredential or UpdatePasskey: the player, its credentials and
// its passkeys expire together when it is not seen for that long.
// Every method returns an error matching match.ErrUnavailable when the
// store cannot be reached, and match.ErrNotFound where it says so.
type Players interface {
	// Create stores a new player with its first device credential; it
	// fails, changing nothing, when a player with p.ID exists.
	Create(ctx context.Context, p Player, cred string, idle time.Duration) error
	// Resume returns the player of the device credential and restarts the
	// idle clocks of the player and what it holds; match.ErrNotFound when
	// the credential is unknown, revoked or expired.
	Resume(ctx context.Context, cred string, idle time.Duration) (Player, error)
	// Get returns a player without touching its clocks; match.ErrNotFound
	// when there is none.
	Get(ctx context.Context, id string) (Player, error)
	// Rename sets the player's name; match.ErrNotFound when there is no
	// such player.
	Rename(ctx context.Context, id, name string) error

	// AddCredential gives the player another device credential and
	// restarts its idle clocks; past MaxCredentials the oldest credential
	// is revoked. match.ErrNotFound when there is no such player.
	AddCredential(ctx context.Context, id, cred string, idle time.Duration) error
	// Credentials returns how many device credentials the player has.
	Credentials(ctx context.Context, id string) (int, error)
	// RevokeCredential forgets one device credential; forgetting one
	// already gone is no error.
	RevokeCredential(ctx context.Context, cred string) error
	// RevokeCredentials forgets every device credential of the player.
	RevokeCredentials(ctx context.Context, id string) error

	// AddPasskey stores a new passkey of the player: ErrTooManyPasskeys
	// past MaxPasskeys, ErrPasskeyTaken when its id is stored already (for
	// any player), match.ErrNotFound when there is no such player.
	AddPasskey(ctx context.Context, playerID string, pk Passkey, idle time.Duration) error
	// UpdatePasskey replaces the Data of the player's passkey with pk's
	// (its counters after a sign-in) and restarts the player's idle
	// clocks; match.ErrNotFound when the player has no passkey pk.ID.
	UpdatePasskey(ctx context.Context, playerID string, pk Passkey, idle time.Duration) error
	// PasskeyOwner returns the id of the player with the passkey id, and
	// the passkey; match.ErrNotFound when none has it.
	PasskeyOwner(ctx context.Context, id []byte) (playerID string, pk Passkey, err error)
	// Passkeys returns the player's passkeys, oldest first.
	Passkeys(ctx context.Context, playerID string) ([]Passkey, error)

	// PutCeremony keeps a WebAuthn ceremony's data under id for ttl.
	PutCeremony(ctx context.Context, id string, data []byte, ttl time.Duration) error
	// TakeCeremony returns a ceremony's data and forgets it, so that each
	// is used once; match.ErrNotFound when there is none (never put,
	// taken already, or expired).
	TakeCeremony(ctx context.Context, id string) ([]byte, error)

	// Delete forgets the player with its credentials and passkeys, and
	// remembers for tombstone that the id was deleted (see Deleted).
	// Deleting a player that is gone is no error.
	Delete(ctx context.Context, id string, tombstone time.Duration) error
	// Deleted reports which of ids belong to deleted players, so that
	// what they left behind (replays, boards) shows no name.
	Deleted(ctx context.Context, ids []string) (map[string]bool, error)
}
