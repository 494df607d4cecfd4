package main

import (
	"time"

	"klondike/api/protocol"
)

// enterLobby looks for the next match: a quick match, or in code mode the
// group's match (its first bot creates it, the others join by its code).
func (b *bot) enterLobby() error {
	if b.draining {
		return errBotDone
	}
	b.lobbySince = time.Now()
	b.matchID, b.matchState, b.host = "", "", ""
	if b.r.cfg.Join == joinQuick {
		return b.send(&request{kind: protocol.TypeQuickMatch, frame: &protocol.CreateMatch{Type: protocol.TypeQuickMatch, Settings: b.settings()}})
	}
	if b.group == nil {
		b.group = b.r.groupOf(b.idx)
	}
	if b.group.host == b.idx {
		s := b.settings()
		s.MaxPlayers = new(b.group.size)
		return b.send(&request{kind: protocol.TypeCreateMatch, frame: &protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: s}})
	}
	b.codeWait = b.group.entry(b.gen)
	return nil
}

// settings are the match settings the bot asks for: the run's flags, each
// set (the server's defaults fill in the others).
func (b *bot) settings() protocol.PartialSettings {
	cfg := &b.r.cfg
	s := protocol.PartialSettings{
		Draw: new(cfg.Draw), Passes: new(cfg.Passes), Rounds: new(cfg.Rounds), MaxPlayers: new(cfg.PerMatch),
		TimeLimitS: new(cfg.TimeLimitS), CountdownS: new(cfg.CountdownS),
	}
	if cfg.Deal != "" {
		s.Seed = new(cfg.Deal)
	}
	return s
}

// lobbyDeadline is when a bot waiting in an open match (or for an invite
// code) acts on its own: the host starts the match, another bot gives up
// on it.
func (b *bot) lobbyDeadline() time.Time {
	if b.lobbySince.IsZero() || b.draining {
		return time.Time{}
	}
	if b.codeWait == nil && b.matchState == protocol.StateOpen && b.host == b.playerID && b.startSentTo != b.matchID {
		return b.lobbySince.Add(b.r.cfg.LobbyWait)
	}
	return b.lobbySince.Add(2 * b.r.cfg.LobbyWait)
}

// lobbyTimeout acts at the lobby deadline: the host starts its match with
// whoever is seated; another bot leaves a match that does not start and
// looks for another one.
func (b *bot) lobbyTimeout() error {
	if b.codeWait == nil && b.matchState == protocol.StateOpen && b.host == b.playerID && b.startSentTo != b.matchID {
		b.startSentTo = b.matchID
		return b.send(&request{kind: protocol.TypeStartMatch, frame: &protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: b.matchID}})
	}
	b.r.c.lobbyTimeouts.Add(1)
	b.lobbySince = time.Now()
	if b.codeWait != nil { // the group's host never published its code
		b.codeWait = nil
		s := b.settings()
		s.MaxPlayers = new(1)
		return b.send(&request{kind: protocol.TypeCreateMatch, frame: &protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: s}})
	}
	if b.matchState == protocol.StateOpen || b.matchState == protocol.StateOver || b.matchState == "" {
		if b.matchID != "" && b.matchState == protocol.StateOpen {
			if err := b.send(&request{kind: protocol.TypeLeaveMatch, frame: &protocol.MatchRef{Type: protocol.TypeLeaveMatch, MatchID: b.matchID}}); err != nil {
				return err
			}
		}
		b.gen++
		b.group = nil
		b.matchID, b.matchState = "", ""
		return b.send(&request{kind: protocol.TypeQuickMatch, frame: &protocol.CreateMatch{Type: protocol.TypeQuickMatch, Settings: b.settings()}})
	}
	return nil
}

// seated reports whether the match lists the bot as a player.
func (b *bot) seated(mt *protocol.MatchInfo) bool {
	for _, p := range mt.Players {
		if p.PlayerID == b.playerID {
			return true
		}
	}
	return false
}

