package memstore

// Backends are the memory implementations of everything the server keeps,
// for one process: the rounds' move logs and standings (Store), the
// matches' records and the lobby's indexes (Coord), the players'
// sessions (Sessions), and the asynchronous rounds with the players'
// records (Async).
type Backends struct {
	Store    *Store
	Coord    *Coord
	Sessions *Sessions
	Async    *Async
}

// NewBackends returns a new, empty Store, Coord, Sessions and Async.
func NewBackends() Backends {
	return Backends{Store: New(), Coord: NewCoord(), Sessions: NewSessions(), Async: NewAsync()}
}
