package lobby

// A Session is what a hello gives a connection: its player, and the
// device credential that says hello as that player again (a secret, never
// logged).
type Session struct {
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`
	Tag      string `json:"tag"`
	Token    string `json:"-"`
}
