package match

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"klondike/engine"
)

// A PreparingSink does the costly part of a Send (writing the event for
// the wire) in Prepare, so that a caller holding a lock only queues it:
// the pace sends boards under the round's lock, which moves take too.
type PreparingSink interface {
	Sink
	// Prepare writes ev; the returned func queues it for to.
	Prepare(ev Event) (send func(to []string))
}

// A PaceSink is a Sink whose connections let a due leaderboard leave with
// the answer they are about to write to a player: before it writes what a
// player's message made, the connection calls SendDue of the pace the
// player's match set for them, and the board joins the answer in its queue.
type PaceSink interface {
	Sink
	// SetPace makes p the pace of the player's answers.
	SetPace(playerID string, p *LeaderboardPace)
	// ClearPace undoes SetPace, if p is still the player's pace.
	ClearPace(playerID string, p *LeaderboardPace)
}

// A LeaderboardPace paces the leaderboards of a match's running round on
// this node. A board goes out at most every Config.LeaderboardEvery, only
// when the standings changed (a minor change waits until the last board is
// LeaderboardMinorEvery old), and only to the viewers whose last board
// showed something else (see visible). It goes out either when a player's
// own message made it due, from the goroutine that writes that player's
// answer (SendDue: the player's copy leaves in the same write as the
// answer), or on the match's next tick. The board a viewer gets when they
// catch up (spectating, resuming) is not noted: their next board goes to
// them whatever it shows. Its methods are safe for concurrent use.
type LeaderboardPace struct {
	sink    Sink
	paced   PaceSink // sink, if a PaceSink
	matchID string
	every   time.Duration
	minor   time.Duration
	epoch   time.Time // the origin of last

	view atomic.Pointer[paceView] // the running round; nil while none runs
	last atomic.Int64             // when the round's last board went out, since epoch
	held atomic.Bool              // changes taken and not sent yet: pending

	mu      sync.Mutex // one board at a time; guards what follows
	round   *Round
	pending bool              // the standings changed since the last board
	hot     bool              // and a change among them was urgent
	looked  time.Duration     // when a board was last made, since epoch
	seen    map[string]uint64 // each viewer's last board, as visible hashes it
	to      []string          // scratch: the viewers of a board

	// The match goroutine's.
	ver    int64
	cur    *Round
	riding *Round // the round whose players' answers carry the boards
}

// paceView is what SendDue needs of the match, from the match's goroutine.
type paceView struct {
	round    *Round
	audience []string // the active members and the spectators
	// Nobody watches from another node: this node's seats hold every
	// standing, and a board needs no read of the store.
	local    bool
	standard bool // standard scoring: scores fall with time
}

// noBoard is last before a round's first board: long enough ago.
const noBoard = math.MinInt64 / 2

func newLeaderboardPace(m *Match) *LeaderboardPace {
	p := &LeaderboardPace{
		sink: m.cfg.Sink, matchID: m.ID,
		every: m.cfg.LeaderboardEvery, minor: m.cfg.LeaderboardMinorEvery,
		epoch: time.Now(), seen: map[string]uint64{},
	}
	p.paced, _ = m.cfg.Sink.(PaceSink)
	p.last.Store(noBoard)
	return p
}

// follow brings the pace in line with the match, after each of its events:
// the running round, its viewers, and whose answers carry its boards. It
// runs on the match's goroutine.
func (p *LeaderboardPace) follow(m *Match) {
	var r *Round
	if m.round != nil && m.st.State == StateRunning {
		r = m.round
	}
	if r == p.cur && m.version == p.ver {
		return
	}
	p.cur, p.ver = r, m.version
	if r == nil {
		p.view.Store(nil)
		p.unride()
		return
	}
	p.mu.Lock()
	if p.round != r {
		p.round, p.pending, p.hot, p.looked = r, false, false, 0
		clear(p.seen)
		p.held.Store(false)
		p.last.Store(noBoard)
	}
	p.mu.Unlock()
	p.view.Store(&paceView{
		round: r, audience: m.audience(true), local: !m.watchedElsewhere(),
		standard: r.Rules.Scoring == engine.ScoringStandard,
	})
	if p.paced != nil && p.riding != r {
		p.unride()
		for _, pl := range r.Players {
			p.paced.SetPace(pl.ID, p)
		}
		p.riding = r
	}
}

// stop ends the pace with the match's goroutine.
func (p *LeaderboardPace) stop() {
	p.view.Store(nil)
	p.unride()
}

// unride stops the answers of the players of the round that rode carrying
// its boards. Match goroutine.
func (p *LeaderboardPace) unride() {
	if p.riding == nil {
		return
	}
	for _, pl := range p.riding.Players {
		p.paced.ClearPace(pl.ID, p)
	}
	p.riding = nil
}

