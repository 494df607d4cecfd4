package match

import "time"

// MatchInfo is a snapshot of a match, as its players and the lobby see it.
// Its JSON is the protocol's "match" object, which the api's messages
// carry as it is.
type MatchInfo struct {
	ID         string        `json:"id"`
	Code       string        `json:"code"`
	Host       string        `json:"host"`
	Settings   Settings      `json:"settings"`
	Players    []MemberInfo  `json:"players"`
	State      State         `json:"state"`
	Round      int           `json:"round"`
	RoundID    string        `json:"round_id,omitempty"`
	Spectators int           `json:"spectators"`
	Quick      bool          `json:"quick,omitempty"`
	Totals     []Total       `json:"totals,omitempty"`
	NextMatch  string        `json:"next_match,omitempty"` // the rematch, once made
	Ratings    *RoundRatings `json:"ratings,omitempty"`    // the last rated round's changes
	// OpenedAt is when the match was made: how long a quick match's
	// players have waited.
	// Not published: the record keeps it (and Info reads it from there).
	OpenedAt time.Time `json:"-"`
}

// MemberInfo is one player of a match.
type MemberInfo struct {
	PlayerID  string `json:"player_id"`
	Name      string `json:"name"`
	Ready     bool   `json:"ready"`
	Connected bool   `json:"connected"`
	// Rating and Provisional as in Player: rated matches only.
	Rating      int  `json:"rating,omitempty"`
	Provisional bool `json:"provisional,omitempty"`
}

// A Total is one player's line of the match totals. The match's record
// keeps them in this JSON too.
type Total struct {
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`
	Total    int    `json:"total"`     // sum of round scores
	Wins     int    `json:"wins"`      // rounds ranked first
	GamesWon int    `json:"games_won"` // rounds whose game the player won (every card home)
	Placings []int  `json:"placings"`  // rank in each round so far
	Rank     int    `json:"rank"`
}

// State is a match's phase.
type State string

// The phases of a match.
const (
	StateOpen     State = "open"     // gathering players
	StateStarting State = "starting" // a round is counting down
	StateRunning  State = "running"  // a round is being played
	StateBetween  State = "between"  // between two rounds
	StateOver     State = "over"     // all rounds played (or abandoned)
)
