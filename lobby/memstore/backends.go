package memstore

// Backends are the memory implementations of everything the server keeps,
// for one process: the rounds' move logs and standings (Store), the
// matches' records and the lobby's indexes (Coord), the players with
// their credentials (Players), the challenges with the players' records
// (Challenges), the counts of the limits per player and address
// (Allowances), and the players' ratings (Ratings).
type Backends struct {
	Store      *Store
	Coord      *Coord
	Players    *Players
	Challenges *Challenges
	Allowances *Allowances
	Ratings    *Ratings
}

// NewBackends returns a new, empty Store, Coord, Players, Challenges,
// Allowances and Ratings.
func NewBackends() Backends {
	return Backends{Store: New(), Coord: NewCoord(), Players: NewPlayers(), Challenges: NewChallenges(), Allowances: NewAllowances(), Ratings: NewRatings()}
}
