package lobby

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"klondike/match"
)

// roundEntry is a round this node knows, and when the lobby first saw it
// over (zero until then), from which the janitor counts RoundRetention.
type roundEntry struct {
	r     *match.Round
	endAt time.Time
}

// Round returns a round by id: this node's object for it, or one made from
// the Coord's record of a round played elsewhere. Until the node is ready
// (see Ready) it fails with ErrNotReady.
func (l *Lobby) Round(ctx context.Context, id string) (*match.Round, error) {
	if err := l.checkReady(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	re := l.rounds[id]
	l.mu.Unlock()
	if re != nil {
		return re.r, nil
	}
	if _, _, ok := match.SplitAttemptRoundID(id); ok {
		if l.cfg.AttemptRound == nil {
			return nil, ErrNoSuchRound
		}
		return l.cfg.AttemptRound(ctx, id)
	}
	rec, err := l.cfg.Coord.LoadRound(ctx, id)
	if errors.Is(err, match.ErrNotFound) {
		return nil, ErrNoSuchRound
	}
	if err != nil {
		return nil, err
	}
	var rr match.RoundRecord
	if err := json.Unmarshal(rec, &rr); err != nil {
		return nil, fmt.Errorf("lobby: round %s: a bad record: %w", id, err)
	}
	// A round being played is served by its match's replica, which knows
	// when it ends.
	if m, err := l.Match(ctx, rr.MatchID); err == nil {
		if r := m.Round(); r != nil && r.ID == id {
			return r, nil
		}
	}
	return match.RoundFromRecord(rr, l.cfg.Store)
}
