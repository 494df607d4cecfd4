package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"klondike/api/client"
	"klondike/api/protocol"
	"klondike/engine"
)

// An mmBot is one player of the matchmaking measurement: a WebSocket
// connection that asks for rated quick matches one after the other and
// plays each round with a skill of its own. Unlike the load's bots it is
// written as one procedure (ask, wait, play, read the ratings) since the
// measurement needs the rounds' outcomes, not the server's peak rate; a
// reader goroutine hands it the server's frames.
type mmBot struct {
	h     *mmRun
	idx   int
	skill float64
	think time.Duration
	rng   *rand.Rand

	conn     *client.Conn
	in       chan mmFrame
	rerr     chan error // the reader's end
	quit     chan struct{}
	playerID string
	frames   int // frames handled: bounded by mmFrameLimit

	// What the server said about the round being sought or played; reset
	// before each quick_match.
	replies    map[string]*inMsg // by re
	openMatch  string            // the open match the bot sits in
	matches    map[string]*protocol.MatchInfo
	starting   *inMsg
	startingAt time.Time // when round_starting came
	started    *inMsg
	over       *protocol.RoundOver
	ratings    map[string]*protocol.RoundRatings // by round id

	moves []engine.Move
}

// An mmFrame is one frame of the server's, decoded, with its bytes for
// the messages the union does not carry in full (round_over's results).
type mmFrame struct {
	m   *inMsg
	raw []byte
	at  time.Time
}

// The bounds of one bot's steps.
const (
	mmReplyWait = 10 * time.Second // a request's answer
	// mmSeatWait bounds the wait for a round once seated: the server seats
	// anyone together after lobby.RatedMaxWait, so this is ample.
	mmSeatWait = 60 * time.Second
	// mmStartWait bounds the wait from round_starting to round_started,
	// beyond the countdown.
	mmStartWait = 10 * time.Second
	// mmOverWait bounds the wait for round_over beyond the time limit.
	mmOverWait = 15 * time.Second
	// mmRatingsWait bounds the wait for the round's ratings after
	// round_over (the contract: well under a second).
	mmRatingsWait = 5 * time.Second
	// mmReadResults bounds the time a bot spends on a round's results.
	mmReadResults = 3 * time.Second
	// mmMaxMoves bounds one bot's moves in a round.
	mmMaxMoves = 3000
	// mmMaxTries bounds a round's quick_match attempts.
	mmMaxTries = 10
	// mmFrameLimit bounds the frames one bot handles in a run.
	mmFrameLimit = 5_000_000
)

// errMMAlone ends a bot that waits for a round when too few bots still
// look for one to fill it.
var errMMAlone = errors.New("too few bots left to play with")

// newMMBot makes bot idx: its skill is spread evenly over the levels, and
// its think time shrinks as its skill grows, so that better bots also
// play faster.
func newMMBot(h *mmRun, idx int) *mmBot {
	s := h.skillOf(idx)
	return &mmBot{
		h: h, idx: idx, skill: s,
		think: time.Duration(float64(h.mm.Think) * (2 - s)),
		rng:   rand.New(rand.NewPCG(h.cfg.Seed, uint64(idx)+1<<32)),
		in:    make(chan mmFrame, inboxSize),
		rerr:  make(chan error, 1),
		quit:  make(chan struct{}),
		moves: make([]engine.Move, 0, 64),
	}
}

// run connects, plays its rounds and disconnects.
func (b *mmBot) run(ctx context.Context) {
	h := b.h
	defer h.active.Add(-1)
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	conn, _, err := client.Dial(dctx, h.wsURL, client.Options{Dialer: h.dialer, WriteWait: writeWait})
	cancel()
	if err != nil {
		h.col.fail("connect", err.Error())
		return
	}
	b.conn = conn
	var wg sync.WaitGroup
	wg.Go(b.readLoop)
	defer func() {
		close(b.quit)
		_ = conn.CloseNormal("bye", closeWait)
		conn.Close()
		wg.Wait()
	}()
	if err := b.hello(ctx); err != nil {
		h.col.fail("hello", err.Error())
		return
	}
	for range h.mm.Rounds {
		if h.stopping() {
			return
		}
		err := b.round(ctx)
		switch {
		case errors.Is(err, errMMAlone):
			h.col.count("alone")
			return
		case err != nil:
			if ctx.Err() == nil {
				h.col.fail("round", err.Error())
			}
			return
		}
	}
}

