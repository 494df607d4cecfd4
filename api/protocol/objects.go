package protocol

import (
	"time"

	"klondike/engine"
)

// The objects the messages carry: a match, its settings, standings and
// totals, asynchronous rounds and their boards, players' records, and the
// replay the HTTP API serves. The server fills them from its own values
// (api/wireof.go); their JSON is the protocol's.

// The modes of a match.
const (
	ModeRace  = "race"  // the first to win ranks first
	ModeScore = "score" // the best score ranks first
)

// The values of Settings.Deals.
const (
	DealsAny      = "any"
	DealsWinnable = "winnable"
)

// Settings are a match's options (docs/protocol.md, "Settings").
type Settings struct {
	Draw                int    `json:"draw"`
	Passes              int    `json:"passes"`
	Scoring             string `json:"scoring"`
	Undo                string `json:"undo"`
	FoundationToTableau bool   `json:"foundation_to_tableau"`
	Mode                string `json:"mode"`
	Rounds              int    `json:"rounds"`
	MaxPlayers          int    `json:"max_players"`
	TimeLimitS          int    `json:"time_limit_s"`
	Public              bool   `json:"public"`
	Seed                string `json:"seed,omitempty"` // a known deal's number, for every round
	CountdownS          int    `json:"countdown_s"`
	Deals               string `json:"deals"`
	Game                string `json:"game,omitempty"`  // "" for Klondike
	Rated               bool   `json:"rated,omitempty"` // the match's rounds change ratings
}

// Rules returns the rules the settings play under.
func (s Settings) Rules() (engine.Rules, error) {
	sc, err := engine.ParseScoring(s.Scoring)
	if err != nil {
		return engine.Rules{}, err
	}
	u, err := engine.ParseUndoPolicy(s.Undo)
	if err != nil {
		return engine.Rules{}, err
	}
	name := s.Game
	if name == "" {
		name = engine.Klondike.String()
	}
	game, err := engine.ParseVariant(name)
	if err != nil {
		return engine.Rules{}, err
	}
	r := engine.Rules{Draw: s.Draw, Passes: s.Passes, FoundationToTableau: s.FoundationToTableau, Undo: u, Scoring: sc, Game: game}
	return r, r.Validate()
}

// PartialSettings are the settings a client asks for: those it leaves out
// (nil) take the server's defaults.
type PartialSettings struct {
	Draw                *int    `json:"draw,omitempty"`
	Passes              *int    `json:"passes,omitempty"`
	Scoring             *string `json:"scoring,omitempty"`
	Undo                *string `json:"undo,omitempty"`
	FoundationToTableau *bool   `json:"foundation_to_tableau,omitempty"`
	Mode                *string `json:"mode,omitempty"`
	Rounds              *int    `json:"rounds,omitempty"`
	MaxPlayers          *int    `json:"max_players,omitempty"`
	TimeLimitS          *int    `json:"time_limit_s,omitempty"`
	Public              *bool   `json:"public,omitempty"`
	Seed                *string `json:"seed,omitempty"`
	CountdownS          *int    `json:"countdown_s,omitempty"`
	Deals               *string `json:"deals,omitempty"`
	Game                *string `json:"game,omitempty"`
	Rated               *bool   `json:"rated,omitempty"`
}

// State is the phase of a match.
type State string

// The states of a match.
const (
	StateOpen     State = "open"     // gathering players
	StateStarting State = "starting" // a round is counting down
	StateRunning  State = "running"  // a round is being played
	StateBetween  State = "between"  // between two rounds
	StateOver     State = "over"     // all rounds played (or abandoned)
)

// MatchInfo is a match's snapshot.
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
}

// MemberInfo is one player of a match.
type MemberInfo struct {
	PlayerID    string `json:"player_id"`
	Name        string `json:"name"`
	Ready       bool   `json:"ready"`
	Connected   bool   `json:"connected"`
	Rating      int    `json:"rating,omitempty"`      // rated matches: the player's rating in its game and draw
	Provisional bool   `json:"provisional,omitempty"` // the rating is not yet established
}

// RoundRatings are a rated round's rating changes; Unrated says why a
// rated round changed none.
type RoundRatings struct {
	RoundID string         `json:"round_id"`
	Changes []RatingChange `json:"changes,omitempty"`
	Unrated string         `json:"unrated,omitempty"`
}

// RatingChange is one player's rating before and after a rated round.
type RatingChange struct {
	PlayerID    string `json:"player_id"`
	Name        string `json:"name"`
	Place       int    `json:"place"` // in the ranking rated: 1 first, ties share a place
	Before      int    `json:"before"`
	After       int    `json:"after"`
	Change      int    `json:"change"`
	Provisional bool   `json:"provisional,omitempty"` // after the round
}

