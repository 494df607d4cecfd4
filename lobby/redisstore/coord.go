package redisstore

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/match"
)

// Coord is the Redis implementation of match.Coord and lobby.Coord: match
// records, the lobby's indexes, leases and the data epoch in Redis, and a
// message bus on one pub/sub channel, so that several server nodes serve
// the same matches. It works on a single server and on Redis Cluster alike (see the
// package doc for its keys). It is safe for concurrent use; its zero value
// is not usable: call NewCoord.
//
// Every write is safe to resend, as go-redis does after a lost reply: see
// each method.
type Coord struct {
	c      redis.UniversalClient
	prefix string
	b      *batcher

	// listed remembers, by match, the last version this Coord saved and
	// whether the open list followed it (see SaveMatch).
	mu     sync.Mutex
	listed map[string]listedAt
}

type listedAt struct {
	version int64
	open    bool
	at      time.Time // when the list last followed a save of the match
}

// maxListed bounds Coord.listed: past it the map is dropped and starts
// again (a forgotten match only costs its next save the list update).
const maxListed = 1 << 17

var _ lobby.Coord = (*Coord)(nil) // and so match.Coord, which it embeds

// subscribeTimeout bounds the wait for Redis to confirm a subscription.
const subscribeTimeout = 10 * time.Second

// subscribeBuffer is how many received messages may wait for a slow
// subscriber's callback; when it stays full for a minute, go-redis drops
// messages.
const subscribeBuffer = 1024

var (
	//go:embed savematch.lua
	saveMatchSrc    string
	saveMatchScript = redis.NewScript(saveMatchSrc)

	//go:embed openlist.lua
	openListSrc    string
	openListScript = redis.NewScript(openListSrc)

	//go:embed lease.lua
	leaseSrc    string
	leaseScript = redis.NewScript(leaseSrc)

	//go:embed release.lua
	releaseSrc    string
	releaseScript = redis.NewScript(releaseSrc)
)

// NewCoord returns the Coord of the deployment whose keys start with
// cfg.Prefix (DefaultPrefix when empty). Of the rest of cfg, the batching
// settings count (MaxBatch, Pipelines, MaxQueue, Linger): the Coord's
// commands go out in shared pipelines as the store's appends do (see
// batch.go), which on a busy node turns thousands of lone round trips a
// second (players' current matches, match saves, leases, publishes) into
// a few hundred pipelines. The Coord's methods take their TTLs as
// arguments. The Coord does not close the client.
func NewCoord(c redis.UniversalClient, cfg Config) *Coord {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	return &Coord{c: c, prefix: cfg.Prefix, listed: map[string]listedAt{}, b: newBatcher(c, cfg)}
}

// run sends cmd, in the next shared pipeline, and returns its error mapped
// by mapErr (redis.Nil stays redis.Nil); on success the reply is in cmd.
// Every command sent this way must be safe to resend (see each method).
func (c *Coord) run(ctx context.Context, cmd redis.Cmder) error {
	err := c.b.run(ctx, cmd)
	if errors.Is(err, redis.Nil) {
		return err
	}
	return mapErr(err)
}

// script runs sc in the next shared pipeline, as sc.Run would: the reply
// and its unmapped error are in the command.
func (c *Coord) script(ctx context.Context, sc *redis.Script, keys []string, args ...any) *redis.Cmd {
	return c.b.script(ctx, sc, keys, args...)
}

func (c *Coord) matchKey(id string) string   { return c.prefix + "{m:" + id + "}:rec" }
func (c *Coord) roundKey(id string) string   { return c.prefix + "{round:" + id + "}:record" }
func (c *Coord) codeKey(code string) string  { return c.prefix + "code:" + code }
func (c *Coord) playerKey(id string) string  { return c.prefix + "player:" + id + ":match" }
func (c *Coord) leaseKey(name string) string { return c.prefix + "lease:" + name }
func (c *Coord) nodeKey(node string) string  { return c.prefix + "node:" + node }
func (c *Coord) epochKey() string            { return c.prefix + "data-epoch" }
func (c *Coord) events() string              { return c.prefix + "events" }

// openKey names a key of the open list; they share the hash tag {open}.
func (c *Coord) openKey(name string) string { return c.prefix + "{open}:" + name }

// openKeys are openlist.lua's keys.
func (c *Coord) openKeys() []string {
	return []string{c.openKey("list"), c.openKey("seen"), c.openKey("gone"), c.openKey("seq")}
}

// ms is a TTL in whole milliseconds, at least 1: go-redis would take 0 for
// "no expiry".
func ms(ttl time.Duration) time.Duration {
	return max(ttl, time.Millisecond).Truncate(time.Millisecond)
}

