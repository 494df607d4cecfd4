package match

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"slices"
	"strconv"
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

// Config holds what a match needs from its surroundings. A zero duration
// takes the default named beside it.
type Config struct {
	Store Store
	// Coord holds the match's record, shared by every node (required; the
	// memory one of match/memstore serves a single process).
	Coord  Coord
	Sink   Sink
	Logger *slog.Logger
	// Node names this server node in leases (default: a random name).
	Node string
	// RecordTTL is how long a match's record lives after its last change
	// (default 7 days).
	RecordTTL time.Duration
	// LeaseTTL is how long the node that drives the match's clock holds
	// its lease without renewing it (default 5 s): when that node dies,
	// another takes the clock over within about this time.
	LeaseTTL time.Duration
	// NewID returns a fresh unguessable id for a round.
	NewID func() string
	// OnRound is called (on the match's goroutine) when a round is dealt,
	// so the lobby can find it by id; may be nil.
	OnRound func(*Round)
	// OnRoundOver is called (on the match's goroutine) when a round ends;
	// may be nil.
	OnRoundOver func(*Round)
	// OnChange is called (on the match's goroutine) after every change,
	// with the new snapshot; may be nil.
	OnChange func(*MatchInfo)
	// LeaderboardEvery is the coalescing interval of leaderboards: at most
	// one a round per interval, only when something changed (default 250 ms).
	LeaderboardEvery time.Duration
	// LeaderboardMinorEvery is the longest a minor change of the standings
	// (a move that sends no card to or from a foundation and ends no game:
	// only a player's moves and points change) waits for its leaderboard
	// (default 1 s, at least LeaderboardEvery). Changes that can reorder a
	// race go out within LeaderboardEvery. Under load most moves are minor,
	// and leaderboards would otherwise be most of what a node writes.
	LeaderboardMinorEvery time.Duration
	// Intermission is the pause between a round's end and the next round's
	// countdown (default 5 s).
	Intermission time.Duration
	// QuickWait is how long a quick match with at least two players waits
	// for more before it starts by itself (default 10 s).
	QuickWait time.Duration
	// Inbox is how many commands may wait for the match (default 256); past
	// that, commands fail with ErrBusy.
	Inbox int
	// Winnable hands out deals proved winnable, for matches with deals
	// "winnable" (match/dealpool); nil deals them any deal, said so.
	Winnable WinnableDeals
}

// WinnableDeals is a source of deals proved winnable: Take returns one for
// the rules at once, or false when it has none ready.
type WinnableDeals interface {
	Take(engine.Rules) (seed uint64, ok bool)
}

// Defaults of Config.
const (
	DefaultLeaderboardEvery = 250 * time.Millisecond
	DefaultLeaderboardMinor = time.Second
	DefaultIntermission     = 5 * time.Second
	DefaultQuickWait        = 10 * time.Second
	DefaultInbox            = 256
	DefaultRecordTTL        = 7 * 24 * time.Hour
	DefaultLeaseTTL         = 5 * time.Second
	// maxSaveTries bounds a command's compare-and-set retries.
	maxSaveTries = 8
	// opTimeout bounds the store calls the match makes on its own (clock
	// events, leaderboards).
	opTimeout = 5 * time.Second
	// standardRefresh is how often a running standard-scored round's
	// leaderboard is sent even without moves: its time penalty grows every
	// 10 s.
	standardRefresh = 10 * time.Second
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
	leaseAt   time.Time
	lastBoard time.Time
	boardDue  bool // the standings changed since the last leaderboard (here or on another node)
	boardHot  bool // and a change among them was urgent
	outbox    []outMsg
	changedSt bool
	after     []func()  // run once the command's change is saved
	voidTold  bool      // this node told its players the match was voided
	checkedAt time.Time // when reconcile last read the record
	roundSave string    // the phase of the round record last saved

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
	Host       string            `json:"host,omitempty"`
	Members    []*member         `json:"members"`
	Spectators map[string]bool   `json:"spectators,omitempty"`
	State      State             `json:"state"`
	RoundN     int               `json:"round_n"`
	Round      *RoundRecord      `json:"round,omitempty"`
	Totals     map[string]*Total `json:"totals,omitempty"`
	TimerFor   State             `json:"timer_for,omitempty"` // the clock's next event: StateStarting (countdown ends), StateRunning (time limit), StateBetween (intermission ends), StateOpen (a quick match starts)
	TimerAt    time.Time         `json:"timer_at"`
	LastOver   json.RawMessage   `json:"last_over,omitempty"`  // the last round_over, resent to a player who resumes between rounds
	MatchOver  json.RawMessage   `json:"match_over,omitempty"` // match_over, resent to a player who resumes after the match
	NextMatch  string            `json:"next_match,omitempty"`
	Joins      int               `json:"joins"`
	Void       string            `json:"void,omitempty"` // why the match was voided
	// Nodes is the node each member and spectator last connected through:
	// a node tells the others of standings changes only when someone
	// watches from another node.
	Nodes map[string]string `json:"nodes,omitempty"`
}

type member struct {
	Player
	Ready     bool `json:"ready,omitempty"`
	Connected bool `json:"connected,omitempty"`
	Join      int  `json:"join"`
	Left      bool `json:"left,omitempty"`
}

// An outMsg is a message a command made, for some players. Started asks
// each node to send round_started, with the player's own view, to the
// players it serves; Info the match's snapshot.
type outMsg struct {
	To      []string        `json:"to"`
	Msg     json.RawMessage `json:"msg,omitempty"`
	Started bool            `json:"started,omitempty"`
	Info    bool            `json:"info,omitempty"`
}

