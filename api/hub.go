package api

import (
	"sync"

	"klondike/api/protocol"
	"klondike/match"
)

// Hub maps players to their current connection; it implements match.Sink.
// A player has at most one connection: a newer one replaces the older.
// It also keeps the pace of each player's running round (match.PaceSink),
// which their connection asks for a due leaderboard before it writes what
// the player's message made.
type Hub struct {
	m     *Metrics
	mu    sync.RWMutex
	conns map[string]*Conn
	paces map[string]*match.LeaderboardPace
}

var _ match.PaceSink = (*Hub)(nil)

// NewHub makes an empty hub; m must not be nil (see Metrics).
func NewHub(m *Metrics) *Hub {
	if m == nil {
		panic("api: NewHub needs a *Metrics (use NewMetrics)")
	}
	return &Hub{m: m, conns: make(map[string]*Conn), paces: make(map[string]*match.LeaderboardPace)}
}

// Attach makes c the player's connection. A previous, different one is
// closed with protocol.CloseReplaced and "replaced by a newer connection".
func (h *Hub) Attach(playerID string, c *Conn) {
	h.mu.Lock()
	old := h.conns[playerID]
	h.conns[playerID] = c
	c.pace.Store(h.paces[playerID])
	n := len(h.conns)
	h.mu.Unlock()
	h.m.Players.Set(float64(n))
	if old != nil && old != c {
		old.Logger().Info("connection replaced by a newer one")
		old.Close(protocol.CloseReplaced, protocol.ReasonReplaced)
	}
}

// Detach forgets the player's connection if it is still c, and reports
// whether it was (a replaced connection's Detach is a no-op).
func (h *Hub) Detach(playerID string, c *Conn) bool {
	h.mu.Lock()
	cur, ok := h.conns[playerID]
	if ok && cur == c {
		delete(h.conns, playerID)
	}
	n := len(h.conns)
	h.mu.Unlock()
	h.m.Players.Set(float64(n))
	return ok && cur == c
}

// Send implements match.Sink: it queues msg on the player's connection
// without blocking, and does nothing if the player is not connected. A
// connection whose queue is full is disconnected as slow (see Conn.Send).
func (h *Hub) Send(playerID string, msg []byte) {
	h.mu.RLock()
	c := h.conns[playerID]
	h.mu.RUnlock()
	if c != nil {
		c.Send(msg)
	}
}

// SetPace implements match.PaceSink: the player's connection asks p for a
// due leaderboard before it writes what the player's message made.
func (h *Hub) SetPace(playerID string, p *match.LeaderboardPace) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.paces[playerID] = p
	if c := h.conns[playerID]; c != nil {
		c.pace.Store(p)
	}
}

// ClearPace implements match.PaceSink: it forgets p as the player's pace,
// if it still is.
func (h *Hub) ClearPace(playerID string, p *match.LeaderboardPace) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.paces[playerID] != p {
		return
	}
	delete(h.paces, playerID)
	if c := h.conns[playerID]; c != nil {
		c.pace.CompareAndSwap(p, nil)
	}
}

// Connected reports whether the player has a connection.
func (h *Hub) Connected(playerID string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	_, ok := h.conns[playerID]
	return ok
}

// Players is the number of connected players.
func (h *Hub) Players() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.conns)
}
