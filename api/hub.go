package api

import (
	"sync"

	"klondike/api/protocol"
	"klondike/api/ws"
	"klondike/match"
)

// Hub maps players to their current connection; it implements match.Sink.
// A player has at most one connection: a newer one replaces the older.
//
// It is also match.PaceSink: it keeps the pace of each player's running
// round, which the service's AfterMessage hook (Service.afterMessage) asks
// for a due leaderboard after each message of the player's, before the
// reply is written, so that the board leaves in the reply's write. A pace
// is kept whether or not the player is connected: one who comes back
// mid-round gets it again.
type Hub struct {
	m       *Metrics
	mu      sync.RWMutex
	players map[string]hubPlayer // with a connection, or a pace, or both
	online  int                  // players with a connection
}

// hubPlayer is what the hub knows of one player.
type hubPlayer struct {
	conn *ws.Conn               // nil when not connected
	pace *match.LeaderboardPace // nil when no round of theirs runs here
}

var _ match.PaceSink = (*Hub)(nil)
var _ match.PreparingSink = (*Hub)(nil)

// NewHub makes an empty hub; m must not be nil (see Metrics).
func NewHub(m *Metrics) *Hub {
	if m == nil {
		panic("api: NewHub needs a *Metrics (use NewMetrics)")
	}
	return &Hub{m: m, players: make(map[string]hubPlayer)}
}

// put stores p as the player's, or forgets the player when p holds
// nothing; h.mu held.
func (h *Hub) put(playerID string, p hubPlayer) {
	if p == (hubPlayer{}) {
		delete(h.players, playerID)
		return
	}
	h.players[playerID] = p
}

// Attach makes c the player's connection. A previous, different one is
// closed with protocol.CloseReplaced and "replaced by a newer connection".
func (h *Hub) Attach(playerID string, c *ws.Conn) {
	h.mu.Lock()
	p := h.players[playerID]
	old := p.conn
	if old == nil {
		h.online++
	}
	p.conn = c
	h.put(playerID, p)
	n := h.online
	h.mu.Unlock()
	h.m.Players.Set(float64(n))
	if old != nil && old != c {
		old.Logger().Info("connection replaced by a newer one")
		old.Close(protocol.CloseReplaced, protocol.ReasonReplaced)
	}
}

// Detach forgets the player's connection if it is still c, and reports
// whether it was (a replaced connection's Detach is a no-op).
func (h *Hub) Detach(playerID string, c *ws.Conn) bool {
	h.mu.Lock()
	p := h.players[playerID]
	ok := p.conn != nil && p.conn == c
	if ok {
		p.conn = nil
		h.put(playerID, p)
		h.online--
	}
	n := h.online
	h.mu.Unlock()
	h.m.Players.Set(float64(n))
	return ok
}

// conn is the player's connection, nil if none.
func (h *Hub) conn(playerID string) *ws.Conn {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.players[playerID].conn
}

// Send implements match.Sink: it queues the message of ev on the
// connection of each player of to without blocking, skipping those not
// connected. The message is written once, when the first connection takes
// it. A connection whose queue is full is disconnected as slow (see
// ws.Conn.Send).
func (h *Hub) Send(to []string, ev match.Event) {
	var msg []byte
	for _, id := range to {
		c := h.conn(id)
		if c == nil {
			continue
		}
		if msg == nil {
			msg = encodeEvent(ev)
		}
		c.Send(msg)
	}
}

// Prepare implements match.PreparingSink: ev is written now, and the
// returned func only queues it, on the connection of each player of to.
func (h *Hub) Prepare(ev match.Event) func(to []string) {
	msg := encodeEvent(ev)
	return func(to []string) {
		for _, id := range to {
			if c := h.conn(id); c != nil {
				c.Send(msg)
			}
		}
	}
}

// SetPace implements match.PaceSink: p is asked for a due leaderboard
// after each message of the player's (see Service.afterMessage).
func (h *Hub) SetPace(playerID string, p *match.LeaderboardPace) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pl := h.players[playerID]
	pl.pace = p
	h.put(playerID, pl)
}

// ClearPace implements match.PaceSink: it forgets p as the player's pace,
// if it still is.
func (h *Hub) ClearPace(playerID string, p *match.LeaderboardPace) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pl, ok := h.players[playerID]
	if !ok || pl.pace != p {
		return
	}
	pl.pace = nil
	h.put(playerID, pl)
}

// pace is the pace of the running round of c's player, if c is the
// player's connection; nil otherwise.
func (h *Hub) pace(playerID string, c *ws.Conn) *match.LeaderboardPace {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if p := h.players[playerID]; p.conn == c {
		return p.pace
	}
	return nil
}

// Connected reports whether the player has a connection.
func (h *Hub) Connected(playerID string) bool {
	return h.conn(playerID) != nil
}

// Players is the number of connected players.
func (h *Hub) Players() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.online
}
