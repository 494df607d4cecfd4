package match

import (
	"context"
	"errors"
	"fmt"
	"time"

	"klondike/engine"
)

// MaxReplayPageBytes bounds a page of players' replays (an asynchronous
// round's replay is read a page at a time): a page stops before the player
// whose replay would take its players past this many bytes of JSON, and
// holds one player whatever its size. One game of MaxMoves moves encodes to
// about this much, so a page is at most about twice it.
const MaxReplayPageBytes = 1 << 20

// A PlayerReplay is one player's part of a replay.
type PlayerReplay struct {
	PlayerID string     `json:"player_id"`
	Name     string     `json:"name"`
	Moves    []LogEntry `json:"moves"`
	Status   string     `json:"status"`
	Points   int        `json:"points"`
	Score    int        `json:"score"`
	Elapsed  int64      `json:"elapsed_ms"`
	Helped   bool       `json:"helped,omitempty"`
}

// A Replay is everything needed to verify a finished round.
type Replay struct {
	RoundID    string         `json:"round_id"`
	MatchID    string         `json:"match_id"`
	Round      int            `json:"round"`
	Seed       string         `json:"seed"`
	Salt       string         `json:"salt,omitempty"`
	Commitment string         `json:"commitment,omitempty"`
	KnownDeal  bool           `json:"known_deal,omitempty"`
	Rules      engine.Rules   `json:"rules"`
	Layout     engine.Deal    `json:"layout"`
	StartsAt   time.Time      `json:"starts_at"`
	Players    []PlayerReplay `json:"players"`
}

// Replay returns the round's replay, from the store, or
// ErrRoundNotRunning before it ends: the seed and the logs are secret until
// then.
func (r *Round) Replay(ctx context.Context) (Replay, error) {
	if !r.Over() {
		return Replay{}, ErrRoundNotRunning
	}
	rep := Replay{
		RoundID: r.ID, MatchID: r.MatchID, Round: r.Number, Seed: fmt.Sprint(r.Fair.Seed), Salt: r.Fair.Salt,
		Commitment: r.Fair.Commitment, KnownDeal: r.Fair.Known, Rules: r.Rules, Layout: r.Deal, StartsAt: r.StartsAt,
	}
	sts, err := r.Standings(ctx)
	if err != nil {
		return Replay{}, err
	}
	endMs := r.endMs.Load()
	for _, st := range sts {
		log, err := r.store.Log(ctx, r.ID, st.PlayerID)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return Replay{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		at := endMs
		if st.Status == engine.Won {
			at = st.FinishedMs
		}
		rep.Players = append(rep.Players, PlayerReplay{
			PlayerID: st.PlayerID, Name: st.Name, Moves: append([]LogEntry{}, log...),
			Status: st.Status.String(), Points: st.Points, Score: RoundScore(r.Rules, st, endMs), Elapsed: at,
			Helped: st.Helped,
		})
	}
	return rep, nil
}