// Total is a player's standing in a match over its rounds.
type Total struct {
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`
	Total    int    `json:"total"`     // sum of round scores
	Wins     int    `json:"wins"`      // rounds ranked first
	GamesWon int    `json:"games_won"` // rounds whose game the player won
	Placings []int  `json:"placings"`  // rank in each round so far
	Rank     int    `json:"rank"`
}

// Entry is one player's line of a round's leaderboard or results.
type Entry struct {
	PlayerID   string        `json:"player_id"`
	Name       string        `json:"name"`
	Rank       int           `json:"rank"`
	Score      int           `json:"score"` // the round score on the server's clock
	Foundation int           `json:"foundation"`
	Moves      int           `json:"moves"`
	Status     engine.Status `json:"status"`
	FinishedMs *int64        `json:"finished_ms"`      // null while playing
	ReachedMs  int64         `json:"reached_ms"`       // when the result was reached: the tie-break
	Helped     bool          `json:"helped,omitempty"` // played with hints: practice, not a result
}

// The kinds of asynchronous rounds.
const (
	KindChallenge = "challenge" // made by a player, shared as a link
	KindDaily     = "daily"     // made by the server, one a UTC day and variant
)

// The limits of a challenge's window (CreateChallenge.WindowS).
const (
	MinChallengeWindow = time.Minute
	MaxChallengeWindow = 7 * 24 * time.Hour
)

// AsyncInfo describes an asynchronous round. Seed is set for a known deal
// and once the round closes, Salt once it closes.
type AsyncInfo struct {
	RoundID     string       `json:"round_id"`
	Kind        string       `json:"kind"`
	Variant     string       `json:"variant"`
	Rules       engine.Rules `json:"rules"`
	Mode        string       `json:"mode"`
	LimitMs     int64        `json:"limit_ms"`
	OpensAt     time.Time    `json:"opens_at"`
	ClosesAt    time.Time    `json:"closes_at"`
	Day         string       `json:"day,omitempty"`
	CreatorID   string       `json:"creator_id,omitempty"`
	CreatorName string       `json:"creator_name,omitempty"`
	Commitment  string       `json:"commitment,omitempty"`
	KnownDeal   bool         `json:"known_deal,omitempty"`
	Winnable    bool         `json:"winnable,omitempty"`
	Closed      bool         `json:"closed"`
	ClosedEarly bool         `json:"closed_early,omitempty"`
	Seed        string       `json:"seed,omitempty"`
	Salt        string       `json:"salt,omitempty"`
	Players     int          `json:"players"`  // attempts started
	Finished    int          `json:"finished"` // attempts on the board
}

// BoardEntry is one finished attempt on an asynchronous round's board.
type BoardEntry struct {
	PlayerID   string        `json:"player_id"`
	Name       string        `json:"name"`
	Rank       int           `json:"rank"` // 1 first
	Score      int           `json:"score"`
	Foundation int           `json:"foundation"`
	Moves      int           `json:"moves"`
	Status     engine.Status `json:"status"`
	ElapsedMs  int64         `json:"elapsed_ms"` // on the player's own clock: the finish, or the end of the attempt
	ReachedMs  int64         `json:"reached_ms"`
}

// BoardPage is a page of a board: the counts, its top and, for a player
// on it, their entry among their neighbours (Around, best first).
type BoardPage struct {
	Players  int          `json:"players"`  // attempts started
	Finished int          `json:"finished"` // entries on the board
	Top      []BoardEntry `json:"top"`
	Around   []BoardEntry `json:"around,omitempty"`
	Rank     int          `json:"rank,omitempty"` // the player's rank, 0 if none
}

// VariantRecord is a player's record in one variant.
type VariantRecord struct {
	Variant         string `json:"variant"`
	Played          int    `json:"played"`
	Won             int    `json:"won"`
	BestScore       *int   `json:"best_score"`     // null before the first game
	FastestMs       *int64 `json:"fastest_win_ms"` // null before the first win
	DailyStreak     int    `json:"daily_streak"`   // consecutive UTC days with a daily game, up to LastDaily
	BestDailyStreak int    `json:"best_daily_streak"`
	LastDaily       string `json:"last_daily,omitempty"`
}

// The roles of a GhostStanding.
const (
	GhostLeader = "leader"
	GhostFriend = "friend" // who sent the link
)

// GhostStanding is how one player ahead stood at the same time of their
// clock, in a ghost message.
type GhostStanding struct {
	PlayerID   string `json:"player_id"`
	Name       string `json:"name"`
	Role       string `json:"role"`
	Score      int    `json:"score"`
	Foundation int    `json:"foundation"`
	Won        bool   `json:"won,omitempty"` // their game was won by then
}

// MaxOpenPage is the most matches a page of list_matches (and of GET
// /api/v1/matches) holds.
const MaxOpenPage = 100

// Replay is a finished round's replay (GET /api/v1/rounds/{id}/replay):
// its deal revealed and every player's moves.
type Replay struct {
	RoundID    string         `json:"round_id"`
	MatchID    string         `json:"match_id"`
	Round      int            `json:"round"`
	Seed       string         `json:"seed"`
	Salt       string         `json:"salt,omitempty"`
	Commitment string         `json:"commitment,omitempty"`
	KnownDeal  bool           `json:"known_deal,omitempty"`
	Rules      engine.Rules   `json:"rules"`
	Layout     engine.Deal    `json:"layout"`
	StartsAt   time.Time      `json:"starts_at"`
	Players    []PlayerReplay `json:"players"`
}

// PlayerReplay is one player's part of a replay.
type PlayerReplay struct {
	PlayerID string     `json:"player_id"`
	Name     string     `json:"name"`
	Moves    []LogEntry `json:"moves"`
	Status   string     `json:"status"`
	Points   int        `json:"points"`
	Score    int        `json:"score"`
	Elapsed  int64      `json:"elapsed_ms"`
	Helped   bool       `json:"helped,omitempty"`
}

// LogEntry is one accepted move of a player.
type LogEntry struct {
	Seq  int    `json:"seq"`   // 1-based
	Move string `json:"move"`  // canonical notation
	AtMs int64  `json:"at_ms"` // server time since the round started
}
