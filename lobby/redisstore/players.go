package redisstore

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/match"
)

// Players keep the players, their credentials and passkeys, the WebAuthn
// ceremonies and the deleted players' tombstones in Redis (lobby.Players),
// so that a player made on one node resumes on any. Its keys, under the
// deployment's prefix:
//
//	<prefix>{player:<id>}:profile   hash: name, created (RFC 3339), seq (the last number given below)
//	<prefix>{player:<id>}:creds     sorted set: the player's credential digests -> the number each was added as
//	<prefix>{player:<id>}:passkeys  hash: passkey id -> "number|created|data"
//	<prefix>cred:<digest>           string: the player id of the credential
//	<prefix>passkey:<id, base64url> string: the player id of the passkey
//	<prefix>ceremony:<id>           string: a ceremony's data, for its ttl
//	<prefix>deleted:<id>            string: "1" while the deleted player's tombstone lasts
//
// A player's own keys share its hash tag, the one its records have too
// (see the package doc), and change together in one script (players.lua);
// the cred: and passkey: keys, which find a player by a credential or a
// passkey, are in slots of their own, so they are written apart from the
// player's (a pipeline, never one command over slots). The player's keys
// are the truth: a cred: or passkey: key is believed only when the player
// it names still lists the credential or passkey, so one left behind by a
// write cut short, or by two writes racing, finds no one. Every one of
// these keys expires: a player's, and the cred: and passkey: keys of what
// it holds, idle after its last Resume, AddCredential, AddPasskey or
// UpdatePasskey, which give them all the idle time anew.
//
// The store keeps a credential as the caller gives it (the lobby gives its
// digest). It is safe for concurrent use; its zero value is not usable:
// call NewPlayers.
type Players struct {
	c      redis.UniversalClient
	prefix string
}

var _ lobby.Players = (*Players)(nil)

var (
	//go:embed players.lua
	playersSrc    string
	playersScript = redis.NewScript(playersSrc)
)

// errPlayerExists is Create's error for an id that a player has.
var errPlayerExists = errors.New("redisstore: a player with this id exists")

// NewPlayers returns the Players of the deployment with the key prefix
// (DefaultPrefix when empty). It does not close the client.
func NewPlayers(c redis.UniversalClient, prefix string) *Players {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Players{c: c, prefix: prefix}
}

// keys returns the player's keys in the order players.lua takes them:
// profile, creds, passkeys.
func (s *Players) keys(id string) []string {
	tag := s.prefix + "{player:" + id + "}:"
	return []string{tag + "profile", tag + "creds", tag + "passkeys"}
}

func (s *Players) credKey(cred string) string { return s.prefix + "cred:" + cred }
func (s *Players) passkeyKey(id []byte) string {
	return s.prefix + "passkey:" + base64.RawURLEncoding.EncodeToString(id)
}
func (s *Players) ceremonyKey(id string) string { return s.prefix + "ceremony:" + id }
func (s *Players) deletedKey(id string) string  { return s.prefix + "deleted:" + id }

// run runs op of players.lua on the player id's keys.
func (s *Players) run(ctx context.Context, id, op string, args ...any) *redis.Cmd {
	return playersScript.Run(ctx, s.c, s.keys(id), append([]any{op}, args...)...)
}

// playersErr maps the script's errors to the lobby's and match's, and any
// other as mapErr does.
func playersErr(err error) error {
	switch {
	case redis.HasErrorPrefix(err, "NOTFOUND"):
		return match.ErrNotFound
	case redis.HasErrorPrefix(err, "TAKEN"):
		return lobby.ErrPasskeyTaken
	case redis.HasErrorPrefix(err, "TOOMANY"):
		return lobby.ErrTooManyPasskeys
	case redis.HasErrorPrefix(err, "EXISTS"):
		return errPlayerExists
	}
	return mapErr(err)
}

// Create implements lobby.Players: the player's keys in one script, then
// the credential's key.
func (s *Players) Create(ctx context.Context, p lobby.Player, cred string, idle time.Duration) error {
	idleMs := ms(idle).Milliseconds()
	if err := s.run(ctx, p.ID, "create", p.Name, p.Created.Format(time.RFC3339Nano), cred, idleMs).Err(); err != nil {
		if errors.Is(playersErr(err), errPlayerExists) {
			return fmt.Errorf("%w: %q", errPlayerExists, p.ID)
		}
		return playersErr(err)
	}
	return mapErr(s.c.Set(ctx, s.credKey(cred), p.ID, ms(idle)).Err())
}

