package protocol

// The messages a client sends. Each has its Type (the message's name), and
// an ID that the direct reply carries back as its Re; a message without an
// ID gets replies without Re.

// Hello opens a session: a new player with Name, or the player of Token
// resumed (Name then ignored: a player is renamed through
// PATCH /api/v1/me, not by whichever device says hello).
type Hello struct {
	Type  string `json:"type"`
	ID    string `json:"id,omitempty"`
	Name  string `json:"name,omitempty"`
	Token string `json:"token,omitempty"`
}

// CreateMatch is create_match, and quick_match (TypeQuickMatch) with the
// same fields: the settings of the match to make or find. Fields left out
// take their defaults.
type CreateMatch struct {
	Type     string          `json:"type"`
	ID       string          `json:"id,omitempty"`
	Settings PartialSettings `json:"settings"`
}

// ListMatches asks for a page of the open public matches: at most Limit
// (0: the server's default), from Cursor (a page's NextCursor; empty: the
// first page).
type ListMatches struct {
	Type   string `json:"type"`
	ID     string `json:"id,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// MatchRef is the messages that name a match: join_match, leave_match,
// ready, start_match, spectate and rematch. The match is MatchID, else the
// one of the invite Code, else (join_match aside) the player's current
// match. Ready is ready's flag: absent means true.
type MatchRef struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	MatchID string `json:"match_id,omitempty"`
	Code    string `json:"code,omitempty"`
	Ready   *bool  `json:"ready,omitempty"`
}

// Move plays the player's move number Seq (1-based) of the round, in the
// notation of docs/notation.md.
type Move struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	RoundID string `json:"round_id"`
	Seq     int    `json:"seq"`
	Move    string `json:"move"`
}

// PlayHere makes this connection the one of the player's that plays: it
// gets the events of the player's match from then on, the current match
// and round first, as on resume; the connection that played before gets
// PlayingElsewhere. The reply is a Match of the current match.
type PlayHere struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// Resign ends the player's game in the round.
type Resign struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	RoundID string `json:"round_id"`
}

// Hint asks for the next move of a winning line, in a round of one player.
type Hint struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	RoundID string `json:"round_id"`
}

// ClientFields returns where the id of msg goes and the message's type,
// when msg is a pointer to one of the client messages above; ok is false
// for anything else. A client that numbers its requests sets the id
// through it, whatever the message.
func ClientFields(msg any) (id *string, typ string, ok bool) {
	switch m := msg.(type) {
	case *Hello:
		return &m.ID, m.Type, true
	case *CreateMatch:
		return &m.ID, m.Type, true
	case *ListMatches:
		return &m.ID, m.Type, true
	case *MatchRef:
		return &m.ID, m.Type, true
	case *Move:
		return &m.ID, m.Type, true
	case *Resign:
		return &m.ID, m.Type, true
	case *Hint:
		return &m.ID, m.Type, true
	case *PlayHere:
		return &m.ID, m.Type, true
	case *CreateChallenge:
		return &m.ID, m.Type, true
	case *RoundRef:
		return &m.ID, m.Type, true
	case *GetDaily:
		return &m.ID, m.Type, true
	case *GetBoard:
		return &m.ID, m.Type, true
	case *GetRecords:
		return &m.ID, m.Type, true
	}
	return nil, "", false
}