// An Envelope is what nodes tell each other about a match over the
// Coord's bus: its new record and the messages of a change, or that a
// round's standings changed.
type Envelope struct {
	Node    string          `json:"node"`
	Match   string          `json:"match"`
	Version int64           `json:"version,omitempty"`
	Record  json.RawMessage `json:"record,omitempty"`
	Msgs    []outMsg        `json:"msgs,omitempty"`
	Board   string          `json:"board,omitempty"`  // a round whose standings changed
	Urgent  bool            `json:"urgent,omitempty"` // with Board: an urgent change (see Round.TakeDirty)
}

// LocalSink is a Sink that knows which players this node serves. A Sink
// that is not one is taken to serve every player.
type LocalSink interface {
	Sink
	Connected(playerID string) bool
}

func (c *Config) setDefaults() error {
	if c.Coord == nil || c.Store == nil || c.Sink == nil {
		return errors.New("match: Config needs a Store, a Coord and a Sink")
	}
	if c.LeaderboardEvery <= 0 {
		c.LeaderboardEvery = DefaultLeaderboardEvery
	}
	if c.LeaderboardMinorEvery <= 0 {
		c.LeaderboardMinorEvery = DefaultLeaderboardMinor
	}
	c.LeaderboardMinorEvery = max(c.LeaderboardMinorEvery, c.LeaderboardEvery)
	if c.Intermission <= 0 {
		c.Intermission = DefaultIntermission
	}
	if c.QuickWait <= 0 {
		c.QuickWait = DefaultQuickWait
	}
	if c.Inbox <= 0 {
		c.Inbox = DefaultInbox
	}
	if c.RecordTTL <= 0 {
		c.RecordTTL = DefaultRecordTTL
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = DefaultLeaseTTL
	}
	if c.Node == "" {
		var b [6]byte
		_, _ = randomReader.Read(b[:])
		c.Node = fmt.Sprintf("node-%x", b)
	}
	if c.NewID == nil {
		c.NewID = func() string {
			var b [8]byte
			_, _ = randomReader.Read(b[:])
			return fmt.Sprintf("%x", b)
		}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
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
		ID: id, Code: code, Settings: s, Quick: quick, State: StateOpen,
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

// adoptFixed copies the record's fixed fields to the Match.
func (m *Match) adoptFixed() {
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

// do runs f as a command on the match's goroutine and waits for it.
//
// A caller that gives up (ctx ends) while its command still waits in the
// inbox takes it back: the command never runs, so an error always means
// "not done". Once the command has started, the caller waits for its
// outcome (the command's own store calls end with ctx), so that a join the
// caller was told failed never seats the player behind its back.
func (m *Match) do(ctx context.Context, f func() error) error {
	res := make(chan error, 1)
	var state atomic.Int32 // cmdQueued, cmdStarted or cmdAbandoned
	cmd := func() {
		if !state.CompareAndSwap(cmdQueued, cmdStarted) {
			return // abandoned by its caller
		}
		answered := false
		defer func() {
			if !answered { // f panicked (safely recovers): the caller hears of it
				res <- fmt.Errorf("%w: the command failed", ErrUnavailable)
			}
		}()
		err := ctx.Err()
		if err == nil {
			err = m.exec(ctx, f)
		}
		answered = true
		res <- err
	}
	select {
	case m.inbox <- cmd:
	case <-m.done:
		return ErrMatchClosed
	default:
		return ErrBusy
	}
	select {
	case err := <-res:
		return err
	case <-m.done:
		if state.CompareAndSwap(cmdQueued, cmdAbandoned) {
			return ErrMatchClosed
		}
		return <-res
	case <-ctx.Done():
		if state.CompareAndSwap(cmdQueued, cmdAbandoned) {
			return ctx.Err()
		}
		return <-res
	}
}

// The states of a command in do.
const (
	cmdQueued int32 = iota
	cmdStarted
	cmdAbandoned
)

// exec runs a command: f changes the state; if it marked a change, the
// record is saved with a compare-and-set, and on a conflict read again and
// f run again. Only a saved change's messages are delivered.
func (m *Match) exec(ctx context.Context, f func() error) error {
	for try := 1; ; try++ {
		m.outbox, m.after, m.changedSt = m.outbox[:0], nil, false
		if err := f(); err != nil {
			m.rollback()
			return err
		}
		if !m.changedSt {
			m.deliver(m.outbox)
			m.outbox = m.outbox[:0]
			return nil
		}
		rec := mustJSON(&m.st)
		ver, err := m.cfg.Coord.SaveMatch(ctx, m.ID, m.version, rec, m.listed(), m.cfg.RecordTTL)
		if err == nil {
			m.commit(ctx, rec, ver)
			return nil
		}
		m.rollback()
		switch {
		case !errors.Is(err, ErrVersionConflict):
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		case try >= maxSaveTries:
			return ErrBusy
		}
		if err := m.reload(ctx); err != nil {
			return err
		}
	}
}

// commit makes a saved change this node's state, delivers its messages
// here, and tells the other nodes.
func (m *Match) commit(ctx context.Context, rec []byte, ver int64) {
	m.version, m.saved = ver, rec
	msgs := slices.Clone(m.outbox)
	after := m.after
	m.outbox, m.after, m.changedSt = m.outbox[:0], nil, false
	m.sync()
	m.saveRound(ctx)
	m.deliver(msgs)
	if m.othersNeed() {
		env := mustJSON(Envelope{Node: m.cfg.Node, Match: m.ID, Version: ver, Record: rec, Msgs: msgs})
		if err := m.cfg.Coord.Publish(ctx, env); err != nil {
			m.cfg.Logger.Warn("telling the other nodes failed", "err", err)
		}
	}
	for _, f := range after {
		f()
	}
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

// saveRound stores the round's record when its phase changed, for the
// nodes that serve its replay and leaderboard.
func (m *Match) saveRound(ctx context.Context) {
	rr := m.st.Round
	if rr == nil || rr.ID+rr.Phase == m.roundSave {
		return
	}
	if err := m.cfg.Coord.SaveRound(ctx, rr.ID, mustJSON(rr), m.cfg.RecordTTL); err != nil {
		m.cfg.Logger.Warn("saving the round's record failed", "round", rr.ID, "err", err)
		return
	}
	m.roundSave = rr.ID + rr.Phase
}

// Deliver takes what another node published about the match: it adopts a
// newer record and sends the messages to the players this node serves. It
// does not block; what the match cannot take now is dropped (the next
// command reads the record again).
func (m *Match) Deliver(env Envelope) {
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
		m.cfg.Logger.Warn("match busy: dropped a message from another node")
	}
}

// deliver sends messages to the players this node serves.
func (m *Match) deliver(msgs []outMsg) {
	now := time.Now()
	for _, o := range msgs {
		switch {
		case o.Started:
			for _, id := range o.To {
				if m.local(id) && m.round != nil && m.round.HasPlayer(id) {
					if b, err := m.roundStartedMsg(id, now, false); err == nil {
						m.cfg.Sink.Send(id, b)
					} else {
						m.cfg.Logger.Warn("no view for a player", "player", id, "err", err)
					}
				}
			}
		case o.Info:
			b := encode(matchMsg{Type: "match", Match: m.Info()})
			for _, id := range o.To {
				m.cfg.Sink.Send(id, b)
			}
		default:
			for _, id := range o.To {
				m.cfg.Sink.Send(id, o.Msg)
			}
		}
	}
}

// local reports whether this node serves the player.
func (m *Match) local(id string) bool {
	if ls, ok := m.cfg.Sink.(LocalSink); ok {
		return ls.Connected(id)
	}
	return true
}

func (m *Match) loop() {
	defer close(m.done)
	every := m.tickEvery()
	tick := time.NewTicker(every)
	defer tick.Stop()
	defer m.timer.Stop()
	defer func() {
		if m.tickCtxCancel != nil {
			m.tickCtxCancel()
		}
	}()
	for {
		if d := m.tickEvery(); d != every {
			every = d
			tick.Reset(d)
		}
		var finished <-chan struct{}
		if m.round != nil && m.st.State == StateRunning {
			finished = m.round.Finished()
		}
		select {
		case f := <-m.inbox:
			m.safely(f)
		case <-m.timer.C:
			m.safely(m.onTimer)
		case <-finished:
			m.safely(m.onFinished)
		case now := <-tick.C:
			m.safely(func() { m.onTick(now) })
		case <-m.stop:
			m.releaseLease()
			return
		}
	}
}

// idleTick is how often a match without a running round ticks, at most:
// for the reconcile and its clock's lease, not for leaderboards.
const idleTick = reconcileEvery / 2

// tickEvery is the period of the match's ticks: LeaderboardEvery while a
// round runs; otherwise half the interval of the reconcile and of the
// clock's lease renewal (when the match has a clock), so neither slips by
// a whole period when a tick comes late. Ticks of every match every 250 ms,
// running or not, took about a quarter of the server's CPU at 10,000
// players (the loop's select, the timers and onTick).
func (m *Match) tickEvery() time.Duration {
	if m.round != nil && m.st.State == StateRunning {
		return m.cfg.LeaderboardEvery
	}
	d := idleTick
	if m.st.TimerFor != "" {
		d = min(d, m.cfg.LeaseTTL/6) // a renewal is due every LeaseTTL/3
	}
	return max(d, time.Millisecond)
}

// tickCtx returns the context of the store calls the match's ticks make
// (lease renewals, reconciles, leaderboards): one deadline of opTimeout,
// shared by the calls of the next opTimeout/2, so that at least half of it
// is left to each. A context with its own deadline for each call started a
// runtime timer on every tick of every match (1.7 % of the server's CPU at
// 10,000 players for the reconciles alone). The match goroutine alone uses
// it, and its calls are over before it is replaced.
func (m *Match) tickCtx(now time.Time) context.Context {
	if m.tickCtxV == nil || !now.Before(m.tickCtxFresh) || now.Before(m.tickCtxFresh.Add(-opTimeout)) {
		if m.tickCtxCancel != nil {
			m.tickCtxCancel()
		}
		m.tickCtxV, m.tickCtxCancel = context.WithDeadline(context.Background(), now.Add(opTimeout))
		m.tickCtxFresh = now.Add(opTimeout / 2)
	}
	return m.tickCtxV
}

// safely runs f, turning a panic into a log line so one bad command cannot
// take the match (or the process) down.
func (m *Match) safely(f func()) {
	defer func() {
		if p := recover(); p != nil {
			m.cfg.Logger.Error("match command panicked", "panic", fmt.Sprint(p))
			m.rollback()
		}
	}()
	f()
}

// setTimer sets the clock's next event in the record.
func (m *Match) setTimer(d time.Duration, what State) {
	m.st.TimerFor, m.st.TimerAt = what, time.Now().Add(d)
}

func (m *Match) stopTimer() {
	m.st.TimerFor, m.st.TimerAt = "", time.Time{}
}

// armTimer sets this node's timer for the record's next clock event if
// this node drives the clock.
func (m *Match) armTimer() {
	m.timer.Stop()
	select {
	case <-m.timer.C:
	default:
	}
	if m.st.TimerFor != "" && m.leased {
		m.timer.Reset(max(time.Until(m.st.TimerAt), 0))
	}
}

// renewLease takes or renews the lease on the match's clock while the
// clock has an event to come, and gives it up otherwise.
func (m *Match) renewLease(now time.Time) {
	if m.st.TimerFor == "" {
		m.releaseLease()
		return
	}
	m.leaseAt = now
	ok, err := m.cfg.Coord.Lease(m.tickCtx(now), "match:"+m.ID, m.cfg.Node, m.cfg.LeaseTTL)
	if err != nil {
		m.cfg.Logger.Warn("renewing the clock's lease failed", "err", err)
		ok = false
	}
	if ok != m.leased {
		m.leased = ok
		m.armTimer()
	}
}

func (m *Match) releaseLease() {
	if !m.leased {
		return
	}
	m.leased = false
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	_ = m.cfg.Coord.ReleaseLease(ctx, "match:"+m.ID, m.cfg.Node)
}

// changed marks the state changed and queues the new snapshot for every
// member and spectator.
func (m *Match) changed() {
	m.changedSt = true
	m.outbox = append(m.outbox, outMsg{To: m.audience(true), Info: true})
}

// send queues msg for one player.
func (m *Match) send(id string, msg []byte) {
	m.outbox = append(m.outbox, outMsg{To: []string{id}, Msg: msg})
}

// broadcast queues msg for every active member and, if spectators, for them.
func (m *Match) broadcast(msg []byte, spectators bool) {
	m.outbox = append(m.outbox, outMsg{To: m.audience(spectators), Msg: msg})
}

// audience lists the active members and, if spectators, the spectators.
func (m *Match) audience(spectators bool) []string {
	var to []string
	for _, mb := range m.st.Members {
		if !mb.Left {
			to = append(to, mb.ID)
		}
	}
	if spectators {
		for _, id := range slices.Sorted(maps.Keys(m.st.Spectators)) {
			to = append(to, id)
		}
	}
	return to
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

// Join seats a player; joining again is a no-op. A player who left the
// match once it had started is refused with ErrLeft.
func (m *Match) Join(ctx context.Context, p Player) error {
	return m.do(ctx, func() error {
		added, err := m.seat(p)
		if added {
			m.maybeAutoStart()
		}
		return err
	})
}

// JoinMany seats players in the order given, as one change of the match's
// record (one save, however many players), while the match is open and has
// free seats. It returns how many were seated: always the first n of ps
// (a player who is a member already counts as seated). With an error n is
// 0: ErrNotOpen, ErrMatchFull or ErrLeft when the match took nobody; as
// with Join, an error other than those, ErrBusy and the context's may come
// from a
// save that landed though its answer was lost. A full match starts as it
// does after Join.
func (m *Match) JoinMany(ctx context.Context, ps []Player) (n int, err error) {
	err = m.do(ctx, func() error {
		n = 0 // a retry after a conflicting save starts again
		anyAdded := false
		for _, p := range ps {
			added, err := m.seat(p)
			if err != nil {
				if n == 0 {
					return err
				}
				break
			}
			anyAdded = anyAdded || added
			n++
		}
		if anyAdded {
			m.maybeAutoStart()
		}
		return nil
	})
	if err != nil {
		n = 0
	}
	return n, err
}

// seat makes p a member (added), or marks a member connected again;
// ErrLeft for a member who left once the match had started.
func (m *Match) seat(p Player) (added bool, err error) {
	if mb := m.member(p.ID); mb != nil {
		if mb.Left {
			return false, ErrLeft
		}
		if m.seen(p.ID) || !mb.Connected {
			mb.Connected = true
			m.changed()
		}
		return false, nil
	}
	if m.st.State != StateOpen {
		return false, ErrNotOpen
	}
	if len(m.active()) >= m.Settings.MaxPlayers {
		return false, ErrMatchFull
	}
	delete(m.st.Spectators, p.ID)
	m.st.Members = append(m.st.Members, &member{Player: p, Connected: true, Join: m.st.Joins})
	m.seen(p.ID)
	m.st.Joins++
	if m.st.Host == "" {
		m.st.Host = p.ID
	}
	m.changed()
	return true, nil
}

// Leave takes a player out of the match. In an open match the seat is
// freed; once rounds are being played, the player resigns the current game
// and sits out the rest.
func (m *Match) Leave(ctx context.Context, playerID string) error {
	return m.leave(ctx, playerID, false)
}

// LeaveIdle is Leave for a player moving on to another match: it takes
// them out only while the match is open or over, and otherwise fails with
// ErrNotOpen, changing nothing. The state is checked on the match's
// goroutine, so a match that starts just before does not forfeit a game
// its player is about to play (Info may say open a moment longer).
func (m *Match) LeaveIdle(ctx context.Context, playerID string) error {
	return m.leave(ctx, playerID, true)
}

func (m *Match) leave(ctx context.Context, playerID string, idleOnly bool) error {
	return m.do(ctx, func() error {
		if mb := m.member(playerID); idleOnly && mb != nil && !mb.Left && m.st.State != StateOpen && m.st.State != StateOver {
			return ErrNotOpen
		}
		if m.st.Spectators[playerID] {
			delete(m.st.Spectators, playerID)
			m.changed()
			return nil
		}
		mb := m.member(playerID)
		if mb == nil {
			return ErrNotMember
		}
		if m.st.State == StateOpen {
			m.st.Members = slices.DeleteFunc(m.st.Members, func(x *member) bool { return x == mb })
		} else {
			if !mb.Left && m.round != nil && (m.st.State == StateRunning || m.st.State == StateStarting) {
				if err := m.round.Forfeit(ctx, playerID, time.Now()); err != nil {
					m.cfg.Logger.Warn("forfeit on leave failed", "round", m.round.ID, "err", err)
				}
			}
			mb.Left = true
		}
		if m.st.Host == playerID {
			m.st.Host = ""
			if a := m.active(); len(a) > 0 {
				m.st.Host = a[0].ID
			}
		}
		m.changed()
		if len(m.active()) == 0 {
			switch m.st.State {
			case StateStarting, StateRunning:
				// Everyone left: the round still ends properly, with its
				// results, before the match does.
				m.st.State = StateRunning
				if err := m.endRound(ctx); err != nil {
					return err
				}
			case StateOver:
			default:
				m.finish(ctx)
			}
		}
		return nil
	})
}

// SetReady marks a player ready or not; a full match whose players are all
// ready starts by itself.
func (m *Match) SetReady(ctx context.Context, playerID string, ready bool) error {
	return m.do(ctx, func() error {
		mb := m.member(playerID)
		if mb == nil || mb.Left {
			return ErrNotMember
		}
		mb.Ready = ready
		m.changed()
		m.maybeAutoStart()
		return nil
	})
}

// Start starts the first round; only the host may.
func (m *Match) Start(ctx context.Context, playerID string) error {
	return m.do(ctx, func() error {
		if m.st.State != StateOpen {
			return ErrAlreadyStart
		}
		if playerID != m.st.Host {
			return ErrNotHost
		}
		return m.startRound()
	})
}

// Spectate adds a spectator: they get match updates and leaderboards, never
// a board.
func (m *Match) Spectate(ctx context.Context, playerID string) error {
	return m.do(ctx, func() error {
		if m.member(playerID) != nil {
			return nil
		}
		if m.seen(playerID) || !m.st.Spectators[playerID] {
			m.st.Spectators[playerID] = true
			m.changed()
		}
		if m.round != nil {
			b, err := m.leaderboardMsg(ctx, time.Now())
			if err != nil {
				return err
			}
			m.send(playerID, b)
		}
		return nil
	})
}

// SetConnected records whether a player has a live connection.
func (m *Match) SetConnected(ctx context.Context, playerID string, connected bool) error {
	return m.do(ctx, func() error {
		mb := m.member(playerID)
		if mb == nil {
			return nil
		}
		moved := connected && m.seen(playerID)
		if mb.Connected != connected || moved {
			mb.Connected = connected
			m.changed()
		}
		return nil
	})
}

// CloseAbandoned ends an open match none of whose members is connected,
// as the record says when the command runs: it becomes over, as when its
// last member leaves, and leaves the lobby's list. It reports whether it
// did; a match that is not open, or has a member connected, is left alone.
// How long the members have been away is the caller's to judge.
func (m *Match) CloseAbandoned(ctx context.Context) (closed bool, err error) {
	err = m.do(ctx, func() error {
		closed = false // a retry after a conflicting save starts again
		if m.st.State != StateOpen {
			return nil
		}
		for _, mb := range m.active() {
			if mb.Connected {
				return nil
			}
		}
		m.changed()
		m.finish(ctx)
		closed = true
		return nil
	})
	if err != nil {
		closed = false
	}
	return closed, err
}

// Resume sends the player what they need to continue after a reconnect:
// the match and, during a round, their view and last acknowledged seq. The
// player may have played on another node since this one last served them,
// so their seat here is made again from the store's log.
func (m *Match) Resume(ctx context.Context, playerID string) error {
	return m.do(ctx, func() error {
		// With the shared state unreachable, what this node knows is
		// still the best answer.
		err := m.reload(ctx)
		if err != nil && !errors.Is(err, ErrUnavailable) {
			return err
		}
		if err == nil && m.round != nil {
			// The player may have played on another node since: the seat
			// is made again from the log (kept, when the store is away).
			m.round.Reseat(playerID)
		}
		return m.catchUp(ctx, playerID)
	})
}

// catchUp queues for the player what they need to be where the match is:
// the match and, as the phase asks, round_starting, their round_started
// view with the leaderboard, or the last results.
func (m *Match) catchUp(ctx context.Context, playerID string) error {
	m.send(playerID, encode(matchMsg{Type: "match", Match: m.Info()}))
	if m.round == nil || m.member(playerID) == nil && !m.st.Spectators[playerID] {
		return nil
	}
	now := time.Now()
	switch m.st.State {
	case StateStarting:
		m.send(playerID, m.roundStartingMsg())
	case StateRunning:
		if mb := m.member(playerID); mb != nil && !mb.Left && m.round.HasPlayer(playerID) {
			b, err := m.roundStartedMsg(playerID, now, true)
			if err != nil {
				return err
			}
			m.send(playerID, b)
		}
		b, err := m.leaderboardMsg(ctx, now)
		if err != nil {
			return err
		}
		m.send(playerID, b)
	case StateBetween:
		m.send(playerID, m.st.LastOver)
	case StateOver:
		if m.st.LastOver != nil {
			m.send(playerID, m.st.LastOver)
		}
		m.send(playerID, m.st.MatchOver)
	}
	return nil
}

// reconcileEvery is how often a node reads the record of a match it serves
// players of, in case it missed news from another node (pub/sub is best
// effort: a node that was resubscribing loses what was published meanwhile).
const reconcileEvery = 2 * time.Second

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

// Void ends a match that the shared state lost (the Coord's data epoch
// changed: Redis came back without its data): a round being dealt or
// played ends void, ranked on what is known and left out of the totals,
// and the match is over. This node's replica is all that is left of the
// match, so it writes the record again from it. A node that finds the match
// voided already by another node only tells its own players. A match that
// is over already is left alone.
func (m *Match) Void(ctx context.Context, reason string) error {
	return m.do(ctx, func() error {
		switch _, _, err := m.cfg.Coord.LoadMatch(ctx, m.ID); {
		case errors.Is(err, ErrNotFound):
			m.version = 0 // lost: the save below makes the record anew
		case err != nil:
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		default:
			if err := m.reload(ctx); err != nil {
				return err
			}
		}
		if m.st.State == StateOver {
			if m.st.Void != "" && !m.voidTold {
				m.voidTold = true
				// Voided by another node: its messages reached only its
				// own players.
				for _, b := range []json.RawMessage{m.st.LastOver, m.st.MatchOver} {
					if b != nil {
						m.broadcast(b, true)
					}
				}
			}
			return nil
		}
		m.st.Void = reason
		m.stopTimer()
		if r := m.round; r != nil && (m.st.State == StateStarting || m.st.State == StateRunning) {
			sts, err := r.End(ctx, time.Now())
			if err != nil {
				// Rank what this node knows rather than nothing.
				m.cfg.Logger.Warn("voiding: the round's standings are unavailable", "round", r.ID, "err", err)
				sts = nil
			}
			endMs := r.endMs.Load()
			m.st.Round.Phase, m.st.Round.EndMs = phaseNames[roundOver], endMs
			m.st.LastOver = encode(roundOverMsg{
				Type: "round_over", MatchID: m.ID, RoundID: r.ID, Round: r.Number,
				Results: Rank(r.Mode, r.Rules, sts, endMs),
				Deal: DealReveal{
					Seed: strconv.FormatUint(r.Fair.Seed, 10), Salt: r.Fair.Salt, Commitment: r.Fair.Commitment,
					KnownDeal: r.Fair.Known, Layout: r.Deal,
				},
				ReplayURL: "/api/v1/rounds/" + r.ID + "/replay",
				Totals:    m.rankTotals(), Void: reason,
			})
			m.broadcast(m.st.LastOver, true)
		}
		m.st.State = StateOver
		m.st.MatchOver = encode(matchOverMsg{Type: "match_over", MatchID: m.ID, Totals: m.rankTotals(), Void: reason})
		m.broadcast(m.st.MatchOver, true)
		m.changed()
		m.after = append(m.after, func() {
			m.voidTold = true
			m.cfg.Logger.Warn("match voided", "reason", reason)
		})
		return nil
	})
}

// SetNextMatch records the rematch's id and tells everyone.
func (m *Match) SetNextMatch(ctx context.Context, id string) error {
	return m.do(ctx, func() error {
		m.st.NextMatch = id
		m.changed()
		return nil
	})
}

// Members returns the players who have not left, in seat order.
func (m *Match) Members(ctx context.Context) ([]Player, error) {
	var out []Player
	err := m.do(ctx, func() error {
		out = out[:0]
		for _, mb := range m.active() {
			out = append(out, mb.Player)
		}
		return nil
	})
	return out, err
}

func (m *Match) member(id string) *member {
	for _, mb := range m.st.Members {
		if mb.ID == id {
			return mb
		}
	}
	return nil
}

func (m *Match) active() []*member {
	var a []*member
	for _, mb := range m.st.Members {
		if !mb.Left {
			a = append(a, mb)
		}
	}
	return a
}

// maybeAutoStart starts an open match that is full with everyone ready, and
// arms a quick match's short wait once two players are in.
func (m *Match) maybeAutoStart() {
	if m.st.State != StateOpen {
		return
	}
	a := m.active()
	full := len(a) >= m.Settings.MaxPlayers
	allReady := len(a) > 0
	for _, mb := range a {
		allReady = allReady && mb.Ready
	}
	if full && (allReady || m.Quick) {
		if err := m.startRound(); err != nil {
			m.cfg.Logger.Error("starting a full match", "err", err)
		}
		return
	}
	if m.Quick && len(a) >= 2 && m.st.TimerFor != StateOpen {
		m.setTimer(m.cfg.QuickWait, StateOpen)
	}
}

// onTimer runs the clock's event that is due, as a command.
func (m *Match) onTimer() {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	err := m.exec(ctx, func() error {
		what := m.st.TimerFor
		if what == "" || time.Now().Before(m.st.TimerAt) {
			return nil // another node ran it, or moved the clock
		}
		m.stopTimer()
		m.changedSt = true
		switch what {
		case StateOpen:
			if m.st.State == StateOpen && len(m.active()) >= 2 {
				if err := m.startRound(); err != nil {
					m.cfg.Logger.Error("starting a quick match", "err", err)
				}
			}
		case StateStarting:
			return m.openRound(ctx)
		case StateRunning:
			return m.endRound(ctx)
		case StateBetween:
			if err := m.startRound(); err != nil {
				m.cfg.Logger.Error("starting the next round", "err", err)
				m.finish(ctx)
				m.changed()
			}
		}
		return nil
	})
	if err != nil {
		// The store or the Coord failed: try the event again shortly.
		m.cfg.Logger.Warn("a clock event failed; retrying", "err", err)
		m.timer.Reset(time.Second)
	}
}

// onFinished ends the round once every player's game is over, by the
// store's standings: the players may be on different nodes.
func (m *Match) onFinished() {
	if m.round == nil || m.st.State != StateRunning {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	m.tellBoard(ctx) // this node's viewers get the board next tick
	err := m.exec(ctx, func() error {
		if m.round == nil || m.st.State != StateRunning {
			return nil
		}
		all, err := m.round.AllFinished(ctx)
		if err != nil || !all {
			return err
		}
		return m.endRound(ctx)
	})
	if err != nil {
		m.cfg.Logger.Warn("ending a finished round failed; the clock will", "err", err)
	}
}

// onTick renews the clock's lease now and then and sends the leaderboard
// to this node's viewers when it changed.
func (m *Match) onTick(now time.Time) {
	if now.Sub(m.leaseAt) >= m.cfg.LeaseTTL/3 {
		m.renewLease(now)
	}
	if now.Sub(m.checkedAt) >= reconcileEvery {
		m.checkedAt = now
		m.reconcile(now)
	}
	if m.round == nil || m.st.State != StateRunning {
		return
	}
	m.tellBoard(nil)
	due := m.boardHot || m.boardDue && now.Sub(m.lastBoard) >= m.cfg.LeaderboardMinorEvery ||
		m.rules.Scoring == engine.ScoringStandard && now.Sub(m.lastBoard) >= standardRefresh
	if !due {
		return
	}
	to := m.localAudience()
	if len(to) == 0 {
		m.boardDue, m.boardHot = false, false
		return
	}
	b, err := m.leaderboardMsg(m.tickCtx(now), now)
	if err != nil {
		return // the flags stay: try again next tick
	}
	m.boardDue, m.boardHot = false, false
	m.lastBoard = now
	m.deliver([]outMsg{{To: to, Msg: b}})
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
	env := mustJSON(Envelope{Node: m.cfg.Node, Match: m.ID, Board: m.round.ID, Urgent: urgent})
	if err := m.cfg.Coord.Publish(ctx, env); err != nil {
		m.cfg.Logger.Warn("telling the other nodes failed", "err", err)
	}
}

// startRound deals the next round and starts its countdown.
func (m *Match) startRound() error {
	players := m.active()
	if len(players) == 0 {
		return ErrNoPlayers
	}
	var fair FairDeal
	var err error
	switch seed, ok := m.winnableSeed(); {
	case m.Settings.Seed != "":
		seed, _ := strconv.ParseUint(m.Settings.Seed, 10, 64)
		fair = KnownDeal(seed)
	case ok:
		if fair, err = NewFairDealFor(seed, randomReader); err != nil {
			return err
		}
		fair.Winnable = true
	default:
		if fair, err = NewFairDeal(randomReader); err != nil {
			return err
		}
	}
	ps := make([]Player, len(players))
	for i, mb := range players {
		ps[i] = mb.Player
	}
	now := time.Now()
	countdown := time.Duration(m.Settings.CountdownS) * time.Second
	r, err := NewRound(m.cfg.NewID(), m.ID, m.st.RoundN+1, m.rules, m.Settings.Mode, fair,
		now.Add(countdown), time.Duration(m.Settings.TimeLimitS)*time.Second, ps, m.cfg.Store)
	if err != nil {
		return err
	}
	m.st.RoundN++
	rr := r.Record()
	m.st.Round = &rr
	m.newRound = r
	for _, mb := range players {
		if m.st.Totals[mb.ID] == nil {
			m.st.Totals[mb.ID] = &Total{PlayerID: mb.ID, Name: mb.Name, Placings: []int{}}
		}
	}
	m.st.State = StateStarting
	m.after = append(m.after, func() {
		m.cfg.Logger.Info("round dealt", "round", r.ID, "number", r.Number, "players", len(ps))
	})
	m.changed()
	m.broadcast(m.roundStartingMsg(), true)
	m.setTimer(countdown, StateStarting)
	return nil
}

// winnableSeed takes a deal proved winnable for a match that asks for
// them; false when the match does not, or no deal is ready (the round is
// then dealt any deal and round_starting says so).
func (m *Match) winnableSeed() (uint64, bool) {
	if m.Settings.Deals != DealsWinnable || m.Settings.Seed != "" || m.cfg.Winnable == nil {
		return 0, false
	}
	return m.cfg.Winnable.Take(m.rules)
}

// winnableField is round_starting's and round_started's "winnable": for a
// match with deals "winnable", whether this deal was proved winnable.
func (m *Match) winnableField(f FairDeal) *bool {
	if m.Settings.Deals != DealsWinnable {
		return nil
	}
	w := f.Winnable
	return &w
}

func (m *Match) roundStartingMsg() []byte {
	r := m.st.Round
	msg := roundStartingMsg{
		Type: "round_starting", MatchID: m.ID, RoundID: r.ID, Round: r.Number, StartsAt: r.StartsAt,
		EndsAt: r.EndsAt, Commitment: r.Fair.Commitment, KnownDeal: r.Fair.Known, Rules: r.Rules,
		Winnable: m.winnableField(r.Fair),
	}
	if r.Fair.Known {
		msg.Seed = strconv.FormatUint(r.Fair.Seed, 10)
	}
	return encode(msg)
}

func (m *Match) roundStartedMsg(playerID string, now time.Time, resumed bool) ([]byte, error) {
	r := m.round
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	view, last, err := r.View(ctx, playerID, now)
	if err != nil {
		return nil, err
	}
	msg := RoundStartedMsg{
		Type: "round_started", MatchID: m.ID, RoundID: r.ID, Round: r.Number, StartsAt: r.StartsAt,
		EndsAt: r.EndsAt, Rules: r.Rules, Commitment: r.Fair.Commitment, KnownDeal: r.Fair.Known,
		View: view, LastSeq: last, Resumed: resumed, Winnable: m.winnableField(r.Fair),
	}
	if r.Fair.Known {
		msg.Seed = strconv.FormatUint(r.Fair.Seed, 10)
	}
	return encode(msg), nil
}

// openRound opens the dealt round for moves; each node sends its players
// their views.
func (m *Match) openRound(ctx context.Context) error {
	r := m.round
	if r == nil || m.st.State != StateStarting || m.st.Round == nil || r.ID != m.st.Round.ID {
		return nil
	}
	if err := r.Start(ctx); err != nil {
		// The store is down: the clock tries again shortly rather than
		// start a round whose standings cannot be kept.
		return err
	}
	m.st.State = StateRunning
	m.st.Round.Phase = phaseNames[roundRunning]
	m.changed()
	var to []string
	for _, mb := range m.active() {
		if r.HasPlayer(mb.ID) {
			to = append(to, mb.ID)
		}
	}
	m.outbox = append(m.outbox, outMsg{To: to, Started: true})
	m.setTimer(time.Until(r.EndsAt), StateRunning)
	all, err := r.AllFinished(ctx)
	if err == nil && all {
		return m.endRound(ctx)
	}
	return nil
}

func (m *Match) leaderboardMsg(ctx context.Context, now time.Time) ([]byte, error) {
	r := m.round
	var entries []Entry
	ok := false
	if !m.watchedElsewhere() {
		// Every player's moves go through this node: its seats hold the
		// standings, and the store need not be read.
		entries, ok = r.LocalLeaderboard(now)
	}
	if !ok {
		var err error
		if entries, err = r.Leaderboard(ctx, now); err != nil {
			return nil, err
		}
	}
	return encode(leaderboardMsg{Type: "leaderboard", MatchID: m.ID, RoundID: r.ID, Entries: entries}), nil
}

// endRound closes the round, ranks it, adds to the totals and moves on.
func (m *Match) endRound(ctx context.Context) error {
	r := m.round
	if r == nil || m.st.State != StateRunning {
		return nil
	}
	sts, err := r.End(ctx, time.Now())
	if err != nil {
		return err
	}
	m.stopTimer()
	endMs := r.endMs.Load()
	m.st.Round.Phase, m.st.Round.EndMs = phaseNames[roundOver], endMs
	results := Rank(r.Mode, r.Rules, sts, endMs)
	for _, e := range results {
		t := m.st.Totals[e.PlayerID]
		if t == nil {
			continue
		}
		t.Total += e.Score
		t.Placings = append(t.Placings, e.Rank)
		if e.Rank == 1 {
			t.Wins++
		}
		if e.Status == engine.Won {
			t.GamesWon++
		}
	}
	totals := m.rankTotals()
	m.st.LastOver = encode(roundOverMsg{
		Type: "round_over", MatchID: m.ID, RoundID: r.ID, Round: r.Number, Results: results,
		Deal: DealReveal{
			Seed: strconv.FormatUint(r.Fair.Seed, 10), Salt: r.Fair.Salt, Commitment: r.Fair.Commitment,
			KnownDeal: r.Fair.Known, Layout: r.Deal,
		},
		ReplayURL: "/api/v1/rounds/" + r.ID + "/replay",
		Totals:    totals,
	})
	m.broadcast(m.st.LastOver, true)
	m.after = append(m.after, func() {
		m.cfg.Logger.Info("round over", "round", r.ID, "number", r.Number)
		if m.cfg.OnRoundOver != nil {
			m.cfg.OnRoundOver(r)
		}
	})
	if m.st.RoundN >= m.Settings.Rounds || len(m.active()) == 0 {
		m.finish(ctx)
	} else {
		m.st.State = StateBetween
		m.setTimer(m.cfg.Intermission, StateBetween)
	}
	m.changed()
	return nil
}

// finish ends the match and sends the totals.
func (m *Match) finish(ctx context.Context) {
	m.stopTimer()
	if m.round != nil && m.st.State == StateRunning {
		if _, err := m.round.End(ctx, time.Now()); err != nil {
			m.cfg.Logger.Warn("closing the round failed", "round", m.round.ID, "err", err)
		}
		m.st.Round.Phase, m.st.Round.EndMs = phaseNames[roundOver], m.round.endMs.Load()
	}
	m.st.State = StateOver
	m.st.MatchOver = encode(matchOverMsg{Type: "match_over", MatchID: m.ID, Totals: m.rankTotals()})
	m.broadcast(m.st.MatchOver, true)
	m.changedSt = true
}

// rankTotals orders the totals: in race mode by round wins, then total; in
// score mode by total; ties by seat order.
func (m *Match) rankTotals() []Total {
	out := make([]Total, 0, len(m.st.Totals))
	join := map[string]int{}
	for _, mb := range m.st.Members {
		join[mb.ID] = mb.Join
	}
	for _, t := range m.st.Totals {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Total) int {
		if m.st.Settings.Mode == ModeRace && a.Wins != b.Wins {
			return b.Wins - a.Wins
		}
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return join[a.PlayerID] - join[b.PlayerID]
	})
	for i := range out {
		out[i].Rank = i + 1
		out[i].Placings = slices.Clone(out[i].Placings)
	}
	return out
}

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
	}
	if m.st.Round != nil {
		info.RoundID = m.st.Round.ID
	}
	for _, mb := range m.st.Members {
		if !mb.Left {
			info.Players = append(info.Players, MemberInfo{PlayerID: mb.ID, Name: mb.Name, Ready: mb.Ready, Connected: mb.Connected})
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