// onMatch follows the bot's match: the answer to a lobby request, or a
// push when the match changes.
func (b *bot) onMatch(m *inMsg, req *request) error {
	mt := m.Match
	if mt == nil {
		b.r.c.fail("protocol", "match message without a match")
		return nil
	}
	adopt := false
	if req != nil {
		switch req.kind {
		case protocol.TypeQuickMatch, protocol.TypeCreateMatch, protocol.TypeJoinMatch, protocol.TypeRematch:
			adopt = b.seated(mt)
			if req.kind == protocol.TypeCreateMatch && b.group != nil && b.group.host == b.idx {
				b.group.publish(b.gen, mt.Code)
			}
		}
	} else if mt.ID != b.matchID && b.seated(mt) && (mt.State == protocol.StateOpen || mt.State == protocol.StateStarting) && !b.inRound() {
		// Another player's rematch seated the bot in a new match (or moved
		// it from one new match to another).
		adopt = true
	}
	if adopt && mt.ID != b.matchID {
		b.matchID = mt.ID
		b.rematchAt = time.Time{}
		b.r.c.matchesJoined.Add(1)
		b.lobbySince = time.Now()
	}
	if mt.ID != b.matchID {
		return nil
	}
	if mt.State == protocol.StateOpen && !b.seated(mt) {
		// Taken out of this match (a concurrent rematch seated the bot in
		// another): wait for that match's push.
		b.matchID, b.matchState = "", ""
		return nil
	}
	b.matchState, b.host, b.quick = mt.State, mt.Host, mt.Quick
	if mt.State != protocol.StateOpen {
		if mt.State != protocol.StateOver {
			b.lobbySince = time.Time{}
		}
		return nil
	}
	if !b.quick && b.readyFor != mt.ID && !b.draining {
		b.readyFor = mt.ID
		return b.send(&request{kind: protocol.TypeReady, frame: &protocol.MatchRef{Type: protocol.TypeReady, MatchID: mt.ID}})
	}
	return nil
}

// inRound reports whether the bot is seated in a round being dealt or played.
func (b *bot) inRound() bool {
	return b.matchState == protocol.StateStarting || b.matchState == protocol.StateRunning || b.matchState == protocol.StateBetween
}

// adoptMatch makes id the bot's match, when the server deals it in there.
func (b *bot) adoptMatch(id string) {
	if id == "" || id == b.matchID {
		return
	}
	b.matchID = id
	b.rematchAt = time.Time{}
	b.codeWait = nil
	b.r.c.matchesJoined.Add(1)
}

// onMatchOver does what --after says once the bot's match ends: a rematch,
// the lobby again, or the end of the bot.
func (b *bot) onMatchOver(m *inMsg) error {
	if m.MatchID != b.matchID {
		return nil
	}
	b.matchState = protocol.StateOver
	b.roundID = ""
	if b.draining {
		return errBotDone
	}
	switch b.r.cfg.After {
	case afterRematch:
		b.lobbySince = time.Now()
		b.rematchOf = m.MatchID
		if b.host == b.playerID || b.r.cfg.RematchSpread <= 0 {
			return b.sendRematch()
		}
		// The others follow the host a little later, and usually find
		// themselves seated already: they then join the host's new match.
		f := 0.2 + 0.8*b.rng.Float64()
		b.rematchAt = time.Now().Add(time.Duration(f * float64(b.r.cfg.RematchSpread)))
		return nil
	case afterRequeue:
		b.gen++
		return b.enterLobby()
	}
	return errBotDone
}

// sendRematch asks for a rematch of the finished match.
func (b *bot) sendRematch() error {
	b.rematchAt = time.Time{}
	return b.send(&request{kind: protocol.TypeRematch, frame: &protocol.MatchRef{Type: protocol.TypeRematch, MatchID: b.rematchOf}})
}
