// Package lobby holds the open matches and the players' sessions: create,
// list, join by id or invite code, quick match, ready and start, spectate,
// rematch. It owns the registry; each match runs its own goroutine.
package lobby

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"klondike/match"
)

// Errors of the lobby; the api maps each to a wire code.
var (
	ErrBadName        = errors.New("a name is 1 to 24 printable characters")
	ErrUnknownToken   = errors.New("unknown or expired token")
	ErrNoSuchMatch    = errors.New("no such match")
	ErrNoSuchRound    = errors.New("no such round")
	ErrInAnotherMatch = errors.New("you are playing in another match: leave it first")
	ErrShuttingDown   = errors.New("the server is shutting down")
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
	// OnRoundDealt and OnRoundOver count rounds for metrics; may be nil.
	OnRoundDealt func()
	OnRoundOver  func()
}

// Defaults of Config.
const (
	DefaultMatchRetention = 30 * time.Minute
	DefaultRoundRetention = 24 * time.Hour
	DefaultSessionIdle    = 7 * 24 * time.Hour
	janitorEvery          = time.Minute
)

// A Lobby is the registry of matches, rounds and sessions.
type Lobby struct {
	cfg Config

	mu          sync.Mutex
	closed      bool
	sessions    Sessions
	players     map[string]*known // the players who said hello here, by id
	matches     map[string]*entry // by match id
	codes       map[string]*entry // by invite code
	rounds      map[string]*roundEntry
	playerMatch map[string]string // player id → current match id

	stop chan struct{}
	done chan struct{}
}

type entry struct {
	m      *match.Match
	info   *match.MatchInfo
	overAt time.Time
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
	if cfg.Sessions == nil {
		cfg.Sessions = newMemSessions()
	}
	l := &Lobby{
		cfg: cfg, sessions: cfg.Sessions, players: map[string]*known{},
		matches: map[string]*entry{}, codes: map[string]*entry{}, rounds: map[string]*roundEntry{},
		playerMatch: map[string]string{}, stop: make(chan struct{}), done: make(chan struct{}),
	}
	go l.janitor()
	return l
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
		ms = append(ms, e.m)
	}
	l.mu.Unlock()
	close(l.stop)
	<-l.done
	for _, m := range ms {
		m.Close()
	}
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

// Hello starts a session, or with a token resumes one (made on this node or
// another); the name of a resumed session is updated when a valid one is
// given. It fails with ErrUnknownToken for a token it does not know, and
// with an error matching match.ErrUnavailable when the sessions' store
// cannot be reached.
func (l *Lobby) Hello(ctx context.Context, name, token string) (s Session, resumed bool, err error) {
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
		s = Session{PlayerID: randomHex(8), Name: n, Token: randomHex(24)}
		if err := l.sessions.Save(ctx, s, l.cfg.SessionIdle); err != nil {
			return Session{}, false, err
		}
	}
	l.mu.Lock()
	l.players[s.PlayerID] = &known{Player: match.Player{ID: s.PlayerID, Name: s.Name}, seen: time.Now()}
	l.mu.Unlock()
	return s, resumed, nil
}

// known is a player who said hello on this node, and when.
type known struct {
	match.Player
	seen time.Time
}

func (l *Lobby) player(id string) (match.Player, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k, ok := l.players[id]
	if !ok {
		return match.Player{}, ErrUnknownToken
	}
	k.seen = time.Now()
	return k.Player, nil
}