// Resume implements lobby.Players: a GET of the credential's key, the
// player's keys in one script, then the expiry of the keys of its
// credentials and passkeys in one pipeline. That last is done as well as
// Redis can: a Resume whose player was read is not failed by it (the next
// one does it again).
func (s *Players) Resume(ctx context.Context, cred string, idle time.Duration) (lobby.Player, error) {
	id, err := s.c.Get(ctx, s.credKey(cred)).Result()
	if errors.Is(err, redis.Nil) {
		return lobby.Player{}, match.ErrNotFound
	}
	if err != nil {
		return lobby.Player{}, mapErr(err)
	}
	v, err := s.run(ctx, id, "resume", cred, ms(idle).Milliseconds()).Slice()
	if err != nil {
		return lobby.Player{}, playersErr(err)
	}
	if len(v) != 4 {
		return lobby.Player{}, badReply("Resume", v)
	}
	name, _ := v[0].(string)
	created, _ := v[1].(string)
	p, err := decodePlayer(id, name, created)
	if err != nil {
		return lobby.Player{}, err
	}
	_ = s.expire(ctx, v[2], v[3], idle, nil)
	return p, nil
}

// Get implements lobby.Players: an HMGET.
func (s *Players) Get(ctx context.Context, id string) (lobby.Player, error) {
	v, err := s.c.HMGet(ctx, s.keys(id)[0], "name", "created").Result()
	if err != nil {
		return lobby.Player{}, mapErr(err)
	}
	name, ok := v[0].(string)
	if !ok {
		return lobby.Player{}, match.ErrNotFound
	}
	created, _ := v[1].(string)
	return decodePlayer(id, name, created)
}

// Rename implements lobby.Players: the player's name set in one script,
// its expiry kept.
func (s *Players) Rename(ctx context.Context, id, name string) error {
	return playersErr(s.run(ctx, id, "rename", name).Err())
}

// AddCredential implements lobby.Players: the player's keys in one
// script, which revokes the oldest credentials past lobby.MaxCredentials,
// then in one pipeline the new credential's key, the deletion of the
// revoked ones' and the expiry of the others'.
func (s *Players) AddCredential(ctx context.Context, id, cred string, idle time.Duration) error {
	v, err := s.run(ctx, id, "addcred", cred, ms(idle).Milliseconds(), lobby.MaxCredentials).Slice()
	if err != nil {
		return playersErr(err)
	}
	if len(v) != 3 {
		return badReply("AddCredential", v)
	}
	revoked, _ := v[0].([]any)
	return s.expire(ctx, v[1], v[2], idle, func(pipe redis.Pipeliner) {
		for _, r := range revoked {
			if r, ok := r.(string); ok {
				pipe.Del(ctx, s.credKey(r))
			}
		}
		pipe.Set(ctx, s.credKey(cred), id, ms(idle))
	})
}

// Credentials implements lobby.Players: a ZCARD.
func (s *Players) Credentials(ctx context.Context, id string) (int, error) {
	n, err := s.c.ZCard(ctx, s.keys(id)[1]).Result()
	return int(n), mapErr(err)
}

// RevokeCredential implements lobby.Players: a GET of the credential's
// key, a ZREM from its player's credentials, and a DEL of the key.
func (s *Players) RevokeCredential(ctx context.Context, cred string) error {
	key := s.credKey(cred)
	id, err := s.c.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return mapErr(err)
	}
	if err := s.c.ZRem(ctx, s.keys(id)[1], cred).Err(); err != nil {
		return mapErr(err)
	}
	return mapErr(s.c.Del(ctx, key).Err())
}

// RevokeCredentials implements lobby.Players: the player's credentials
// taken in one script, then their keys deleted in one pipeline.
func (s *Players) RevokeCredentials(ctx context.Context, id string) error {
	v, err := s.run(ctx, id, "revokeall").Slice()
	if err != nil {
		return playersErr(err)
	}
	return s.del(ctx, v, nil)
}

