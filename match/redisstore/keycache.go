package redisstore

import (
	"strings"
	"sync"
)

// The key cache. Append's script takes six keys, five of them the round's
// and one the player's log, and its first argument is the player's id: built
// and boxed into interfaces on every call they were a third of Append's
// allocations. The cache keeps them built and boxed (an interface holding a
// string costs an allocation to make, none to copy), per round and per
// player. The values are exactly the strings roundKey and logKey return.
//
// It is bounded: two generations of at most keyCacheRounds rounds each. A
// round looked up in the old generation moves to the current one; when the
// current one is full it becomes the old one and the old one is dropped, so
// rounds that ended (no more appends) leave the cache after at most two
// turns, and at most 2×keyCacheRounds rounds are ever held. CloseRound also
// drops its round at once. A round keeps at most keyCachePlayers players;
// the keys of any more are built on each call, as before.
const (
	keyCacheRounds  = 4096
	keyCachePlayers = 256
)

// roundKeys are one round's keys, boxed, in the order of append.lua's KEYS
// (the player's log, KEYS[1], is in playerKeys).
type roundKeys struct {
	epochs, standings, rank, rankm, closed any

	players map[string]*playerKeys // guarded by keyCache.mu
}

// playerKeys are one player's log key and id, boxed.
type playerKeys struct {
	log, player any
}

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
				closed:    s.closedKey(roundID),
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
