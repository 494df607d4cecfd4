package memstore

// Backends are the memory implementations of everything the server keeps,
// for one process: the rounds' move logs and standings (Store), the
// matches' records and the lobby's indexes (Coord), and the players'
// sessions (Sessions).
type Backends struct {
	Store    *Store
	Coord    *Coord
	Sessions *Sessions
}

// NewBackends returns a new, empty Store, Coord and Sessions.
func NewBackends() Backends {
	return Backends{Store: New(), Coord: NewCoord(), Sessions: NewSessions()}
}