// AddPasskey implements lobby.Players: a SET NX of the passkey's key
// first, which only one player can win, then the player's keys in one
// script, and the expiry of its other keys in one pipeline. The
// passkey's key is deleted again when the script refuses the passkey
// for want of the player or of room.
func (s *Players) AddPasskey(ctx context.Context, playerID string, pk lobby.Passkey, idle time.Duration) error {
	key := s.passkeyKey(pk.ID)
	set, err := s.claimPasskey(ctx, key, playerID, idle)
	if err != nil {
		return err
	}
	v, err := s.run(ctx, playerID, "addpasskey", pk.ID, pk.Created.Format(time.RFC3339Nano), pk.Data,
		ms(idle).Milliseconds(), lobby.MaxPasskeys).Slice()
	if err != nil {
		err = playersErr(err)
		if set && (errors.Is(err, match.ErrNotFound) || errors.Is(err, lobby.ErrTooManyPasskeys)) {
			_ = s.delIfOwner(ctx, key, playerID)
		}
		return err
	}
	if len(v) != 2 {
		return badReply("AddPasskey", v)
	}
	return s.expire(ctx, v[0], v[1], idle, nil)
}

// claimPasskey sets the passkey's key to playerID unless it is set (a SET
// NX): whether it set it, or lobby.ErrPasskeyTaken when another player's
// key stands. A key that names playerID already is no error: it is this
// player's own (a resend, or another add of the passkey racing this one,
// which the script tells apart).
func (s *Players) claimPasskey(ctx context.Context, key, playerID string, idle time.Duration) (bool, error) {
	for range 3 {
		set, err := s.c.SetNX(ctx, key, playerID, ms(idle)).Result()
		if err != nil || set {
			return set, mapErr(err)
		}
		owner, err := s.c.Get(ctx, key).Result()
		switch {
		case errors.Is(err, redis.Nil):
			continue // gone meanwhile: try again
		case err != nil:
			return false, mapErr(err)
		case owner != playerID:
			return false, lobby.ErrPasskeyTaken
		}
		return false, nil
	}
	return false, lobby.ErrPasskeyTaken
}

// UpdatePasskey implements lobby.Players: the player's keys in one script,
// then the expiry of its other keys in one pipeline.
func (s *Players) UpdatePasskey(ctx context.Context, playerID string, pk lobby.Passkey, idle time.Duration) error {
	v, err := s.run(ctx, playerID, "updatepasskey", pk.ID, pk.Data, ms(idle).Milliseconds()).Slice()
	if err != nil {
		return playersErr(err)
	}
	if len(v) != 2 {
		return badReply("UpdatePasskey", v)
	}
	return s.expire(ctx, v[0], v[1], idle, nil)
}

// PasskeyOwner implements lobby.Players: a GET of the passkey's key, then
// an HGET of the passkey from the player's.
func (s *Players) PasskeyOwner(ctx context.Context, id []byte) (string, lobby.Passkey, error) {
	owner, err := s.c.Get(ctx, s.passkeyKey(id)).Result()
	if errors.Is(err, redis.Nil) {
		return "", lobby.Passkey{}, match.ErrNotFound
	}
	if err != nil {
		return "", lobby.Passkey{}, mapErr(err)
	}
	v, err := s.c.HGet(ctx, s.keys(owner)[2], string(id)).Result()
	if errors.Is(err, redis.Nil) {
		return "", lobby.Passkey{}, match.ErrNotFound
	}
	if err != nil {
		return "", lobby.Passkey{}, mapErr(err)
	}
	_, pk, err := decodePasskey(id, v)
	if err != nil {
		return "", lobby.Passkey{}, err
	}
	return owner, pk, nil
}

// Passkeys implements lobby.Players: an HGETALL.
func (s *Players) Passkeys(ctx context.Context, playerID string) ([]lobby.Passkey, error) {
	m, err := s.c.HGetAll(ctx, s.keys(playerID)[2]).Result()
	if err != nil {
		return nil, mapErr(err)
	}
	type numbered struct {
		seq int64
		pk  lobby.Passkey
	}
	all := make([]numbered, 0, len(m))
	for id, v := range m {
		seq, pk, err := decodePasskey([]byte(id), v)
		if err != nil {
			return nil, err
		}
		all = append(all, numbered{seq, pk})
	}
	slices.SortFunc(all, func(a, b numbered) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]lobby.Passkey, len(all))
	for i, n := range all {
		out[i] = n.pk
	}
	return out, nil
}

// PutCeremony implements lobby.Players: a SET PX.
func (s *Players) PutCeremony(ctx context.Context, id string, data []byte, ttl time.Duration) error {
	return mapErr(s.c.Set(ctx, s.ceremonyKey(id), data, ms(ttl)).Err())
}

