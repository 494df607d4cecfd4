package protocol

// The messages of asynchronous rounds: challenges and the daily deal
// (docs/protocol.md, "Asynchronous rounds").
const (
	// Messages a client sends.
	TypeCreateChallenge = "create_challenge"
	TypeCloseChallenge  = "close_challenge"
	TypeGetAsyncRound   = "get_async_round"
	TypeGetDaily        = "get_daily"
	TypeStartAttempt    = "start_attempt"
	TypeGetBoard        = "get_board"
	TypeGetRecords      = "get_records"

	// Messages the server sends. start_attempt is answered with
	// round_started (its Kind set).
	TypeAsyncRound  = "async_round"
	TypeDaily       = "daily"
	TypeBoard       = "board"
	TypeRecords     = "records"
	TypeGhost       = "ghost"
	TypeAttemptOver = "attempt_over"
)

// CodeAlreadyPlayed refuses a second attempt at an asynchronous round.
const CodeAlreadyPlayed = "already_played"

// Limits of get_board.
const (
	DefaultBoardTop    = 100
	MaxBoardTop        = 100
	DefaultBoardAround = 5
	MaxBoardAround     = 25
)

// CreateChallenge makes a challenge: a fresh hidden deal (or the numbered
// deal of Settings.Seed, an open deal) that anyone with its link may play
// once within WindowS seconds (default a day, at most a week). Of the
// settings, the rules, the mode, the time limit and the seed apply.
type CreateChallenge struct {
	Type     string          `json:"type"`
	ID       string          `json:"id,omitempty"`
	Settings PartialSettings `json:"settings"`
	WindowS  int             `json:"window_s,omitempty"`
}

// RoundRef is the messages that name an asynchronous round:
// close_challenge, get_async_round and start_attempt.
type RoundRef struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	RoundID string `json:"round_id"`
}

// GetDaily asks for today's daily rounds.
type GetDaily struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// GetBoard asks for an asynchronous round's board: the first Top entries
// (default and at most 100) and the asking player's own entry with Around
// neighbours on each side (default 5, at most 25).
type GetBoard struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	RoundID string `json:"round_id"`
	Top     int    `json:"top,omitempty"`
	Around  int    `json:"around,omitempty"`
}

// GetRecords asks for a player's records: PlayerID's, or the asker's own
// when empty.
type GetRecords struct {
	Type     string `json:"type"`
	ID       string `json:"id,omitempty"`
	PlayerID string `json:"player_id,omitempty"`
}

// AsyncRound describes an asynchronous round: the reply to
// create_challenge, close_challenge and get_async_round. URL is its page on
// the web client; Attempt is the asking player's.
type AsyncRound struct {
	Type    string       `json:"type"`
	Re      string       `json:"re,omitempty"`
	Round   AsyncInfo    `json:"round"`
	URL     string       `json:"url"`
	Attempt AttemptState `json:"attempt"`
}

// The states of an AttemptState.
const (
	AttemptNone     = "none"
	AttemptPlaying  = "playing"
	AttemptFinished = "finished"
)

// AttemptState is a player's attempt at an asynchronous round: none yet,
// playing (RoundID is the attempt's round, for its moves) or finished
// (Result is their entry on the board).
type AttemptState struct {
	State   string      `json:"state"`
	RoundID string      `json:"round_id,omitempty"`
	Result  *BoardEntry `json:"result,omitempty"`
}

// Daily answers get_daily: today's daily rounds (UTC), one a variant.
type Daily struct {
	Type   string      `json:"type"`
	Re     string      `json:"re,omitempty"`
	Day    string      `json:"day"`
	Rounds []AsyncInfo `json:"rounds"`
}

// Board answers get_board.
type Board struct {
	Type    string `json:"type"`
	Re      string `json:"re,omitempty"`
	RoundID string `json:"round_id"`
	Closed  bool   `json:"closed"`
	BoardPage
}

// Records answers get_records.
type Records struct {
	Type     string          `json:"type"`
	Re       string          `json:"re,omitempty"`
	PlayerID string          `json:"player_id"`
	Records  []VariantRecord `json:"records"`
}

// Ghost tells a player of an asynchronous round how the players ahead of
// them stood at the same time of their own clocks (ElapsedMs): score and
// cards home, never a card or a move. It comes about once a second while
// they play.
type Ghost struct {
	Type      string          `json:"type"`
	RoundID   string          `json:"round_id"` // the attempt's round
	ElapsedMs int64           `json:"elapsed_ms"`
	Ghosts    []GhostStanding `json:"ghosts"`
}

// AttemptOver ends a player's attempt: their entry on the board, with its
// rank then, and the board's counts; or, when Void says why in words, an
// attempt that does not count (Result then names only the player, and
// nothing of it is on the board).
type AttemptOver struct {
	Type         string     `json:"type"`
	RoundID      string     `json:"round_id"`       // the attempt's round
	AsyncRoundID string     `json:"async_round_id"` // the asynchronous round
	Result       BoardEntry `json:"result"`
	Players      int        `json:"players"`
	Finished     int        `json:"finished"`
	Void         string     `json:"void,omitempty"`
}
