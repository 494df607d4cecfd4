package challenge

import (
	"context"
	"time"

	"klondike/engine"
	"klondike/match"
)

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

// CountRound counts a finished race round's games in its players'
// records: every game but those played with hints, which are practice.
// The lobby calls it (lobby.Config.OnRoundResults).
func (s *Service) CountRound(r *match.Round, results []match.Entry) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, e := range results {
		if e.Helped {
			continue
		}
		g := GameResult{GameID: r.ID, Variant: Variant(r.Rules), Won: e.Status == engine.Won, Score: e.Score}
		if e.FinishedMs != nil {
			g.ElapsedMs = *e.FinishedMs
		}
		if _, err := s.cfg.Records.AddResult(ctx, e.PlayerID, g); err != nil {
			s.cfg.Logger.Warn("counting a game in the player's records failed", "round", r.ID, "player", e.PlayerID, "err", err)
		}
	}
}
