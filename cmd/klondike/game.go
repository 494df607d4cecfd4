package main

import (
	"fmt"
	"strings"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

// roundState is the client's knowledge of one round.
type roundState struct {
	id, matchID      string
	number           int
	rules            engine.Rules
	commitment       string // announced by round_starting; "" if missed
	knownDeal        bool
	seed             string // a known deal's number
	startsAt, endsAt time.Time
	seated           bool         // round_started came: we play this round
	view             *engine.View // our board, nil until round_started
	opening          *engine.View // the board at move 0, to check against the revealed deal
	lastSeq          int          // the last move acknowledged
	pending          *pendingMove // the move awaiting its answer
	over             bool
	overAt           time.Time // when we learnt that the round is over
	leaderboard      []protocol.Entry
	lbKey            string // what the last printed leaderboard showed, scores aside
	// kind is an attempt's: "challenge" or "daily" (matchID is then the
	// asynchronous round's id); "" for a match's round.
	kind     string
	ghost    *protocol.Ghost // the last ghosts pushed
	ghostKey string          // what the last printed ghost line showed, scores aside
}

// title names the round at the start of a sentence: "Round 2", or for an
// attempt "Daily deal" or "Challenge".
func (r *roundState) title() string {
	switch r.kind {
	case protocol.KindDaily:
		return "Daily deal"
	case protocol.KindChallenge:
		return "Challenge"
	}
	return fmt.Sprintf("Round %d", r.number)
}

// name names the round inside a sentence: "round 2", "the daily deal".
func (r *roundState) name() string {
	if r.kind == "" {
		return fmt.Sprintf("round %d", r.number)
	}
	return "the " + strings.ToLower(r.title())
}

// untilEnd is what ends the wait after a game ends early: the round's end,
// or for an attempt the server's verdict (attempt_over), which comes at once.
func (r *roundState) untilEnd() string {
	if r.kind != "" {
		return ""
	}
	return " Waiting for the round to end."
}

// onRoundStarting announces a round: when it starts, its rules, and the
// deal's commitment, kept to check the deal when the round is over.
func (c *playClient) onRoundStarting(m *protocol.RoundStarting) {
	c.round = &roundState{
		id: m.RoundID, matchID: m.MatchID, number: m.Round, rules: m.Rules, commitment: m.Commitment,
		knownDeal: m.KnownDeal, seed: m.Seed, startsAt: m.StartsAt, endsAt: m.EndsAt,
	}
	if c.match != nil && c.match.ID == m.MatchID {
		c.match.State = protocol.StateStarting
	}
	in := time.Until(m.StartsAt.Add(-c.skew)).Round(time.Second)
	c.printf("Round %d starts in %s (%s).\n", m.Round, max(in, 0), m.Rules.String())
	if m.KnownDeal {
		c.printf("  Known deal #%s: no commitment.\n", clean(m.Seed))
	} else {
		c.printf("  Deal commitment: %s\n", clean(m.Commitment))
	}
}

// onRoundStarted takes our board when a round starts or is resumed. A move
// that awaited its answer when the connection dropped is either reported
// played or queued again.
func (c *playClient) onRoundStarted(m *roundStartedMsg) {
	r := c.round
	if r == nil || r.id != m.RoundID {
		r = &roundState{id: m.RoundID, matchID: m.MatchID, number: m.Round}
		c.round = r
	}
	r.rules, r.startsAt, r.endsAt = m.Rules, m.StartsAt, m.EndsAt
	r.seated = true
	if m.Kind != "" {
		// An attempt has no round_starting: its deal comes with it.
		r.kind, r.commitment, r.knownDeal, r.seed = m.Kind, m.Commitment, m.KnownDeal, m.Seed
	}
	view := m.View
	r.view = &view
	r.lastSeq = m.LastSeq
	if m.LastSeq == 0 && r.opening == nil {
		opening := m.View
		r.opening = &opening
	}
	if c.match != nil && c.match.ID == m.MatchID {
		c.match.State = protocol.StateRunning
	}
	if m.Resumed {
		c.printf("%s resumed after your move %d.\n", r.title(), m.LastSeq)
	} else {
		c.printf("%s started. Type moves (moves lists them; help for commands).\n", r.title())
	}
	if r.kind != "" && !m.Resumed {
		c.printAttemptStart(r)
	}
	c.printBoard()
	if p := r.pending; p != nil {
		r.pending = nil
		if p.seq <= m.LastSeq {
			c.printf("%s was played before the connection dropped.\n", p.move)
		} else {
			c.queue = append([]string{p.move}, c.queue...) // never reached the server: again
		}
	}
}

// game returns the game being played: the round's, from its rules when a
// round message gave them, else the match's (for moves typed before the
// round starts), else Klondike. Its piles are those moves may name.
func (c *playClient) game() engine.Variant {
	if r := c.round; r != nil && r.rules.Draw != 0 {
		return r.rules.Game
	}
	if c.match != nil {
		if v, err := engine.ParseVariant(c.match.Settings.Game); err == nil {
			return v
		}
	}
	return engine.Klondike
}

// scoring returns the scoring system of the current round by name: from its
// rules when a round message gave them, else from the match's settings; ""
// when neither is known.
func (c *playClient) scoring() string {
	if r := c.round; r != nil && r.rules.Draw != 0 {
		return r.rules.Scoring.String()
	}
	if c.match != nil {
		if s, err := engine.ParseScoring(c.match.Settings.Scoring); err == nil {
			return s.String()
		}
	}
	return ""
}

// printBoard prints our board and the time left in the round.
func (c *playClient) printBoard() {
	r := c.round
	if r == nil || r.view == nil {
		c.noBoard()
		return
	}
	c.printf("\n%s", renderBoard(r.view, c.scoring(), c.cfg.Color))
	if !r.over && !r.endsAt.IsZero() {
		left := time.Until(r.endsAt.Add(-c.skew))
		c.printf("%s: %s left\n", r.title(), formatMs(left.Milliseconds(), false))
	}
	if r.kind != "" && !r.over && r.ghost != nil && len(r.ghost.Ghosts) > 0 {
		c.printf("%s", renderGhosts(r.ghost, c.scoring()))
	}
}

// noBoard says why there is no board to show or play on: a game that has
// not started (an attempt waiting for play, a round counting down) or none.
func (c *playClient) noBoard() {
	r, m := c.round, c.match
	switch {
	case c.offered():
		c.printf("Your game has not started: type play to start it (your clock starts then).\n")
	case c.requestPending(protocol.TypeStartAttempt):
		c.printf("Your game is starting.\n")
	case r != nil && r.kind == "" && !r.over && r.view == nil && m != nil && m.ID == r.matchID && m.State == protocol.StateStarting:
		in := max(time.Until(r.startsAt.Add(-c.skew)).Round(time.Second), 0)
		if c.isPlayer() {
			c.printf("Round %d is about to start (in %s): your board comes then.\n", r.number, in)
		} else {
			c.printf("Round %d is about to start (in %s).\n", r.number, in)
		}
	default:
		c.printf("No board: you are not playing a round.\n")
	}
}

// onMoveOK takes the answer to a move: the new board and what the move did.
func (c *playClient) onMoveOK(m *moveOKMsg) {
	r := c.round
	if r == nil || r.id != m.RoundID {
		return
	}
	p := r.pending
	if p == nil || p.seq != m.Seq {
		// An answer we stopped waiting for: keep the newest board.
		if m.Seq >= r.lastSeq {
			r.lastSeq = m.Seq
			view := m.View
			r.view = &view
		}
		return
	}
	r.pending = nil
	r.lastSeq = max(r.lastSeq, m.Seq)
	view := m.View
	r.view = &view
	what := strings.Join(m.Events, ", ")
	if m.Duplicate {
		what = "already played"
	}
	if what != "" {
		what = " (" + what + ")"
	}
	c.printf("%s ok%s\n", p.move, what)
	c.printBoard()
	switch view.Status {
	case engine.Won:
		c.printf("You won!%s\n", r.untilEnd())
	case engine.Stuck:
		c.printf("No useful move is left: your game is over (stuck).%s\n", r.untilEnd())
	}
}

// onMoveRejected reports a refused move; out of order resyncs the next
// move number to the one the server expects.
func (c *playClient) onMoveRejected(m *protocol.MoveRejected) {
	r := c.round
	if r == nil || r.id != m.RoundID {
		c.printf("move rejected (%s): %s\n", clean(m.Code), clean(m.Reason))
		return
	}
	move := "move"
	if p := r.pending; p != nil && p.seq == m.Seq {
		move = p.move
		r.pending = nil
	}
	switch {
	case m.Code == protocol.CodeOutOfOrder && m.Expected > 0:
		r.lastSeq = m.Expected - 1
		c.printf("%s rejected: out of order; the server expects move %d. Resynced: type it again.\n", move, m.Expected)
	case m.Code == protocol.CodeRoundNotRunning:
		c.printf("%s rejected: the round is not running (%s)\n", move, clean(m.Reason))
	default:
		c.printf("%s rejected: %s\n", move, clean(m.Reason))
	}
}

// onResigned marks our game resigned and drops the queued moves.
func (c *playClient) onResigned(m *protocol.Resigned) {
	r := c.round
	wait := " Waiting for the round to end."
	if r != nil && r.id == m.RoundID {
		if r.view != nil {
			r.view.Status = engine.Resigned
		}
		wait = r.untilEnd()
	}
	c.printf("You resigned.%s\n", wait)
	c.dropQueue("you resigned")
}

// onLeaderboard keeps the round's leaderboard and prints it when more
// than the scores changed.
func (c *playClient) onLeaderboard(m *protocol.Leaderboard) {
	r := c.round
	if r == nil || r.id != m.RoundID {
		r = &roundState{id: m.RoundID, matchID: m.MatchID}
		if c.round != nil && c.round.id == m.RoundID {
			r = c.round
		}
		c.round = r
	}
	r.leaderboard = m.Entries
	if r.kind != "" {
		return // an attempt is a round of one: its board is what counts
	}
	// Standard scores fall with time: reprint only when more than that changed.
	var key strings.Builder
	for _, e := range m.Entries {
		fmt.Fprintf(&key, "%d %s %d %d %s|", e.Rank, e.PlayerID, e.Foundation, e.Moves, e.Status)
	}
	if key.String() == r.lbKey {
		return
	}
	r.lbKey = key.String()
	c.printLeaderboard()
}

// printLeaderboard prints the round's last leaderboard.
func (c *playClient) printLeaderboard() {
	r := c.round
	if r == nil || r.leaderboard == nil {
		c.printf("No leaderboard yet.\n")
		return
	}
	title := "Leaderboard"
	if r.number > 0 {
		title += fmt.Sprintf(" (round %d)", r.number)
	}
	c.printf("%s:\n%s", title, renderLeaderboard(r.leaderboard, c.playerID, c.scoring(), c.ratingLabels(r.matchID, r.id)))
}

// onRoundOver prints the round's results and checks its deal (verifyDeal).
func (c *playClient) onRoundOver(m *protocol.RoundOver) {
	r := c.round
	announced, seed := "", ""
	var opening *engine.View
	rules := engine.DefaultRules()
	if c.match != nil && c.match.ID == m.MatchID {
		if mr, err := c.match.Settings.Rules(); err == nil {
			rules = mr
		}
	}
	if r != nil && r.id == m.RoundID {
		announced, seed = r.commitment, r.seed
		opening = r.opening
		if r.rules.Draw != 0 {
			rules = r.rules
		}
		r.over, r.overAt = true, time.Now()
		r.pending = nil
	}
	if c.match != nil && c.match.ID == m.MatchID {
		c.match.State = protocol.StateBetween
	}
	c.dropQueue("the round is over")
	replay := ""
	if m.ReplayURL != "" {
		replay = c.httpURL(m.ReplayURL)
	}
	c.printf("\n%s", renderRoundOver(m, c.playerID, replay, c.scoring(), c.ratingLabels(m.MatchID, m.RoundID)))
	for _, line := range verifyDeal(announced, seed, m.Deal, rules, opening) {
		c.printf("%s\n", line)
	}
	if r != nil && r.id == m.RoundID {
		c.printRatings() // should they have come first
	}
}
