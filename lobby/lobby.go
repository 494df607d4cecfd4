// Package lobby holds the open matches and the players' sessions: create,
// list, join by id or invite code, quick match, ready and start, spectate,
// rematch. It owns the registry; each match runs its own goroutine.
package lobby

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"klondike/match"
	"klondike/match/memstore"
)

// Errors of the lobby; the api maps each to a wire code.
var (
	ErrBadName        = errors.New("a name is 1 to 24 printable characters")
	ErrUnknownToken   = errors.New("unknown or expired token")
	ErrNoSuchMatch    = errors.New("no such match")
	ErrNoSuchRound    = errors.New("no such round")
	ErrInAnotherMatch = errors.New("you are playing in another match: leave it first")
	ErrShuttingDown   = errors.New("the server is shutting down")
	// ErrNotReady: the node has not yet read the shared state's data
	// epoch, without which it could not tell that the state lost its data
	// since (see Config.DataEpochEvery); it serves no match until then.
	ErrNotReady = fmt.Errorf("%w: the server has not reached its store yet; try again", match.ErrUnavailable)
	// ErrTooManyOpenFromAddr: the players of one address have made
	// Config.MaxOpenPerIP open matches on this node.
	ErrTooManyOpenFromAddr = errors.New("too many open matches from your address: start or leave one first")
	// ErrTooManyOpen: this node holds Config.MaxOpen open matches.
	ErrTooManyOpen = errors.New("the server has too many open matches; try again later")
	// ErrTooManyNewSessions: one address started Config.NewSessionsPerMinute
	// sessions in the last minute.
	ErrTooManyNewSessions = errors.New("too many new players from your address; try again in a minute")
)

