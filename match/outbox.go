package match

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// An outMsg is a message a command made, for some players. Started asks
// each node to send round_started, with the player's own view, to the
// players it serves; Info the match's snapshot.
type outMsg struct {
	To      []string        `json:"to"`
	Msg     json.RawMessage `json:"msg,omitempty"`
	Started bool            `json:"started,omitempty"`
	Info    bool            `json:"info,omitempty"`
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
			b := m.cfg.Encode(MatchUpdate{Info: m.Info()})
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

// catchUp queues for the player what they need to be where the match is:
// the match and, as the phase asks, round_starting, their round_started
// view with the leaderboard, or the last results.
func (m *Match) catchUp(ctx context.Context, playerID string) error {
	m.send(playerID, m.cfg.Encode(MatchUpdate{Info: m.Info()}))
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

// roundStartingMsg encodes the round_starting of the round being dealt.
func (m *Match) roundStartingMsg() []byte {
	r := m.st.Round
	return m.cfg.Encode(RoundStarting{
		MatchID: m.ID, RoundID: r.ID, Round: r.Number, StartsAt: r.StartsAt, EndsAt: r.EndsAt,
		Rules: r.Rules, Deal: m.announce(r.Fair),
	})
}

// roundStartedMsg encodes a player's round_started, with their view now.
func (m *Match) roundStartedMsg(playerID string, now time.Time, resumed bool) ([]byte, error) {
	r := m.round
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	view, last, err := r.View(ctx, playerID, now)
	if err != nil {
		return nil, err
	}
	return m.cfg.Encode(RoundStarted{
		MatchID: m.ID, RoundID: r.ID, Round: r.Number, StartsAt: r.StartsAt, EndsAt: r.EndsAt,
		Rules: r.Rules, Deal: m.announce(r.Fair), View: view, LastSeq: last, Resumed: resumed,
	}), nil
}

// announce returns what the round's deal f tells before play.
func (m *Match) announce(f FairDeal) DealAnnouncement {
	a := DealAnnouncement{Commitment: f.Commitment, Known: f.Known}
	if f.Known {
		a.Seed = f.Seed
	}
	if m.Settings.Deals == DealsWinnable {
		w := f.Winnable
		a.Winnable = &w
	}
	return a
}

// leaderboardMsg encodes the round's leaderboard now.
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
	return m.cfg.Encode(Leaderboard{MatchID: m.ID, RoundID: r.ID, Entries: entries}), nil
}
