package match

import "klondike/engine"

// A BoardEntry is one finished attempt on a challenge's board
// (lobby/challenge). It is here because AttemptOver carries it.
type BoardEntry struct {
	PlayerID   string        `json:"player_id"`
	Name       string        `json:"name"`
	Rank       int           `json:"rank"` // 1 first; set when read from the board
	Score      int           `json:"score"`
	Foundation int           `json:"foundation"`
	Moves      int           `json:"moves"`
	Status     engine.Status `json:"status"`
	ElapsedMs  int64         `json:"elapsed_ms"` // on the player's own clock: the finish, or the end of the attempt
	ReachedMs  int64         `json:"reached_ms"`
	// Key orders the board: the smallest key ranks first (RankKey).
	Key string `json:"-"`
}
