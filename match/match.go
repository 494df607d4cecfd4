package match

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"klondike/engine"
)

// Errors of match commands; the api maps each to a wire code.
var (
	ErrMatchFull    = errors.New("the match is full")
	ErrNotOpen      = errors.New("the match is not open for joining")
	ErrNotHost      = errors.New("only the host can start the match")
	ErrNotMember    = errors.New("you are not a player of this match")
	ErrNoPlayers    = errors.New("the match has no players")
	ErrMatchClosed  = errors.New("the match is over")
	ErrBusy         = errors.New("the match is busy; try again")
	ErrAlreadyStart = errors.New("the match has already started")
	// ErrLeft: a player who left a match once it had started forfeited
	// their game; seating them again in its later rounds would be unfair
	// to those who stayed.
	ErrLeft = errors.New("you left this match; once it has started you cannot rejoin it")
)

// A Match is one or more rounds for a set of players.
//
// The match's state is a record in the Coord, which every server node
// shares. Each node that serves players of the match has its own Match
// object for it (a replica): one goroutine runs its commands in order, each
// as a compare-and-set of the record (read, change, write if nobody wrote
// meanwhile, else read again and retry), so commands from players on
// different nodes are serialized by the record's version. After a change
// the node delivers the messages it made to its own connections and
// publishes the new record and the messages on the Coord's bus, for the
// other nodes' connections. The node that holds the match's lease drives
// its clock (countdown, time limit, intermission); another takes the lease
// over when it expires. Readers use Info, a snapshot replaced after every
// change.
type Match struct {
	ID       string
	Code     string
	Settings Settings
	Quick    bool

	rules engine.Rules
	fixed bool // Code, Settings, Quick and rules are set (adoptFixed)
	cfg   Config
	inbox chan func()
	stop  chan struct{}
	done  chan struct{}
	info  atomic.Pointer[MatchInfo]
	heard atomic.Bool // see Heard
	cur   atomic.Pointer[Round]

	// Owned by the match's goroutine.
	st        record
	version   int64  // st's version in the Coord
	saved     []byte // st as last saved or loaded
	round     *Round // this node's object for st.Round
	newRound  *Round // a round dealt by the command being run
	timer     *time.Timer
	leased    bool
	leaseAt   time.Time // when the lease was last taken or tried for
	leaseGen  uint64    // the NodeLease's generation then
	boardDue  bool      // the standings changed since the last leaderboard (here or on another node)
	boardHot  bool      // and a change among them was urgent
	outbox    []outMsg
	changedSt bool
	after     []func()  // run once the command's change is saved
	voidTold  bool      // this node told its players the match was voided
	checkedAt time.Time // when reconcile last read the record
	// News from another node may have been missed (a dropped delivery,
	// a gap in the node's subscription): reconcile at the next tick.
	resync    atomic.Bool
	roundSave string // the phase of the round record last saved

	// The context of the store calls of the match's ticks (tickCtx).
	tickCtxV      context.Context
	tickCtxCancel context.CancelFunc
	tickCtxFresh  time.Time
}

// record is a match's shared state: what any node needs to serve it.
type record struct {
	ID         string            `json:"id"`
	Code       string            `json:"code"`
	Settings   Settings          `json:"settings"`
	Quick      bool              `json:"quick,omitempty"`
	Opened     time.Time         `json:"opened"` // when the match was made
	Host       string            `json:"host,omitempty"`
	Members    []*member         `json:"members"`
	Spectators map[string]bool   `json:"spectators,omitempty"`
	State      State             `json:"state"`
	RoundN     int               `json:"round_n"`
	Round      *RoundRecord      `json:"round,omitempty"`
	Totals     map[string]*Total `json:"totals,omitempty"`
	TimerFor   State             `json:"timer_for,omitempty"` // the clock's next event: StateStarting (countdown ends), StateRunning (time limit), StateBetween (intermission ends), StateOpen (a quick match starts)
	TimerAt    time.Time         `json:"timer_at"`
	// The last round_over and the match_over, sent again to a player who
	// resumes between rounds or after the match.
	LastOver  *RoundOver    `json:"last_round_over,omitempty"`
	MatchOver *MatchOver    `json:"match_over_event,omitempty"`
	NextMatch string        `json:"next_match,omitempty"`
	Ratings   *RoundRatings `json:"ratings,omitempty"`
	Joins     int           `json:"joins"`
	Void      string        `json:"void,omitempty"` // why the match was voided
	// Nodes is the node each member and spectator last connected through:
	// a node tells the others of standings changes only when someone
	// watches from another node.
	Nodes map[string]string `json:"nodes,omitempty"`
}

