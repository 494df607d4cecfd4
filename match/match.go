package match

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
)

// Config holds what a match needs from its surroundings. A zero duration
// takes the default named beside it.
type Config struct {
	Store  Store
	Sink   Sink
	Logger *slog.Logger
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
	// Intermission is the pause between a round's end and the next round's
	// countdown (default 5 s).
	Intermission time.Duration
	// QuickWait is how long a quick match with at least two players waits
	// for more before it starts by itself (default 10 s).
	QuickWait time.Duration
	// Inbox is how many commands may wait for the match (default 256); past
	// that, commands fail with ErrBusy.
	Inbox int
}

// Defaults of Config.
const (
	DefaultLeaderboardEvery = 250 * time.Millisecond
	DefaultIntermission     = 5 * time.Second
	DefaultQuickWait        = 10 * time.Second
	DefaultInbox            = 256
	// standardRefresh is how often a running standard-scored round's
	// leaderboard is sent even without moves: its time penalty grows every
	// 10 s.
	standardRefresh = 10 * time.Second
)

// A Match is one or more rounds for a set of players. One goroutine owns
// its state: every command runs there, in order; readers use Info, a
// snapshot replaced after every change.
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
	cur   atomic.Pointer[Round]

	// Owned by the match's goroutine.
	host       string
	members    []*member
	spectators map[string]bool
	state      State
	roundN     int
	round      *Round
	totals     map[string]*Total
	timer      *time.Timer
	timerFor   State // what the timer is for: StateStarting (countdown), StateRunning (time limit), StateBetween, StateOpen (quick start)
	lastBoard  time.Time
	lastOver   []byte // the last round_over, resent to a player who resumes between rounds
	matchOver  []byte // match_over, resent to a player who resumes after the match
	nextMatch  string
	joins      int
}

type member struct {
	Player
	ready     bool
	connected bool
	join      int
	left      bool
}

