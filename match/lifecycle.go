package match

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"klondike/engine"
)

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
	m.st.LastOver = m.roundOverMsg(r, results, totals, "")
	m.broadcast(*m.st.LastOver, true)
	m.after = append(m.after, func() {
		m.cfg.Logger.Info("round over", "round", r.ID, "number", r.Number)
		if m.cfg.OnRoundOver != nil {
			m.cfg.OnRoundOver(r, results)
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
	m.st.MatchOver = &MatchOver{MatchID: m.ID, Totals: m.rankTotals()}
	m.broadcast(*m.st.MatchOver, true)
	m.changedSt = true
}

// roundOverMsg is the round_over of r: its results, its deal revealed,
// the totals after it and, for a void round, why.
func (m *Match) roundOverMsg(r *Round, results []Entry, totals []Total, void string) *RoundOver {
	return &RoundOver{
		MatchID: m.ID, RoundID: r.ID, Round: r.Number, Results: results, Deal: r.Fair, Layout: r.Deal,
		Totals: totals, Void: void,
	}
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
				if m.st.LastOver != nil {
					m.broadcast(*m.st.LastOver, true)
				}
				if m.st.MatchOver != nil {
					m.broadcast(*m.st.MatchOver, true)
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
			m.st.LastOver = m.roundOverMsg(r, Rank(r.Mode, r.Rules, sts, endMs), m.rankTotals(), reason)
			m.broadcast(*m.st.LastOver, true)
		}
		m.st.State = StateOver
		m.st.MatchOver = &MatchOver{MatchID: m.ID, Totals: m.rankTotals(), Void: reason}
		m.broadcast(*m.st.MatchOver, true)
		m.changed()
		m.after = append(m.after, func() {
			m.voidTold = true
			m.cfg.Logger.Warn("match voided", "reason", reason)
		})
		return nil
	})
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