func newReplica(id string, cfg Config) *Match {
	m := &Match{
		ID: id, cfg: cfg,
		inbox: make(chan func(), cfg.Inbox), stop: make(chan struct{}), done: make(chan struct{}),
		timer: time.NewTimer(time.Hour),
	}
	m.timer.Stop()
	m.cfg.Logger = cfg.Logger.With("match", id)
	return m
}

// New makes a match, saves its record, and starts its goroutine; Close
// stops it.
func New(id, code string, s Settings, quick bool, cfg Config) (*Match, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	m := newReplica(id, cfg)
	m.st = record{
		ID: id, Code: code, Settings: s, Quick: quick, State: StateOpen, Opened: time.Now(),
		Members: []*member{}, Spectators: map[string]bool{}, Totals: map[string]*Total{},
	}
	rec := mustJSON(&m.st)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	ver, err := cfg.Coord.SaveMatch(ctx, id, 0, rec, m.listed(), cfg.RecordTTL)
	if err != nil {
		if errors.Is(err, ErrVersionConflict) {
			return nil, fmt.Errorf("match: a match %s exists already", id)
		}
		return nil, fmt.Errorf("%w: saving the new match: %v", ErrUnavailable, err)
	}
	m.version, m.saved = ver, rec
	m.adoptFixed()
	m.sync()
	go m.loop()
	return m, nil
}

// Load makes this node's replica of a match that exists in the Coord;
// ErrNotFound if there is none.
func Load(ctx context.Context, id string, cfg Config) (*Match, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	rec, ver, err := cfg.Coord.LoadMatch(ctx, id)
	if err != nil {
		return nil, err
	}
	m := newReplica(id, cfg)
	if err := m.adopt(rec, ver); err != nil {
		return nil, err
	}
	go m.loop()
	return m, nil
}

// DecodeInfo returns the snapshot of a match from its record in the Coord.
func DecodeInfo(rec []byte) (*MatchInfo, error) {
	var m Match
	if err := json.Unmarshal(rec, &m.st); err != nil {
		return nil, fmt.Errorf("match: a bad record: %w", err)
	}
	return m.snapshot(), nil
}

// adoptFixed copies the record's fixed fields to the Match, once: they
// never change, and other goroutines read them without the match's
// goroutine, so a later record must not write them again.
func (m *Match) adoptFixed() {
	if m.fixed {
		return
	}
	m.fixed = true
	m.Code, m.Settings, m.Quick = m.st.Code, m.st.Settings, m.st.Quick
	m.rules, _ = m.st.Settings.Rules()
}

// adopt takes a record read from the Coord (or sent by another node) as
// the match's state.
func (m *Match) adopt(rec []byte, version int64) error {
	var st record
	if err := json.Unmarshal(rec, &st); err != nil {
		return fmt.Errorf("match %s: a bad record: %w", m.ID, err)
	}
	if st.Spectators == nil {
		st.Spectators = map[string]bool{}
	}
	if st.Totals == nil {
		st.Totals = map[string]*Total{}
	}
	m.st, m.version, m.saved = st, version, rec
	m.adoptFixed()
	m.sync()
	return nil
}

