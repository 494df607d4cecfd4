package challenge

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"klondike/engine"
	"klondike/match"
)

// A GhostTrack is a finished game's progress over its own clock, computed
// once from its log: one point at the start and one per move that changed
// the score, the cards home or the status, then the player's entry on the
// board from the game's end on.
type GhostTrack struct {
	PlayerID, Name string
	rules          engine.Rules
	points         []ghostPoint
	final          match.BoardEntry
}

type ghostPoint struct {
	atMs       int64
	points     int
	foundation int
	won        bool
}

// NewGhostTrack replays a player's log on the deal; final is the player's
// entry on the board, which the ghost shows from its ElapsedMs (where the
// player's game ended) on.
func NewGhostTrack(d engine.Deal, r engine.Rules, playerID, name string, log []match.LogEntry, final match.BoardEntry) (*GhostTrack, error) {
	g, err := engine.NewGame(d, r)
	if err != nil {
		return nil, err
	}
	t := &GhostTrack{PlayerID: playerID, Name: name, rules: r, final: final}
	t.points = append(t.points, ghostPoint{0, g.Score(), g.FoundationTotal(), false})
	for _, e := range log {
		m, err := r.Game.ParseMove(e.Move)
		if err == nil {
			_, err = g.Apply(m)
		}
		if err != nil {
			return nil, fmt.Errorf("ghost of %s: move %d (%q) does not replay: %w", playerID, e.Seq, e.Move, err)
		}
		p := ghostPoint{e.AtMs, g.Score(), g.FoundationTotal(), g.Status() == engine.Won}
		last := &t.points[len(t.points)-1]
		switch {
		case p.points == last.points && p.foundation == last.foundation && p.won == last.won:
		case p.atMs == last.atMs:
			*last = p
		default:
			t.points = append(t.points, p)
		}
	}
	return t, nil
}

// At returns the ghost at atMs of its own clock. Once the player's game
// has ended the ghost stands still at their result on the board: a game
// that ended stopped its player's clock, and another player racing the
// ghost races that result, not a score that keeps falling.
func (t *GhostTrack) At(role string, atMs int64) match.Ghost {
	if atMs >= t.final.ElapsedMs {
		f := t.final
		return match.Ghost{
			PlayerID: t.PlayerID, Name: t.Name, Role: role, Foundation: f.Foundation,
			Won: f.Status == engine.Won, Score: f.Score,
		}
	}
	i, found := slices.BinarySearchFunc(t.points, atMs, func(p ghostPoint, at int64) int { return cmp.Compare(p.atMs, at) })
	if !found {
		i--
	}
	p := t.points[max(i, 0)]
	at := atMs
	if p.won {
		at = p.atMs
	}
	return match.Ghost{
		PlayerID: t.PlayerID, Name: t.Name, Role: role, Foundation: p.foundation, Won: p.won,
		Score: engine.TimedScore(t.rules.Scoring, p.points, time.Duration(at)*time.Millisecond, p.won),
	}
}
