package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"klondike/api/client"
	"klondike/api/protocol"
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
	conn *client.Conn
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
	matchState  protocol.State
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

// newBot makes bot idx, its choices seeded by the run's seed and idx.
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
	conn, resp, err := client.Dial(dctx, b.r.wsURL, client.Options{Dialer: b.r.dialer, WriteWait: writeWait})
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
		_ = conn.CloseNormal("bye", closeWait)
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

// loop says hello, then reacts to the server's frames, the run's stop,
// the group's invite code and the bot's timers until the bot is done.
func (b *bot) loop(ctx context.Context) error {
	if err := b.send(&request{kind: protocol.TypeHello, frame: &protocol.Hello{Type: protocol.TypeHello, Name: b.name}}); err != nil {
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
			if err := b.send(&request{kind: protocol.TypeJoinMatch, frame: &protocol.MatchRef{Type: protocol.TypeJoinMatch, Code: code}}); err != nil {
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

// tick runs what is due.
func (b *bot) tick(now time.Time) error {
	if !b.retryAt.IsZero() && !now.Before(b.retryAt) {
		req := b.retry
		b.retry, b.retryAt = nil, time.Time{}
		if req != nil {
			if req.kind == protocol.TypeMove {
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
		if b.matchState == protocol.StateOver && !b.draining {
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

// drain begins the end of the run for this bot: it stops starting
// anything, resigns a game in progress and waits for its round to end.
func (b *bot) drain() error {
	b.draining = true
	b.lobbySince = time.Time{}
	if b.r.echo {
		return errBotDone
	}
	switch b.matchState {
	case protocol.StateRunning:
		if b.playing && b.inflight == nil && b.retry == nil {
			return b.resign()
		}
		if !b.playing && b.inflight == nil && b.roundID == "" {
			return errBotDone
		}
		return nil // the answer in flight comes first; then playMove resigns
	case protocol.StateStarting:
		return nil // round_started will resign
	case protocol.StateBetween, protocol.StateOpen:
		// Leave, so that no further round deals this bot in (a seated bot
		// that is gone would keep its round running until the time limit).
		if b.matchID != "" {
			_ = b.send(&request{kind: protocol.TypeLeaveMatch, frame: &protocol.MatchRef{Type: protocol.TypeLeaveMatch, MatchID: b.matchID}})
		}
		return errBotDone
	}
	return errBotDone
}
