package redisstore

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// The key cache. Append's script takes five keys, four of them the round's
// and one the player's log, and its first argument is the player's id:
// built and boxed into interfaces on every call, they would cost an
// allocation each. The cache keeps them built and boxed (an interface holding a
// string costs an allocation to make, none to copy), per round and per
// player. The values are exactly the strings roundKey and logKey return.
//
// It is bounded: two generations of at most keyCacheRounds rounds each. A
// round looked up in the old generation moves to the current one; when the
// current one is full it becomes the old one and the old one is dropped, so
// rounds that ended (no more appends) leave the cache after at most two
// turns, and at most 2×keyCacheRounds rounds are ever held. CloseRound also
// drops its round at once. A round keeps at most keyCachePlayers players;
// the keys of any more are built on each call.
const (
	keyCacheRounds  = 4096
	keyCachePlayers = 256
)

// roundKeys are one round's keys, boxed, in the order of append.lua's KEYS
// (the player's log, KEYS[1], is in playerKeys).
type roundKeys struct {
	epochs, standings, rank, rankm any

	players map[string]*playerKeys // guarded by keyCache.mu
}

// playerKeys are one player's log key and id, boxed, and what this store
// wrote for the player last, which spares append.lua two calls a move (see
// there): the rank member, and when the player's keys get the TTL again.
// A playerKeys the cache does not keep (a round past keyCachePlayers) has
// no memory: its appends leave both to the script.
type playerKeys struct {
	log, player any
	cached      bool // held by the cache

	mu        sync.Mutex
	rank      []byte    // the rank member this store last wrote at rankEpoch
	rankEpoch uint64    // 0: rank is unknown
	renewAt   time.Time // when the keys are due for the TTL again; zero: at once
}

// appendState appends the rank member the store last wrote for the player
// at this epoch to b (nothing if it does not know it), and returns the
// renewal argument of append.lua: "1" if the keys are due for the TTL,
// "0" if not, "" when pk has no memory.
func (pk *playerKeys) appendState(b []byte, epoch uint64, now time.Time) (_ []byte, renew any) {
	if !pk.cached {
		return b, renewByScript
	}
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.rankEpoch == epoch && epoch != 0 {
		b = append(b, pk.rank...)
	}
	if now.Before(pk.renewAt) {
		return b, renewNo
	}
	return b, renewYes
}

// noteAppend records what an append of the player's at epoch wrote, when it
// succeeded (err is nil): rank is its rank member, and renewed tells
// whether it gave the keys the TTL again (at now). Any other outcome
// forgets the rank member: the store cannot tell what is in Redis.
func (pk *playerKeys) noteAppend(epoch uint64, rank []byte, renewed bool, now time.Time, every time.Duration, err error) {
	if !pk.cached {
		return
	}
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if err != nil {
		pk.rankEpoch = 0
		return
	}
	if !bytes.Equal(pk.rank, rank) {
		pk.rank = append(pk.rank[:0], rank...)
	}
	pk.rankEpoch = epoch
	if renewed {
		pk.renewAt = now.Add(every)
	}
}

// forgetRank forgets the rank member written last (SetStanding wrote
// another one).
func (pk *playerKeys) forgetRank() {
	pk.mu.Lock()
	pk.rankEpoch = 0
	pk.mu.Unlock()
}

// The renewal arguments of append.lua, boxed once.
var (
	renewYes      any = "1"
	renewNo       any = "0"
	renewByScript any = ""
)

type keyCache struct {
	mu       sync.Mutex
	cur, old map[string]*roundKeys
}

// keys returns the round's keys and the player's, from the cache or built
// with s.roundKey and s.logKey.
func (s *Store) keys(roundID, playerID string) (*roundKeys, *playerKeys) {
	c := &s.kc
	c.mu.Lock()
	defer c.mu.Unlock()
	rk := c.cur[roundID]
	if rk == nil {
		// The ids may come from a buffer that is reused (a frame): the
		// cache keeps copies.
		roundID = strings.Clone(roundID)
		if rk = c.old[roundID]; rk != nil {
			delete(c.old, roundID)
		} else {
			rk = &roundKeys{
				epochs:    s.roundKey(roundID, "epochs"),
				standings: s.roundKey(roundID, "standings"),
				rank:      s.roundKey(roundID, "rank"),
				rankm:     s.roundKey(roundID, "rankm"),
				players:   make(map[string]*playerKeys, 4),
			}
		}
		if len(c.cur) >= keyCacheRounds {
			c.old, c.cur = c.cur, make(map[string]*roundKeys, keyCacheRounds)
		}
		if c.cur == nil {
			c.cur = make(map[string]*roundKeys)
		}
		c.cur[roundID] = rk
	}
	pk := rk.players[playerID]
	if pk == nil {
		playerID = strings.Clone(playerID)
		pk = &playerKeys{log: s.logKey(roundID, playerID), player: playerID}
		if len(rk.players) < keyCachePlayers {
			rk.players[playerID] = pk
			pk.cached = true
		}
	}
	return rk, pk
}

// forget drops the round's keys from the cache (the round is closed).
func (c *keyCache) forget(roundID string) {
	c.mu.Lock()
	delete(c.cur, roundID)
	delete(c.old, roundID)
	c.mu.Unlock()
}
