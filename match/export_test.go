package match

// Wakes reports how many times the match's loop has woken.
func (m *Match) Wakes() int64 { return m.wakes.Load() }
