package main

import (
	"fmt"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

// onRoundStarted takes the new round's rules and view, opens its record
// and schedules the first move.
func (b *bot) onRoundStarted(m *inMsg) error {
	if m.View == nil || m.Rules == nil {
		b.r.c.fail("protocol", "round_started without view or rules")
		return nil
	}
	b.flushRecord(false)
	b.adoptMatch(m.MatchID)
	b.matchState = protocol.StateRunning
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

// startEchoRound plays against the echo server: no lobby, a round of its
// own whose every move is answered with the same view.
func (b *bot) startEchoRound() error {
	b.matchState = protocol.StateRunning
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
		kind: protocol.TypeMove, seq: b.nextSeq, move: mv, text: text, sched: sched,
		frame: &protocol.Move{Type: protocol.TypeMove, RoundID: b.roundID, Seq: b.nextSeq, Move: text},
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

// onMoveOK records the acknowledged move and its round trip, takes the
// new view and schedules the next move.
func (b *bot) onMoveOK(m *inMsg, req *request) error {
	c := b.r.c
	if req == nil || req.kind != protocol.TypeMove || req != b.inflight {
		c.fail("protocol", "move_ok for no move in flight (re "+m.Re+")")
		return nil
	}
	at := time.Unix(0, m.At)
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

// onMoveRejected counts the refusal and decides what comes next: stop,
// catch up with the server's seq, try another move, or resend later.
func (b *bot) onMoveRejected(m *inMsg, req *request) error {
	c := b.r.c
	if req == nil || req.kind != protocol.TypeMove {
		c.fail("protocol", "move_rejected for no move in flight (re "+m.Re+")")
		return nil
	}
	b.inflight = nil
	now := time.Now()
	switch m.Code {
	case protocol.CodeRoundNotRunning:
		// The round ended (its time limit) while the move was on its way.
		c.refuse(m.Code)
		b.playing = false
		b.moveAt = time.Time{}
	case protocol.CodeOutOfOrder:
		c.refuse(m.Code)
		c.fail(protocol.CodeOutOfOrder, fmt.Sprintf("seq %d: expected %d", req.seq, m.Expected))
		if m.Expected > 0 {
			b.nextSeq = m.Expected
		}
		b.stale = true
		b.next(now)
	case protocol.CodeIllegalMove:
		c.refuse(m.Code)
		if b.stale {
			c.illegalStale.Add(1)
		} else {
			c.fail(protocol.CodeIllegalMove, req.text+": "+m.Reason)
		}
		b.illegalRun++
		if b.illegalRun >= maxIllegalRun {
			return b.resign()
		}
		b.next(now)
	case protocol.CodeUnavailable:
		c.refuse(m.Code)
		c.fail(protocol.CodeUnavailable, req.text+": "+m.Reason)
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
	return b.send(&request{kind: protocol.TypeResign, frame: &protocol.Resign{Type: protocol.TypeResign, RoundID: b.roundID}})
}

// onRoundOver closes the round's record and counts the round once over
// all bots.
func (b *bot) onRoundOver(m *inMsg) error {
	if m.RoundID == b.roundID {
		b.flushRecord(true)
		b.playing = false
		b.moveAt = time.Time{}
		b.inflight = nil
		b.matchState = protocol.StateBetween
	}
	if b.r.c.roundOver(m.RoundID) {
		b.r.c.roundsPlayed.Add(1)
	}
	if b.draining {
		// Leave, so that the match deals no further round to this bot.
		if b.matchID != "" {
			_ = b.send(&request{kind: protocol.TypeLeaveMatch, frame: &protocol.MatchRef{Type: protocol.TypeLeaveMatch, MatchID: b.matchID}})
		}
		return errBotDone
	}
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