// rollback undoes a command's changes: the state is the record last saved
// or loaded again.
func (m *Match) rollback() {
	var st record
	_ = json.Unmarshal(m.saved, &st) // it was encoded from a record
	if st.Spectators == nil {
		st.Spectators = map[string]bool{}
	}
	if st.Totals == nil {
		st.Totals = map[string]*Total{}
	}
	m.st = st
	m.newRound = nil
	m.outbox, m.after, m.changedSt = m.outbox[:0], nil, false
}

// reload reads the record again.
func (m *Match) reload(ctx context.Context) error {
	rec, ver, err := m.cfg.Coord.LoadMatch(ctx, m.ID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return ErrMatchClosed
		}
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return m.adopt(rec, ver)
}

// sync brings what this node keeps in line with the record: the round
// object, its phase, the clock's lease and timer, the snapshot.
func (m *Match) sync() {
	if rr := m.st.Round; rr != nil {
		if m.round == nil || m.round.ID != rr.ID {
			r := m.newRound
			if r == nil || r.ID != rr.ID {
				var err error
				if r, err = RoundFromRecord(*rr, m.cfg.Store); err != nil {
					m.cfg.Logger.Error("a round record does not load", "round", rr.ID, "err", err)
				}
			}
			if r != nil {
				m.round = r
				m.cur.Store(r)
				if m.cfg.OnRound != nil {
					m.cfg.OnRound(r)
				}
			}
		}
		if m.round != nil {
			m.round.setPhase(rr.Phase, rr.EndMs)
		}
	}
	m.newRound = nil
	if m.st.TimerFor != "" && !m.leased {
		m.renewLease(time.Now())
	}
	m.armTimer()
	info := m.publish()
	if m.cfg.OnChange != nil {
		m.cfg.OnChange(info)
	}
}

// listed reports whether the match belongs on the lobby's list.
func (m *Match) listed() bool {
	return m.st.State == StateOpen && m.st.Settings.Public
}

// Close stops the match's goroutine and waits for it. The match goes on in
// the Coord: Close only stops this node serving it.
func (m *Match) Close() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
}

// Info returns the latest snapshot of the match.
func (m *Match) Info() *MatchInfo { return m.info.Load() }

// Round returns the current round, or nil.
func (m *Match) Round() *Round { return m.cur.Load() }

// publish makes the snapshot readers see.
func (m *Match) publish() *MatchInfo {
	info := m.snapshot()
	heard := false
	for _, n := range m.st.Nodes {
		heard = heard || n == m.cfg.Node
	}
	m.heard.Store(heard)
	m.info.Store(info)
	return info
}

// Heard reports whether the other nodes tell this replica of their changes
// to the match, as they do while one of its members or spectators connects
// through this node (see othersNeed); Info is then as current as the bus
// is. Otherwise Info may lag behind the shared record.
func (m *Match) Heard() bool { return m.heard.Load() }

func (m *Match) snapshot() *MatchInfo {
	info := &MatchInfo{
		ID: m.st.ID, Code: m.st.Code, Host: m.st.Host, Settings: m.st.Settings, State: m.st.State, Round: m.st.RoundN,
		Spectators: len(m.st.Spectators), Quick: m.st.Quick, NextMatch: m.st.NextMatch, Players: []MemberInfo{},
		Ratings: m.st.Ratings, OpenedAt: m.st.Opened,
	}
	if m.st.Round != nil {
		info.RoundID = m.st.Round.ID
	}
	for _, mb := range m.st.Members {
		if !mb.Left {
			info.Players = append(info.Players, MemberInfo{PlayerID: mb.ID, Name: mb.Name, Ready: mb.Ready, Connected: mb.Connected,
				Rating: mb.Rating, Provisional: mb.Provisional})
		}
	}
	if len(m.st.Totals) > 0 {
		info.Totals = m.rankTotals()
	}
	return info
}

// State returns the match's phase from its snapshot.
func (m *Match) State() State { return m.Info().State }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("match: encoding: " + err.Error())
	}
	return b
}
