package match

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"time"
)

// A BusMessage is what nodes tell each other about a match over the
// Coord's bus: its new record and the messages of a change, or that a
// round's standings changed.
type BusMessage struct {
	Node    string          `json:"node"`
	Match   string          `json:"match"`
	Version int64           `json:"version,omitempty"`
	Record  json.RawMessage `json:"record,omitempty"`
	Msgs    []outMsg        `json:"msgs,omitempty"`
	Board   string          `json:"board,omitempty"`  // a round whose standings changed
	Urgent  bool            `json:"urgent,omitempty"` // with Board: an urgent change (see Round.TakeDirty)
	// SignedOut, with no Match, is the lobby's: a player whose
	// credentials were all revoked (signed out everywhere, or deleted),
	// whose connections every node closes.
	SignedOut string `json:"signed_out,omitempty"`
}

// LocalSink is a Sink that knows which players this node serves. A Sink
// that is not one is taken to serve every player.
type LocalSink interface {
	Sink
	Connected(playerID string) bool
}

// othersNeed reports whether another node may need to hear of a change:
// one of the match's members or spectators connects through another node,
// or the match needs a clock that this node does not hold (the holder must
// see the record the clock runs on). Otherwise no other node serves anyone
// of the match, and a node that makes a replica later reads the record;
// a single node so saves a PUBLISH of the whole record on every change.
func (m *Match) othersNeed() bool {
	return m.watchedElsewhere() || (m.st.TimerFor != "" && !m.leased)
}

// Deliver takes what another node published about the match: it adopts a
// newer record and sends the messages to the players this node serves. It
// does not block; what the match cannot take now is dropped, and the match
// reads its record again at its next tick.
func (m *Match) Deliver(env BusMessage) {
	f := func() {
		if env.Board != "" {
			if m.round != nil && m.round.ID == env.Board {
				m.boardDue = true
				m.boardHot = m.boardHot || env.Urgent
			}
			return
		}
		if env.Version > m.version && env.Record != nil {
			if err := m.adopt(env.Record, env.Version); err != nil {
				m.cfg.Logger.Warn("a record from another node does not load", "err", err)
				return
			}
		}
		m.deliver(env.Msgs)
	}
	select {
	case m.inbox <- f:
	default:
		m.resync.Store(true)
		m.cfg.Logger.Warn("match busy: dropped a message from another node; reading the record at the next tick")
	}
}

// Resync tells the match that news from other nodes may have been lost (the
// node's subscription broke and was made again): it reads its record at
// once, or at its next tick if it is busy, and catches its players up if
// the record changed. It does not block.
func (m *Match) Resync() {
	m.resync.Store(true)
	select {
	case m.inbox <- func() {
		if m.resync.Swap(false) {
			now := time.Now()
			m.checkedAt = now
			m.reconcile(now)
		}
	}:
	default:
	}
}

// local reports whether this node serves the player.
func (m *Match) local(id string) bool {
	if ls, ok := m.cfg.Sink.(LocalSink); ok {
		return ls.Connected(id)
	}
	return true
}

// localIDs yields the members and spectators that connect through this
// node, spectators in no particular order.
func (m *Match) localIDs() iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, mb := range m.st.Members {
			if !mb.Left && m.local(mb.ID) && !yield(mb.ID) {
				return
			}
		}
		for id := range m.st.Spectators {
			if m.local(id) && !yield(id) {
				return
			}
		}
	}
}

// servesLocally reports whether a member or spectator of the match
// connects through this node. It runs on every match's tick, so it makes
// no list.
func (m *Match) servesLocally() bool {
	for range m.localIDs() {
		return true
	}
	return false
}

// localAudience returns the members and spectators that connect through
// this node.
func (m *Match) localAudience() []string { return slices.Collect(m.localIDs()) }

// seen records that the player connects through this node; it reports
// whether that is news.
func (m *Match) seen(id string) bool {
	if m.st.Nodes == nil {
		m.st.Nodes = map[string]string{}
	}
	if m.st.Nodes[id] == m.cfg.Node {
		return false
	}
	m.st.Nodes[id] = m.cfg.Node
	return true
}

// watchedElsewhere reports whether a member or spectator of the match
// connects through another node.
func (m *Match) watchedElsewhere() bool {
	for _, n := range m.st.Nodes {
		if n != m.cfg.Node {
			return true
		}
	}
	return false
}

// reconcileEvery is how often a node reads the record of a match it serves
// players of, in case it missed news from another node that nothing told
// it of (a publication that failed after its save, say). The losses a node
// can see, a delivery it dropped and a gap in its subscription, make the
// match read its record at once (Resync); this read is only the net below
// them, and rare because it is one store read a match each time.
const reconcileEvery = 10 * time.Second

// reconcile reads the record; when another node changed it without this
// node hearing of it, the node adopts it and catches its players up.
func (m *Match) reconcile(now time.Time) {
	if !m.servesLocally() {
		return
	}
	ctx := m.tickCtx(now)
	if ver, err := m.cfg.Coord.MatchVersion(ctx, m.ID); err != nil || ver <= m.version {
		return // the record comes only when this replica is behind
	}
	rec, ver, err := m.cfg.Coord.LoadMatch(ctx, m.ID)
	if err != nil || ver <= m.version {
		return
	}
	if err := m.adopt(rec, ver); err != nil {
		m.cfg.Logger.Warn("a record does not load", "err", err)
		return
	}
	m.cfg.Logger.Info("caught up with a change this node did not hear of", "version", ver)
	m.outbox = m.outbox[:0]
	for _, id := range m.localAudience() {
		if err := m.catchUp(ctx, id); err != nil {
			m.cfg.Logger.Warn("catching a player up failed", "player", id, "err", err)
		}
	}
	m.deliver(m.outbox)
	m.outbox = m.outbox[:0]
}

// tellBoard takes the round's changes of the standings into boardDue and
// boardHot, and tells the other nodes of them when someone there watches.
// ctx bounds the publish; nil makes one only when there is one to make (a
// context with a deadline costs a timer, on every tick of every match).
func (m *Match) tellBoard(ctx context.Context) {
	changed, urgent := m.round.TakeDirty()
	if !changed {
		return
	}
	m.boardDue = true
	m.boardHot = m.boardHot || urgent
	if !m.watchedElsewhere() {
		return // nobody on another node to tell
	}
	if ctx == nil {
		ctx = m.tickCtx(time.Now())
	}
	env := mustJSON(BusMessage{Node: m.cfg.Node, Match: m.ID, Board: m.round.ID, Urgent: urgent})
	if err := m.cfg.Coord.Publish(ctx, env); err != nil {
		m.cfg.Logger.Warn("telling the other nodes failed", "err", err)
	}
}
