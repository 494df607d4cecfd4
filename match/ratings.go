package match

import (
	"context"
	"errors"
)

// RoundRatings are the rating changes of a rated round, as its players
// see them: the lobby computes and stores them once the round is over
// (lobby.Ratings) and hands them to the match, whose players and
// spectators get them in the match object.
type RoundRatings struct {
	RoundID string         `json:"round_id"`
	Changes []RatingChange `json:"changes,omitempty"`
	// Unrated says, in words, why the round changed no rating; empty when
	// it changed some.
	Unrated string `json:"unrated,omitempty"`
}

// RatingChange is one player's rating before and after a rated round, as
// displayed (whole numbers).
type RatingChange struct {
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`
	// Place is the player's place in the ranking the ratings were computed
	// from: 1 first; players whose results tie share a place.
	Place       int  `json:"place"`
	Before      int  `json:"before"`
	After       int  `json:"after"`
	Change      int  `json:"change"`
	Provisional bool `json:"provisional,omitempty"` // after the round
}

// ErrNotRated is returned by SetRatings for a match that is not rated.
var ErrNotRated = errors.New("this match is not rated")

// SetRatings records the rating changes of one of the match's rounds and
// tells everyone: the match object carries them, and each seated player
// whose rating changed shows the new one.
func (m *Match) SetRatings(ctx context.Context, rr RoundRatings) error {
	return m.do(ctx, func() error {
		if !m.st.Settings.Rated {
			return ErrNotRated
		}
		m.st.Ratings = &rr
		for _, c := range rr.Changes {
			if mb := m.member(c.PlayerID); mb != nil {
				mb.Rating, mb.Provisional = c.After, c.Provisional
			}
		}
		m.changed()
		return nil
	})
}
