package ws

// Detached makes a connection of s with no network connection under it,
// for tests and benchmarks that drive a Handler as a connection's read
// goroutine would, without a socket: Handle hands it a message, and
// TakeQueued takes what it queued, which is never written. It has no
// timers (no hello timeout, no pings) and no message budget, and is not
// one of s's connections (Conns, Shutdown); Close ends it.
func (s *Server) Detached(ip string) *Conn {
	c := s.newConn(nil, ip)
	c.send.running = true // no writer ever runs: TakeQueued is the writer
	return c
}

// Handle hands msg to the Handler, then runs the AfterMessage hook, as the
// read goroutine of a connection does; c must be Detached, and Handle not
// called on two goroutines at once.
func (c *Conn) Handle(msg []byte) {
	if c.ws != nil {
		panic("ws: Handle on a connection that is not Detached")
	}
	c.dispatch(msg)
}

// TakeQueued returns every message queued on the Detached connection c,
// in order, and leaves its queue empty; spare, the slice of the previous
// call whose messages the caller is done with, is reused.
func (c *Conn) TakeQueued(spare [][]byte) [][]byte {
	return c.send.drain(spare)
}
