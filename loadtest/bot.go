package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"klondike/engine"
)

// A bot is one player: one WebSocket connection that speaks the protocol
// exactly as a client does. It has two goroutines, like the server's
// connections: readLoop reads and decodes frames, and the bot's own loop
// (run) holds all of its state, writes every frame and keeps its timers.
type bot struct {
	r    *runner
	idx  int
	name string
	rng  *rand.Rand
	conn *websocket.Conn
	in   chan *inMsg
	rerr chan error // the reader's end
	quit chan struct{}

	nextID   int
	pending  map[string]*request
	playerID string
	handled  int // frames handled: bounded by maxFrames

	// Lobby and match.
	group       *group
	gen         int // the group's match generation (code mode)
	codeWait    *codeEntry
	matchID     string
	matchState  string
	host        string
	quick       bool
	readyFor    string // the match a ready was sent for
	startSentTo string // the match a start_match was sent for
	lobbySince  time.Time
	lobbyTries  int
	rematchOf   string    // the finished match to rematch
	rematchAt   time.Time // when to send the rematch (zero: not due)

	// The round.
	roundID       string
	rules         engine.Rules
	view          engine.View
	playing       bool // the round runs and the bot's game goes on
	nextSeq       int
	inflight      *request // the move awaiting its answer
	sched         time.Time
	moveAt        time.Time // when to send the next move (zero: none)
	retryAt       time.Time // when to resend a refused request (zero: none)
	retry         *request
	stale         bool // the view may be behind (after out_of_order)
	illegalRun    int
	movesInRound  int
	resignSent    bool
	rec           *roundRecord
	moveBuf       []engine.Move
	startedRounds int

	draining bool
	timer    *time.Timer
}

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

const (
	maxFrames       = 50_000_000 // frames one bot handles at most
	maxTries        = 20         // sends of one request at most
	maxIllegalRun   = 3          // illegal moves in a row before the bot resigns
	writeWait       = 10 * time.Second
	closeWait       = 2 * time.Second
	inboxSize       = 64
	retryBackoff    = 50 * time.Millisecond
	maxRetryBackoff = time.Second
)

// errBotDone ends a bot's loop normally.
var errBotDone = errors.New("done")

func newBot(r *runner, idx int) *bot {
	return &bot{
		r: r, idx: idx, name: fmt.Sprintf("bot%05d", idx),
		rng:     rand.New(rand.NewPCG(r.cfg.Seed, uint64(idx))),
		in:      make(chan *inMsg, inboxSize),
		rerr:    make(chan error, 1),
		quit:    make(chan struct{}),
		pending: make(map[string]*request),
		moveBuf: make([]engine.Move, 0, 64),
	}
}

// run connects and plays until the run stops (and the bot has drained) or
// the hard deadline passes.
func (b *bot) run(ctx context.Context) {
	c := b.r.c
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	conn, resp, err := b.r.dialer.DialContext(dctx, b.r.wsURL, nil)
	cancel()
	if err != nil {
		c.connsFailed.Add(1)
		detail := err.Error()
		if resp != nil {
			detail += " (HTTP " + resp.Status + ")"
			if resp.StatusCode == 429 {
				detail += ": the server's connection cap per address; start klondiked with --max-conns-per-ip -1 --max-http-conns-per-ip -1"
			}
		}
		c.fail("connect", detail)
		return
	}
	c.connsOpened.Add(1)
	b.conn = conn
	b.timer = time.NewTimer(time.Hour)
	b.timer.Stop()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b.readLoop()
	}()
	defer func() {
		close(b.quit)
		b.flushRecord(false)
		_ = conn.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"), time.Now().Add(closeWait))
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		t := time.NewTimer(closeWait)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
		conn.Close()
		<-done
	}()

	err = b.loop(ctx)
	if err != nil && !errors.Is(err, errBotDone) && ctx.Err() == nil {
		c.connsDropped.Add(1)
		c.fail("connection", err.Error())
	}
}