// LoadMatch implements match.Coord: one HMGET.
func (c *Coord) LoadMatch(ctx context.Context, id string) ([]byte, int64, error) {
	cmd := redis.NewSliceCmd(ctx, "hmget", c.matchKey(id), "v", "rec")
	if err := c.run(ctx, cmd); err != nil {
		return nil, 0, err
	}
	vals := cmd.Val()
	v, ok1 := vals[0].(string)
	rec, ok2 := vals[1].(string)
	if !ok1 || !ok2 {
		return nil, 0, match.ErrNotFound
	}
	version, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("redisstore: match %s: bad version %q", id, v)
	}
	return []byte(rec), version, nil
}

// MatchVersion implements match.Coord: one HGET.
func (c *Coord) MatchVersion(ctx context.Context, id string) (int64, error) {
	cmd := redis.NewStringCmd(ctx, "hget", c.matchKey(id), "v")
	err := c.run(ctx, cmd)
	if errors.Is(err, redis.Nil) {
		return 0, match.ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(cmd.Val(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("redisstore: match %s: bad version %q", id, cmd.Val())
	}
	return v, nil
}

// SaveMatch implements match.Coord with two script runs. The first
// (savematch.lua) is the compare-and-set on the match's own key; after it
// succeeded, the second (openlist.lua) puts the match on the open list or
// takes it off. The list's keys are in another hash slot than the match's,
// which a script on Redis Cluster cannot span, so the two steps are not one
// atomic step as the interface has it; instead:
//
//   - The list follows versions: an update for an older version than the
//     last applied changes nothing, so two saves racing from two nodes leave
//     the list as the newer save said, whatever order their second steps
//     run in.
//   - Both steps are safe to resend. Saving the very record that is already
//     stored at prev+1 answers prev+1 again, without a conflict, and runs
//     the list update again; so when the second step fails (SaveMatch then
//     returns an error matching match.ErrUnavailable although the record is
//     saved), the caller's retry of the same save completes it.
//   - A node that dies between the steps leaves the list as it was until
//     the match's next save; OpenMatches readers should check the records
//     they load anyway.
//
// Most saves do not change whether the match is open. The second step is
// left out when this Coord itself saved version prev and the list followed
// that save (or, by the same rule, the one before it) with the same flag:
// then no other node saved in between, so the list already says what this
// save would make it say, and no update of an older save can still arrive
// newer than the list's last one. Every other save runs it, and so does one
// at least every ttl/2 of each match, which keeps raising the list's TTL
// above its records'.
func (c *Coord) SaveMatch(ctx context.Context, id string, prev int64, rec []byte, open bool, ttl time.Duration) (int64, error) {
	ttl = ms(ttl)
	v, err := c.script(ctx, saveMatchScript, []string{c.matchKey(id)}, prev, rec, ttl.Milliseconds()).Int64()
	if redis.HasErrorPrefix(err, "VERSION") {
		return 0, match.ErrVersionConflict
	}
	if err != nil {
		return 0, mapErr(err)
	}
	c.mu.Lock()
	last, ok := c.listed[id]
	delete(c.listed, id)
	c.mu.Unlock()
	now := time.Now()
	if !ok || last.version != prev || last.open != open || now.Sub(last.at) >= ttl/2 {
		last.at = now
		flag := "0"
		if open {
			flag = "1"
		}
		if err := c.script(ctx, openListScript, c.openKeys(), id, v, flag, ttl.Milliseconds()).Err(); err != nil {
			return 0, mapErr(err)
		}
	}
	c.mu.Lock()
	if len(c.listed) >= maxListed {
		clear(c.listed)
	}
	c.listed[id] = listedAt{v, open, last.at}
	c.mu.Unlock()
	return v, nil
}

// openBatch is how many entries of the open list OpenMatches reads at a
// time when it is asked for all of them.
const openBatch = 100

// OpenMatches implements lobby.Coord: a ZRANGEBYSCORE of the open list from
// just above after, with the scores (the places), and a pipeline of EXISTS
// for the entries' records (one command per match: on Redis Cluster they are
// in different slots); again from the last entry read while expired records
// left the result short. Matches whose record expired are taken off the list
// (ZREM and HDEL in one MULTI) and not returned.
//
// Taking an expired match off races a save that creates a match of the same
// id anew, which would then be missing from the list until its next save;
// match ids are not reused, so this does not happen.
func (c *Coord) OpenMatches(ctx context.Context, after int64, limit int) ([]lobby.OpenMatch, error) {
	var out []lobby.OpenMatch
	var gone []string
	for limit <= 0 || len(out) < limit {
		n := int64(openBatch)
		if limit > 0 {
			n = int64(limit - len(out))
		}
		zs, err := c.c.ZRangeByScoreWithScores(ctx, c.openKey("list"), &redis.ZRangeBy{
			Min: "(" + strconv.FormatInt(after, 10), Max: "+inf", Count: n,
		}).Result()
		if err != nil {
			return nil, mapErr(err)
		}
		if len(zs) == 0 {
			break
		}
		pipe := c.c.Pipeline()
		exists := make([]*redis.IntCmd, len(zs))
		for i, z := range zs {
			exists[i] = pipe.Exists(ctx, c.matchKey(z.Member.(string)))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, mapErr(err)
		}
		for i, z := range zs {
			id := z.Member.(string)
			if exists[i].Val() == 0 {
				gone = append(gone, id)
			} else {
				out = append(out, lobby.OpenMatch{ID: id, Seq: int64(z.Score)})
			}
		}
		after = int64(zs[len(zs)-1].Score)
		if int64(len(zs)) < n {
			break
		}
	}
	if len(gone) > 0 {
		_, err := c.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.ZRem(ctx, c.openKey("list"), stringsToAny(gone)...)
			p.HDel(ctx, c.openKey("seen"), gone...)
			return nil
		})
		if err != nil {
			return nil, mapErr(err)
		}
	}
	return out, nil
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// ClaimCode implements lobby.Coord: SET NX PX, and when the code is taken,
// a GET. A code that already maps to matchID reports ok, changing nothing,
// so a resent claim whose first reply was lost still reports ok.
func (c *Coord) ClaimCode(ctx context.Context, code, matchID string, ttl time.Duration) (bool, error) {
	set := redis.NewStatusCmd(ctx, "set", c.codeKey(code), matchID, "px", ms(ttl).Milliseconds(), "nx")
	err := c.run(ctx, set)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, redis.Nil) {
		return false, err
	}
	get := redis.NewStringCmd(ctx, "get", c.codeKey(code))
	err = c.run(ctx, get)
	if errors.Is(err, redis.Nil) {
		return false, nil // expired just now: another claimer had it
	}
	if err != nil {
		return false, err
	}
	return get.Val() == matchID, nil
}

