// Package backends opens everything the server keeps its state in, by URL,
// as one bundle: the memory backends of lobby/memstore for one process, or
// the Redis ones of lobby/redisstore that several nodes share.
//
// The URL says which:
//
//	""                                    the memory backends
//	redis://[user:password@]host:port/db  a Redis server (rediss:// for TLS)
//	redis://host:port?addr=host2:port&…   with Options.Cluster, a Redis Cluster
//
// Only the empty URL means memory, so that a mistyped Redis URL is an error
// rather than a server that forgets everything at its restart: any other
// URL is the Redis client's to parse, and its error Open's.
package backends

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/lobby/redisstore"
	"klondike/match"
)

// The defaults of Options, and its durability levels: the Redis store's.
const (
	DefaultPrefix     = redisstore.DefaultPrefix
	DefaultTTL        = redisstore.DefaultTTL
	DefaultLinger     = redisstore.DefaultLinger
	DurabilityLocal   = redisstore.DurabilityLocal
	DurabilityReplica = redisstore.DurabilityReplica
)

// Open's errors for options the backends cannot take. ErrBadPrefix and
// ErrBadDurability are the Redis store's own, so errors.Is matches either
// name.
var (
	// ErrBadPrefix: a key prefix with a brace in it, which would take the
	// place of the keys' hash tags on a Redis Cluster.
	ErrBadPrefix = redisstore.ErrBadPrefix
	// ErrBadDurability: a durability that is not one of the levels.
	ErrBadDurability = redisstore.ErrBadDurability
	// ErrNoReplica: DurabilityReplica asked of the memory backends, which
	// keep moves in this process only.
	ErrNoReplica = errors.New("the memory backends keep moves in this process only, with no replica")
)

// Options tune the Redis backends; the memory ones take only Durability
// (local) and ignore the rest. Every field may be left zero for its default.
type Options struct {
	// Prefix starts every Redis key (default DefaultPrefix): one a
	// deployment. It must not contain '{' or '}'.
	Prefix string
	// TTL is how long a round's move logs and standings, and a match's
	// record, stay after their last write (default DefaultTTL).
	TTL time.Duration
	// Linger is the shortest time between two batches of writes while
	// moves keep coming (default DefaultLinger); negative: none.
	Linger time.Duration
	// Durability says when a move is acknowledged: DurabilityLocal (the
	// default, "" too) once the Redis master has it, DurabilityReplica
	// once a replica of the master has it too.
	Durability string
	// Cluster says that the URL names a Redis Cluster.
	Cluster bool
	// Logger, when not nil, gets the Redis client's own lines (for the
	// whole process: redisstore.LogTo) and Open's warnings about a Redis
	// that does not answer yet or, with DurabilityReplica, has no replica.
	// nil: the client logs as it does by default, and Open sends Redis
	// nothing.
	Logger *slog.Logger
}

// Backends are what the server keeps its state in: the rounds' move logs
// and standings (Store), the matches' records and the lobby's indexes
// (Coord), the players with their
// credentials (Players), and the challenges (Challenges) with the
// players' records (Records). Close releases them.
type Backends struct {
	Store      match.Store
	Coord      lobby.Coord
	Players    lobby.Players
	Challenges challenge.Store
	Records    challenge.RecordStore
	// Allowances count the limits per player and address that every node
	// sharing the backends shares.
	Allowances lobby.Allowances
	// Ratings keep the players' ratings, the rated rounds and the ladders.
	Ratings lobby.Ratings
	// Redis is the client of the Redis backends, for a caller that reads
	// the server's own figures; nil for the memory backends.
	Redis redis.UniversalClient

	close func() error
}

// Close stops the backends, waiting for the writes they have queued, and
// closes their client.
func (b *Backends) Close() error { return b.close() }

// pingTimeout bounds the check that Redis answers at start.
const pingTimeout = 2 * time.Second

// Open returns the backends url names (see the package doc). A Redis that
// does not answer is not an error: the backends fail as unavailable until
// it does (with a Logger, Open warns of it). Open fails with ErrBadPrefix,
// ErrBadDurability or ErrNoReplica for options the backends cannot take,
// or with the URL's error.
func Open(ctx context.Context, url string, o Options) (*Backends, error) {
	if url == "" {
		switch o.Durability {
		case "", DurabilityLocal:
		case DurabilityReplica:
			return nil, ErrNoReplica
		default:
			return nil, fmt.Errorf("%w, not %q", ErrBadDurability, o.Durability)
		}
		m := memstore.NewBackends()
		return &Backends{
			Store: m.Store, Coord: m.Coord, Players: m.Players, Challenges: m.Challenges, Records: m.Challenges, Allowances: m.Allowances,
			Ratings: m.Ratings, close: func() error { return nil },
		}, nil
	}
	if o.Logger != nil {
		redisstore.LogTo(o.Logger)
	}
	cfg := redisstore.Config{Prefix: o.Prefix, TTL: o.TTL, Linger: o.Linger, Durability: o.Durability}
	r, err := redisstore.Open(redisstore.Options{URL: url, Cluster: o.Cluster, Config: cfg})
	if err != nil {
		return nil, err
	}
	if o.Logger != nil {
		warnIfNotReady(ctx, r.Client, o)
	}
	return &Backends{
		Store: r.Store, Coord: r.Coord, Players: r.Players, Challenges: r.Challenges, Records: r.Challenges,
		Allowances: r.Allowances, Ratings: r.Ratings, Redis: r.Client, close: r.Close,
	}, nil
}

// warnIfNotReady logs whether the Redis of c answers and, with
// DurabilityReplica on a single server, whether its master has a replica.
// Neither is fatal: Redis may be on its way, a replica too.
func warnIfNotReady(ctx context.Context, c redis.UniversalClient, o Options) {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		o.Logger.Warn("Redis does not answer yet; /readyz says 503 until it does", "err", err)
	} else if o.Durability == DurabilityReplica && !o.Cluster {
		if info, err := c.Info(ctx, "replication").Result(); err == nil && strings.Contains(info, "connected_slaves:0\r\n") {
			o.Logger.Warn("--durability replica, and the Redis master has no replica: moves fail as unavailable until one is in step")
		}
	}
}
