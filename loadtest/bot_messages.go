package main

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"klondike/api/client"
	"klondike/api/protocol"
	"klondike/engine"
)

// A request is a frame sent and awaiting its reply.
type request struct {
	id    string
	kind  string // the message's type (protocol.TypeHello, TypeMove…)
	frame any    // a pointer to the protocol's message, whose ID send sets
	tries int

	// moves
	seq   int
	move  engine.Move
	text  string
	sched time.Time // the scheduled send time (open loop) or first send
	sent  time.Time
}

// send gives req an id and writes it.
func (b *bot) send(req *request) error {
	b.nextID++
	req.id = strconv.Itoa(b.nextID)
	id, _ := clientFields(req.frame)
	*id = req.id
	return b.resend(req)
}

// resend writes req again with the same id.
func (b *bot) resend(req *request) error {
	req.tries++
	if req.tries > maxTries {
		b.r.c.fail("retries", req.kind+" refused "+strconv.Itoa(maxTries)+" times")
		return errors.New("too many retries")
	}
	data, err := json.Marshal(req.frame)
	if err != nil {
		return err
	}
	b.pending[req.id] = req
	now := time.Now()
	if req.kind == protocol.TypeMove {
		req.sent = now
		b.inflight = req
		if req.tries == 1 {
			b.r.c.movesSent.Add(1)
		}
	}
	return b.conn.SendRaw(data)
}

// readLoop reads frames until the connection ends, counting leaderboards
// and handing everything else to the bot's loop.
func (b *bot) readLoop() {
	for {
		data, err := b.conn.Read()
		if err != nil {
			select {
			case b.rerr <- err:
			default:
			}
			return
		}
		at := time.Now()
		typ := client.PeekType(data)
		if typ == protocol.TypeLeaderboard {
			b.r.c.leaderboards.Add(1)
			continue
		}
		m := &inMsg{}
		fast, err := client.DecodeMessage(data, m)
		if !fast && typ == protocol.TypeMoveOK {
			b.r.c.moveOKSlow.Add(1)
		}
		if err != nil {
			b.r.c.fail("decode", err.Error())
			continue
		}
		m.At = at.UnixNano()
		select {
		case b.in <- m:
		case <-b.quit:
			return
		}
	}
}

// handle reacts to one server frame.
func (b *bot) handle(m *inMsg) error {
	var req *request
	if m.Re != "" {
		req = b.pending[m.Re]
		delete(b.pending, m.Re)
	}
	switch m.Type {
	case protocol.TypeWelcome:
		b.playerID = m.PlayerID
		b.r.c.welcomed.Add(1)
		if b.r.cfg.Idle {
			return nil // only answer pings (the reader does) until the end
		}
		if b.r.echo {
			return b.startEchoRound()
		}
		return b.enterLobby()
	case protocol.TypeMatch:
		return b.onMatch(m, req)
	case protocol.TypeError:
		return b.onError(m, req)
	case protocol.TypeRoundStarting:
		// Only a seated player's current match deals it in: follow it,
		// even when a concurrent rematch moved the bot to a match it has
		// not seen yet.
		b.adoptMatch(m.MatchID)
		if b.rec != nil && b.rec.roundID != m.RoundID {
			// Dealt into another round while this one is on (the server
			// should never do that to a player; if it does, the moves of
			// the two rounds must not be mixed in one record, nor the old
			// view played in the new round): the old round's game ends
			// here for this bot.
			b.r.c.fail("protocol", "round_starting "+m.RoundID+" while playing "+b.rec.roundID)
			b.flushRecord(false)
			b.playing, b.inflight, b.moveAt = false, nil, time.Time{}
		}
		b.matchState = protocol.StateStarting
		b.roundID = m.RoundID
		b.lobbySince = time.Time{}
	case protocol.TypeRoundStarted:
		return b.onRoundStarted(m)
	case protocol.TypeMoveOK:
		return b.onMoveOK(m, req)
	case protocol.TypeMoveRejected:
		return b.onMoveRejected(m, req)
	case protocol.TypeResigned:
		b.playing = false
		b.moveAt = time.Time{}
	case protocol.TypeRoundOver:
		return b.onRoundOver(m)
	case protocol.TypeMatchOver:
		return b.onMatchOver(m)
	case protocol.TypeMatches:
	default:
		b.r.c.fail("unknown_message", m.Type)
	}
	return nil
}