// CodeMatch implements lobby.Coord: one GET.
func (c *Coord) CodeMatch(ctx context.Context, code string) (string, error) {
	cmd := redis.NewStringCmd(ctx, "get", c.codeKey(code))
	err := c.run(ctx, cmd)
	if errors.Is(err, redis.Nil) {
		return "", match.ErrNotFound
	}
	if err != nil {
		return "", err
	}
	return cmd.Val(), nil
}

// SetPlayerMatch implements lobby.Coord: a SET PX, or a DEL to forget.
func (c *Coord) SetPlayerMatch(ctx context.Context, playerID, matchID string, ttl time.Duration) error {
	if matchID == "" {
		return c.run(ctx, redis.NewIntCmd(ctx, "del", c.playerKey(playerID)))
	}
	return c.run(ctx, redis.NewStatusCmd(ctx, "set", c.playerKey(playerID), matchID, "px", ms(ttl).Milliseconds()))
}

// PlayerMatch implements lobby.Coord: one GET.
func (c *Coord) PlayerMatch(ctx context.Context, playerID string) (string, error) {
	cmd := redis.NewStringCmd(ctx, "get", c.playerKey(playerID))
	err := c.run(ctx, cmd)
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return cmd.Val(), nil
}

// SaveRound implements match.Coord: a SET PX of a key with the round's hash
// tag, in the slot of the round's logs and standings.
func (c *Coord) SaveRound(ctx context.Context, roundID string, rec []byte, ttl time.Duration) error {
	return c.run(ctx, redis.NewStatusCmd(ctx, "set", c.roundKey(roundID), rec, "px", ms(ttl).Milliseconds()))
}

