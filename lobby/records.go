package lobby

import (
	"context"
	"time"

	"klondike/engine"
	"klondike/match"
)

// Records returns a player's records, one a variant played, as of today
// (a daily streak not kept up yesterday is broken).
func (l *Lobby) Records(ctx context.Context, playerID string) ([]match.VariantRecord, error) {
	if err := l.checkReady(); err != nil {
		return nil, err
	}
	rs, err := l.cfg.Records.Records(ctx, playerID)
	if err != nil {
		return nil, err
	}
	today := match.DayOf(time.Now())
	for i := range rs {
		rs[i] = rs[i].AsOf(today)
	}
	return rs, nil
}

// countRound counts a finished race round's games in its players'
// records: every game but those played with hints, which are practice.
func (l *Lobby) countRound(r *match.Round, results []match.Entry) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, e := range results {
		if e.Helped {
			continue
		}
		g := match.GameResult{GameID: r.ID, Variant: match.Variant(r.Rules), Won: e.Status == engine.Won, Score: e.Score}
		if e.FinishedMs != nil {
			g.ElapsedMs = *e.FinishedMs
		}
		if _, err := l.cfg.Records.AddResult(ctx, e.PlayerID, g); err != nil {
			l.cfg.Logger.Warn("counting a game in the player's records failed", "round", r.ID, "player", e.PlayerID, "err", err)
		}
	}
}
