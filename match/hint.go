package match

import (
	"context"
	"errors"
	"fmt"
	"time"

	"klondike/engine"
)

// ErrNoHints: hints are for solo practice, never for a round with rivals.
var ErrNoHints = errors.New("hints are for solo practice: a round of one player")

// A HintFunc finds a winning line from a game's position, seeing every
// card (engine/solver.Hint behind it): the line's moves in the notation,
// or none, and the verdict on the position ("winnable", "unwinnable" or
// "unknown"). It may take a while; it must not keep g.
type HintFunc func(g *engine.Game) (line []string, verdict string)

// Hint answers a solo player's request for a hint with the solver's next
// move from their position, and marks their game as played with help (the
// standing's Helped, shown in leaderboards and results). A round with more
// than one player gets ErrNoHints: the solver sees cards the players cannot.
// So does an attempt at a challenge, whose rivals play the same
// deal at other times. A game the solver does not play (Solvable) gets
// ErrNoHintsForGame.
func (r *Round) Hint(ctx context.Context, playerID string, now time.Time, hint HintFunc) (move, verdict string, err error) {
	if _, _, attempt := SplitAttemptRoundID(r.ID); len(r.Players) != 1 || attempt {
		return "", "", ErrNoHints
	}
	if !Solvable(r.Rules.Game) {
		return "", "", ErrNoHintsForGame
	}
	s, err := r.seat(ctx, playerID)
	if err != nil {
		return "", "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !r.Running(now) || s.game.Status().Over() {
		return "", "", ErrRoundNotRunning
	}
	if !s.standing.Helped {
		st := s.standing
		st.Helped = true
		if err := r.store.SetStanding(ctx, r.ID, st); err != nil {
			return "", "", fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		s.standing = st
		r.markDirty(true)
	}
	// While the player follows the line of the last hint, its next move is
	// the hint: a fresh search from each position could choose another line
	// each time and send the player round the stock in circles.
	if at := s.hintAt; s.hintLine != nil && len(s.log) >= at && len(s.log)-at < len(s.hintLine) {
		followed := true
		for i, e := range s.log[at:] {
			followed = followed && e.Move == s.hintLine[i]
		}
		if followed {
			return s.hintLine[len(s.log)-at], "winnable", nil
		}
	}
	line, verdict := hint(s.game.Clone())
	s.hintLine, s.hintAt = nil, 0
	if len(line) == 0 {
		return "", verdict, nil
	}
	s.hintLine, s.hintAt = line, len(s.log)
	return line[0], verdict, nil
}
