package main

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"klondike/api/protocol"
)

// onWelcome takes the answer to hello: the session and the server's clock.
// The first welcome starts what the flags asked for; a later one follows a
// reconnect, after which a watched match is asked for again.
func (c *playClient) onWelcome(m *protocol.Welcome) {
	first := !c.welcomed
	c.welcomed = true
	c.tries = 0
	c.playerID, c.name, c.token = m.PlayerID, m.Name, m.Token
	c.keep()
	if !m.ServerTime.IsZero() {
		c.skew = time.Until(m.ServerTime)
	}
	switch {
	case !first:
		c.printf("reconnected as %s\n", clean(m.Name))
		if c.spectating != "" {
			c.request(&protocol.MatchRef{Type: protocol.TypeSpectate, MatchID: c.spectating})
		}
		if c.attemptUnderWay() {
			// start_attempt resumes an attempt where the server left it.
			c.request(&protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: c.round.matchID})
		}
		return
	case m.Resumed && c.cfg.Saved:
		c.printf("connected to %s as %s, the player saved in this profile\n", c.cfg.URL, clean(m.Name))
	case m.Resumed:
		c.printf("resumed the session of %s\n", clean(m.Name))
	default:
		c.printf("connected to %s as %s\n", c.cfg.URL, clean(m.Name))
	}
	if m.Resumed && m.MatchID != "" && !c.asyncAction() {
		c.printf("you are in match %s; the server resends where it stands\n", m.MatchID)
		return
	}
	c.startAction()
}

// startAction sends the request the flags asked for, or lists the matches.
func (c *playClient) startAction() {
	if c.actionSent {
		return
	}
	c.actionSent = true
	switch c.cfg.Action {
	case "create":
		c.create(c.cfg.Settings, c.cfg.Public, c.cfg.Rated)
	case "join":
		c.join(c.cfg.Code)
	case "quick":
		c.quick(c.cfg.Casual)
	case "spectate":
		c.spectate(c.cfg.Code)
	case "daily":
		c.playDaily(c.cfg.Draw)
	case "challenge":
		c.playChallenge(c.cfg.Code)
	case "create-challenge":
		c.createChallenge(c.cfg.Window, c.cfg.Settings)
	default:
		c.request(&protocol.ListMatches{Type: protocol.TypeListMatches})
		c.printf("%s", lobbyPrompt)
	}
}

// asyncAction reports whether the flags ask for an asynchronous round.
func (c *playClient) asyncAction() bool {
	switch c.cfg.Action {
	case "daily", "challenge", "create-challenge":
		return true
	}
	return false
}

// lobbyPrompt says what a player outside a match can type.
const lobbyPrompt = "Type: join CODE, create (private, shared by its code), create public (listed),\n" +
	"quick (rated; quick casual), spectate MATCH_ID, list, daily, challenge ID, records,\n" +
	"profile, ladder, help or quit.\n"

// create asks for a new match of settings s, listed in the lobby when
// public, rated when rated (a created match is casual unless it asks).
func (c *playClient) create(s protocol.PartialSettings, public, rated bool) {
	if public {
		s.Public = &public
	}
	if rated {
		s.Rated = &rated
	}
	c.request(&protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: s})
}

// quick asks for a quick match of our settings, of those it seats players
// by: rated, as the server makes them unless asked, or casual. A rated one
// is left to the server's default, which servers without ratings keep
// casual.
func (c *playClient) quick(casual bool) {
	s := quickSettings(c.cfg.Settings)
	if casual {
		rated := false
		s.Rated = &rated
	}
	c.request(&protocol.CreateMatch{Type: protocol.TypeQuickMatch, Settings: s})
}

// program is the command to start another client with.
func (c *playClient) program() string {
	if c.cfg.Program == "" {
		return "klondike"
	}
	return c.cfg.Program
}

// join asks to join by invite code or, for anything longer, by match id.
func (c *playClient) join(ref string) {
	ref = strings.TrimSpace(ref)
	if len(ref) > 6 {
		c.request(&protocol.MatchRef{Type: protocol.TypeJoinMatch, MatchID: ref})
	} else {
		c.request(&protocol.MatchRef{Type: protocol.TypeJoinMatch, Code: strings.ToUpper(ref)})
	}
}

