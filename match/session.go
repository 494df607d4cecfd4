package match

// A Session is a player's identity on the server: what the lobby's
// sessions keep, declared here so that the backends below the lobby can
// store it. The token lets the same player reconnect; it is a secret and
// never logged.
type Session struct {
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`
	Token    string `json:"-"`
}