// readLoop hands the server's frames to the bot, leaving out the running
// leaderboards, which it does not read.
func (b *mmBot) readLoop() {
	for {
		data, err := b.conn.Read()
		if err != nil {
			select {
			case b.rerr <- err:
			default:
			}
			return
		}
		if client.PeekType(data) == protocol.TypeLeaderboard {
			continue
		}
		m := &inMsg{}
		if _, err := client.DecodeMessage(data, m); err != nil {
			b.h.col.fail("decode", err.Error())
			continue
		}
		select {
		case b.in <- mmFrame{m: m, raw: data, at: time.Now()}:
		case <-b.quit:
			return
		}
	}
}

// waitUntil handles frames until done reports true (true) or the
// deadline passes (false).
func (b *mmBot) waitUntil(ctx context.Context, deadline time.Time, done func() bool) (bool, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for !done() {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case err := <-b.rerr:
			return false, fmt.Errorf("connection: %w", err)
		case <-t.C:
			return done(), nil
		case f := <-b.in:
			if b.frames++; b.frames > mmFrameLimit {
				return false, errors.New("frame limit reached")
			}
			b.handle(f)
		}
	}
	return true, nil
}

// request sends msg (a pointer to a client message) and returns its id.
func (b *mmBot) request(msg any) (string, error) {
	return b.conn.Request(msg)
}

// reply waits for the answer to request id.
func (b *mmBot) reply(ctx context.Context, id string) (*inMsg, error) {
	ok, err := b.waitUntil(ctx, time.Now().Add(mmReplyWait), func() bool { return b.replies[id] != nil })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no answer to request %s within %v", id, mmReplyWait)
	}
	r := b.replies[id]
	delete(b.replies, id)
	return r, nil
}

// hello starts the bot's session.
func (b *mmBot) hello(ctx context.Context) error {
	b.replies = map[string]*inMsg{}
	id, err := b.request(&protocol.Hello{Type: protocol.TypeHello, Name: fmt.Sprintf("mm%03d-s%02.0f", b.idx, 100*b.skill)})
	if err != nil {
		return err
	}
	r, err := b.reply(ctx, id)
	if err != nil {
		return err
	}
	if r.Type != protocol.TypeWelcome {
		return fmt.Errorf("hello: %s %s", r.Code, r.Message)
	}
	b.playerID = r.PlayerID
	b.h.col.addPlayer(b.playerID, b.idx)
	return nil
}

// handle keeps what a frame says about the round.
func (b *mmBot) handle(f mmFrame) {
	m := f.m
	if m.Re != "" {
		b.replies[m.Re] = m
	}
	switch m.Type {
	case protocol.TypeMatch:
		mt := m.Match
		if mt == nil {
			return
		}
		if len(b.matches) < 64 {
			b.matches[mt.ID] = mt
		}
		if mt.State == protocol.StateOpen && b.seated(mt) {
			b.openMatch = mt.ID
		}
		if rr := mt.Ratings; rr != nil && len(b.ratings) < 64 {
			b.ratings[rr.RoundID] = rr
		}
	case protocol.TypeRoundStarting:
		if b.starting == nil {
			b.starting, b.startingAt = m, f.at
		}
	case protocol.TypeRoundStarted:
		if b.starting != nil && m.RoundID == b.starting.RoundID {
			b.started = m
		}
	case protocol.TypeRoundOver:
		if b.starting == nil || m.RoundID != b.starting.RoundID {
			return
		}
		var ro protocol.RoundOver
		if err := json.Unmarshal(f.raw, &ro); err != nil {
			b.h.col.fail("decode", "round_over: "+err.Error())
			return
		}
		b.over = &ro
	case protocol.TypeError:
		if m.Re == "" {
			b.h.col.fail("error:"+m.Code, m.Message)
		}
	}
}

// seated reports whether the match lists the bot as a player.
func (b *mmBot) seated(mt *protocol.MatchInfo) bool {
	for _, p := range mt.Players {
		if p.PlayerID == b.playerID {
			return true
		}
	}
	return false
}

