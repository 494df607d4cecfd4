package challenge

import (
	"context"
	"time"

	"klondike/engine"
	"klondike/match"
)

// MadeListed is how many of the challenges a player made Made lists.
const MadeListed = 20

// Records returns a player's records, one a variant played, as of today
// (a daily streak not kept up yesterday is broken).
func (s *Service) Records(ctx context.Context, playerID string) ([]VariantRecord, error) {
	if err := s.checkReady(); err != nil {
		return nil, err
	}
	rs, err := s.cfg.Records.Records(ctx, playerID)
	if err != nil {
		return nil, err
	}
	today := DayOf(time.Now())
	for i := range rs {
		rs[i] = rs[i].AsOf(today)
	}
	return rs, nil
}

// Recent returns the player's last finished games, up to MaxRecent,
// newest first (by GameResult.Finished): race rounds, daily rounds and
// challenges alike, but those played with hints. A game's GameID is its
// round's id, whose replay the api serves.
func (s *Service) Recent(ctx context.Context, playerID string) ([]GameResult, error) {
	if err := s.checkReady(); err != nil {
		return nil, err
	}
	return s.cfg.Records.Recent(ctx, playerID, MaxRecent)
}

// Made returns the challenges the player made that the store still keeps
// (until Config.Retention past their close), up to MadeListed, newest
// first. The records carry their deals' secrets: show of each only what
// its Info tells (Record.Info).
func (s *Service) Made(ctx context.Context, playerID string) ([]Record, error) {
	if err := s.checkReady(); err != nil {
		return nil, err
	}
	return s.cfg.Challenges.Made(ctx, playerID, MadeListed)
}

// ForgetPlayer forgets the player's records and recent games
// (RecordStore.DeleteRecords), for a player who deletes themselves. What
// others see stays until it expires: the player's entries on boards and
// the challenges they made, under the names they had then. A game of
// theirs that ends after this (an attempt or a race round still being
// played) is counted afresh.
func (s *Service) ForgetPlayer(ctx context.Context, playerID string) error {
	if err := s.checkReady(); err != nil {
		return err
	}
	return s.cfg.Records.DeleteRecords(ctx, playerID)
}

// CountRound counts a finished race round's games in its players'
// records: every game but those played with hints, which are practice.
// Each game finished when the round ended (now, if the round does not
// say). The lobby calls it (lobby.Config.OnRoundResults).
func (s *Service) CountRound(r *match.Round, results []match.Entry) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	finished := roundEnded(r)
	gone := s.deleted(ctx, results)
	for _, e := range results {
		if e.Helped || gone[e.PlayerID] {
			continue
		}
		g := GameResult{GameID: r.ID, Variant: Variant(r.Rules), Won: e.Status == engine.Won, Score: e.Score, Finished: finished}
		if e.FinishedMs != nil {
			g.ElapsedMs = *e.FinishedMs
		}
		if _, err := s.cfg.Records.AddResult(ctx, e.PlayerID, g); err != nil {
			s.cfg.Logger.Warn("counting a game in the player's records failed", "round", r.ID, "player", e.PlayerID, "err", err)
		}
	}
}

// deleted returns which of the players of results were deleted: a round
// that ends after a player's deletion (its leaving may end it) must not
// bring back the records the deletion forgot. On a store error none is
// taken as deleted.
func (s *Service) deleted(ctx context.Context, results []match.Entry) map[string]bool {
	ids := make([]string, len(results))
	for i, e := range results {
		ids[i] = e.PlayerID
	}
	gone, err := s.lobby.Deleted(ctx, ids)
	if err != nil {
		s.cfg.Logger.Warn("reading which players were deleted failed", "err", err)
	}
	return gone
}

// roundEnded returns when a round ended on the server's clock: its start
// and the clock it ended at, for a round that is over; else now.
func roundEnded(r *match.Round) time.Time {
	if !r.Over() || r.StartsAt.IsZero() {
		return time.Now()
	}
	return r.StartsAt.Add(time.Duration(r.Record().EndMs) * time.Millisecond)
}
