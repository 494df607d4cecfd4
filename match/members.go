package match

import (
	"context"
	"errors"
	"slices"
	"time"
)

// A member is a player seated in the match, as its record holds them.
type member struct {
	Player
	Ready     bool `json:"ready,omitempty"`
	Connected bool `json:"connected,omitempty"`
	Join      int  `json:"join"`
	Left      bool `json:"left,omitempty"`
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
