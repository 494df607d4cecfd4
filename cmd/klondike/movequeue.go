package main

import (
	"strings"
	"time"

	"klondike/api/protocol"
)

// A pendingMove is a move sent and not yet answered.
type pendingMove struct {
	id   string
	seq  int
	move string
}

// moves checks each field as a move of the game being played and queues
// them all, or reports the first that does not parse.
func (c *playClient) moves(fields []string) {
	ms := make([]string, 0, len(fields))
	game := c.game()
	for _, f := range fields {
		m, err := game.ParseMove(f)
		switch {
		case err != nil && !looksLikeMove(f):
			c.printf("%q is not a move (moves look like D, W-T3, T7-F); nothing sent. Type help.\n", clean(f))
			return
		case err != nil && len(fields) == 1:
			c.printf("%s. Type help for the notation.\n", clean(err.Error()))
			return
		case err != nil:
			c.printf("%s; nothing sent. Type help for the notation.\n", clean(err.Error()))
			return
		}
		ms = append(ms, m.String())
	}
	r := c.round
	switch {
	case r != nil && r.seated && !r.over && r.view != nil && r.view.Status.Over():
		c.printf("Your game is over (%s): wait for the round to end.\n", r.view.Status)
		return
	case r != nil && r.seated && !r.over:
	case c.isPlayer() && (c.match.State == protocol.StateOpen || c.match.State == protocol.StateStarting):
		c.printf("Queued until the round starts: %s\n", strings.Join(ms, " "))
	case c.isPlayer() && c.match.State == protocol.StateBetween:
		c.printf("The round is over: wait for the next one.\n")
		return
	default:
		c.printf("No round is running for you.\n")
		return
	}
	if len(c.queue)+len(ms) > maxQueuedMoves {
		c.printf("Too many moves waiting (%d); nothing queued.\n", len(c.queue))
		return
	}
	c.queue = append(c.queue, ms...)
	c.pump()
}

// pump sends the next queued move when the round takes it and no move
// awaits its answer, no sooner than MoveGap after the last.
func (c *playClient) pump() {
	r := c.round
	if len(c.queue) == 0 || r == nil || !r.seated || r.over || r.pending != nil || c.timerC != nil {
		return
	}
	if wait := c.cfg.MoveGap - time.Since(c.lastMove); wait > 0 {
		c.arm(wait)
		return
	}
	move := c.queue[0]
	c.queue = c.queue[1:]
	seq := r.lastSeq + 1
	id := c.request(&protocol.Move{Type: protocol.TypeMove, RoundID: r.id, Seq: seq, Move: move})
	r.pending = &pendingMove{id: id, seq: seq, move: move}
	c.lastMove = time.Now()
}

// arm sets the timer that calls pump again.
func (c *playClient) arm(d time.Duration) {
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Stop()
		c.timer.Reset(d)
	}
	c.timerC = c.timer.C
}

// dropQueue forgets queued moves, saying why.
func (c *playClient) dropQueue(why string) {
	if len(c.queue) > 0 {
		c.printf("%s: dropped %s not sent (%s)\n", why, plural(len(c.queue), "queued move"), strings.Join(c.queue, " "))
		c.queue = nil
	}
}
