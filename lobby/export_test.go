package lobby

// AddMatchBeingMade puts an entry for the match id in l's registry as one
// being made looks before its replica is ready: with no match yet. The
// tests of package lobby_test (which may import the backends that import
// this package) reach l's registry through it.
func AddMatchBeingMade(l *Lobby, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.matches[id] = &entry{ready: make(chan struct{})}
}

// Closed reports whether l.Close has begun.
func Closed(l *Lobby) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}
