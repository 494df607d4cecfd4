package lobby

import (
	"context"
	"errors"
	"strconv"
	"time"

	"klondike/lobby/rating"
	"klondike/match"
)

// Ratings keep the players' ratings, one a game and draw (a key, see
// RatingKey), the record of each rated round, each player's recent history
// and a ladder a key of the established players. Every method returns an
// error matching match.ErrUnavailable when the store cannot be reached.
type Ratings interface {
	// Get returns the players' ratings under key as stored (bring them to
	// the present with rating.Rating.AsOf); a player never rated under key
	// gets rating.New().
	Get(ctx context.Context, key string, ids []string) ([]rating.Rating, error)
	// Apply records a rated round once. Every change's Before must still
	// be its player's stored rating (the same Rounds), or nothing is
	// written and the error is ErrRatingMoved: the caller reads again and
	// recomputes. It writes each player's After, adds a point to their
	// history (at most MaxRatingHistory kept), puts the established ones on
	// the key's ladder and takes the provisional ones off it, and keeps the
	// round for RatedRoundRetention. A round already applied changes
	// nothing and returns the record kept, with applied false.
	Apply(ctx context.Context, rr RatedRound) (kept RatedRound, applied bool, err error)
	// Round returns a rated round's record; match.ErrNotFound if none is
	// kept.
	Round(ctx context.Context, roundID string) (RatedRound, error)
	// Ladder returns a page of key's ladder, best first: the players whose
	// rating was established at now (an entry whose deviation has since
	// grown past rating.ProvisionalRD is left out), from place from (0 the
	// best) and at most limit of them, with how many it holds. Equal
	// ratings are ordered by player id.
	Ladder(ctx context.Context, key string, from, limit int, now time.Time) (page []LadderEntry, total int, err error)
	// Place returns a player's place on key's ladder at now (0 the best),
	// or -1 when they are not on it.
	Place(ctx context.Context, key, id string, now time.Time) (int, error)
	// History returns a player's last ratings under key, oldest first, at
	// most limit.
	History(ctx context.Context, key, id string, limit int) ([]RatingPoint, error)
	// Of returns every rating a player has, by key.
	Of(ctx context.Context, id string) (map[string]rating.Rating, error)
	// Forget deletes a player's ratings, history and ladder entries. The
	// rated rounds they played stay published, as their results do.
	Forget(ctx context.Context, id string) error
}

// ErrRatingMoved is Apply's refusal when a player's rating changed since
// it was read.
var ErrRatingMoved = errors.New("lobby: a rating changed since it was read")

// Bounds of what the ratings keep.
const (
	MaxRatingHistory    = 100                 // history points kept a player and key
	RatedRoundRetention = 90 * 24 * time.Hour // how long a rated round's record is kept
)

// RatedRound is the record of a rated round: the ranking it was rated
// from and every player's rating before and after, in full, so that anyone
// can recompute the changes (rating.Update) from it.
type RatedRound struct {
	RoundID string        `json:"round_id"`
	MatchID string        `json:"match_id"`
	Key     string        `json:"key"`
	At      time.Time     `json:"at"`
	Changes []RatedPlayer `json:"changes"`
	// Apart lists the pairs of players whose games against each other
	// were not rated (the daily limit on one pair; docs/rules.md).
	Apart [][2]string `json:"apart,omitempty"`
}

// RatedPlayer is one player of a rated round.
type RatedPlayer struct {
	PlayerID string        `json:"player_id"`
	Name     string        `json:"name"`
	Place    int           `json:"place"` // 1 first; tied players share a place
	Before   rating.Rating `json:"before"`
	After    rating.Rating `json:"after"`
}

// LadderEntry is one line of a ladder.
type LadderEntry struct {
	Place    int           `json:"place"` // 0 the best
	PlayerID string        `json:"player_id"`
	Name     string        `json:"name"`
	Rating   rating.Rating `json:"rating"`
}

// RatingPoint is one point of a player's rating history: after a round.
type RatingPoint struct {
	RoundID   string    `json:"round_id"`
	At        time.Time `json:"at"`
	Rating    float64   `json:"rating"`
	Deviation float64   `json:"deviation"`
}

// RatingKey names the rating a match's settings play for: the game and
// its draw, "klondike/3" say.
func RatingKey(s match.Settings) string {
	return s.Variant().String() + "/" + strconv.Itoa(s.Draw)
}