// tick sends the board if one is due, reading the store when the seats of
// this node do not hold every standing. It runs on the match's goroutine,
// which has taken the round's changes into m.boardDue and m.boardHot (and
// told the other nodes of them).
func (p *LeaderboardPace) tick(m *Match, now time.Time) {
	v := p.view.Load()
	if v == nil || v.round != m.round {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending, p.hot = p.pending || m.boardDue, p.hot || m.boardHot
	m.boardDue, m.boardHot = false, false
	if !p.due(now, v.standard) {
		p.held.Store(p.pending)
		return
	}
	entries, ok := []Entry(nil), false
	if v.local {
		entries, ok = v.round.LocalLeaderboard(now)
	}
	if !ok {
		var err error
		if entries, err = v.round.Leaderboard(m.tickCtx(now), now); err != nil {
			p.held.Store(p.pending)
			return // the changes stay: the next tick tries again
		}
	}
	p.send(v, entries, now, true)
}

// SendDue sends the round's leaderboard if one is due now; the api calls
// it before it writes what a message of one of the round's players made,
// on the goroutine that writes it, so that the player's copy, queued
// behind the answer, leaves in the same write. It never waits: when
// another goroutine is making a board, or this node would need the store
// for it, it leaves the board to them or to the match's next tick.
func (p *LeaderboardPace) SendDue() {
	v := p.view.Load()
	if v == nil || !v.local {
		return
	}
	now := time.Now()
	if now.Sub(p.epoch)-time.Duration(p.last.Load()) < p.every {
		return
	}
	if !v.round.dirtyNow() && !p.held.Load() {
		return
	}
	if !p.mu.TryLock() {
		return
	}
	defer p.mu.Unlock()
	if p.round != v.round {
		return
	}
	changed, urgent := v.round.TakeDirty()
	p.pending, p.hot = p.pending || changed, p.hot || urgent
	entries, ok := []Entry(nil), false
	if p.due(now, false) {
		// A seat whose move waits on the store is left to the next answer
		// or tick, rather than made to hold this answer up.
		entries, ok = v.round.tryLocalLeaderboard(now)
	}
	if !ok || !p.send(v, entries, now, false) {
		p.held.Store(p.pending)
	}
}

// due reports whether a board is due now; p.mu held. Standard scoring's
// scores fall with time, so its board is made again every
// standardRefresh even without changes (and goes out if it shows one).
func (p *LeaderboardPace) due(now time.Time, standard bool) bool {
	at := now.Sub(p.epoch)
	since := at - time.Duration(p.last.Load())
	if since < p.every {
		return false
	}
	return p.hot || p.pending && since >= p.minor || standard && at-p.looked >= standardRefresh
}

// send sends the board of entries to every viewer connected here whose
// last board showed something else; p.mu held. When none needs it, no
// board went out: the interval does not start again. Unless wait, it
// gives up (false, the changes kept) rather than wait for the round's
// lock.
func (p *LeaderboardPace) send(v *paceView, entries []Entry, now time.Time, wait bool) bool {
	h := visible(entries)
	to := p.to[:0]
	for _, id := range v.audience {
		if !p.connected(id) {
			delete(p.seen, id) // what they saw is unknown when they come back
			continue
		}
		if last, ok := p.seen[id]; !ok || last != h {
			to = append(to, id)
		}
	}
	p.to = to
	if len(to) > 0 {
		ev := Leaderboard{MatchID: p.matchID, RoundID: v.round.ID, Entries: entries}
		deliver := func(to []string) { p.sink.Send(to, ev) }
		if ps, ok := p.sink.(PreparingSink); ok {
			deliver = ps.Prepare(ev) // the encoding, outside the round's lock
		}
		// The round's end turns it over, then takes r.mu, before its
		// results go out: a board sent under r.mu while the round is not
		// over cannot follow them.
		r := v.round
		if wait {
			r.mu.Lock()
		} else if !r.mu.TryLock() {
			return false
		}
		if !r.Over() {
			deliver(to)
			for _, id := range to {
				p.seen[id] = h
			}
		}
		r.mu.Unlock()
		p.last.Store(int64(now.Sub(p.epoch)))
	}
	p.pending, p.hot, p.looked = false, false, now.Sub(p.epoch)
	p.held.Store(false)
	return true
}

// connected reports whether the viewer connects through this node.
func (p *LeaderboardPace) connected(id string) bool {
	if ls, ok := p.sink.(LocalSink); ok {
		return ls.Connected(id)
	}
	return true
}

// visibleSeed seeds the hashes of visible; they are compared on this node
// only.
var visibleSeed = maphash.MakeSeed()

// visible hashes what a client shows of a leaderboard: the entries in
// their order, each with its player, name, rank, score, cards home, moves,
// status, finish time and hints; not reached_ms, a tie-break no client
// shows. Moves only grow, so a round's visible board never comes back to
// an earlier one.
func visible(entries []Entry) uint64 {
	var h maphash.Hash
	h.SetSeed(visibleSeed)
	var b [8]byte
	num := func(n int64) {
		binary.LittleEndian.PutUint64(b[:], uint64(n))
		h.Write(b[:])
	}
	for _, e := range entries {
		h.WriteString(e.PlayerID)
		h.WriteByte(0)
		h.WriteString(e.Name)
		h.WriteByte(0)
		finished, helped := int64(-1), int64(0)
		if e.FinishedMs != nil {
			finished = *e.FinishedMs
		}
		if e.Helped {
			helped = 1
		}
		num(int64(e.Rank))
		num(int64(e.Score))
		num(int64(e.Foundation))
		num(int64(e.Moves))
		num(int64(e.Status))
		num(finished)
		num(helped)
	}
	return h.Sum64()
}
