package match

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// An outMsg is an event a command made, for some players. Started asks
// each node to send round_started, with the player's own view, to the
// players it serves; Info the match's snapshot. Between nodes the event
// travels as its kind and its JSON.
type outMsg struct {
	To      []string `json:"to"`
	Ev      Event    `json:"-"`
	Started bool     `json:"started,omitempty"`
	Info    bool     `json:"info,omitempty"`
}

// outMsgJSON is an outMsg as nodes tell it to each other.
type outMsgJSON struct {
	To      []string        `json:"to"`
	Kind    string          `json:"kind,omitempty"`
	Event   json.RawMessage `json:"event,omitempty"`
	Started bool            `json:"started,omitempty"`
	Info    bool            `json:"info,omitempty"`
}

func (o outMsg) MarshalJSON() ([]byte, error) {
	j := outMsgJSON{To: o.To, Started: o.Started, Info: o.Info}
	if o.Ev != nil {
		b, err := json.Marshal(o.Ev)
		if err != nil {
			return nil, err
		}
		j.Kind, j.Event = EventKind(o.Ev), b
	}
	return json.Marshal(j)
}

func (o *outMsg) UnmarshalJSON(b []byte) error {
	var j outMsgJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*o = outMsg{To: j.To, Started: j.Started, Info: j.Info}
	if j.Kind != "" {
		ev, err := DecodeEvent(j.Kind, j.Event)
		if err != nil {
			return err
		}
		o.Ev = ev
	}
	return nil
}

// changed marks the state changed and queues the new snapshot for every
// member and spectator.
func (m *Match) changed() {
	m.changedSt = true
	m.outbox = append(m.outbox, outMsg{To: m.audience(true), Info: true})
}

// send queues ev for one player.
func (m *Match) send(id string, ev Event) {
	m.outbox = append(m.outbox, outMsg{To: []string{id}, Ev: ev})
}

// broadcast queues ev for every active member and, if spectators, for them.
func (m *Match) broadcast(ev Event, spectators bool) {
	m.outbox = append(m.outbox, outMsg{To: m.audience(spectators), Ev: ev})
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
					if ev, err := m.roundStartedMsg(id, now, false); err == nil {
						m.cfg.Sink.Send([]string{id}, ev)
					} else {
						m.cfg.Logger.Warn("no view for a player", "player", id, "err", err)
					}
				}
			}
		case o.Info:
			m.cfg.Sink.Send(o.To, MatchUpdate{Info: m.Info()})
		case o.Ev != nil:
			m.cfg.Sink.Send(o.To, o.Ev)
		}
	}
}

// catchUp queues for the player what they need to be where the match is:
// the match and, as the phase asks, round_starting, their round_started
// view with the leaderboard, or the last results.
func (m *Match) catchUp(ctx context.Context, playerID string) error {
	m.send(playerID, MatchUpdate{Info: m.Info()})
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
		if m.st.LastOver != nil {
			m.send(playerID, *m.st.LastOver)
		}
	case StateOver:
		if m.st.LastOver != nil {
			m.send(playerID, *m.st.LastOver)
		}
		if m.st.MatchOver != nil {
			m.send(playerID, *m.st.MatchOver)
		}
	}
	return nil
}

// roundStartingMsg is the round_starting of the round being dealt.
func (m *Match) roundStartingMsg() RoundStarting {
	r := m.st.Round
	return RoundStarting{
		MatchID: m.ID, RoundID: r.ID, Round: r.Number, StartsAt: r.StartsAt, EndsAt: r.EndsAt,
		Rules: r.Rules, Deal: m.announce(r.Fair),
	}
}

// roundStartedMsg is a player's round_started, with their view now.
func (m *Match) roundStartedMsg(playerID string, now time.Time, resumed bool) (Event, error) {
	r := m.round
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	view, last, err := r.View(ctx, playerID, now)
	if err != nil {
		return nil, err
	}
	return RoundStarted{
		MatchID: m.ID, RoundID: r.ID, Round: r.Number, StartsAt: r.StartsAt, EndsAt: r.EndsAt,
		Rules: r.Rules, Deal: m.announce(r.Fair), View: view, LastSeq: last, Resumed: resumed,
	}, nil
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

// leaderboardMsg is the round's leaderboard now.
func (m *Match) leaderboardMsg(ctx context.Context, now time.Time) (Event, error) {
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
	return Leaderboard{MatchID: m.ID, RoundID: r.ID, Entries: entries}, nil
}