// round asks for a rated quick match, plays its round and reads its
// ratings.
func (b *mmBot) round(ctx context.Context) error {
	h := b.h
	b.replies, b.matches, b.ratings = map[string]*inMsg{}, map[string]*protocol.MatchInfo{}, map[string]*protocol.RoundRatings{}
	b.openMatch, b.starting, b.started, b.over = "", nil, nil, nil

	t0 := time.Now()
	var r *inMsg
	for tries := 1; ; tries++ {
		id, err := b.request(&protocol.CreateMatch{Type: protocol.TypeQuickMatch, Settings: h.settings()})
		if err != nil {
			return err
		}
		if r, err = b.reply(ctx, id); err != nil {
			return err
		}
		if r.Type == protocol.TypeMatch || tries >= mmMaxTries {
			break
		}
		// The lobby lost a race or is busy: ask again a little later.
		h.col.count("quick_match:" + r.Code)
		if _, err := b.waitUntil(ctx, time.Now().Add(time.Duration(tries)*retryBackoff), func() bool { return false }); err != nil {
			return err
		}
	}
	if r.Type != protocol.TypeMatch {
		return fmt.Errorf("quick_match: %s %s", r.Code, r.Message)
	}
	if r.Match != nil && b.seated(r.Match) && r.Match.State == protocol.StateOpen && b.openMatch == "" {
		b.openMatch = r.Match.ID
	}

	// Seated: wait for the round, giving up only when too few bots are
	// left to fill the match.
	seatBy := t0.Add(mmSeatWait)
	for b.starting == nil {
		look := time.Now().Add(time.Second)
		if look.After(seatBy) {
			look = seatBy
		}
		if _, err := b.waitUntil(ctx, look, func() bool { return b.starting != nil }); err != nil {
			return err
		}
		if b.starting != nil {
			break
		}
		if int(h.active.Load()) < h.mm.Players || h.stopping() || !time.Now().Before(seatBy) {
			b.leave()
			if time.Now().Before(seatBy) {
				return errMMAlone
			}
			return fmt.Errorf("no round within %v of quick_match", mmSeatWait)
		}
	}
	wait := b.startingAt.Sub(t0)
	st := b.starting

	if _, err := b.waitUntil(ctx, time.Now().Add(time.Duration(h.cfg.CountdownS)*time.Second+mmStartWait),
		func() bool { return b.started != nil || b.over != nil }); err != nil {
		return err
	}
	if b.started == nil {
		return fmt.Errorf("round %s: no round_started", st.RoundID)
	}
	seating := b.seating(st.MatchID)
	stats, err := b.play(ctx)
	if err != nil {
		return err
	}
	overBy := time.Now().Add(time.Duration(h.cfg.TimeLimitS)*time.Second + mmOverWait)
	if _, err := b.waitUntil(ctx, overBy, func() bool { return b.over != nil }); err != nil {
		return err
	}
	if b.over == nil {
		return fmt.Errorf("round %s: no round_over", st.RoundID)
	}
	// The round's ratings come in a match push soon after round_over; a
	// player reads them on the results before looking for the next match.
	if _, err := b.waitUntil(ctx, time.Now().Add(mmRatingsWait), func() bool { return b.ratings[st.RoundID] != nil }); err != nil {
		return err
	}
	// A player spends a moment on the results before asking for the next
	// match; the spread keeps the pairs of one round, who end it together,
	// from finding each other again at once every time.
	pause := time.Duration(b.rng.Int64N(int64(mmReadResults)))
	if _, err := b.waitUntil(ctx, time.Now().Add(pause), func() bool { return false }); err != nil {
		return err
	}
	h.col.addRound(mmSeen{
		roundID: st.RoundID, matchID: st.MatchID, playerID: b.playerID, wait: wait, seating: seating,
		mode: b.modeOf(st.MatchID), over: b.over, ratings: b.ratings[st.RoundID], stats: stats,
	})
	return nil
}

// leave gives up the open match the bot waits in.
func (b *mmBot) leave() {
	if b.openMatch == "" {
		return
	}
	_, _ = b.request(&protocol.MatchRef{Type: protocol.TypeLeaveMatch, MatchID: b.openMatch})
}

