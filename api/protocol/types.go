package protocol

// The names of the messages: the "type" of each frame.
const (
	// Messages a client sends.
	TypeHello       = "hello"
	TypeCreateMatch = "create_match"
	TypeQuickMatch  = "quick_match"
	TypeListMatches = "list_matches"
	TypeJoinMatch   = "join_match"
	TypeLeaveMatch  = "leave_match"
	TypeReady       = "ready"
	TypeStartMatch  = "start_match"
	TypeSpectate    = "spectate"
	TypeRematch     = "rematch"
	TypeMove        = "move"
	TypeResign      = "resign"
	TypeHint        = "hint" // the server's answer has the same name
	TypePlayHere    = "play_here"

	// Messages the server sends.
	TypeWelcome       = "welcome"
	TypeMatch         = "match"
	TypeMatches       = "matches"
	TypeError         = "error"
	TypeMoveOK        = "move_ok"
	TypeMoveRejected  = "move_rejected"
	TypeResigned      = "resigned"
	TypeRoundStarting = "round_starting"
	TypeRoundStarted  = "round_started"
	TypeLeaderboard   = "leaderboard"
	TypeRoundOver     = "round_over"
	TypeMatchOver     = "match_over"
	// TypePlayingElsewhere: another connection of the player plays now.
	TypePlayingElsewhere = "playing_elsewhere"
)

// MaxIDLen is the longest "id" a client message may carry, in bytes.
const MaxIDLen = 64

// Header is what every frame has: its type, and the id of a client
// message or the re of the server's reply to one. A reader decodes it
// first to know the frame's type.
type Header struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
	Re   string `json:"re,omitempty"`
}

// ReplayPath is the path, on the server that sent round_over, of the
// round's replay (GET /api/v1/rounds/{id}/replay).
func ReplayPath(roundID string) string { return "/api/v1/rounds/" + roundID + "/replay" }