func (b *bot) loop(ctx context.Context) error {
	if err := b.send(&request{kind: "hello", frame: &helloOut{Type: "hello", Name: b.name}}); err != nil {
		return err
	}
	stop := b.r.stop
	for {
		var codeCh chan struct{}
		if b.codeWait != nil {
			codeCh = b.codeWait.done
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-b.rerr:
			if b.draining && b.quiet() {
				return errBotDone
			}
			return err
		case m := <-b.in:
			b.handled++
			if b.handled > maxFrames {
				return errors.New("frame limit reached")
			}
			if err := b.handle(m); err != nil {
				return err
			}
		case <-stop:
			stop = nil
			if err := b.drain(); err != nil {
				return err
			}
		case <-codeCh:
			code := b.codeWait.code
			b.codeWait = nil
			if err := b.send(&request{kind: "join_match", frame: &lobbyOut{Type: "join_match", Code: code}}); err != nil {
				return err
			}
		case <-b.timer.C:
			if err := b.tick(time.Now()); err != nil {
				return err
			}
		}
		b.armTimer()
	}
}

// quiet reports whether the bot has nothing left to wait for.
func (b *bot) quiet() bool { return !b.playing && b.inflight == nil }

// armTimer sets the timer to the earliest of the bot's deadlines.
func (b *bot) armTimer() {
	var next time.Time
	for _, t := range []time.Time{b.moveAt, b.retryAt, b.rematchAt, b.lobbyDeadline()} {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	b.timer.Stop()
	select {
	case <-b.timer.C:
	default:
	}
	if !next.IsZero() {
		b.timer.Reset(max(time.Until(next), 0))
	}
}

// lobbyDeadline is when a bot waiting in an open match (or for an invite
// code) acts on its own: the host starts the match, another bot gives up
// on it.
func (b *bot) lobbyDeadline() time.Time {
	if b.lobbySince.IsZero() || b.draining {
		return time.Time{}
	}
	if b.codeWait == nil && b.matchState == "open" && b.host == b.playerID && b.startSentTo != b.matchID {
		return b.lobbySince.Add(b.r.cfg.LobbyWait)
	}
	return b.lobbySince.Add(2 * b.r.cfg.LobbyWait)
}

// tick runs what is due.
func (b *bot) tick(now time.Time) error {
	if !b.retryAt.IsZero() && !now.Before(b.retryAt) {
		req := b.retry
		b.retry, b.retryAt = nil, time.Time{}
		if req != nil {
			if req.kind == "move" {
				b.r.c.movesRetried.Add(1)
			}
			if err := b.resend(req); err != nil {
				return err
			}
		}
	}
	if !b.moveAt.IsZero() && !now.Before(b.moveAt) {
		b.moveAt = time.Time{}
		if err := b.playMove(now); err != nil {
			return err
		}
	}
	if !b.rematchAt.IsZero() && !now.Before(b.rematchAt) {
		b.rematchAt = time.Time{}
		if b.matchState == "over" && !b.draining {
			if err := b.sendRematch(); err != nil {
				return err
			}
		}
	}
	if d := b.lobbyDeadline(); !d.IsZero() && !now.Before(d) {
		if err := b.lobbyTimeout(); err != nil {
			return err
		}
	}
	return nil
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

func (b *bot) settings() *settingsOut {
	cfg := &b.r.cfg
	s := &settingsOut{
		Draw: cfg.Draw, Passes: cfg.Passes, Rounds: cfg.Rounds, MaxPlayers: cfg.PerMatch,
		TimeLimitS: cfg.TimeLimitS, CountdownS: cfg.CountdownS,
	}
	if cfg.Deal != "" {
		s.Seed = &cfg.Deal
	}
	return s
}

// enterLobby looks for the next match: a quick match, or in code mode the
// group's match (its first bot creates it, the others join by its code).
func (b *bot) enterLobby() error {
	if b.draining {
		return errBotDone
	}
	b.lobbySince = time.Now()
	b.matchID, b.matchState, b.host = "", "", ""
	if b.r.cfg.Join == joinQuick {
		return b.send(&request{kind: "quick_match", frame: &lobbyOut{Type: "quick_match", Settings: b.settings()}})
	}
	if b.group == nil {
		b.group = b.r.groupOf(b.idx)
	}
	if b.group.host == b.idx {
		s := b.settings()
		s.MaxPlayers = b.group.size
		return b.send(&request{kind: "create_match", frame: &lobbyOut{Type: "create_match", Settings: s}})
	}
	b.codeWait = b.group.entry(b.gen)
	return nil
}

// lobbyTimeout: the host starts its match with whoever is seated; another
// bot leaves a match that does not start and looks for another one.
func (b *bot) lobbyTimeout() error {
	if b.codeWait == nil && b.matchState == "open" && b.host == b.playerID && b.startSentTo != b.matchID {
		b.startSentTo = b.matchID
		return b.send(&request{kind: "start_match", frame: &lobbyOut{Type: "start_match", MatchID: b.matchID}})
	}
	b.r.c.lobbyTimeouts.Add(1)
	b.lobbySince = time.Now()
	if b.codeWait != nil { // the group's host never published its code
		b.codeWait = nil
		s := b.settings()
		s.MaxPlayers = 1
		return b.send(&request{kind: "create_match", frame: &lobbyOut{Type: "create_match", Settings: s}})
	}
	if b.matchState == "open" || b.matchState == "over" || b.matchState == "" {
		if b.matchID != "" && b.matchState == "open" {
			if err := b.send(&request{kind: "leave_match", frame: &lobbyOut{Type: "leave_match", MatchID: b.matchID}}); err != nil {
				return err
			}
		}
		b.gen++
		b.group = nil
		b.matchID, b.matchState = "", ""
		return b.send(&request{kind: "quick_match", frame: &lobbyOut{Type: "quick_match", Settings: b.settings()}})
	}
	return nil
}

// seated reports whether the match lists the bot as a player.
func (b *bot) seated(mt *matchIn) bool {
	for _, p := range mt.Players {
		if p.PlayerID == b.playerID {
			return true
		}
	}
	return false
}

func (b *bot) onMatch(m *inMsg, req *request) error {
	mt := m.Match
	if mt == nil {
		b.r.c.fail("protocol", "match message without a match")
		return nil
	}
	adopt := false
	if req != nil {
		switch req.kind {
		case "quick_match", "create_match", "join_match", "rematch":
			adopt = b.seated(mt)
			if req.kind == "create_match" && b.group != nil && b.group.host == b.idx {
				b.group.publish(b.gen, mt.Code)
			}
		}
	} else if mt.ID != b.matchID && b.seated(mt) && (mt.State == "open" || mt.State == "starting") && !b.inRound() {
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
	if mt.State == "open" && !b.seated(mt) {
		// Taken out of this match (a concurrent rematch seated the bot in
		// another): wait for that match's push.
		b.matchID, b.matchState = "", ""
		return nil
	}
	b.matchState, b.host, b.quick = mt.State, mt.Host, mt.Quick
	if mt.State != "open" {
		if mt.State != "over" {
			b.lobbySince = time.Time{}
		}
		return nil
	}
	if !b.quick && b.readyFor != mt.ID && !b.draining {
		b.readyFor = mt.ID
		return b.send(&request{kind: "ready", frame: &lobbyOut{Type: "ready", MatchID: mt.ID}})
	}
	return nil
}

// inRound reports whether the bot is seated in a round being dealt or played.
func (b *bot) inRound() bool {
	return b.matchState == "starting" || b.matchState == "running" || b.matchState == "between"
}

// lobbyKinds are the requests whose refusal sends a bot back to the lobby.
var lobbyKinds = map[string]bool{"quick_match": true, "create_match": true, "join_match": true, "rematch": true}

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

func (b *bot) onRoundStarted(m *inMsg) error {
	if m.View == nil || m.Rules == nil {
		b.r.c.fail("protocol", "round_started without view or rules")
		return nil
	}
	b.flushRecord(false)
	b.adoptMatch(m.MatchID)
	b.matchState = "running"
	b.lobbySince = time.Time{}
	b.roundID = m.RoundID
	b.rules = *m.Rules
	b.view = *m.View
	b.nextSeq = m.LastSeq + 1
	b.movesInRound, b.illegalRun, b.stale, b.resignSent = 0, 0, false, false
	b.inflight = nil
	b.rec = &roundRecord{roundID: m.RoundID, playerID: b.playerID}
	b.startedRounds++
	b.r.c.roundsStarted.Add(1)
	b.playing = b.view.Status == engine.Playing
	if !b.playing {
		return nil
	}
	if b.draining {
		return b.resign()
	}
	now := time.Now()
	think := b.r.thinkNow()
	if b.r.cfg.OpenLoop {
		// A random phase, so that the bots' schedules spread out.
		b.sched = now.Add(time.Duration(b.rng.Int64N(int64(max(think, time.Millisecond)))))
	} else {
		b.sched = now.Add(b.jitter(think))
	}
	b.moveAt = b.sched
	return nil
}

// jitter returns think ± Jitter·think, uniformly.
func (b *bot) jitter(think time.Duration) time.Duration {
	j := b.r.cfg.Jitter
	if j <= 0 || think <= 0 {
		return think
	}
	f := 1 + j*(2*b.rng.Float64()-1)
	return time.Duration(float64(think) * f)
}

// Weights of move kinds in a bot's choice: cards up to the foundations
// first, so that games make progress and some end by themselves.
var kindWeight = [...]int{
	engine.Draw: 3, engine.Recycle: 3, engine.WasteToTableau: 4, engine.WasteToFoundation: 10,
	engine.TableauToFoundation: 10, engine.TableauToTableau: 3, engine.FoundationToTableau: 1, engine.Undo: 0,
}

// pick chooses one of the view's legal moves, at random with kindWeight.
func (b *bot) pick() (engine.Move, bool) {
	b.moveBuf = b.view.LegalMoves(b.rules, b.moveBuf[:0])
	total := 0
	for _, mv := range b.moveBuf {
		if int(mv.Kind) < len(kindWeight) {
			total += kindWeight[mv.Kind]
		}
	}
	if total == 0 {
		return engine.Move{}, false
	}
	x := b.rng.IntN(total)
	for _, mv := range b.moveBuf {
		if int(mv.Kind) < len(kindWeight) {
			if x -= kindWeight[mv.Kind]; x < 0 {
				return mv, true
			}
		}
	}
	return engine.Move{}, false
}

// playMove sends the next move, when the bot's game goes on.
func (b *bot) playMove(now time.Time) error {
	if !b.playing || b.inflight != nil || b.retry != nil {
		return nil
	}
	if b.draining {
		return b.resign()
	}
	mv, ok := b.pick()
	if !ok {
		// Nothing the bot would play (the view has no legal move): give up.
		return b.resign()
	}
	text := mv.String()
	sched := b.sched
	if !b.r.cfg.OpenLoop || sched.After(now) {
		sched = now
	}
	return b.send(&request{
		kind: "move", seq: b.nextSeq, move: mv, text: text, sched: sched,
		frame: &moveOut{Type: "move", RoundID: b.roundID, Seq: b.nextSeq, Move: text},
	})
}

// next schedules the move after an answered one.
func (b *bot) next(now time.Time) {
	if !b.playing {
		b.moveAt = time.Time{}
		return
	}
	think := b.r.thinkNow()
	if b.r.cfg.OpenLoop {
		b.sched = b.sched.Add(think)
		b.moveAt = b.sched
		if b.moveAt.Before(now) {
			b.moveAt = now
		}
		return
	}
	b.sched = now.Add(b.jitter(think))
	b.moveAt = b.sched
}

func (b *bot) onMoveOK(m *inMsg, req *request) error {
	c := b.r.c
	if req == nil || req.kind != "move" || req != b.inflight {
		c.fail("protocol", "move_ok for no move in flight (re "+m.Re+")")
		return nil
	}
	at := time.Unix(0, m.at)
	b.inflight = nil
	b.r.record(at.Sub(req.sched))
	if m.Seq != req.seq {
		c.seqMismatch.Add(1)
		c.fail("seq_mismatch", fmt.Sprintf("sent seq %d, move_ok seq %d", req.seq, m.Seq))
	}
	if m.Duplicate {
		c.movesDuplicate.Add(1)
		c.fail("duplicate", fmt.Sprintf("move_ok duplicate for seq %d, sent once", req.seq))
	} else {
		c.movesAcked.Add(1)
		if b.rec != nil {
			b.rec.moves = append(b.rec.moves, ackedMove{seq: int32(m.Seq), move: req.move})
		}
	}
	if m.View != nil {
		b.view = *m.View
		b.stale = false
	}
	b.nextSeq = m.Seq + 1
	b.illegalRun = 0
	b.movesInRound++
	if b.view.Status != engine.Playing {
		b.playing = false
	}
	if b.playing && !b.r.echo && b.r.cfg.MaxMoves > 0 && b.movesInRound >= b.r.cfg.MaxMoves {
		return b.resign()
	}
	b.next(at)
	return nil
}

func (b *bot) onMoveRejected(m *inMsg, req *request) error {
	c := b.r.c
	if req == nil || req.kind != "move" {
		c.fail("protocol", "move_rejected for no move in flight (re "+m.Re+")")
		return nil
	}
	b.inflight = nil
	now := time.Now()
	switch m.Code {
	case "round_not_running":
		// The round ended (its time limit) while the move was on its way.
		c.refuse(m.Code)
		b.playing = false
		b.moveAt = time.Time{}
	case "out_of_order":
		c.refuse(m.Code)
		c.fail("out_of_order", fmt.Sprintf("seq %d: expected %d", req.seq, m.Expected))
		if m.Expected > 0 {
			b.nextSeq = m.Expected
		}
		b.stale = true
		b.next(now)
	case "illegal_move":
		c.refuse(m.Code)
		if b.stale {
			c.illegalStale.Add(1)
		} else {
			c.fail("illegal_move", req.text+": "+m.Reason)
		}
		b.illegalRun++
		if b.illegalRun >= maxIllegalRun {
			return b.resign()
		}
		b.next(now)
	case "unavailable":
		c.refuse(m.Code)
		c.fail("unavailable", req.text+": "+m.Reason)
		b.retry = req
		b.retryAt = now.Add(min(retryBackoff*time.Duration(req.tries), maxRetryBackoff))
	default:
		c.refuse(m.Code)
		c.fail("move_rejected:"+m.Code, req.text+": "+m.Reason)
		b.playing = false
		b.moveAt = time.Time{}
	}
	return nil
}

// resign gives up the bot's game in the current round.
func (b *bot) resign() error {
	b.moveAt = time.Time{}
	if b.resignSent || b.roundID == "" {
		return nil
	}
	b.resignSent = true
	b.playing = false
	b.r.c.resigns.Add(1)
	return b.send(&request{kind: "resign", frame: &resignOut{Type: "resign", RoundID: b.roundID}})
}

func (b *bot) onRoundOver(m *inMsg) error {
	if m.RoundID == b.roundID {
		b.flushRecord(true)
		b.playing = false
		b.moveAt = time.Time{}
		b.inflight = nil
		b.matchState = "between"
	}
	if b.r.c.roundOver(m.RoundID) {
		b.r.c.roundsPlayed.Add(1)
	}
	if b.draining {
		// Leave, so that the match deals no further round to this bot.
		if b.matchID != "" {
			_ = b.send(&request{kind: "leave_match", frame: &lobbyOut{Type: "leave_match", MatchID: b.matchID}})
		}
		return errBotDone
	}
	return nil
}

func (b *bot) onMatchOver(m *inMsg) error {
	if m.MatchID != b.matchID {
		return nil
	}
	b.matchState = "over"
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

func (b *bot) sendRematch() error {
	b.rematchAt = time.Time{}
	return b.send(&request{kind: "rematch", frame: &lobbyOut{Type: "rematch", MatchID: b.rematchOf}})
}

// drain begins the end of the run for this bot: it stops starting
// anything, resigns a game in progress and waits for its round to end.
func (b *bot) drain() error {
	b.draining = true
	b.lobbySince = time.Time{}
	if b.r.echo {
		return errBotDone
	}
	switch b.matchState {
	case "running":
		if b.playing && b.inflight == nil && b.retry == nil {
			return b.resign()
		}
		if !b.playing && b.inflight == nil && b.roundID == "" {
			return errBotDone
		}
		return nil // the answer in flight comes first; then playMove resigns
	case "starting":
		return nil // round_started will resign
	case "between", "open":
		// Leave, so that no further round deals this bot in (a seated bot
		// that is gone would keep its round running until the time limit).
		if b.matchID != "" {
			_ = b.send(&request{kind: "leave_match", frame: &lobbyOut{Type: "leave_match", MatchID: b.matchID}})
		}
		return errBotDone
	}
	return errBotDone
}

// startEchoRound plays against the echo server: no lobby, a round of its
// own whose every move is answered with the same view.
func (b *bot) startEchoRound() error {
	b.matchState = "running"
	b.roundID = "echo-" + b.name
	b.rules = b.r.echoRules
	b.view = b.r.echoView
	b.nextSeq = 1
	b.playing = true
	now := time.Now()
	think := b.r.thinkNow()
	if b.r.cfg.OpenLoop {
		b.sched = now.Add(time.Duration(b.rng.Int64N(int64(max(think, time.Millisecond)))))
	} else {
		b.sched = now.Add(b.jitter(think))
	}
	b.moveAt = b.sched
	return nil
}

// flushRecord hands the current round's acknowledged moves to the runner
// for the check against the server's replay.
func (b *bot) flushRecord(over bool) {
	if b.rec == nil || b.r.echo {
		return
	}
	b.rec.over = over
	b.r.addRecord(b.rec)
	b.rec = nil
}
