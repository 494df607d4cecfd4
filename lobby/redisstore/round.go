package redisstore

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrEpochsExhausted is ClaimSeat's error when the player's epoch is
// already the largest uint64 and no newer one can be made.
var ErrEpochsExhausted = errors.New("redisstore: no writer epoch is newer than 2⁶⁴−1")

var (
	//go:embed claimseat.lua
	claimSeatSrc    string
	claimSeatScript = redis.NewScript(claimSeatSrc)

	//go:embed closeround.lua
	closeRoundSrc    string
	closeRoundScript = redis.NewScript(closeRoundSrc)

	//go:embed keep.lua
	keepSrc    string
	keepScript = redis.NewScript(keepSrc)
)

// errNoPlayer is the error of a write for a player whose id is empty: the
// empty field of the round's writers hash is its closed marker.
var errNoPlayer = errors.New("redisstore: a player id must not be empty")

// ClaimSeat implements match.Store with one script run (claimseat.lua): the
// player's epoch in the round's epochs hash goes up by one, exactly, as a
// decimal string, and the hash's TTL is renewed.
//
// A resent script (go-redis retrying after a lost reply) claims twice; the
// caller gets the second epoch, and the first one is never used by anyone,
// which is harmless.
func (s *Store) ClaimSeat(ctx context.Context, roundID, playerID string) (uint64, error) {
	if playerID == "" {
		return 0, errNoPlayer
	}
	res, err := s.script(ctx, claimSeatScript, []string{s.roundKey(roundID, "epochs")}, playerID, s.ttlMs).Text()
	if redis.HasErrorPrefix(err, "EPOCHS") {
		return 0, ErrEpochsExhausted
	}
	if err != nil {
		return 0, mapErr(err)
	}
	epoch, err := strconv.ParseUint(res, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("redisstore: round %s, player %s: bad epoch %q", roundID, playerID, res)
	}
	return epoch, nil
}

// CloseRound implements match.Store with one script run (closeround.lua):
// it sets the closed marker, the field "" of the round's writers hash,
// which Append's script reads with the writer's epoch, and gives the hash
// the store's TTL. It is idempotent, and it leaves the round's other keys
// (and SetStanding) alone.
func (s *Store) CloseRound(ctx context.Context, roundID string) error {
	s.kc.forget(roundID) // no more appends, but a late retry, which rebuilds its keys
	return mapErr(s.script(ctx, closeRoundScript, []string{s.roundKey(roundID, "epochs")}, s.ttlMs).Err())
}

// Keep implements match.Store: the round's keys, its players' logs among
// them (named by its standings), expire no sooner than until. A round
// without standings has nothing to keep.
func (s *Store) Keep(ctx context.Context, roundID string, until time.Time) error {
	players := redis.NewStringSliceCmd(ctx, "hkeys", s.roundKey(roundID, "standings"))
	if err := s.run(ctx, players); err != nil {
		return mapErr(err)
	}
	keys := []string{s.roundKey(roundID, "epochs"), s.roundKey(roundID, "standings"), s.roundKey(roundID, "rank"), s.roundKey(roundID, "rankm")}
	for _, p := range players.Val() {
		keys = append(keys, s.logKey(roundID, p))
	}
	return mapErr(s.script(ctx, keepScript, keys, until.UnixMilli()).Err())
}
