package memstore

// Backends are the memory implementations of everything the server keeps,
// for one process: the rounds' move logs and standings (Store), the
// matches' records and the lobby's indexes (Coord), the players with
// their credentials (Players), and
// the challenges with the players' records (Challenges).
type Backends struct {
	Store      *Store
	Coord      *Coord
	Players    *Players
	Challenges *Challenges
}

// NewBackends returns a new, empty Store, Coord, Players and Challenges.
func NewBackends() Backends {
	return Backends{Store: New(), Coord: NewCoord(), Players: NewPlayers(), Challenges: NewChallenges()}
}
