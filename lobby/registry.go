package lobby

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"klondike/match"
)

// The registry of replicas: a node keeps one replica (a match.Match) of
// each match its players are in, made here (newMatch) or from the Coord's
// record of a match made on another node (Match), and keeps its view of
// each current: onChange hears the replica's changes, onBusMessage hands it
// what the other nodes publish.

// entry is this node's replica of a match, and what the lobby knows of it.
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

// onBusMessage hands another node's news of a match to this node's replica.
func (l *Lobby) onBusMessage(msg []byte) {
	if msg == nil {
		l.resync()
		return
	}
	var env match.BusMessage
	if err := json.Unmarshal(msg, &env); err != nil {
		l.cfg.Logger.Warn("a bad event from another node", "err", err)
		return
	}
	if env.Node == l.cfg.Match.Node {
		return
	}
	if env.SignedOut != "" {
		l.signedOut(env.SignedOut)
		return
	}
	l.mu.Lock()
	e := l.matches[env.Match]
	l.mu.Unlock()
	if e != nil && e.m != nil {
		e.m.Deliver(env)
	}
}

// resync tells every match of this node that news from the other nodes may
// have been lost: the subscription broke and was made again.
func (l *Lobby) resync() {
	l.mu.Lock()
	ms := l.madeMatches()
	l.mu.Unlock()
	l.cfg.Logger.Info("the subscription to the other nodes was made again: matches read their records", "matches", len(ms))
	for _, m := range ms {
		m.Resync()
	}
}

// madeMatches returns this node's matches, leaving out those still being
// made (their entry has no match yet); l.mu held.
func (l *Lobby) madeMatches() []*match.Match {
	ms := make([]*match.Match, 0, len(l.matches))
	for _, e := range l.matches {
		if e.m != nil {
			ms = append(ms, e.m)
		}
	}
	return ms
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
	cfg.OnRoundOver = func(r *match.Round, results []match.Entry) {
		if f := l.cfg.OnRoundResults; f != nil {
			l.background(func() { f(r, results) })
		}
		if l.cfg.Ratings != nil {
			l.background(func() { l.rateRound(r, results) })
		}
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