// TakeCeremony implements lobby.Players: a GETDEL.
func (s *Players) TakeCeremony(ctx context.Context, id string) ([]byte, error) {
	b, err := s.c.GetDel(ctx, s.ceremonyKey(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, match.ErrNotFound
	}
	return b, mapErr(err)
}

// Delete implements lobby.Players: the tombstone's SET PX first, then the
// player's keys deleted in one script, and the keys of its credentials and
// passkeys in one pipeline.
func (s *Players) Delete(ctx context.Context, id string, tombstone time.Duration) error {
	if err := s.c.Set(ctx, s.deletedKey(id), "1", ms(tombstone)).Err(); err != nil {
		return mapErr(err)
	}
	v, err := s.run(ctx, id, "delete").Slice()
	if err != nil {
		return playersErr(err)
	}
	if len(v) != 2 {
		return badReply("Delete", v)
	}
	return s.del(ctx, v[0], v[1])
}

// Deleted implements lobby.Players: an EXISTS of each tombstone, in one
// pipeline.
func (s *Players) Deleted(ctx context.Context, ids []string) (map[string]bool, error) {
	out := make(map[string]bool)
	if len(ids) == 0 {
		return out, nil
	}
	cmds := make([]*redis.IntCmd, len(ids))
	_, err := s.c.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = pipe.Exists(ctx, s.deletedKey(id))
		}
		return nil
	})
	if err != nil {
		return nil, mapErr(err)
	}
	for i, id := range ids {
		if cmds[i].Val() > 0 {
			out[id] = true
		}
	}
	return out, nil
}

// expire gives the keys of creds and passkeys (a script's lists of them)
// idle, in one pipeline after also's commands.
func (s *Players) expire(ctx context.Context, creds, passkeys any, idle time.Duration, also func(redis.Pipeliner)) error {
	cs, _ := creds.([]any)
	ks, _ := passkeys.([]any)
	_, err := s.c.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		if also != nil {
			also(pipe)
		}
		for _, c := range cs {
			if c, ok := c.(string); ok {
				pipe.PExpire(ctx, s.credKey(c), ms(idle))
			}
		}
		for _, k := range ks {
			if k, ok := k.(string); ok {
				pipe.PExpire(ctx, s.passkeyKey([]byte(k)), ms(idle))
			}
		}
		return nil
	})
	return mapErr(err)
}

// del deletes the keys of creds and passkeys (a script's lists of them) in
// one pipeline.
func (s *Players) del(ctx context.Context, creds, passkeys any) error {
	cs, _ := creds.([]any)
	ks, _ := passkeys.([]any)
	if len(cs)+len(ks) == 0 {
		return nil
	}
	_, err := s.c.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for _, c := range cs {
			if c, ok := c.(string); ok {
				pipe.Del(ctx, s.credKey(c))
			}
		}
		for _, k := range ks {
			if k, ok := k.(string); ok {
				pipe.Del(ctx, s.passkeyKey([]byte(k)))
			}
		}
		return nil
	})
	return mapErr(err)
}

// delIfOwnerScript deletes KEYS[1] if it holds ARGV[1].
var delIfOwnerScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

// delIfOwner deletes the passkey's key if it names playerID.
func (s *Players) delIfOwner(ctx context.Context, key, playerID string) error {
	return mapErr(delIfOwnerScript.Run(ctx, s.c, []string{key}, playerID).Err())
}

// decodePlayer makes the player id of its stored name and created time.
func decodePlayer(id, name, created string) (lobby.Player, error) {
	t, err := time.Parse(time.RFC3339Nano, created)
	if err != nil {
		return lobby.Player{}, fmt.Errorf("redisstore: player %s: bad created time: %w", id, err)
	}
	return lobby.Player{ID: id, Name: name, Created: t}, nil
}

// decodePasskey reads a passkey's "number|created|data".
func decodePasskey(id []byte, v string) (int64, lobby.Passkey, error) {
	num, rest, ok1 := strings.Cut(v, "|")
	created, data, ok2 := strings.Cut(rest, "|")
	seq, err := strconv.ParseInt(num, 10, 64)
	if !ok1 || !ok2 || err != nil {
		return 0, lobby.Passkey{}, fmt.Errorf("redisstore: passkey %x: bad value %q", id, v)
	}
	t, err := time.Parse(time.RFC3339Nano, created)
	if err != nil {
		return 0, lobby.Passkey{}, fmt.Errorf("redisstore: passkey %x: bad created time: %w", id, err)
	}
	return seq, lobby.Passkey{ID: id, Created: t, Data: []byte(data)}, nil
}
