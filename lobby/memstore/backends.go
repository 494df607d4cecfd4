package memstore

// Backends are the memory implementations of everything the server keeps,
// for one process: the rounds' move logs and standings (Store), the
// matches' records and the lobby's indexes (Coord), the players with
// their credentials (Players), the challenges with the players' records
// (Challenges), and the counts of the limits per player and address
// (Allowances).
type Backends struct {
	Store      *Store
	Coord      *Coord
	Players    *Players
	Challenges *Challenges
	Allowances *Allowances
}

// NewBackends returns a new, empty Store, Coord, Players, Challenges and
// Allowances.
func NewBackends() Backends {
	return Backends{Store: New(), Coord: NewCoord(), Players: NewPlayers(), Challenges: NewChallenges(), Allowances: NewAllowances()}
}