// LoadRound implements lobby.Coord: one GET.
func (c *Coord) LoadRound(ctx context.Context, roundID string) ([]byte, error) {
	cmd := redis.NewStringCmd(ctx, "get", c.roundKey(roundID))
	err := c.run(ctx, cmd)
	if errors.Is(err, redis.Nil) {
		return nil, match.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return cmd.Bytes()
}

// Publish implements match.Coord: one PUBLISH on the deployment's events
// channel. go-redis resends a command whose reply it lost, PUBLISH too, so
// a subscriber may get a message twice: messages should be safe to repeat
// (a snapshot with its version, "the standings changed").
func (c *Coord) Publish(ctx context.Context, msg []byte) error {
	cmd := redis.NewIntCmd(ctx, "publish", c.events(), msg)
	// On a cluster, go-redis sends a command without a key to any master;
	// one publisher's messages must all go to the channel's slot, where
	// Subscribe listens, to arrive in order.
	cmd.SetFirstKeyPos(1)
	return c.run(ctx, cmd)
}

// Subscribe implements lobby.Coord with a go-redis PubSub on the events
// channel: it returns once Redis confirmed the SUBSCRIBE, then a goroutine
// calls f with each message, in the order received, until ctx is done; once
// ctx is done f is not called again (a call in progress finishes) and the
// PubSub is closed. go-redis reconnects and subscribes again by itself when
// the connection breaks (within seconds: it pings every 3 s); messages
// published meanwhile are lost, and Redis's confirmation of the new
// SUBSCRIBE makes f(nil), as lobby.Coord has it.
func (c *Coord) Subscribe(ctx context.Context, f func(msg []byte)) error {
	ps := c.c.Subscribe(ctx, c.events())
	reply, err := ps.ReceiveTimeout(ctx, subscribeTimeout)
	if err == nil {
		if _, ok := reply.(*redis.Subscription); !ok {
			err = fmt.Errorf("redisstore: subscribe answered with %T", reply)
		}
	}
	if err != nil {
		_ = ps.Close()
		return mapErr(err)
	}
	// With its subscriptions, the channel carries the confirmations of
	// the SUBSCRIBEs go-redis makes again after a reconnect; the first
	// confirmation was read above.
	ch := ps.ChannelWithSubscriptions(redis.WithChannelSize(subscribeBuffer))
	go func() {
		defer ps.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case v, ok := <-ch:
				if !ok || ctx.Err() != nil {
					return
				}
				switch m := v.(type) {
				case *redis.Message:
					f([]byte(m.Payload))
				case *redis.Subscription:
					if m.Kind == "subscribe" {
						f(nil)
					}
				}
			}
		}
	}()
	return nil
}

// KeepNode implements match.Coord with one SET PX GET of the node's key,
// whose old value tells whether the node was live. A resent SET finds its
// own value and reports the node kept, which it is.
func (c *Coord) KeepNode(ctx context.Context, node string, ttl time.Duration) (bool, error) {
	cmd := redis.NewStringCmd(ctx, "set", c.nodeKey(node), "1", "px", ms(ttl).Milliseconds(), "get")
	switch err := c.run(ctx, cmd); {
	case errors.Is(err, redis.Nil):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// Lease implements match.Coord with one script run (lease.lua): SET PX
// when the lease is free or the holder's own. When another holder has it,
// an EXISTS of that holder's node key, and if the node is not live a
// second run that takes the lease if that holder still has it. The lease
// and the node are two keys that a cluster may keep on two shards, so no
// one script can read both. A resent run renews the holder's lease again,
// which is harmless.
func (c *Coord) Lease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	key, ttlMs := c.leaseKey(name), ms(ttl).Milliseconds()
	other, err := c.takeLease(ctx, key, holder, ttlMs, "")
	if err != nil || other == "" {
		return err == nil, err
	}
	live := redis.NewIntCmd(ctx, "exists", c.nodeKey(other))
	if err := c.run(ctx, live); err != nil {
		return false, err
	}
	if live.Val() > 0 {
		return false, nil
	}
	other, err = c.takeLease(ctx, key, holder, ttlMs, other)
	return err == nil && other == "", err
}

// takeLease runs lease.lua: it returns "" when holder has the lease now,
// else the holder that has it.
func (c *Coord) takeLease(ctx context.Context, key, holder string, ttlMs int64, gone string) (string, error) {
	v, err := c.script(ctx, leaseScript, []string{key}, holder, ttlMs, gone).Result()
	if err != nil {
		return "", mapErr(err)
	}
	if other, ok := v.(string); ok {
		return other, nil
	}
	return "", nil
}

// ReleaseLease implements match.Coord with one script run (release.lua):
// DEL if the holder has the lease.
func (c *Coord) ReleaseLease(ctx context.Context, name, holder string) error {
	return mapErr(c.script(ctx, releaseScript, []string{c.leaseKey(name)}, holder).Err())
}

// DataEpoch implements lobby.Coord: a GET, and on a Redis without the
// epoch a SET NX of 16 random bytes in hex and a GET of whichever value
// won. The key has no TTL: its disappearance is what tells a Redis that
// lost its data.
func (c *Coord) DataEpoch(ctx context.Context) (string, error) {
	v, err := c.c.Get(ctx, c.epochKey()).Result()
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, redis.Nil) {
		return "", mapErr(err)
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails
	mine := hex.EncodeToString(b[:])
	ok, err := c.c.SetNX(ctx, c.epochKey(), mine, 0).Result()
	if err != nil {
		return "", mapErr(err)
	}
	if ok {
		return mine, nil
	}
	v, err = c.c.Get(ctx, c.epochKey()).Result()
	if err != nil {
		return "", mapErr(err)
	}
	return v, nil
}
