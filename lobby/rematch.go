package lobby

import (
	"context"
	"fmt"

	"klondike/match"
)

// Rematch makes a new match with the same settings and players as a finished
// one. The player who asks hosts it; the other players of the old match are
// seated in their old order (unless they are playing elsewhere by now) and
// learn of it through the old match's next_match field. Asking again joins
// the rematch already made.
func (l *Lobby) Rematch(ctx context.Context, playerID, matchID string) (*match.MatchInfo, error) {
	old, err := l.Match(ctx, matchID)
	if err != nil {
		return nil, err
	}
	info := old.Info()
	if info.State != match.StateOver {
		return nil, fmt.Errorf("%w: rematch once the match is over", match.ErrAlreadyStart)
	}
	if info.NextMatch != "" {
		return l.JoinMatch(ctx, playerID, info.NextMatch, "")
	}
	players, err := old.Members(ctx)
	if err != nil {
		return nil, err
	}
	_, addr, _ := l.playerFrom(playerID)
	m, err := l.newMatchBy(ctx, old.Settings, old.Quick, addr)
	if err != nil {
		return nil, err
	}
	// The one who asked hosts; then the others in their old seat order,
	// each under their own seating lock, one at a time.
	if pl, err := l.Player(playerID); err == nil {
		l.seatInRematch(ctx, old.ID, m, pl)
	}
	for _, p := range players {
		if p.ID != playerID {
			l.seatInRematch(ctx, old.ID, m, p)
		}
	}
	_ = old.SetNextMatch(ctx, m.ID)
	return m.Info(), nil
}

// seatInRematch seats a player of the match oldID in its rematch m, under
// the player's seating lock, unless they are playing elsewhere already
// (nobody is pulled out of a match being played). A player whose current
// match is still oldID does not leave it first: it is over, and m is its
// rematch, so that would cost a save of its record for nothing.
func (l *Lobby) seatInRematch(ctx context.Context, oldID string, m *match.Match, pl match.Player) {
	defer l.lockPlayer(pl.ID)()
	cur, err := l.free(ctx, pl.ID)
	if err != nil {
		return
	}
	if cur == oldID {
		cur = ""
	}
	if err := l.leaveFor(ctx, pl.ID, cur, m.ID); err != nil {
		return
	}
	if err := l.join(ctx, m, pl); err != nil {
		if !definitelyNotJoined(err) {
			l.settle(ctx, m, pl.ID)
		}
		return
	}
	if err := l.point(ctx, pl.ID, m.ID); err != nil {
		l.unseat(ctx, m, pl.ID)
	}
}