// seating returns the players of the match as the bot last saw them
// before its round began: their ratings when seated.
func (b *mmBot) seating(matchID string) []protocol.MemberInfo {
	if mt := b.matches[matchID]; mt != nil {
		return mt.Players
	}
	return nil
}

// modeOf returns how the match ranks its rounds.
func (b *mmBot) modeOf(matchID string) string {
	if mt := b.matches[matchID]; mt != nil && mt.Settings.Mode != "" {
		return mt.Settings.Mode
	}
	return "race"
}

// mmPlayStats is what one bot did in one round.
type mmPlayStats struct {
	Moves  int
	Greedy int    // moves chosen by the heuristic (the others at random)
	End    string // how the bot's play ended
}

// How a bot's play in a round ends.
const (
	mmEndGame     = "game over"     // won or stuck, as the server says
	mmEndStopped  = "stopped"       // no progress for long, or nothing worth playing
	mmEndRound    = "round over"    // the round ended while the bot played
	mmEndMoveCap  = "move cap"      // mmMaxMoves played
	mmEndRejected = "move refused"  // the server refused a move
	mmEndNoMove   = "no legal move" // the view lists none (a finished game)
	mmEndStarted  = "not started"   // the round began without a game for the bot
)

// play plays the bot's game until it ends, the round ends, or the bot sees
// nothing worth playing (it then stops moving, as a player who is stuck
// waits for the round to end: resigning would place it last).
func (b *mmBot) play(ctx context.Context) (mmPlayStats, error) {
	var ps mmPlayStats
	st := b.started
	if st.View == nil || st.Rules == nil {
		return ps, errors.New("round_started without view or rules")
	}
	view, rules, seq := *st.View, *st.Rules, st.LastSeq+1
	prog := newMMProgress(&view)
	overOrNil := func() bool { return b.over != nil }
	ps.End = mmEndStarted
	for {
		switch {
		case view.Status != engine.Playing:
			if ps.Moves > 0 {
				ps.End = mmEndGame
			}
			return ps, nil
		case ps.Moves >= mmMaxMoves:
			ps.End = mmEndMoveCap
			return ps, nil
		}
		f := 1 + 0.5*(b.rng.Float64()-0.5)
		if _, err := b.waitUntil(ctx, time.Now().Add(time.Duration(f*float64(b.think))), overOrNil); err != nil || b.over != nil {
			ps.End = mmEndRound
			return ps, err
		}
		mv, greedy, ok := b.choose(&view, rules, prog)
		if !ok {
			ps.End = mmEndStopped
			if mv.Kind == engine.NoMove && len(b.moves) == 0 {
				ps.End = mmEndNoMove
			}
			return ps, nil
		}
		var r *inMsg
		for tries := 1; ; tries++ {
			id, err := b.request(&protocol.Move{Type: protocol.TypeMove, RoundID: st.RoundID, Seq: seq, Move: mv.String()})
			if err != nil {
				return ps, err
			}
			if _, err := b.waitUntil(ctx, time.Now().Add(mmReplyWait), func() bool { return b.replies[id] != nil || b.over != nil }); err != nil {
				return ps, err
			}
			if r = b.replies[id]; r == nil {
				ps.End = mmEndRound
				return ps, nil
			}
			delete(b.replies, id)
			if r.Type != protocol.TypeError || r.Code != protocol.CodeRateLimited || tries >= maxTries {
				break
			}
			b.h.col.count("move:rate_limited")
			if _, err := b.waitUntil(ctx, time.Now().Add(time.Duration(tries)*retryBackoff), overOrNil); err != nil || b.over != nil {
				ps.End = mmEndRound
				return ps, err
			}
		}
		switch {
		case r.Type == protocol.TypeMoveOK && r.View != nil:
			view, seq = *r.View, r.Seq+1
			ps.Moves++
			if greedy {
				ps.Greedy++
			}
			prog.update(&view)
		case r.Type == protocol.TypeMoveRejected && r.Code == protocol.CodeRoundNotRunning:
			ps.End = mmEndRound
			return ps, nil
		default:
			b.h.col.fail("move:"+r.Type+":"+r.Code, mv.String()+": "+r.Message+r.Reason)
			ps.End = mmEndRejected
			return ps, nil
		}
	}
}

