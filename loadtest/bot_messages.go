package main

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"klondike/engine"
)

// A request is a frame sent and awaiting its reply.
type request struct {
	id    string
	kind  string // hello, quick_match, create_match, join_match, ready, start_match, rematch, leave_match, move, resign
	frame any
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
	switch f := req.frame.(type) {
	case *helloOut:
		f.ID = req.id
	case *lobbyOut:
		f.ID = req.id
	case *moveOut:
		f.ID = req.id
	case *resignOut:
		f.ID = req.id
	}
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
	if req.kind == "move" {
		req.sent = now
		b.inflight = req
		if req.tries == 1 {
			b.r.c.movesSent.Add(1)
		}
	}
	b.conn.SetWriteDeadline(now.Add(writeWait))
	return b.conn.WriteMessage(websocket.TextMessage, data)
}

// readLoop reads frames until the connection ends, counting leaderboards
// and handing everything else to the bot's loop.
func (b *bot) readLoop() {
	for {
		_, data, err := b.conn.ReadMessage()
		if err != nil {
			select {
			case b.rerr <- err:
			default:
			}
			return
		}
		at := time.Now()
		typ := peekType(data)
		if typ == "leaderboard" {
			b.r.c.leaderboards.Add(1)
			continue
		}
		m := &inMsg{}
		if typ != "move_ok" || !parseMoveOK(data, m) {
			if typ == "move_ok" {
				b.r.c.moveOKSlow.Add(1)
			}
			*m = inMsg{}
			if err := json.Unmarshal(data, m); err != nil {
				b.r.c.fail("decode", err.Error())
				continue
			}
		}
		m.at = at.UnixNano()
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
	case "welcome":
		b.playerID = m.PlayerID
		b.r.c.welcomed.Add(1)
		if b.r.cfg.Idle {
			return nil // only answer pings (the reader does) until the end
		}
		if b.r.echo {
			return b.startEchoRound()
		}
		return b.enterLobby()
	case "match":
		return b.onMatch(m, req)
	case "error":
		return b.onError(m, req)
	case "round_starting":
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
		b.matchState = "starting"
		b.roundID = m.RoundID
		b.lobbySince = time.Time{}
	case "round_started":
		return b.onRoundStarted(m)
	case "move_ok":
		return b.onMoveOK(m, req)
	case "move_rejected":
		return b.onMoveRejected(m, req)
	case "resigned":
		b.playing = false
		b.moveAt = time.Time{}
	case "round_over":
		return b.onRoundOver(m)
	case "match_over":
		return b.onMatchOver(m)
	case "matches":
	default:
		b.r.c.fail("unknown_message", m.Type)
	}
	return nil
}

// lobbyKinds are the requests whose refusal sends a bot back to the lobby.
var lobbyKinds = map[string]bool{"quick_match": true, "create_match": true, "join_match": true, "rematch": true}

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
	case m.Code == "rate_limited":
		c.refuse("rate_limited")

		if req.kind == "move" {
			b.inflight = nil
		}
		b.retry = req
		b.retryAt = time.Now().Add(min(retryBackoff*time.Duration(req.tries), maxRetryBackoff))
		return nil
	case req.kind == "move":
		c.fail("error:"+m.Code, "move "+req.text+": "+m.Message)
		b.inflight = nil
		b.playing = false
		return nil
	case req.kind == "resign" && m.Code == "round_not_running":
		c.refuse("resign:round_not_running")
		return nil
	case req.kind == "resign" && m.Code == "unavailable":
		// The server could not record it now (at the drain every bot
		// resigns at once): say it again later, as the lobby's requests
		// do; resend bounds the tries.
		c.refuse("resign:unavailable")
		b.retry = req
		b.retryAt = time.Now().Add(min(retryBackoff*time.Duration(req.tries), maxRetryBackoff))
		return nil
	case lobbyKinds[req.kind] && (m.Code == "match_full" || m.Code == "bad_request" || m.Code == "not_found" || m.Code == "unavailable"):
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
		if m.Code == "unavailable" {
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
		return b.send(&request{kind: "quick_match", frame: &lobbyOut{Type: "quick_match", Settings: b.settings()}})
	case req.kind == "leave_match" || req.kind == "start_match":
		// The match moved on meanwhile (it started, or ended).
		c.refuse(req.kind + ":" + m.Code)
		return nil
	}
	c.fail("error:"+m.Code, req.kind+": "+m.Message)
	return nil
}