// newMatch registers and starts a match.
func (l *Lobby) newMatch(s match.Settings, quick bool) (*match.Match, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, ErrShuttingDown
	}
	id := randomHex(8)
	code := newCode()
	for l.codes[code] != nil {
		code = newCode()
	}
	e := &entry{}
	l.matches[id] = e
	l.codes[code] = e
	l.mu.Unlock()

	cfg := l.cfg.Match
	cfg.Store, cfg.Sink, cfg.Logger = l.cfg.Store, l.cfg.Sink, l.cfg.Logger
	cfg.NewID = func() string { return randomHex(8) }
	cfg.OnRound = func(r *match.Round) {
		l.mu.Lock()
		l.rounds[r.ID] = &roundEntry{r: r}
		l.mu.Unlock()
		if l.cfg.OnRoundDealt != nil {
			l.cfg.OnRoundDealt()
		}
	}
	cfg.OnRoundOver = func(*match.Round) {
		if l.cfg.OnRoundOver != nil {
			l.cfg.OnRoundOver()
		}
	}
	cfg.OnChange = func(info *match.MatchInfo) { l.onChange(info) }
	m, err := match.New(id, code, s, quick, cfg)
	if err != nil {
		l.mu.Lock()
		delete(l.matches, id)
		delete(l.codes, code)
		l.mu.Unlock()
		return nil, err
	}
	l.mu.Lock()
	e.m, e.info = m, m.Info()
	l.mu.Unlock()
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
	e.info = info
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
	l.mu.Lock()
	cur := l.playerMatch[playerID]
	var curM *match.Match
	var curState match.State
	if e := l.matches[cur]; e != nil && cur != matchID {
		curM, curState = e.m, e.info.State
	}
	l.mu.Unlock()
	if curM != nil {
		switch curState {
		case match.StateOpen, match.StateOver:
			_ = curM.Leave(ctx, playerID)
		default:
			return ErrInAnotherMatch
		}
	}
	l.mu.Lock()
	l.playerMatch[playerID] = matchID
	l.mu.Unlock()
	return nil
}

// CreateMatch makes a match with the settings and seats its creator as host.
func (l *Lobby) CreateMatch(ctx context.Context, playerID string, p match.PartialSettings) (*match.MatchInfo, error) {
	pl, err := l.player(playerID)
	if err != nil {
		return nil, err
	}
	s := match.WithDefaults(p)
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := l.checkFree(playerID); err != nil {
		return nil, err
	}
	m, err := l.newMatch(s, false)
	if err != nil {
		return nil, err
	}
	if err := l.enter(ctx, playerID, m.ID); err != nil {
		return nil, err
	}
	if err := m.Join(ctx, pl); err != nil {
		return nil, err
	}
	return m.Info(), nil
}

// checkFree fails when the player is in a match that is being played.
func (l *Lobby) checkFree(playerID string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.matches[l.playerMatch[playerID]]; e != nil {
		switch e.info.State {
		case match.StateOpen, match.StateOver:
		default:
			return ErrInAnotherMatch
		}
	}
	return nil
}

// Match returns a match by id.
func (l *Lobby) Match(id string) (*match.Match, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.matches[id]; e != nil && e.m != nil {
		return e.m, nil
	}
	return nil, ErrNoSuchMatch
}

// MatchByCode returns a match by invite code (case-insensitive).
func (l *Lobby) MatchByCode(code string) (*match.Match, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.codes[strings.ToUpper(strings.TrimSpace(code))]; e != nil && e.m != nil {
		return e.m, nil
	}
	return nil, ErrNoSuchMatch
}

// JoinMatch seats the player in a match found by id or, if id is empty, by code.
func (l *Lobby) JoinMatch(ctx context.Context, playerID, matchID, code string) (*match.MatchInfo, error) {
	pl, err := l.player(playerID)
	if err != nil {
		return nil, err
	}
	var m *match.Match
	if matchID != "" {
		m, err = l.Match(matchID)
	} else {
		m, err = l.MatchByCode(code)
	}
	if err != nil {
		return nil, err
	}
	if err := l.checkFree(playerID); err != nil && l.Current(playerID) != m.ID {
		return nil, err
	}
	if err := m.Join(ctx, pl); err != nil {
		return nil, err
	}
	if err := l.enter(ctx, playerID, m.ID); err != nil {
		return nil, err
	}
	return m.Info(), nil
}

// QuickMatch joins an open public quick match with the same draw, passes
// and scoring and a free seat, or makes one. A quick match starts by itself
// when full, or a short wait after its second player joins.
func (l *Lobby) QuickMatch(ctx context.Context, playerID string, p match.PartialSettings) (*match.MatchInfo, error) {
	pl, err := l.player(playerID)
	if err != nil {
		return nil, err
	}
	want := match.WithDefaults(p)
	want.Public = true
	if err := want.Validate(); err != nil {
		return nil, err
	}
	if err := l.checkFree(playerID); err != nil {
		return nil, err
	}
	for _, m := range l.candidates(want) {
		if err := m.Join(ctx, pl); err == nil {
			if err := l.enter(ctx, playerID, m.ID); err != nil {
				return nil, err
			}
			return m.Info(), nil
		}
	}
	m, err := l.newMatch(want, true)
	if err != nil {
		return nil, err
	}
	if err := l.enter(ctx, playerID, m.ID); err != nil {
		return nil, err
	}
	if err := m.Join(ctx, pl); err != nil {
		return nil, err
	}
	return m.Info(), nil
}