// A Session is a player's identity on this server. The token lets the same
// player reconnect; it is a secret and never logged.
type Session struct {
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`
	Token    string `json:"-"`
}

// Config holds the lobby's dependencies and settings. Zero durations take
// the defaults named beside them.
type Config struct {
	Store match.Store
	// Coord holds the matches' records and the lobby's indexes, shared by
	// every node; nil keeps them in this process (memstore.NewCoord).
	Coord match.Coord
	// Sessions keep the players' sessions; nil keeps them in this process.
	Sessions Sessions
	Sink     match.Sink
	Logger   *slog.Logger
	// Match is the configuration template for every match (its Store, Sink,
	// Logger, NewID, OnRound and OnChange are set by the lobby).
	Match match.Config
	// MatchRetention is how long a finished match stays listed for its
	// players (default 30 min); RoundRetention how long a finished round's
	// leaderboard and replay stay available (default 24 h); SessionIdle how
	// long an unused session lives (default 7 days).
	MatchRetention time.Duration
	RoundRetention time.Duration
	SessionIdle    time.Duration
	// DataEpochEvery is how often the Coord's data epoch is checked
	// (default 2 s): when it changes, the shared state lost its data, and
	// the matches this node serves are voided (match.Match.Void).
	DataEpochEvery time.Duration
	// AbandonedAfter is how long an open match stays open once none of
	// its members is connected (default 2 min): then it is closed (over),
	// as when its last member leaves, and leaves the list.
	AbandonedAfter time.Duration
	// MaxOpen bounds the open matches made on this node, quick ones
	// included (default 1000); MaxOpenPerIP those of them made by players
	// whose hello came from one address (default 10; quick matches, made
	// for whoever asks with the same rules, are not counted per address).
	// A match stops counting when it leaves the open state. Negative: no
	// cap.
	MaxOpen      int
	MaxOpenPerIP int
	// NewSessionsPerMinute bounds the sessions one address may start
	// (hello without a token; default 30): a token bucket per address
	// that holds that many and refills at that rate a minute. Resuming a
	// session is never limited. Negative: no limit.
	NewSessionsPerMinute int
	// OnRoundDealt and OnRoundOver count rounds for metrics; may be nil.
	OnRoundDealt func()
	OnRoundOver  func()
}

// Defaults of Config.
const (
	DefaultMatchRetention = 30 * time.Minute
	DefaultRoundRetention = 24 * time.Hour
	DefaultSessionIdle    = 7 * 24 * time.Hour
	DefaultDataEpochEvery = 2 * time.Second
	DefaultAbandonedAfter = 2 * time.Minute
	DefaultMaxOpen        = 1000
	DefaultMaxOpenPerIP   = 10
	// DefaultNewSessionsPerMinute lets a household or an office behind
	// one address in, not a script minting identities.
	DefaultNewSessionsPerMinute = 30
	// VoidReason is what players are told of a match voided because the
	// shared state lost its data.
	VoidReason   = "the server's store lost its data: this match does not count"
	janitorEvery = time.Minute
)

// A Lobby is a node's door to the matches: it finds them through the
// Coord (made on this node or another), keeps this node's replica of each
// match its players are in, and routes what other nodes publish about a
// match to the replica.
type Lobby struct {
	cfg Config

	mu       sync.Mutex
	closed   bool
	sessions Sessions
	players  map[string]*known // the players who said hello here, by id
	matches  map[string]*entry // this node's replicas, by match id
	rounds   map[string]*roundEntry

	// seating serializes what seats a player in a match or takes them out
	// (create, join, quick match, rematch, leave), per player: the check
	// that the player is free and the seating that follows must not
	// interleave with another seating of the same player, or a rematch
	// could seat someone in a new match at the moment their quick match
	// started another, dealing them into two rounds at once. A request
	// holds one player's lock at a time, never two.
	seating map[string]*seatLock

	// quick holds the node's waiting quick-match requests, by the settings
	// they asked for (see quick.go).
	quick map[match.Settings]*quickQueue

	// open counts the open matches made on this node (see caps.go).
	open openCount
	// newSessions limits the sessions each address starts (newsessions.go).
	newSessions *addrBuckets
	// ready is set once the data epoch is read (epoch.go).
	ready atomic.Bool

	stop chan struct{}
	done chan struct{}
	bg   sync.WaitGroup // the goroutines besides the janitor that Close waits for
}

type entry struct {
	ready  chan struct{} // closed once m is set, for an entry made by newMatch
	m      *match.Match
	info   *match.MatchInfo
	overAt time.Time
	// idleSince is when the lobby first saw the match open with none of
	// its members connected; zero otherwise (see abandoned.go).
	idleSince time.Time
	// counted: the match is one of this node's open matches in l.open,
	// made by a player from addr ("" for none).
	counted bool
	addr    string
}

type seatLock struct {
	mu    sync.Mutex
	users int // requests holding or waiting for mu; guarded by Lobby.mu
}

type roundEntry struct {
	r     *match.Round
	endAt time.Time
}

// New makes a lobby and starts its janitor; Close stops it.
func New(cfg Config) *Lobby {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MatchRetention <= 0 {
		cfg.MatchRetention = DefaultMatchRetention
	}
	if cfg.RoundRetention <= 0 {
		cfg.RoundRetention = DefaultRoundRetention
	}
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = DefaultSessionIdle
	}
	if cfg.DataEpochEvery <= 0 {
		cfg.DataEpochEvery = DefaultDataEpochEvery
	}
	if cfg.AbandonedAfter <= 0 {
		cfg.AbandonedAfter = DefaultAbandonedAfter
	}
	if cfg.MaxOpen == 0 {
		cfg.MaxOpen = DefaultMaxOpen
	}
	if cfg.MaxOpenPerIP == 0 {
		cfg.MaxOpenPerIP = DefaultMaxOpenPerIP
	}
	if cfg.NewSessionsPerMinute == 0 {
		cfg.NewSessionsPerMinute = DefaultNewSessionsPerMinute
	}
	if cfg.Sessions == nil {
		cfg.Sessions = newMemSessions()
	}
	if cfg.Coord == nil {
		cfg.Coord = memstore.NewCoord()
	}
	if cfg.Match.Node == "" {
		cfg.Match.Node = "node-" + randomHex(6)
	}
	if cfg.Match.RecordTTL <= 0 {
		cfg.Match.RecordTTL = match.DefaultRecordTTL
	}
	l := &Lobby{
		cfg: cfg, sessions: cfg.Sessions, players: map[string]*known{},
		matches: map[string]*entry{}, rounds: map[string]*roundEntry{}, seating: map[string]*seatLock{},
		quick: map[match.Settings]*quickQueue{},
		open:  openCount{byAddr: map[string]int{}}, newSessions: newAddrBuckets(cfg.NewSessionsPerMinute),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	// The data epoch is read first (see watchEpoch), at the same time as
	// the subscription is made: a store that is down delays the start by
	// the subscription's wait alone.
	tried := make(chan struct{})
	l.bg.Add(1)
	go l.watchEpoch(tried)
	subscribed := make(chan struct{})
	go l.subscribe(subscribed)
	select {
	case <-subscribed:
	case <-time.After(2 * time.Second):
		cfg.Logger.Warn("not yet subscribed to the other nodes' events; retrying in the background")
	}
	<-tried
	if !l.ready.Load() {
		cfg.Logger.Warn("the store's data epoch is not read yet: serving no match until it is; retrying in the background")
	}
	go l.janitor()
	return l
}

// subscribe listens to what the other nodes publish about matches, trying
// again until it works or the lobby closes.
func (l *Lobby) subscribe(subscribed chan<- struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-l.stop; cancel() }()
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		err := l.cfg.Coord.Subscribe(ctx, l.onEnvelope)
		if err == nil {
			close(subscribed)
			return
		}
		l.cfg.Logger.Warn("subscribing to the other nodes' events failed", "err", err)
		select {
		case <-l.stop:
			return
		case <-time.After(wait):
		}
	}
}

// onEnvelope hands another node's news of a match to this node's replica.
func (l *Lobby) onEnvelope(msg []byte) {
	var env match.Envelope
	if err := json.Unmarshal(msg, &env); err != nil {
		l.cfg.Logger.Warn("a bad event from another node", "err", err)
		return
	}
	if env.Node == l.cfg.Match.Node {
		return
	}
	l.mu.Lock()
	e := l.matches[env.Match]
	l.mu.Unlock()
	if e != nil && e.m != nil {
		e.m.Deliver(env)
	}
}

// Close stops every match and the janitor.
func (l *Lobby) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	ms := make([]*match.Match, 0, len(l.matches))
	for _, e := range l.matches {
		if e.m != nil { // nil: being made; newMatch closes it, seeing l.closed
			ms = append(ms, e.m)
		}
	}
	l.mu.Unlock()
	close(l.stop)
	<-l.done
	l.bg.Wait()
	// All at once: one at a time, thousands of match goroutines on a busy
	// node took minutes, past any shutdown grace.
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Close()
		}()
	}
	wg.Wait()
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("lobby: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// codeAlphabet has no look-alikes (no 0/O, 1/I).
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// CodeLength is the length of an invite code.
const CodeLength = 6

func newCode() string {
	b := make([]byte, CodeLength)
	if _, err := rand.Read(b); err != nil {
		panic("lobby: crypto/rand failed: " + err.Error())
	}
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b)
}

// CleanName trims a player's name and checks it: 1 to 24 printable characters.
func CleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > 24 {
		return "", ErrBadName
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return "", ErrBadName
		}
	}
	return name, nil
}

// Hello is HelloFrom for a caller without a network address (a tool, a
// benchmark): the limits per address do not apply to its players.
func (l *Lobby) Hello(ctx context.Context, name, token string) (s Session, resumed bool, err error) {
	return l.HelloFrom(ctx, "", name, token)
}

// HelloFrom starts a session, or with a token resumes one (made on this
// node or another), for a player connecting from addr (an IP address; ""
// for none); the name of a resumed session is updated when a valid one is
// given. The player's open matches count against addr (Config.MaxOpenPerIP).
// It fails with ErrUnknownToken for a token it does not know, with
// ErrTooManyNewSessions when addr started too many sessions lately
// (resuming is never limited), and with an error matching
// match.ErrUnavailable when the sessions' store cannot be reached.
func (l *Lobby) HelloFrom(ctx context.Context, addr, name, token string) (s Session, resumed bool, err error) {
	addr = addrKey(addr)
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return Session{}, false, ErrShuttingDown
	}
	if token != "" {
		s, err = l.sessions.Resume(ctx, token, l.cfg.SessionIdle)
		if err != nil {
			return Session{}, false, err
		}
		s.Token = token
		if n, err := CleanName(name); err == nil && n != s.Name {
			s.Name = n
			if err := l.sessions.Save(ctx, s, l.cfg.SessionIdle); err != nil {
				return Session{}, false, err
			}
		}
		resumed = true
	} else {
		n, err := CleanName(name)
		if err != nil {
			return Session{}, false, err
		}
		if addr != "" && !l.newSessions.take(addr, time.Now()) {
			return Session{}, false, ErrTooManyNewSessions
		}
		s = Session{PlayerID: randomHex(8), Name: n, Token: randomHex(24)}
		if err := l.sessions.Save(ctx, s, l.cfg.SessionIdle); err != nil {
			return Session{}, false, err
		}
	}
	l.mu.Lock()
	l.players[s.PlayerID] = &known{Player: match.Player{ID: s.PlayerID, Name: s.Name}, seen: time.Now(), addr: addr}
	l.mu.Unlock()
	return s, resumed, nil
}

// known is a player who said hello on this node, when, and from where
// (addrKey of the address; "" for none).
type known struct {
	match.Player
	seen time.Time
	addr string
}

func (l *Lobby) player(id string) (match.Player, error) {
	pl, _, err := l.playerFrom(id)
	return pl, err
}

// playerFrom is player with the address of the player's last hello.
func (l *Lobby) playerFrom(id string) (pl match.Player, addr string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k, ok := l.players[id]
	if !ok {
		return match.Player{}, "", ErrUnknownToken
	}
	k.seen = time.Now()
	return k.Player, k.addr, nil
}

// matchConfig is the configuration of this node's replicas.
func (l *Lobby) matchConfig() match.Config {
	cfg := l.cfg.Match
	cfg.Store, cfg.Coord, cfg.Sink, cfg.Logger = l.cfg.Store, l.cfg.Coord, l.cfg.Sink, l.cfg.Logger
	cfg.NewID = func() string { return randomHex(8) }
	cfg.OnRound = func(r *match.Round) {
		l.mu.Lock()
		_, known := l.rounds[r.ID]
		l.rounds[r.ID] = &roundEntry{r: r}
		l.mu.Unlock()
		if !known && !r.Over() && l.cfg.OnRoundDealt != nil {
			l.cfg.OnRoundDealt()
		}
	}
	cfg.OnRoundOver = func(*match.Round) {
		if l.cfg.OnRoundOver != nil {
			l.cfg.OnRoundOver()
		}
	}
	cfg.OnChange = func(info *match.MatchInfo) { l.onChange(info) }
	return cfg
}

// newMatch makes a match, with an invite code of its own, and this node's
// replica of it.
func (l *Lobby) newMatch(ctx context.Context, s match.Settings, quick bool) (*match.Match, error) {
	return l.newMatchBy(ctx, s, quick, "")
}

// newMatchBy is newMatch for a player from addr ("" for none): the match
// counts against the caps on open matches (see caps.go) from before its
// invite code is claimed, so that a refusal costs the store nothing.
func (l *Lobby) newMatchBy(ctx context.Context, s match.Settings, quick bool, addr string) (m *match.Match, err error) {
	if err := l.checkReady(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	closed := l.closed
	if !closed {
		err = l.open.reserve(addr, l.cfg.MaxOpen, l.cfg.MaxOpenPerIP)
	}
	l.mu.Unlock()
	if closed {
		return nil, ErrShuttingDown
	}
	if err != nil {
		return nil, err
	}
	// The reservation passes to the entry once it is in place; until then
	// a failure gives it back.
	e := &entry{ready: make(chan struct{}), counted: true, addr: addr}
	placed := false
	defer func() {
		if !placed {
			l.mu.Lock()
			l.uncount(e)
			l.mu.Unlock()
		}
	}()
	id := randomHex(8)
	code := ""
	for range 20 {
		c := newCode()
		ok, err := l.cfg.Coord.ClaimCode(ctx, c, id, l.cfg.Match.RecordTTL)
		if err != nil {
			return nil, err
		}
		if ok {
			code = c
			break
		}
	}
	if code == "" {
		return nil, fmt.Errorf("%w: no free invite code", match.ErrBusy)
	}
	// The entry is in place before the match's record is: a request that
	// finds the match (on the open list) meanwhile waits for this replica
	// instead of making a second one on this node.
	l.mu.Lock()
	l.matches[id] = e
	placed = true
	l.mu.Unlock()
	m, err = match.New(id, code, s, quick, l.matchConfig())
	l.mu.Lock()
	closing := l.closed
	switch {
	case err != nil:
		delete(l.matches, id)
		l.uncount(e)
	case closing:
		// Close ran meanwhile and did not see this replica.
		delete(l.matches, id)
		l.uncount(e)
		err = ErrShuttingDown
	default:
		e.m = m
		l.observe(e, m.Info(), time.Now())
	}
	l.mu.Unlock()
	close(e.ready)
	if closing && m != nil {
		m.Close()
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// onChange keeps the lobby's view of a match current. It runs on the
// match's goroutine and must not call into the match.
func (l *Lobby) onChange(info *match.MatchInfo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.matches[info.ID]
	if e == nil {
		return
	}
	l.observe(e, info, time.Now())
	if info.State == match.StateOver && e.overAt.IsZero() {
		// The players keep the finished match as their current one, so a
		// reconnect gets its results and a rematch needs no id, until they
		// join another or the janitor forgets it.
		e.overAt = time.Now()
	}
	if info.RoundID != "" {
		if re := l.rounds[info.RoundID]; re != nil && re.r.Over() && re.endAt.IsZero() {
			re.endAt = time.Now()
		}
	}
}

// enter makes matchID the player's current match, leaving an open one.
func (l *Lobby) enter(ctx context.Context, playerID, matchID string) error {
	cur, err := l.current(ctx, playerID)
	if err != nil {
		return err
	}
	return l.enterFrom(ctx, playerID, matchID, cur)
}

// enterFrom is enter for a player whose current match the caller has just
// read (cur), under the player's seating lock.
func (l *Lobby) enterFrom(ctx context.Context, playerID, matchID, cur string) error {
	if err := l.leaveFor(ctx, playerID, cur, matchID); err != nil {
		return err
	}
	return l.point(ctx, playerID, matchID)
}

// leaveFor takes the player out of cur, their current match, before they
// are seated in matchID: out of an open or ended one; not out of one they
// play in (ErrInAnotherMatch: it may have started just now); nothing if
// they are none of its players. Seatings leave first and join after: the
// match joined may start the moment it is full, and a player it deals in
// must not be held by another match then.
func (l *Lobby) leaveFor(ctx context.Context, playerID, cur, matchID string) error {
	if cur == "" || cur == matchID {
		return nil
	}
	curM, err := l.Match(ctx, cur)
	if err != nil {
		return nil // gone
	}
	switch err := curM.LeaveIdle(ctx, playerID); {
	case err == nil, errors.Is(err, match.ErrNotMember), errors.Is(err, match.ErrMatchClosed):
		return nil
	case errors.Is(err, match.ErrNotOpen):
		return ErrInAnotherMatch
	default:
		return err // they may still be in it: no seat elsewhere now
	}
}

// point makes matchID the player's current match. It tries again for a
// few seconds, past the request's own deadline, on a store that fails: the
// player is in matchID already, and the only other way out is to undo the
// join, which forfeits their game should the match have started.
func (l *Lobby) point(ctx context.Context, playerID, matchID string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pointTimeout)
	defer cancel()
	wait := 50 * time.Millisecond
	for {
		err := l.cfg.Coord.SetPlayerMatch(ctx, playerID, matchID, l.cfg.Match.RecordTTL)
		if err == nil {
			return nil
		}
		select {
		case <-time.After(wait):
			wait *= 2
		case <-ctx.Done():
			return err
		}
	}
}

const pointTimeout = 4 * time.Second

// CreateMatch makes a match with the settings and seats its creator as
// host, taking them out of the open match they were in (a player is in one
// open match at most). It fails with ErrTooManyOpenFromAddr or
// ErrTooManyOpen at the caps on open matches.
func (l *Lobby) CreateMatch(ctx context.Context, playerID string, p match.PartialSettings) (*match.MatchInfo, error) {
	pl, addr, err := l.playerFrom(playerID)
	if err != nil {
		return nil, err
	}
	s := match.WithDefaults(p)
	if err := s.Validate(); err != nil {
		return nil, err
	}
	defer l.lockPlayer(playerID)()
	if err := l.checkFree(ctx, playerID); err != nil {
		return nil, err
	}
	m, err := l.newMatchBy(ctx, s, false, addr)
	if err != nil {
		return nil, err
	}
	if err := l.enter(ctx, playerID, m.ID); err != nil {
		return nil, err
	}
	if err := l.join(ctx, m, pl); err != nil {
		return nil, err
	}
	return m.Info(), nil
}

// lockPlayer takes the player's seating lock and returns its unlock.
func (l *Lobby) lockPlayer(playerID string) (unlock func()) {
	l.mu.Lock()
	sl := l.seating[playerID]
	if sl == nil {
		sl = &seatLock{}
		l.seating[playerID] = sl
	}
	sl.users++
	l.mu.Unlock()
	sl.mu.Lock()
	return func() {
		sl.mu.Unlock()
		l.mu.Lock()
		if sl.users--; sl.users == 0 {
			delete(l.seating, playerID)
		}
		l.mu.Unlock()
	}
}

// seatInRematch seats a player of the match oldID in its rematch m, under
// the player's seating lock, unless they are playing elsewhere already
// (nobody is pulled out of a match being played). A player whose current
// match is still oldID does not leave it first: it is over, and m is its
// rematch, so that would cost a save of its record for nothing.
func (l *Lobby) seatInRematch(ctx context.Context, oldID string, m *match.Match, pl match.Player) {
	defer l.lockPlayer(pl.ID)()
	cur, err := l.free(ctx, pl.ID)
	if err != nil {
		return
	}
	if cur == oldID {
		cur = ""
	}
	if err := l.leaveFor(ctx, pl.ID, cur, m.ID); err != nil {
		return
	}
	if err := l.join(ctx, m, pl); err != nil {
		if !definitelyNotJoined(err) {
			l.settle(ctx, m, pl.ID)
		}
		return
	}
	if err := l.point(ctx, pl.ID, m.ID); err != nil {
		l.unseat(ctx, m, pl.ID)
	}
}

// seat joins the player to m and makes m their current match; when that
// fails half way, the player is taken out of m again, so that nobody is
// seated in a match that is not their current one.
func (l *Lobby) seat(ctx context.Context, m *match.Match, pl match.Player) error {
	cur, err := l.current(ctx, pl.ID)
	if err != nil {
		return err
	}
	if err := l.leaveFor(ctx, pl.ID, cur, m.ID); err != nil {
		return err
	}
	if err := l.join(ctx, m, pl); err != nil {
		if !definitelyNotJoined(err) {
			l.settle(ctx, m, pl.ID)
		}
		return err
	}
	if err := l.point(ctx, pl.ID, m.ID); err != nil {
		l.unseat(ctx, m, pl.ID)
		return err
	}
	return nil
}

// join is m.Join through joinMany.
func (l *Lobby) join(ctx context.Context, m *match.Match, pl match.Player) error {
	_, err := l.joinMany(ctx, m, []match.Player{pl})
	return err
}

// joinMany is m.JoinMany, asked a second time when the first answer leaves
// the outcome unknown (a store error: the save may have landed, its reply
// lost). Joining again is a no-op for a member, even once the match has
// started, so the second answer tells who is seated. Only an outcome still
// unknown after that is returned as the first error, for the caller to
// undo: undoing a join that did land in a match that has started since
// would forfeit the game of a player who was told they are not in it.
func (l *Lobby) joinMany(ctx context.Context, m *match.Match, ps []match.Player) (int, error) {
	n, err := m.JoinMany(ctx, ps)
	if err == nil || definitelyNotJoined(err) {
		return n, err
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unseatTimeout)
	defer cancel()
	n2, err2 := m.JoinMany(rctx, ps)
	switch {
	case err2 == nil:
		return n2, nil
	case errors.Is(err2, match.ErrMatchFull) || errors.Is(err2, match.ErrNotOpen):
		return 0, err2 // the first of ps is not a member: none is
	}
	return 0, err
}

// settle handles a join whose outcome stays unknown (see joinMany): the
// player may be in m or not. It makes m their current match as a join
// does, which holds the lobby's rule that a player's matches are their
// current one either way: if they are in m, they are found there (and not
// seated in another match while m plays); if not, free sees that they are
// none of m's players. Undoing the join instead could forfeit their game,
// should m have started with them. Only when that fails too is the join
// undone. The caller still answers the player with the join's error.
func (l *Lobby) settle(ctx context.Context, m *match.Match, playerID string) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unseatTimeout)
	defer cancel()
	if err := l.point(sctx, playerID, m.ID); err != nil {
		l.unseat(ctx, m, playerID)
	}
}

// unseat takes the player out of m again after a seating that failed half
// way, even when the request's own context has ended.
// When that fails too (the store is overloaded or down), it tries again in
// the background a few times, backing off: a player left seated in a match
// that is not their current one would be dealt into its rounds while they
// play elsewhere.
func (l *Lobby) unseat(ctx context.Context, m *match.Match, playerID string) {
	if l.tryUnseat(ctx, m, playerID) {
		return
	}
	go func() {
		wait := unseatTimeout
		for try := 1; try <= unseatRetries; try++ {
			select {
			case <-time.After(wait):
			case <-l.stop:
				return
			}
			if l.unseatLater(m, playerID) {
				return
			}
			wait *= 2
		}
		l.cfg.Logger.Warn("taking a player out of a match they failed to join failed; giving up", "match", m.ID, "player", playerID)
	}()
}

// unseatLater is a try of unseat after the seating ended: under the
// player's seating lock, and only while m is not their current match (they
// may have been seated in it since, for good, by a later request).
func (l *Lobby) unseatLater(m *match.Match, playerID string) bool {
	defer l.lockPlayer(playerID)()
	ctx, cancel := context.WithTimeout(context.Background(), unseatTimeout)
	defer cancel()
	cur, err := l.current(ctx, playerID)
	if err != nil {
		return false
	}
	if cur == m.ID {
		return true
	}
	return l.tryUnseat(ctx, m, playerID)
}

// tryUnseat is one try of unseat: whether the player is out of m.
func (l *Lobby) tryUnseat(ctx context.Context, m *match.Match, playerID string) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unseatTimeout)
	defer cancel()
	err := m.Leave(ctx, playerID)
	if err == nil || errors.Is(err, match.ErrNotMember) || errors.Is(err, match.ErrMatchClosed) {
		return true
	}
	l.cfg.Logger.Warn("taking a player out of a match they failed to join failed", "match", m.ID, "player", playerID, "err", err)
	return false
}

const (
	unseatTimeout = 2 * time.Second
	unseatRetries = 4 // after the first try: at 2, 6, 14 and 30 s
)

// definitelyNotJoined reports whether a Join's error means that nothing
// changed: the match refused, or the command never ran.
func definitelyNotJoined(err error) bool {
	switch {
	case errors.Is(err, match.ErrMatchFull) || errors.Is(err, match.ErrNotOpen) ||
		errors.Is(err, match.ErrBusy) || errors.Is(err, match.ErrMatchClosed) ||
		errors.Is(err, match.ErrLeft):
		return true
	case errors.Is(err, match.ErrUnavailable):
		// The store failed, perhaps on a timeout (the error then wraps
		// the context's too): the save may have landed with its reply
		// lost.
		return false
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// checkFree fails when the player is in a match that is being played.
func (l *Lobby) checkFree(ctx context.Context, playerID string) error {
	_, err := l.free(ctx, playerID)
	return err
}

// free is checkFree that also returns the player's current match ("" for
// none), which an open or ended one may be.
func (l *Lobby) free(ctx context.Context, playerID string) (cur string, err error) {
	cur, err = l.current(ctx, playerID)
	if err != nil || cur == "" {
		return "", err
	}
	m, err := l.Match(ctx, cur)
	if err != nil {
		return cur, nil
	}
	info := m.Info()
	switch info.State {
	case match.StateOpen, match.StateOver:
		return cur, nil
	}
	for _, p := range info.Players {
		if p.PlayerID == playerID {
			return cur, ErrInAnotherMatch
		}
	}
	// Not one of its players (a join whose outcome was unknown left the
	// pointer there, see settle; or they left): free.
	return cur, nil
}

// Match returns this node's replica of a match, made from the Coord's
// record if the match was made on another node. Until the node is ready
// (see Ready) it fails with ErrNotReady.
func (l *Lobby) Match(ctx context.Context, id string) (*match.Match, error) {
	if err := l.checkReady(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	e := l.matches[id]
	closed := l.closed
	l.mu.Unlock()
	if e != nil && e.ready != nil {
		// Being made on this node: wait for it.
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		l.mu.Lock()
		m := e.m
		l.mu.Unlock()
		if m == nil {
			return nil, ErrNoSuchMatch
		}
		return m, nil
	}
	if e != nil && e.m != nil {
		return e.m, nil
	}
	if id == "" || closed {
		return nil, ErrNoSuchMatch
	}
	m, err := match.Load(ctx, id, l.matchConfig())
	if errors.Is(err, match.ErrNotFound) {
		return nil, ErrNoSuchMatch
	}
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.matches[id]; e != nil || l.closed {
		// Another request made the replica meanwhile (or is making it):
		// one replica a match on a node.
		go m.Close()
		if l.closed {
			return nil, ErrNoSuchMatch
		}
		if e.ready != nil || e.m == nil {
			l.mu.Unlock()
			defer l.mu.Lock()
			return l.Match(ctx, id)
		}
		return e.m, nil
	}
	ne := &entry{m: m}
	l.observe(ne, m.Info(), time.Now())
	if m.Info().State == match.StateOver {
		ne.overAt = time.Now()
	}
	l.matches[id] = ne
	return m, nil
}

// MatchByCode returns a match by invite code (case-insensitive).
func (l *Lobby) MatchByCode(ctx context.Context, code string) (*match.Match, error) {
	id, err := l.cfg.Coord.CodeMatch(ctx, strings.ToUpper(strings.TrimSpace(code)))
	if errors.Is(err, match.ErrNotFound) {
		return nil, ErrNoSuchMatch
	}
	if err != nil {
		return nil, err
	}
	return l.Match(ctx, id)
}

// JoinMatch seats the player in a match found by id or, if id is empty, by code.
func (l *Lobby) JoinMatch(ctx context.Context, playerID, matchID, code string) (*match.MatchInfo, error) {
	pl, err := l.player(playerID)
	if err != nil {
		return nil, err
	}
	var m *match.Match
	if matchID != "" {
		m, err = l.Match(ctx, matchID)
	} else {
		m, err = l.MatchByCode(ctx, code)
	}
	if err != nil {
		return nil, err
	}
	defer l.lockPlayer(playerID)()
	if err := l.checkFree(ctx, playerID); err != nil && l.Current(ctx, playerID) != m.ID {
		return nil, err
	}
	if err := l.seat(ctx, m, pl); err != nil {
		return nil, err
	}
	return m.Info(), nil
}

// quickFirstLook is how many of the oldest open matches a quick match
// looks at before it reads the rest of the list.
const quickFirstLook = 8

// openInfo returns the snapshot of an open public match: from this node's
// replica when it has one that hears of every change (no round trip), else
// from the Coord's record;
// nil when the match is gone or no longer open.
func (l *Lobby) openInfo(ctx context.Context, id string) *match.MatchInfo {
	l.mu.Lock()
	e := l.matches[id]
	l.mu.Unlock()
	var info *match.MatchInfo
	if e != nil && e.m != nil && e.m.Heard() {
		info = e.m.Info()
	} else {
		rec, _, err := l.cfg.Coord.LoadMatch(ctx, id)
		if err != nil {
			return nil
		}
		if info, err = match.DecodeInfo(rec); err != nil {
			return nil
		}
	}
	if !info.Settings.Public || info.State != match.StateOpen {
		return nil
	}
	return info
}

// Current returns the id of the player's current match, or "" (also when
// it cannot be read: for what a player is shown, never for seating them).
func (l *Lobby) Current(ctx context.Context, playerID string) string {
	id, err := l.current(ctx, playerID)
	if err != nil {
		l.cfg.Logger.Warn("reading a player's match failed", "err", err)
		return ""
	}
	return id
}

// current returns the id of the player's current match, or "" for none.
// Seating goes by it: a player whose match cannot be read is refused, not
// taken for free, or they could be seated in a second match while they
// play in the first.
func (l *Lobby) current(ctx context.Context, playerID string) (string, error) {
	return l.cfg.Coord.PlayerMatch(ctx, playerID)
}

// LeaveMatch takes the player out of a match.
func (l *Lobby) LeaveMatch(ctx context.Context, playerID, matchID string) error {
	m, err := l.Match(ctx, matchID)
	if err != nil {
		return err
	}
	defer l.lockPlayer(playerID)()
	if err := m.Leave(ctx, playerID); err != nil {
		return err
	}
	if cur, err := l.current(ctx, playerID); err == nil && cur == matchID {
		return l.cfg.Coord.SetPlayerMatch(ctx, playerID, "", 0)
	}
	return nil
}

// Rematch makes a new match with the same settings and players as a finished
// one. The player who asks hosts it; the other players of the old match are
// seated in their old order (unless they are playing elsewhere by now) and
// learn of it through the old match's next_match field. Asking again joins
// the rematch already made.
func (l *Lobby) Rematch(ctx context.Context, playerID, matchID string) (*match.MatchInfo, error) {
	old, err := l.Match(ctx, matchID)
	if err != nil {
		return nil, err
	}
	info := old.Info()
	if info.State != match.StateOver {
		return nil, fmt.Errorf("%w: rematch once the match is over", match.ErrAlreadyStart)
	}
	if info.NextMatch != "" {
		return l.JoinMatch(ctx, playerID, info.NextMatch, "")
	}
	players, err := old.Members(ctx)
	if err != nil {
		return nil, err
	}
	_, addr, _ := l.playerFrom(playerID)
	m, err := l.newMatchBy(ctx, old.Settings, old.Quick, addr)
	if err != nil {
		return nil, err
	}
	// The one who asked hosts; then the others in their old seat order,
	// each under their own seating lock, one at a time.
	if pl, err := l.player(playerID); err == nil {
		l.seatInRematch(ctx, old.ID, m, pl)
	}
	for _, p := range players {
		if p.ID != playerID {
			l.seatInRematch(ctx, old.ID, m, p)
		}
	}
	_ = old.SetNextMatch(ctx, m.ID)
	return m.Info(), nil
}

// Round returns a round by id: this node's object for it, or one made from
// the Coord's record of a round played elsewhere. Until the node is ready
// (see Ready) it fails with ErrNotReady.
func (l *Lobby) Round(ctx context.Context, id string) (*match.Round, error) {
	if err := l.checkReady(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	re := l.rounds[id]
	l.mu.Unlock()
	if re != nil {
		return re.r, nil
	}
	rec, err := l.cfg.Coord.LoadRound(ctx, id)
	if errors.Is(err, match.ErrNotFound) {
		return nil, ErrNoSuchRound
	}
	if err != nil {
		return nil, err
	}
	var rr match.RoundRecord
	if err := json.Unmarshal(rec, &rr); err != nil {
		return nil, fmt.Errorf("lobby: round %s: a bad record: %w", id, err)
	}
	// A round being played is served by its match's replica, which knows
	// when it ends.
	if m, err := l.Match(ctx, rr.MatchID); err == nil {
		if r := m.Round(); r != nil && r.ID == id {
			return r, nil
		}
	}
	return match.RoundFromRecord(rr, l.cfg.Store)
}

// Counts returns how many of this node's matches are open and how many are
// being played.
func (l *Lobby) Counts() (open, playing int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.matches {
		switch {
		case e.info == nil:
		case e.info.State == match.StateOpen:
			open++
		case e.info.State != match.StateOver:
			playing++
		}
	}
	return open, playing
}

// Connected tells the player's current match that they connected or
// dropped, and on connect resends what they need to resume.
func (l *Lobby) Connected(ctx context.Context, playerID string, up bool) {
	m, err := l.Match(ctx, l.Current(ctx, playerID))
	if err != nil {
		return
	}
	_ = m.SetConnected(ctx, playerID, up)
	if up {
		_ = m.Resume(ctx, playerID)
	}
}

// janitor forgets finished matches, old rounds, idle sessions and the
// addresses whose new-session budget is full again, and closes abandoned
// open matches.
func (l *Lobby) janitor() {
	defer close(l.done)
	t := time.NewTicker(janitorEvery)
	defer t.Stop()
	a := time.NewTicker(l.abandonedEvery())
	defer a.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			l.sweep(now)
		case now := <-a.C:
			l.closeAbandoned(now)
		}
	}
}

func (l *Lobby) sweep(now time.Time) {
	var closing []*match.Match
	l.mu.Lock()
	for id, e := range l.matches {
		if e.m != nil && !e.overAt.IsZero() && now.Sub(e.overAt) > l.cfg.MatchRetention {
			delete(l.matches, id)
			closing = append(closing, e.m)
		}
	}
	for id, k := range l.players {
		if now.Sub(k.seen) > l.cfg.SessionIdle {
			delete(l.players, id)
		}
	}
	for id, re := range l.rounds {
		if re.endAt.IsZero() && re.r.Over() {
			re.endAt = now
		}
		if !re.endAt.IsZero() && now.Sub(re.endAt) > l.cfg.RoundRetention {
			delete(l.rounds, id)
		}
	}
	l.mu.Unlock()
	if ms, ok := l.sessions.(*memSessions); ok {
		ms.sweep(now)
	}
	l.newSessions.sweep(now)
	for _, m := range closing {
		m.Close()
	}
}
