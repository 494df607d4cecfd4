package main

import (
	"encoding/json"
	"fmt"

	"klondike/api/protocol"
)

// handleAs decodes a server message of type typ as a T and hands it to f;
// a message that does not decode is reported and dropped.
func handleAs[T any](c *playClient, typ string, data []byte, f func(*T)) {
	var m T
	if err := json.Unmarshal(data, &m); err != nil {
		c.printf("cannot read the server's %s message: %v\n", typ, err)
		return
	}
	f(&m)
}

// handle dispatches one server message to its on… method, then sends the
// next queued move if the message made way for it.
func (c *playClient) handle(data []byte) {
	var env protocol.Header
	if err := json.Unmarshal(data, &env); err != nil {
		c.printf("the server sent something that is not JSON: %q\n", truncate(string(data), 200))
		return
	}
	req := c.pending[env.Re]
	reqType := req.typ
	delete(c.pending, env.Re)
	if c.elsewhere && (env.Re == "" && matchEvent(env.Type) || reqType == protocol.TypePlayHere && env.Type == protocol.TypeMatch) {
		// Only the connection that plays gets the match's events.
		c.elsewhere = false
		c.printf("You play here again.\n")
	}
	switch env.Type {
	case protocol.TypeWelcome:
		handleAs(c, env.Type, data, c.onWelcome)
	case protocol.TypeMatch:
		handleAs(c, env.Type, data, func(m *protocol.Match) {
			if m.Match != nil {
				c.onMatch(m.Match, reqType)
			}
		})
	case protocol.TypeMatches:
		handleAs(c, env.Type, data, func(m *protocol.Matches) {
			c.listCursor = m.NextCursor
			c.printf("%s", renderMatchList(m.Matches, m.NextCursor != ""))
		})
	case protocol.TypeRoundStarting:
		handleAs(c, env.Type, data, c.onRoundStarting)
	case protocol.TypeRoundStarted:
		handleAs(c, env.Type, data, c.onRoundStarted)
	case protocol.TypeMoveOK:
		handleAs(c, env.Type, data, c.onMoveOK)
	case protocol.TypeMoveRejected:
		handleAs(c, env.Type, data, c.onMoveRejected)
	case protocol.TypeResigned:
		handleAs(c, env.Type, data, c.onResigned)
	case protocol.TypeLeaderboard:
		handleAs(c, env.Type, data, c.onLeaderboard)
	case protocol.TypeRoundOver:
		handleAs(c, env.Type, data, c.onRoundOver)
	case protocol.TypeMatchOver:
		handleAs(c, env.Type, data, c.onMatchOver)
	case protocol.TypeDaily:
		handleAs(c, env.Type, data, func(m *protocol.Daily) { c.onDaily(m, req.arg) })
	case protocol.TypeAsyncRound:
		handleAs(c, env.Type, data, func(m *protocol.AsyncRound) {
			if req.arg == argDailyList {
				c.onDailyAttempt(env.Re, &m.Attempt)
				return
			}
			c.onAsyncRound(m, reqType, req.arg)
		})
	case protocol.TypeGhost:
		handleAs(c, env.Type, data, c.onGhost)
	case protocol.TypeAttemptOver:
		handleAs(c, env.Type, data, c.onAttemptOver)
	case protocol.TypeBoard:
		handleAs(c, env.Type, data, c.onBoard)
	case protocol.TypeRecords:
		handleAs(c, env.Type, data, c.onRecords)
	case protocol.TypePlayingElsewhere:
		handleAs(c, env.Type, data, func(*protocol.PlayingElsewhere) {
			c.elsewhere = true
			c.printf("Your game is being played elsewhere (another terminal or a browser tab of this player): type here to play it here.\n")
		})
	case protocol.TypeError:
		handleAs(c, env.Type, data, func(m *protocol.Error) { c.onError(env.Re, req, m) })
	default:
		// Newer servers may send more; the protocol only adds.
	}
	c.pump()
}

// truncate shortens s to its first n bytes, marking the cut, so that a
// quote of what the server sent stays short.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// onError takes an error message; re is the id of the request it answers
// and req that request (its type "" when unknown). A rate-limited move is
// sent again after RateRetry; a refused move or request is reported, in
// the words of what it asked, and a refused hello ends the client.
func (c *playClient) onError(re string, req request, m *protocol.Error) {
	reqType := req.typ
	r := c.round
	if m.Code == protocol.CodeRateLimited && r != nil && r.pending != nil {
		// The server dropped a message without saying which: send the move
		// again in a while (the same seq is safe to repeat).
		c.queue = append([]string{r.pending.move}, c.queue...)
		r.pending = nil
		c.arm(c.cfg.RateRetry)
		return
	}
	if r != nil && r.pending != nil && r.pending.id == re {
		c.printf("%s refused: %s (%s)\n", r.pending.move, clean(m.Message), clean(m.Code))
		r.pending = nil
		return
	}
	if req.arg == argDailyList {
		c.onDailyAttempt(re, nil) // the list shows the round's attempt as unknown
		return
	}
	if c.asyncRoundError(reqType, m) {
		return
	}
	if reqType == protocol.TypeHello && m.Code == protocol.CodeUnauthorized && c.cfg.Saved && !c.welcomed {
		c.newPlayer()
		return
	}
	why := clean(m.Message)
	if why == "" {
		why = clean(m.Code)
	}
	switch reqType {
	case protocol.TypeHello:
		c.fatal = fmt.Errorf("could not %s: %s", req.words(), why) // printed as play's error
		return
	case "":
		c.printf("The server says: %s\n", why)
	default:
		c.printf("Could not %s: %s\n", req.words(), why)
	}
	switch reqType {
	case protocol.TypeCreateMatch, protocol.TypeJoinMatch, protocol.TypeQuickMatch, protocol.TypeSpectate:
		if reqType == protocol.TypeSpectate {
			c.spectating = ""
		}
		if c.match == nil {
			c.failed = true
			if !c.eof {
				c.printf("%s", lobbyPrompt)
			}
		}
	case protocol.TypeGetDaily, protocol.TypeGetAsyncRound, protocol.TypeCreateChallenge, protocol.TypeStartAttempt:
		c.failed = true
	}
}

// matchEvent reports whether a message of type typ is one of the events
// of the player's match, which only the player's connection that plays
// gets (protocol.PlayingElsewhere).
func matchEvent(typ string) bool {
	switch typ {
	case protocol.TypeMatch, protocol.TypeRoundStarting, protocol.TypeRoundStarted, protocol.TypeLeaderboard,
		protocol.TypeRoundOver, protocol.TypeMatchOver, protocol.TypeGhost, protocol.TypeAttemptOver:
		return true
	}
	return false
}