func (l *Lobby) candidates(want match.Settings) []*match.Match {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*match.Match
	for _, e := range l.matches {
		i := e.info
		if e.m == nil || !e.m.Quick || i.State != match.StateOpen || len(i.Players) >= i.Settings.MaxPlayers {
			continue
		}
		s := i.Settings
		if s.Draw == want.Draw && s.Passes == want.Passes && s.Scoring == want.Scoring {
			out = append(out, e.m)
		}
	}
	return out
}

// Current returns the id of the player's current match, or "".
func (l *Lobby) Current(playerID string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.playerMatch[playerID]
}

// LeaveMatch takes the player out of a match.
func (l *Lobby) LeaveMatch(ctx context.Context, playerID, matchID string) error {
	m, err := l.Match(matchID)
	if err != nil {
		return err
	}
	if err := m.Leave(ctx, playerID); err != nil {
		return err
	}
	l.mu.Lock()
	if l.playerMatch[playerID] == matchID {
		delete(l.playerMatch, playerID)
	}
	l.mu.Unlock()
	return nil
}

// Rematch makes a new match with the same settings and players as a finished
// one. The player who asks hosts it; the other players of the old match are
// seated in their old order (unless they are playing elsewhere by now) and
// learn of it through the old match's next_match field. Asking again joins
// the rematch already made.
func (l *Lobby) Rematch(ctx context.Context, playerID, matchID string) (*match.MatchInfo, error) {
	old, err := l.Match(matchID)
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
	m, err := l.newMatch(old.Settings, old.Quick)
	if err != nil {
		return nil, err
	}
	// The one who asked hosts; then the others in their old seat order.
	if pl, err := l.player(playerID); err == nil {
		_ = m.Join(ctx, pl)
		_ = l.enter(ctx, playerID, m.ID)
	}
	for _, p := range players {
		// Someone already playing elsewhere is not pulled out of it.
		if p.ID == playerID || l.checkFree(p.ID) != nil && l.Current(p.ID) != old.ID {
			continue
		}
		if m.Join(ctx, p) == nil {
			_ = l.enter(ctx, p.ID, m.ID)
		}
	}
	_ = old.SetNextMatch(ctx, m.ID)
	return m.Info(), nil
}

// Round returns a round by id, while it is retained.
func (l *Lobby) Round(id string) (*match.Round, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if re := l.rounds[id]; re != nil {
		return re.r, nil
	}
	return nil, ErrNoSuchRound
}

// OpenMatches returns the open public matches, for the lobby list.
func (l *Lobby) OpenMatches() []*match.MatchInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []*match.MatchInfo{}
	for _, e := range l.matches {
		if e.info != nil && e.info.Settings.Public && e.info.State == match.StateOpen {
			out = append(out, e.info)
		}
	}
	return out
}

// Counts returns how many matches are open and how many are being played.
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
	m, err := l.Match(l.Current(playerID))
	if err != nil {
		return
	}
	_ = m.SetConnected(ctx, playerID, up)
	if up {
		_ = m.Resume(ctx, playerID)
	}
}

// janitor forgets finished matches, old rounds and idle sessions.
func (l *Lobby) janitor() {
	defer close(l.done)
	t := time.NewTicker(janitorEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			l.sweep(now)
		}
	}
}

func (l *Lobby) sweep(now time.Time) {
	var closing []*match.Match
	l.mu.Lock()
	for id, e := range l.matches {
		if !e.overAt.IsZero() && now.Sub(e.overAt) > l.cfg.MatchRetention {
			delete(l.matches, id)
			delete(l.codes, e.m.Code)
			closing = append(closing, e.m)
		}
	}
	for p, id := range l.playerMatch {
		if l.matches[id] == nil {
			delete(l.playerMatch, p)
		}
	}
	for id, k := range l.players {
		if now.Sub(k.seen) > l.cfg.SessionIdle && l.playerMatch[id] == "" {
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
	for _, m := range closing {
		m.Close()
	}
}
