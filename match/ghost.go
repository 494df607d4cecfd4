package match

// A Ghost is how another player's game stood at some time of their own
// clock: their score and cards home, never a card or a move. A player of a
// challenge sees the ghosts of the players ahead of them at their own
// elapsed time (lobby/challenge). It is here because GhostUpdate
// carries it.
type Ghost struct {
	PlayerID   string `json:"player_id"`
	Name       string `json:"name"`
	Role       string `json:"role"` // lobby/challenge's GhostLeader or GhostFriend
	Score      int    `json:"score"`
	Foundation int    `json:"foundation"`
	Won        bool   `json:"won,omitempty"` // their game was won by then
}