// spectate asks to watch a match by its id, and remembers the id so that a
// reconnect asks again.
func (c *playClient) spectate(id string) {
	c.spectating = id
	c.request(&protocol.MatchRef{Type: protocol.TypeSpectate, MatchID: id})
}

// isPlayer reports whether we are a player of the current match.
func (c *playClient) isPlayer() bool {
	if c.match == nil {
		return false
	}
	for _, p := range c.match.Players {
		if p.PlayerID == c.playerID {
			return true
		}
	}
	return false
}

// onMatch takes a match snapshot: the reply to our request, or a change of
// our match (or a rematch we were seated in).
func (c *playClient) onMatch(m *protocol.MatchInfo, reqType string) {
	ours := reqType != "" || c.match == nil || c.match.ID == m.ID || c.spectating == m.ID
	if !ours {
		for _, p := range m.Players {
			if p.PlayerID == c.playerID {
				ours = true // seated in a rematch
			}
		}
	}
	if !ours {
		return
	}
	if reqType == protocol.TypeLeaveMatch {
		c.printf("You left match %s.\n", clean(m.Code))
		c.match, c.matchText, c.round, c.spectating = nil, "", nil, ""
		return
	}
	var prev protocol.State
	if c.match != nil && c.match.ID == m.ID {
		prev = c.match.State
	} else if c.match != nil {
		c.printf("Now in match %s.\n", clean(m.Code))
	}
	c.match = m
	if reqType == protocol.TypeSpectate {
		c.spectating = m.ID
	} else if reqType != "" && c.spectating != m.ID {
		c.spectating = ""
	}
	// The round messages announce the phases, and the ratings line a
	// round's changes: reprint the summary when something else changed
	// (players, ready, connected, spectators).
	key := *m
	key.State, key.Round, key.Ratings = "", 0, nil
	key.Players = slices.Clone(m.Players)
	for i := range key.Players {
		key.Players[i].Rating, key.Players[i].Provisional = 0, false
	}
	if text := renderMatch(&key, c.playerID); text != c.matchText {
		c.matchText = text
		c.printf("%s", renderMatch(m, c.playerID))
	}
	switch reqType {
	case protocol.TypeCreateMatch:
		c.printf("Invite code: %s\nshare: %s play --server %s --code %s\n", clean(m.Code), c.program(), c.cfg.URL, clean(m.Code))
		c.printf("watch: %s play --server %s --spectate %s\n", c.program(), c.cfg.URL, clean(m.ID))
		if m.Settings.Public {
			c.printf("A public match: it is listed in the lobby (list) for anyone to join.\n")
		} else {
			c.printf("A private match: only players with the code can join (create public lists one in the lobby).\n")
		}
		c.printf("Type start when everyone has joined.\n")
	case protocol.TypeJoinMatch:
		c.printf("Joined match %s. The host starts it (or it starts when full and all are ready: type ready).\n", clean(m.Code))
	case protocol.TypeQuickMatch:
		c.printf("Waiting for players: a quick match starts shortly after a second player joins.\n")
		if m.Settings.Rated {
			c.printf("Rated: you are seated with players near your rating, a range that widens as you wait.\n")
		}
	case protocol.TypeSpectate:
		c.printf("Watching match %s.\n", clean(m.Code))
	}
	// A round that ended while we were away: its round_over was lost.
	if r := c.round; r != nil && !r.over && r.matchID == m.ID && (m.RoundID != r.id || m.State == protocol.StateBetween || m.State == protocol.StateOver) {
		r.over, r.overAt = true, time.Now()
		r.pending = nil
		c.printf("Round %d ended while you were away; its results: %s\n", r.number, clean(c.httpURL("/api/v1/rounds/"+url.PathEscape(r.id)+"/replay")))
		if len(m.Totals) > 0 {
			c.printf("Match totals:\n%s", renderTotals(m.Totals, c.playerID))
		}
	}
	if m.State != prev && (m.State == protocol.StateOver || m.State == protocol.StateBetween) {
		c.dropQueue("the round is over")
	}
	c.printRatings()
}

// onMatchOver prints the match's final totals and what can come next.
func (c *playClient) onMatchOver(m *protocol.MatchOver) {
	if c.match != nil && c.match.ID == m.MatchID {
		c.match.State = protocol.StateOver
	}
	c.printf("\n%s", renderMatchOver(m.Totals, c.playerID))
	if !c.eof {
		c.printf("Type rematch to play again with the same players, create [public], quick, join CODE or quit.\n")
	}
}
