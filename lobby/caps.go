package lobby

// The caps on open matches. Each open match is a record in the store, a
// goroutine on its node and a line of the lobby's list, and costs its maker
// nothing; the caps bound how many a node holds (Config.MaxOpen) and how
// many the players of one address may make there (Config.MaxOpenPerIP). A
// player is in one open match at most: creating or joining another takes
// them out of the first (see Lobby.enter). A match is counted from before
// it is made until it leaves the open state, when it starts or ends.

// openCount counts the open matches made on this node, in all and by the
// address of the player who made them; guarded by Lobby.mu.
type openCount struct {
	total  int
	byAddr map[string]int
}

// reserve counts one more open match made by a player from addr ("" for
// none), or fails with ErrTooManyOpenFromAddr or ErrTooManyOpen at a cap
// (negative: none), counting nothing.
func (c *openCount) reserve(addr string, maxTotal, maxPerAddr int) error {
	if addr != "" && maxPerAddr >= 0 && c.byAddr[addr] >= maxPerAddr {
		return ErrTooManyOpenFromAddr
	}
	if maxTotal >= 0 && c.total >= maxTotal {
		return ErrTooManyOpen
	}
	c.total++
	if addr != "" {
		c.byAddr[addr]++
	}
	return nil
}

// release takes back a reservation of addr.
func (c *openCount) release(addr string) {
	c.total--
	if addr == "" {
		return
	}
	if c.byAddr[addr]--; c.byAddr[addr] <= 0 {
		delete(c.byAddr, addr)
	}
}

// uncount stops counting e's match among the open ones, once. The caller
// holds l.mu.
func (l *Lobby) uncount(e *entry) {
	if e.counted {
		e.counted = false
		l.open.release(e.addr)
	}
}
