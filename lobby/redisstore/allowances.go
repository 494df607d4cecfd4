package redisstore

import (
	"context"
	_ "embed"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
)

// Allowances keeps the counts of the limits per player and address
// (lobby.Allowances) in Redis, shared by every node, under the keys
//
//	<prefix>{allow:<key>}:take   string: when key's bucket is full again (µs since 1970), expiring then
//	<prefix>{allow:<key>}:holds  sorted set: member -> until (µs since 1970), expiring with the last
//
// Each call is one script run on one key, so it works on Redis Cluster as
// on a single server. Times are the caller's, in microseconds: exact in a
// Lua number, whose integers stop being exact past 2⁵³. It is safe for
// concurrent use; its zero value is not usable: call NewAllowances.
type Allowances struct {
	c      redis.UniversalClient
	prefix string
}

var _ lobby.Allowances = (*Allowances)(nil)

var (
	//go:embed allowance_take.lua
	takeSrc    string
	takeScript = redis.NewScript(takeSrc)

	//go:embed allowance_hold.lua
	holdSrc    string
	holdScript = redis.NewScript(holdSrc)
)

// NewAllowances returns the Allowances of the deployment with the key
// prefix (DefaultPrefix when empty). It does not close the client.
func NewAllowances(c redis.UniversalClient, prefix string) *Allowances {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Allowances{c: c, prefix: prefix}
}

func (a *Allowances) key(key, kind string) string {
	return a.prefix + "{allow:" + key + "}:" + kind
}

// micros is t in microseconds since 1970, as the scripts take it.
func micros(t time.Time) string { return strconv.FormatInt(t.UnixMicro(), 10) }

// Take implements lobby.Allowances with one script run: see
// allowance_take.lua.
func (a *Allowances) Take(ctx context.Context, key string, n int, period time.Duration, now time.Time) (bool, error) {
	if n < 1 {
		return true, nil
	}
	every := (period / time.Duration(n)).Microseconds()
	burst := every * int64(n-1)
	ok, err := takeScript.Run(ctx, a.c, []string{a.key(key, "take")}, micros(now), every, burst).Int64()
	if err != nil {
		return false, mapErr(err)
	}
	return ok == 1, nil
}

// Hold implements lobby.Allowances with one script run: see
// allowance_hold.lua.
func (a *Allowances) Hold(ctx context.Context, key, member string, max int, until, now time.Time) (bool, error) {
	if max < 1 {
		return false, nil
	}
	ok, err := holdScript.Run(ctx, a.c, []string{a.key(key, "holds")}, member, max, micros(until), micros(now)).Int64()
	if err != nil {
		return false, mapErr(err)
	}
	return ok == 1, nil
}

// Release implements lobby.Allowances: a ZREM.
func (a *Allowances) Release(ctx context.Context, key, member string) error {
	return mapErr(a.c.ZRem(ctx, a.key(key, "holds"), member).Err())
}