// lobbyKinds are the requests whose refusal sends a bot back to the lobby.
var lobbyKinds = map[string]bool{protocol.TypeQuickMatch: true, protocol.TypeCreateMatch: true, protocol.TypeJoinMatch: true, protocol.TypeRematch: true}

// onError handles a refused request: a rate limit or an unavailable
// server means try again later, a lost race in the lobby means look again,
// a match that moved on is only counted; anything else is unexpected.
func (b *bot) onError(m *inMsg, req *request) error {
	c := b.r.c
	if req == nil {
		c.fail("error:"+m.Code, m.Message)
		return nil
	}
	switch {
	case m.Code == protocol.CodeRateLimited:
		c.refuse(protocol.CodeRateLimited)

		if req.kind == protocol.TypeMove {
			b.inflight = nil
		}
		b.retry = req
		b.retryAt = time.Now().Add(min(retryBackoff*time.Duration(req.tries), maxRetryBackoff))
		return nil
	case req.kind == protocol.TypeMove:
		c.fail("error:"+m.Code, "move "+req.text+": "+m.Message)
		b.inflight = nil
		b.playing = false
		return nil
	case req.kind == protocol.TypeResign && m.Code == protocol.CodeRoundNotRunning:
		c.refuse(protocol.TypeResign + ":" + protocol.CodeRoundNotRunning)
		return nil
	case req.kind == protocol.TypeResign && m.Code == protocol.CodeUnavailable:
		// The server could not record it now (at the drain every bot
		// resigns at once): say it again later, as the lobby's requests
		// do; resend bounds the tries.
		c.refuse(protocol.TypeResign + ":" + protocol.CodeUnavailable)
		b.retry = req
		b.retryAt = time.Now().Add(min(retryBackoff*time.Duration(req.tries), maxRetryBackoff))
		return nil
	case lobbyKinds[req.kind] && (m.Code == protocol.CodeMatchFull || m.Code == protocol.CodeBadRequest || m.Code == protocol.CodeNotFound || m.Code == protocol.CodeUnavailable):
		// A quick match filled up between the server's look and its join,
		// a code expired, a rematch raced: try the lobby again, a bounded
		// number of times.
		c.lobbyRetries.Add(1)
		c.refuse(req.kind + ":" + m.Code)
		b.lobbyTries++
		if b.lobbyTries > maxTries {
			c.fail("lobby", req.kind+": "+m.Code+": "+m.Message)
			return errBotDone
		}
		b.lobbySince = time.Now()
		if m.Code == protocol.CodeUnavailable {
			b.retry = req
			b.retryAt = time.Now().Add(retryBackoff * time.Duration(req.tries))
			return nil
		}
		if b.inRound() || strings.Contains(m.Message, "another match") {
			// Seated in a match being played (someone's rematch put the
			// bot there): its round_starting or round_started will come.
			return nil
		}
		b.gen++
		b.group = nil
		return b.send(&request{kind: protocol.TypeQuickMatch, frame: &protocol.CreateMatch{Type: protocol.TypeQuickMatch, Settings: b.settings()}})
	case req.kind == protocol.TypeLeaveMatch || req.kind == protocol.TypeStartMatch:
		// The match moved on meanwhile (it started, or ended).
		c.refuse(req.kind + ":" + m.Code)
		return nil
	}
	c.fail("error:"+m.Code, req.kind+": "+m.Message)
	return nil
}
