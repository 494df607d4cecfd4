package lobby

import "klondike/match"

// PlayerFrom is Player with where the player's last hello on this node
// came from: the key its limits per address count by (an IPv4 address,
// or an IPv6 address's /64), "" for a hello without an address. It fails
// with ErrUnknownToken for a player who said no hello here.
func (l *Lobby) PlayerFrom(id string) (pl match.Player, addr string, err error) {
	return l.playerFrom(id)
}
