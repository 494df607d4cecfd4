package api

import (
	"slices"
	"sync"

	"klondike/api/protocol"
	"klondike/api/ws"
	"klondike/match"
)

// Hub maps players to their connections; it implements match.Sink. A
// player may be connected several times at once (tabs, devices), up to
// MaxConnsPerPlayer: one of them plays, and the events of the player's
// matches go to that one alone, so that two tabs never play one game. The
// newest connection plays (Attach) until another says "play here"
// (PlayHere); replies go to whichever connection asked.
//
// It is also match.PaceSink: it keeps the pace of each player's running
// round, which the service's AfterMessage hook (Service.afterMessage) asks
// for a due leaderboard after each message of the playing connection,
// before the reply is written, so that the board leaves in the reply's
// write. A pace is kept whether or not the player is connected: one who
// comes back mid-round gets it again.
type Hub struct {
	m       *Metrics
	mu      sync.RWMutex
	players map[string]hubPlayer // with a connection, or a pace, or both
	online  int                  // players with a connection
}

// MaxConnsPerPlayer bounds the connections of one player: a newer one
// closes the oldest with protocol.CloseReplaced.
const MaxConnsPerPlayer = 8

// hubPlayer is what the hub knows of one player.
type hubPlayer struct {
	conns   []*ws.Conn             // oldest first; nil when not connected
	playing *ws.Conn               // the one that gets match events; nil for none
	pace    *match.LeaderboardPace // nil when no round of theirs runs here
}

// empty reports whether p holds nothing.
func (p *hubPlayer) empty() bool { return len(p.conns) == 0 && p.pace == nil }

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
	if p.empty() {
		delete(h.players, playerID)
		return
	}
	h.players[playerID] = p
}

// Attach adds c to the player's connections and makes it the one that
// plays; it returns the connection that played before, if another. Past
// MaxConnsPerPlayer the oldest connection is closed with
// protocol.CloseReplaced.
func (h *Hub) Attach(playerID string, c *ws.Conn) (prev *ws.Conn) {
	h.mu.Lock()
	p := h.players[playerID]
	if len(p.conns) == 0 {
		h.online++
	}
	var evicted *ws.Conn
	if len(p.conns) >= MaxConnsPerPlayer {
		evicted = p.conns[0]
		p.conns = append(p.conns[:0:0], p.conns[1:]...)
	}
	p.conns = append(p.conns, c)
	if p.playing != c && p.playing != evicted {
		prev = p.playing
	}
	p.playing = c
	h.put(playerID, p)
	n := h.online
	h.mu.Unlock()
	h.m.Players.Set(float64(n))
	if evicted != nil {
		evicted.Logger().Info("connection replaced by a newer one")
		evicted.Close(protocol.CloseReplaced, protocol.ReasonReplaced)
	}
	return prev
}

// PlayHere makes c, one of the player's connections, the one that plays,
// and returns the one that played before, if another; ok is false when c
// is not the player's (it closed meanwhile).
func (h *Hub) PlayHere(playerID string, c *ws.Conn) (prev *ws.Conn, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, found := h.players[playerID]
	if !found || !slices.Contains(p.conns, c) {
		return nil, false
	}
	if p.playing != c {
		prev = p.playing
	}
	p.playing = c
	h.put(playerID, p)
	return prev, true
}

// Detach forgets c as one of the player's connections, and reports
// whether it was the one that played; then the newest of the player's
// other connections, if any, plays instead, and is returned as next (a
// tab closed hands the game back to the tab left open). A connection
// already gone, or one that did not play, changes nothing else.
func (h *Hub) Detach(playerID string, c *ws.Conn) (wasPlaying bool, next *ws.Conn) {
	h.mu.Lock()
	p := h.players[playerID]
	i := slices.Index(p.conns, c)
	if i >= 0 {
		p.conns = slices.Delete(slices.Clone(p.conns), i, i+1)
		if len(p.conns) == 0 {
			p.conns = nil
			h.online--
		}
		if p.playing == c {
			p.playing = nil
			wasPlaying = true
			if n := len(p.conns); n > 0 {
				next = p.conns[n-1]
				p.playing = next
			}
		}
		h.put(playerID, p)
	}
	n := h.online
	h.mu.Unlock()
	h.m.Players.Set(float64(n))
	return wasPlaying, next
}

// SignedOut closes every connection of the player with
// protocol.CloseSignedOut: its credentials were revoked, or the player
// deleted (lobby.Config.OnSignedOut).
func (h *Hub) SignedOut(playerID string) {
	h.mu.RLock()
	conns := slices.Clone(h.players[playerID].conns)
	h.mu.RUnlock()
	for _, c := range conns {
		c.Close(protocol.CloseSignedOut, protocol.ReasonSignedOut)
	}
}

// conn is the player's connection that plays, nil if none.
func (h *Hub) conn(playerID string) *ws.Conn {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.players[playerID].playing
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
// player's connection that plays; nil otherwise.
func (h *Hub) pace(playerID string, c *ws.Conn) *match.LeaderboardPace {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if p := h.players[playerID]; p.playing == c {
		return p.pace
	}
	return nil
}

// Connected reports whether the player has a connection that plays.
func (h *Hub) Connected(playerID string) bool {
	return h.conn(playerID) != nil
}

// Players is the number of connected players.
func (h *Hub) Players() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.online
}
