package redisstore

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Defaults of Options. A Redis that does not answer within the timeouts
// makes a move fail fast as unavailable rather than hang; every write here
// is idempotent, so the retries are safe.
const (
	DefaultDialTimeout = time.Second
	DefaultIOTimeout   = time.Second
	DefaultMaxRetries  = 2
	// ClusterStateReload is how often a cluster client reloads the slot
	// map: after a master dies, its shard's moves fail until then and its
	// replica's promotion (docs/ops/cluster.md).
	ClusterStateReload = time.Second
)

// ErrBadPrefix is Open's error for a key prefix with a brace in it, which
// would take the place of the keys' hash tags on a Redis Cluster.
var ErrBadPrefix = errors.New("a Redis key prefix must not contain { or }")

// Options say where Redis is and how the backends use it. Every field but
// URL may be left zero for its default.
type Options struct {
	// URL is redis://[user:password@]host:port/db (rediss:// for TLS); with
	// Cluster, one node's redis://host:port, more of them named by
	// ?addr=host2:port&addr=….
	URL string
	// Cluster says that URL names a Redis Cluster.
	Cluster bool
	// Config is the Store's and the Coord's (key prefix, TTL, batching,
	// durability); its Prefix is the Players', the Challenges', the
	// Allowances' and the Ratings' too.
	Config Config
	// DialTimeout bounds making a connection (default DefaultDialTimeout),
	// IOTimeout each read and each write (default DefaultIOTimeout).
	DialTimeout time.Duration
	IOTimeout   time.Duration
	// MaxRetries is how many times a command whose reply was lost is sent
	// again (default DefaultMaxRetries); negative: never.
	MaxRetries int
}

// Backends are the Redis implementations of everything the server keeps,
// on one client, shared by every node of a deployment: the rounds' move
// logs and standings (Store), the matches' records and the lobby's indexes
// (Coord), the players with their
// credentials (Players), the challenges with the players' records
// (Challenges), the counts of the limits per player and address
// (Allowances), and the players' ratings (Ratings).
type Backends struct {
	Client     redis.UniversalClient
	Store      *Store
	Coord      *Coord
	Players    *Players
	Challenges *Challenges
	Allowances *Allowances
	Ratings    *Ratings
}

// dialerRetries is how many times a connection is dialled for one command:
// once. A Redis that is down then fails a command within DialTimeout, as
// "unavailable", rather than after several dials; the command's own retries
// (MaxRetries) still cover a reply lost on a live connection.
const dialerRetries = 1

// Dial returns a client of the Redis that o's URL and Cluster name, with
// o's timeouts and retries: a *redis.Client, or with Cluster a
// *redis.ClusterClient. It sends nothing; a Redis that is down fails the
// client's first command. An error is the URL's.
func Dial(o Options) (redis.UniversalClient, error) {
	dial, rw, retries := o.DialTimeout, o.IOTimeout, o.MaxRetries
	if dial <= 0 {
		dial = DefaultDialTimeout
	}
	if rw <= 0 {
		rw = DefaultIOTimeout
	}
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = -1 // go-redis's "never"; its 0 is its own default
	}
	if o.Cluster {
		opt, err := redis.ParseClusterURL(o.URL)
		if err != nil {
			return nil, err
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.MaxRetries = dial, rw, rw, retries
		opt.DialerRetries = dialerRetries
		// A dead master sends no MOVED: the client learns of its replica's
		// promotion only by reloading the slot map, every minute unless
		// told otherwise, and the shard's moves would fail that long.
		opt.ClusterStateReloadInterval = ClusterStateReload
		return redis.NewClusterClient(opt), nil
	}
	opt, err := redis.ParseURL(o.URL)
	if err != nil {
		return nil, err
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.MaxRetries = dial, rw, rw, retries
	opt.DialerRetries = dialerRetries
	return redis.NewClient(opt), nil
}

// Open dials Redis as Dial does and returns the backends on the client;
// Close releases them. It fails with ErrBadPrefix for a prefix with a
// brace, ErrBadDurability for a durability that is not a level, or with
// the URL's error. Like Dial it sends nothing: a caller that wants to know
// whether Redis answers pings the client.
func Open(o Options) (*Backends, error) {
	if strings.ContainsAny(o.Config.Prefix, "{}") {
		return nil, fmt.Errorf("%w: %q", ErrBadPrefix, o.Config.Prefix)
	}
	if err := checkDurability(o.Config.Durability); err != nil {
		return nil, err
	}
	c, err := Dial(o)
	if err != nil {
		return nil, err
	}
	return &Backends{
		Client:     c,
		Store:      New(c, o.Config),
		Coord:      NewCoord(c, o.Config),
		Players:    NewPlayers(c, o.Config.Prefix),
		Challenges: NewChallenges(c, o.Config.Prefix),
		Allowances: NewAllowances(c, o.Config.Prefix),
		Ratings:    NewRatings(c, o.Config.Prefix),
	}, nil
}

// Close stops the Store, waiting for the appends it has queued, then
// closes the client.
func (b *Backends) Close() error {
	_ = b.Store.Close()
	return b.Client.Close()
}
