package lobby

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"klondike/match"
)

// Seating puts a player in a match or takes them out: create, join and
// leave here, quick matches (quick.go) and rematches (rematch.go) through
// the same steps. A player has one current match, the Coord's pointer
// (current, point). A seating runs under the player's seating lock (see
// Lobby.seating), leaves the current match before it joins the next (see
// leaveFor), and undoes a seating that failed half way (see seat).

// seatLock is one player's seating lock, and how many requests want it.
type seatLock struct {
	mu    sync.Mutex
	users int // requests holding or waiting for mu; guarded by Lobby.mu
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
	if s.Rated && l.cfg.Ratings == nil {
		return nil, fmt.Errorf("%w: rated: this server keeps no ratings", match.ErrBadSettings)
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
	l.withRatings(ctx, m.Settings, ps)
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

// JoinMatch seats the player in a match found by id or, if id is empty, by code.
func (l *Lobby) JoinMatch(ctx context.Context, playerID, matchID, code string) (*match.MatchInfo, error) {
	pl, err := l.Player(playerID)
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
