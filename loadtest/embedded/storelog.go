package embedded

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/engine"
	"klondike/lobby/backends"
	"klondike/match"
)

// A StoreLog is the echo server's move log through the Redis store's own
// Append (--echo-store): the floor of a checked durable move. Each move is
// one run of append.lua (the writer's epoch, the sequence check, the
// player's standing and the rank set) in the store's group-committed
// pipelines, with klondiked's default batching and durability, and the
// echo answers once the store has.
type StoreLog struct {
	// Prefix starts every key of the log's.
	Prefix string

	b     *backends.Backends
	start time.Time // the entries' AtMs count from here
}

// storeLogEpoch is every player's writer epoch: one writer a log, for the
// life of the log.
const storeLogEpoch = 1

// OpenStoreLog opens the Redis store at url as klondiked does with its
// default settings, under a prefix of its own, its keys living ttl; it
// fails when Redis does not answer a PING.
func OpenStoreLog(url string, ttl time.Duration) (*StoreLog, error) {
	prefix := fmt.Sprintf("klondike-loadtest-echo-store:%d:", time.Now().UnixNano())
	b, err := backends.Open(context.Background(), url, backends.Options{Prefix: prefix, TTL: ttl, Durability: backends.DurabilityLocal})
	if err != nil {
		return nil, err
	}
	if err := Ping(b.Redis.(*redis.Client), url); err != nil { // a URL without Cluster makes a single-server client
		_ = b.Close()
		return nil, err
	}
	return &StoreLog{Prefix: prefix, b: b, start: time.Now()}, nil
}

// Append appends the player's move seq to its log in round roundID, where
// the player sits at join, and returns when the store has answered. The
// player's standing is a game in play.
func (l *StoreLog) Append(roundID string, join int, player string, seq int, move string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e := match.LogEntry{Seq: seq, Move: move, AtMs: time.Since(l.start).Milliseconds()}
	// Every fourth move changes the points, and with them the rank member,
	// about as often as the bots' real games do: the store then does the
	// rank set's work too.
	st := match.Standing{PlayerID: player, Name: player, Join: join, Moves: seq, Points: 5 * (seq / 4),
		Status: engine.Playing, FinishedMs: -1}
	return l.b.Store.Append(ctx, roundID, storeLogEpoch, e, st)
}

// Store is the store the log appends to, for reading it back.
func (l *StoreLog) Store() match.Store { return l.b.Store }

// Close waits for the appends under way, then closes the client.
func (l *StoreLog) Close() { _ = l.b.Close() }
