package main

import (
	"fmt"
	"strconv"
	"strings"

	"klondike/loadtest/embedded"
)

// storeLog is the echo server's move log through the Redis store's own
// Append (--echo-store, embedded.StoreLog): the floor of a checked durable
// move. The echo has no rounds, so its players sit four to a round in the
// order they connect, as a match's would.
type storeLog struct{ *embedded.StoreLog }

var _ moveLog = storeLog{}

// echoStorePlayers is how many of the echo's players share a round.
const echoStorePlayers = 4

// openStoreLog opens the Redis store at url as klondiked does with its
// default settings, under a prefix of its own, with the echo's TTL; it
// fails when Redis does not answer a PING.
func openStoreLog(url string) (storeLog, error) {
	l, err := embedded.OpenStoreLog(url, echoLogTTL)
	return storeLog{l}, err
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
func (l storeLog) append(player string, seq int, move string) error {
	roundID, join, err := echoStoreSeat(player)
	if err != nil {
		return err
	}
	return l.Append(roundID, join, player, seq, move)
}

// close waits for the appends under way, then closes the client.
func (l storeLog) close() { l.Close() }