// New makes a match and starts its goroutine; Close stops it.
func New(id, code string, s Settings, quick bool, cfg Config) (*Match, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	rules, _ := s.Rules()
	if cfg.LeaderboardEvery <= 0 {
		cfg.LeaderboardEvery = DefaultLeaderboardEvery
	}
	if cfg.Intermission <= 0 {
		cfg.Intermission = DefaultIntermission
	}
	if cfg.QuickWait <= 0 {
		cfg.QuickWait = DefaultQuickWait
	}
	if cfg.Inbox <= 0 {
		cfg.Inbox = DefaultInbox
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	m := &Match{
		ID: id, Code: code, Settings: s, Quick: quick, rules: rules, cfg: cfg,
		inbox: make(chan func(), cfg.Inbox), stop: make(chan struct{}), done: make(chan struct{}),
		spectators: map[string]bool{}, state: StateOpen, totals: map[string]*Total{},
		timer: time.NewTimer(time.Hour),
	}
	m.timer.Stop()
	m.cfg.Logger = cfg.Logger.With("match", id)
	m.publish()
	go m.loop()
	return m, nil
}

// Close stops the match's goroutine and waits for it.
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

// do runs f on the match's goroutine and waits for it.
func (m *Match) do(ctx context.Context, f func() error) error {
	res := make(chan error, 1)
	select {
	case m.inbox <- func() { res <- f() }:
	case <-m.done:
		return ErrMatchClosed
	default:
		return ErrBusy
	}
	select {
	case err := <-res:
		return err
	case <-m.done:
		return ErrMatchClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m *Match) loop() {
	defer close(m.done)
	tick := time.NewTicker(m.cfg.LeaderboardEvery)
	defer tick.Stop()
	defer m.timer.Stop()
	for {
		var finished <-chan struct{}
		if m.round != nil && m.state == StateRunning {
			finished = m.round.Finished()
		}
		select {
		case f := <-m.inbox:
			m.safely(f)
		case <-m.timer.C:
			m.safely(m.onTimer)
		case <-finished:
			m.safely(func() {
				if m.round.AllFinished() {
					m.endRound()
				}
			})
		case now := <-tick.C:
			m.safely(func() { m.maybeLeaderboard(now) })
		case <-m.stop:
			return
		}
	}
}

// safely runs f, turning a panic into a log line so one bad command cannot
// take the match (or the process) down.
func (m *Match) safely(f func()) {
	defer func() {
		if p := recover(); p != nil {
			m.cfg.Logger.Error("match command panicked", "panic", fmt.Sprint(p))
		}
	}()
	f()
}

func (m *Match) setTimer(d time.Duration, what State) {
	m.timer.Stop()
	select {
	case <-m.timer.C:
	default:
	}
	m.timer.Reset(d)
	m.timerFor = what
}

func (m *Match) stopTimer() {
	m.timer.Stop()
	m.timerFor = ""
}

// Join seats a player; joining again is a no-op.
func (m *Match) Join(ctx context.Context, p Player) error {
	return m.do(ctx, func() error {
		if mb := m.member(p.ID); mb != nil {
			mb.connected = true
			m.changed()
			return nil
		}
		if m.state != StateOpen {
			return ErrNotOpen
		}
		if len(m.active()) >= m.Settings.MaxPlayers {
			return ErrMatchFull
		}
		delete(m.spectators, p.ID)
		m.members = append(m.members, &member{Player: p, connected: true, join: m.joins})
		m.joins++
		if m.host == "" {
			m.host = p.ID
		}
		m.changed()
		m.maybeAutoStart()
		return nil
	})
}

// Leave takes a player out of the match. In an open match the seat is
// freed; once rounds are being played, the player resigns the current game
// and sits out the rest.
func (m *Match) Leave(ctx context.Context, playerID string) error {
	return m.do(ctx, func() error {
		if m.spectators[playerID] {
			delete(m.spectators, playerID)
			m.changed()
			return nil
		}
		mb := m.member(playerID)
		if mb == nil {
			return ErrNotMember
		}
		if m.state == StateOpen {
			m.members = slices.DeleteFunc(m.members, func(x *member) bool { return x == mb })
		} else {
			mb.left = true
			if m.round != nil && (m.state == StateRunning || m.state == StateStarting) {
				if err := m.round.Forfeit(ctx, playerID, time.Now()); err != nil {
					m.cfg.Logger.Warn("forfeit on leave failed", "round", m.round.ID, "err", err)
				}
			}
		}
		if m.host == playerID {
			m.host = ""
			if a := m.active(); len(a) > 0 {
				m.host = a[0].ID
			}
		}
		if len(m.active()) == 0 {
			switch m.state {
			case StateStarting, StateRunning:
				// Everyone left: the round still ends properly, with its
				// results, before the match does.
				m.state = StateRunning
				m.endRound()
			case StateOver:
			default:
				m.finish()
			}
		}
		m.changed()
		return nil
	})
}

// SetReady marks a player ready or not; a full match whose players are all
// ready starts by itself.
func (m *Match) SetReady(ctx context.Context, playerID string, ready bool) error {
	return m.do(ctx, func() error {
		mb := m.member(playerID)
		if mb == nil || mb.left {
			return ErrNotMember
		}
		mb.ready = ready
		m.changed()
		m.maybeAutoStart()
		return nil
	})
}

// Start starts the first round; only the host may.
func (m *Match) Start(ctx context.Context, playerID string) error {
	return m.do(ctx, func() error {
		if m.state != StateOpen {
			return ErrAlreadyStart
		}
		if playerID != m.host {
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
		m.spectators[playerID] = true
		m.changed()
		if m.round != nil {
			m.cfg.Sink.Send(playerID, m.leaderboardMsg(time.Now()))
		}
		return nil
	})
}

// SetConnected records whether a player has a live connection.
func (m *Match) SetConnected(ctx context.Context, playerID string, connected bool) error {
	return m.do(ctx, func() error {
		if mb := m.member(playerID); mb != nil && mb.connected != connected {
			mb.connected = connected
			m.changed()
		}
		return nil
	})
}

// Resume sends the player what they need to continue after a reconnect:
// the match and, during a round, their view and last acknowledged seq.
func (m *Match) Resume(ctx context.Context, playerID string) error {
	return m.do(ctx, func() error {
		m.cfg.Sink.Send(playerID, encode(matchMsg{Type: "match", Match: m.Info()}))
		mb := m.member(playerID)
		if mb == nil || m.round == nil {
			return nil
		}
		now := time.Now()
		switch m.state {
		case StateStarting:
			m.cfg.Sink.Send(playerID, m.roundStartingMsg())
		case StateRunning:
			if m.round.HasPlayer(playerID) {
				m.cfg.Sink.Send(playerID, m.roundStartedMsg(playerID, now, true))
			}
			m.cfg.Sink.Send(playerID, m.leaderboardMsg(now))
		case StateBetween:
			m.cfg.Sink.Send(playerID, m.lastOver)
		case StateOver:
			if m.lastOver != nil {
				m.cfg.Sink.Send(playerID, m.lastOver)
			}
			m.cfg.Sink.Send(playerID, m.matchOver)
		}
		return nil
	})
}

// SetNextMatch records the rematch's id and tells everyone.
func (m *Match) SetNextMatch(ctx context.Context, id string) error {
	return m.do(ctx, func() error {
		m.nextMatch = id
		m.changed()
		return nil
	})
}

// Members returns the players who have not left, in seat order.
func (m *Match) Members(ctx context.Context) ([]Player, error) {
	var out []Player
	err := m.do(ctx, func() error {
		for _, mb := range m.active() {
			out = append(out, mb.Player)
		}
		return nil
	})
	return out, err
}

func (m *Match) member(id string) *member {
	for _, mb := range m.members {
		if mb.ID == id {
			return mb
		}
	}
	return nil
}

func (m *Match) active() []*member {
	var a []*member
	for _, mb := range m.members {
		if !mb.left {
			a = append(a, mb)
		}
	}
	return a
}

// maybeAutoStart starts an open match that is full with everyone ready, and
// arms a quick match's short wait once two players are in.
func (m *Match) maybeAutoStart() {
	if m.state != StateOpen {
		return
	}
	a := m.active()
	full := len(a) >= m.Settings.MaxPlayers
	allReady := len(a) > 0
	for _, mb := range a {
		allReady = allReady && mb.ready
	}
	if full && (allReady || m.Quick) {
		if err := m.startRound(); err != nil {
			m.cfg.Logger.Error("starting a full match", "err", err)
		}
		return
	}
	if m.Quick && len(a) >= 2 && m.timerFor != StateOpen {
		m.setTimer(m.cfg.QuickWait, StateOpen)
	}
}

func (m *Match) onTimer() {
	what := m.timerFor
	m.timerFor = ""
	switch what {
	case StateOpen:
		if m.state == StateOpen && len(m.active()) >= 2 {
			if err := m.startRound(); err != nil {
				m.cfg.Logger.Error("starting a quick match", "err", err)
			}
		}
	case StateStarting:
		m.openRound()
	case StateRunning:
		m.endRound()
	case StateBetween:
		if err := m.startRound(); err != nil {
			m.cfg.Logger.Error("starting the next round", "err", err)
			m.finish()
			m.changed()
		}
	}
}

// startRound deals the next round and starts its countdown.
func (m *Match) startRound() error {
	players := m.active()
	if len(players) == 0 {
		return ErrNoPlayers
	}
	var fair FairDeal
	if m.Settings.Seed != "" {
		seed, _ := strconv.ParseUint(m.Settings.Seed, 10, 64)
		fair = KnownDeal(seed)
	} else {
		var err error
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
	r, err := NewRound(m.cfg.NewID(), m.ID, m.roundN+1, m.rules, m.Settings.Mode, fair,
		now.Add(countdown), time.Duration(m.Settings.TimeLimitS)*time.Second, ps, m.cfg.Store)
	if err != nil {
		return err
	}
	m.roundN++
	m.round = r
	m.cur.Store(r)
	for _, mb := range players {
		if m.totals[mb.ID] == nil {
			m.totals[mb.ID] = &Total{PlayerID: mb.ID, Name: mb.Name, Placings: []int{}, join: mb.join}
		}
	}
	if m.cfg.OnRound != nil {
		m.cfg.OnRound(r)
	}
	m.state = StateStarting
	m.cfg.Logger.Info("round dealt", "round", r.ID, "number", r.Number, "players", len(ps))
	m.changed()
	m.broadcast(m.roundStartingMsg(), true)
	m.setTimer(countdown, StateStarting)
	return nil
}

func (m *Match) roundStartingMsg() []byte {
	r := m.round
	msg := roundStartingMsg{
		Type: "round_starting", MatchID: m.ID, RoundID: r.ID, Round: r.Number, StartsAt: r.StartsAt,
		EndsAt: r.EndsAt, Commitment: r.Fair.Commitment, KnownDeal: r.Fair.Known, Rules: r.Rules,
	}
	if r.Fair.Known {
		msg.Seed = strconv.FormatUint(r.Fair.Seed, 10)
	}
	return encode(msg)
}

func (m *Match) roundStartedMsg(playerID string, now time.Time, resumed bool) []byte {
	r := m.round
	view, last, _ := r.View(playerID, now)
	msg := RoundStartedMsg{
		Type: "round_started", MatchID: m.ID, RoundID: r.ID, Round: r.Number, StartsAt: r.StartsAt,
		EndsAt: r.EndsAt, Rules: r.Rules, Commitment: r.Fair.Commitment, KnownDeal: r.Fair.Known,
		View: view, LastSeq: last, Resumed: resumed,
	}
	if r.Fair.Known {
		msg.Seed = strconv.FormatUint(r.Fair.Seed, 10)
	}
	return encode(msg)
}

// openRound opens the dealt round for moves and sends each player their view.
func (m *Match) openRound() {
	r := m.round
	if err := r.Start(context.Background()); err != nil {
		// The store is down: try again shortly rather than start a round
		// whose standings cannot be kept.
		m.cfg.Logger.Warn("opening round failed; retrying", "round", r.ID, "err", err)
		m.setTimer(time.Second, StateStarting)
		return
	}
	m.state = StateRunning
	now := time.Now()
	for _, mb := range m.active() {
		if r.HasPlayer(mb.ID) {
			m.cfg.Sink.Send(mb.ID, m.roundStartedMsg(mb.ID, now, false))
		}
	}
	m.changed()
	m.setTimer(time.Until(r.EndsAt), StateRunning)
	if r.AllFinished() {
		m.endRound()
	}
}

// maybeLeaderboard sends a running round's leaderboard when it changed, at
// most once an interval (the ticker's), and every standardRefresh anyway in
// standard scoring, whose scores fall with time.
func (m *Match) maybeLeaderboard(now time.Time) {
	if m.round == nil || m.state != StateRunning {
		return
	}
	dirty := m.round.TakeDirty()
	if !dirty && !(m.rules.Scoring == engine.ScoringStandard && now.Sub(m.lastBoard) >= standardRefresh) {
		return
	}
	m.lastBoard = now
	m.broadcast(m.leaderboardMsg(now), true)
}

func (m *Match) leaderboardMsg(now time.Time) []byte {
	r := m.round
	return encode(leaderboardMsg{Type: "leaderboard", MatchID: m.ID, RoundID: r.ID, Entries: r.Leaderboard(now)})
}

// endRound closes the round, ranks it, adds to the totals and moves on.
func (m *Match) endRound() {
	r := m.round
	if r == nil || m.state != StateRunning {
		return
	}
	m.stopTimer()
	now := time.Now()
	if err := r.End(context.Background(), now); err != nil {
		m.cfg.Logger.Warn("storing final standings failed", "round", r.ID, "err", err)
	}
	results := r.Leaderboard(now)
	for _, e := range results {
		t := m.totals[e.PlayerID]
		if t == nil {
			continue
		}
		t.Total += e.Score
		t.Placings = append(t.Placings, e.Rank)
		if e.Rank == 1 {
			t.Wins++
		}
	}
	totals := m.rankTotals()
	m.lastOver = encode(roundOverMsg{
		Type: "round_over", MatchID: m.ID, RoundID: r.ID, Round: r.Number, Results: results,
		Deal: DealReveal{
			Seed: strconv.FormatUint(r.Fair.Seed, 10), Salt: r.Fair.Salt, Commitment: r.Fair.Commitment,
			KnownDeal: r.Fair.Known, Layout: r.Deal,
		},
		ReplayURL: "/api/v1/rounds/" + r.ID + "/replay",
		Totals:    totals,
	})
	m.broadcast(m.lastOver, true)
	m.cfg.Logger.Info("round over", "round", r.ID, "number", r.Number)
	if m.cfg.OnRoundOver != nil {
		m.cfg.OnRoundOver(r)
	}
	if m.roundN >= m.Settings.Rounds || len(m.active()) == 0 {
		m.finish()
	} else {
		m.state = StateBetween
		m.setTimer(m.cfg.Intermission, StateBetween)
	}
	m.changed()
}

// finish ends the match and sends the totals.
func (m *Match) finish() {
	m.stopTimer()
	if m.round != nil && m.state == StateRunning {
		_ = m.round.End(context.Background(), time.Now())
	}
	m.state = StateOver
	m.matchOver = encode(matchOverMsg{Type: "match_over", MatchID: m.ID, Totals: m.rankTotals()})
	m.broadcast(m.matchOver, true)
}

// rankTotals orders the totals: in race mode by round wins, then total; in
// score mode by total; ties by seat order.
func (m *Match) rankTotals() []Total {
	out := make([]Total, 0, len(m.totals))
	for _, t := range m.totals {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Total) int {
		if m.Settings.Mode == ModeRace && a.Wins != b.Wins {
			return b.Wins - a.Wins
		}
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return a.join - b.join
	})
	for i := range out {
		out[i].Rank = i + 1
		out[i].Placings = slices.Clone(out[i].Placings)
	}
	return out
}

// changed publishes a new snapshot and sends it to every member and spectator.
func (m *Match) changed() {
	info := m.publish()
	m.broadcast(encode(matchMsg{Type: "match", Match: info}), true)
	if m.cfg.OnChange != nil {
		m.cfg.OnChange(info)
	}
}

func (m *Match) publish() *MatchInfo {
	info := &MatchInfo{
		ID: m.ID, Code: m.Code, Host: m.host, Settings: m.Settings, State: m.state, Round: m.roundN,
		Spectators: len(m.spectators), Quick: m.Quick, NextMatch: m.nextMatch, Players: []MemberInfo{},
	}
	if m.round != nil {
		info.RoundID = m.round.ID
	}
	for _, mb := range m.active() {
		info.Players = append(info.Players, MemberInfo{PlayerID: mb.ID, Name: mb.Name, Ready: mb.ready, Connected: mb.connected})
	}
	if len(m.totals) > 0 {
		info.Totals = m.rankTotals()
	}
	m.info.Store(info)
	return info
}

// broadcast sends msg to every active member and, if spectators, to them.
func (m *Match) broadcast(msg []byte, spectators bool) {
	for _, mb := range m.members {
		if !mb.left {
			m.cfg.Sink.Send(mb.ID, msg)
		}
	}
	if spectators {
		for id := range m.spectators {
			m.cfg.Sink.Send(id, msg)
		}
	}
}

// State returns the match's phase from its snapshot.
func (m *Match) State() State { return m.Info().State }