// choose picks the bot's next move: with probability its skill the
// heuristic's best, otherwise any legal move at random. ok is false when
// the bot plays on no longer: its game has gone a long way without
// progress, or the heuristic finds nothing worth playing.
func (b *mmBot) choose(v *engine.View, r engine.Rules, prog *mmProgress) (mv engine.Move, greedy, ok bool) {
	b.moves = v.LegalMoves(r, b.moves[:0])
	if len(b.moves) == 0 || prog.idle > prog.idleLimit(v, r) {
		return engine.Move{}, false, false
	}
	if b.rng.Float64() < b.skill {
		best, bestScore := engine.Move{}, 0
		for _, m := range b.moves {
			if s := greedyScore(v, m); s > bestScore {
				best, bestScore = m, s
			}
		}
		return best, true, bestScore > 0
	}
	return b.moves[b.rng.IntN(len(b.moves))], false, true
}

// greedyScore ranks a move for the simple heuristic: cards to the
// foundations first, then moves that turn a face-down card up, then moves
// that empty a column, then cards played from the waste, then the stock;
// 0 for a move not worth playing (a run moved for nothing, a card taken
// down from a foundation). Ties go to the first listed.
func greedyScore(v *engine.View, m engine.Move) int {
	switch m.Kind {
	case engine.TableauToFoundation:
		p := v.Pile(int(m.From))
		if len(p.Up) == 1 && p.Down > 0 {
			return 1000 // it turns a card up too
		}
		return 900
	case engine.WasteToFoundation:
		return 900
	case engine.TableauToTableau:
		from, to := v.Pile(int(m.From)), v.Pile(int(m.To))
		if movedFrom(from, to, m) != 0 {
			return 0
		}
		switch {
		case from.Down > 0:
			return 800 + from.Down // the pile with the most face-down cards first
		case len(to.Up) > 0:
			return 600 // empties a column
		}
		return 0 // a whole pile onto an empty one
	case engine.WasteToTableau:
		return 500
	case engine.Draw:
		return 200
	case engine.Recycle:
		return 100
	}
	return 0
}

// movedFrom returns the index in from's face-up cards of the card that
// Tn-Tm (or Tn:k-Tm) moves onto to: 0 when the whole face-up run moves.
func movedFrom(from, to engine.PileView, m engine.Move) int {
	n := len(from.Up)
	if m.Count > 0 {
		return max(n-int(m.Count), 0)
	}
	for i := n - 1; i >= 0; i-- {
		c := from.Up[i]
		if len(to.Up) == 0 {
			if c.Rank() == engine.NumRanks {
				return i
			}
			continue
		}
		t := to.Up[len(to.Up)-1]
		if c.Rank() == t.Rank()-1 && c.Red() != t.Red() {
			return i
		}
	}
	return n
}

// mmProgress follows how far a game has come: the most cards on the
// foundations and the fewest cards still hidden (face down, in the stock
// or the waste). Both only ever improve, so moving a card back and forth
// is no progress.
type mmProgress struct {
	found, hidden int
	idle          int // moves since the last progress
}

func newMMProgress(v *engine.View) *mmProgress {
	p := &mmProgress{found: foundTotal(v), hidden: hiddenTotal(v)}
	return p
}

// update takes the view after a move.
func (p *mmProgress) update(v *engine.View) {
	f, h := foundTotal(v), hiddenTotal(v)
	if f > p.found || h < p.hidden {
		p.found, p.hidden, p.idle = max(f, p.found), min(h, p.hidden), 0
		return
	}
	p.idle++
}

// idleLimit is how many moves without progress a bot makes before it
// stops: going through the stock and waste a few times over, and some
// moves besides.
func (p *mmProgress) idleLimit(v *engine.View, r engine.Rules) int {
	draw := max(r.Draw, 1)
	pass := (v.Stock+v.WasteSize)/draw + 2
	return 3*pass + 30
}

func foundTotal(v *engine.View) int {
	f := v.Foundations
	return f.C + f.D + f.H + f.S
}

func hiddenTotal(v *engine.View) int {
	n := v.Stock + v.WasteSize
	for i := 1; i <= v.Piles(); i++ {
		n += v.Pile(i).Down
	}
	return n
}
