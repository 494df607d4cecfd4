package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/engine"
	"klondike/lobby/redisstore"
	"klondike/match"
)

// storeLog is the echo server's move log through the Redis store's own
// Append (--echo-store): the floor of a checked durable move. Each move is
// one run of append.lua (the writer's epoch, the sequence check, the
// player's standing and the rank set) in the store's group-committed
// pipelines, with klondiked's default batching and durability, and the
// echo answers once the store has. The echo has no rounds, so its players
// sit four to a round in the order they connect, as a match's would; the
// standing is a game in play with nothing scored, so after a player's
// first move the rank set is left alone, as after most real moves.
type storeLog struct {
	b      *redisstore.Backends
	prefix string
	start  time.Time // the entries' AtMs count from here
}

var _ moveLog = (*storeLog)(nil)

// echoStorePlayers is how many of the echo's players share a round.
const echoStorePlayers = 4

// echoStoreEpoch is every echo player's writer epoch: one writer a log,
// for the life of the echo.
const echoStoreEpoch = 1

// openStoreLog opens the Redis store at url as klondiked does with its
// default settings, under a prefix of its own, with the echo's TTL; it
// fails when Redis does not answer a PING.
func openStoreLog(url string) (*storeLog, error) {
	prefix := fmt.Sprintf("klondike-loadtest-echo-store:%d:", time.Now().UnixNano())
	b, err := redisstore.Open(redisstore.Options{URL: url, Config: redisstore.Config{
		Prefix: prefix, TTL: echoLogTTL, Durability: redisstore.DurabilityLocal,
	}})
	if err != nil {
		return nil, err
	}
	if err := ping(b.Client.(*redis.Client), url); err != nil { // Open without Cluster makes a single-server client
		_ = b.Close()
		return nil, err
	}
	return &storeLog{b: b, prefix: prefix, start: time.Now()}, nil
}

// echoStoreSeat returns the round of the echo's player and the player's
// seat in it: players 1 to 4 are round echo-0's, seats 0 to 3, and so on.
func echoStoreSeat(player string) (roundID string, join int, err error) {
	n, err := strconv.Atoi(strings.TrimPrefix(player, echoPlayerPrefix))
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("%q is not an echo player", player)
	}
	return "echo-" + strconv.Itoa((n-1)/echoStorePlayers), (n - 1) % echoStorePlayers, nil
}

// append appends the player's move to its log in the store and returns
// when the store has answered.
func (l *storeLog) append(player string, seq int, move string) error {
	roundID, join, err := echoStoreSeat(player)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e := match.LogEntry{Seq: seq, Move: move, AtMs: time.Since(l.start).Milliseconds()}
	// Every fourth move changes the points, and with them the rank member,
	// about as often as the bots' real games do: the store then does the
	// rank set's work too.
	st := match.Standing{PlayerID: player, Name: player, Join: join, Moves: seq, Points: 5 * (seq / 4),
		Status: engine.Playing, FinishedMs: -1}
	return l.b.Store.Append(ctx, roundID, echoStoreEpoch, e, st)
}

// close waits for the appends under way, then closes the client.
func (l *storeLog) close() { _ = l.b.Close() }
