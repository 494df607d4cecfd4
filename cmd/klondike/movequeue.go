package main

import (
	"slices"
	"strings"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
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
	playing := r != nil && r.seated && !r.over && r.view != nil && !r.view.Status.Over()
	switch {
	case !playing && (c.offered() || c.requestPending(protocol.TypeStartAttempt)):
		c.noBoard()
		return
	case r != nil && r.seated && !r.over && r.view != nil && r.view.Status.Over():
		c.printf("Your game is over (%s): wait for the round to end.\n", r.view.Status)
		return
	case !playing && slices.ContainsFunc(ms, takesBack):
		// A U or Y (a stray y, say) queued for a game to come would take
		// back or replay nothing, or a move of that game once played.
		why := "you are not playing a game"
		if c.isPlayer() && (c.match.State == protocol.StateOpen || c.match.State == protocol.StateStarting) {
			why = "your game has not started"
		}
		if slices.Contains(ms, engine.UndoMove().String()) {
			c.printf("Nothing to undo: %s (U takes back your last move of one); nothing sent.\n", why)
		} else {
			c.printf("Nothing to redo: %s (Y plays again a move that U took back); nothing sent.\n", why)
		}
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

// takesBack reports whether a move (as Move.String writes it) is U or Y,
// which act on the moves of the game being played.
func takesBack(move string) bool {
	return move == engine.UndoMove().String() || move == engine.RedoMove().String()
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
