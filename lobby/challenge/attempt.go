package challenge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"klondike/engine"
	"klondike/lobby"
	"klondike/match"
)

// An attempt this node holds: its round, and the timer that ends it at
// its round's end. It costs the node its timer and this object, whatever
// its player does; while its player is connected here it is active too
// and gets ghosts (ghostLoop).
type attempt struct {
	rec      Record
	round    *match.Round
	playerID string
	// addr is the key of the address whose count the attempt holds, when
	// it started on this node; "" otherwise (caps.go).
	addr string
	// timer ends the attempt at its round's end, or at once (end), or
	// tries again after a failed end; set by hold, under s.mu.
	timer *time.Timer
	// ending: the timer's func is ending the attempt now; retry the wait
	// before it tries again after a failed end (0 before any). Under s.mu.
	ending bool
	retry  time.Duration
	ticks  int // ghost ticks while active, on ghostLoop's goroutine only
}

// StartAttempt starts the player's one attempt at a challenge, or
// resumes it (on any node) while their time lasts, and returns what the
// player is sent: round_started for the attempt's round. A player whose
// attempt has ended gets ErrAlreadyPlayed; a closed window
// ErrWindowClosed; a new attempt past a cap the cap's error (caps.go); an
// attempt voided here ErrAttemptVoid.
func (s *Service) StartAttempt(ctx context.Context, playerID, id string) (match.RoundStarted, error) {
	rec, err := s.Load(ctx, id)
	if err != nil {
		return match.RoundStarted{}, err
	}
	pl, addr, err := s.lobby.PlayerFrom(playerID)
	if err != nil {
		return match.RoundStarted{}, err
	}
	now := time.Now()
	fresh := false
	var held *holds
	a, err := s.cfg.Challenges.Attempt(ctx, id, playerID)
	switch {
	case err == nil && a.Finished:
		return match.RoundStarted{}, ErrAlreadyPlayed
	case err == nil:
		if err := s.checkVoid(&rec, a); err != nil {
			return match.RoundStarted{}, err
		}
	case errors.Is(err, match.ErrNotFound):
		if !rec.Open(now) {
			return match.RoundStarted{}, ErrWindowClosed
		}
		if held, err = s.holdNew(ctx, &rec, pl.ID, addr, now); err != nil {
			return match.RoundStarted{}, err
		}
		a, fresh, err = s.cfg.Challenges.StartAttempt(ctx, id, Attempt{PlayerID: pl.ID, Name: pl.Name, StartedAt: now})
		if err != nil {
			s.release(ctx, held)
		}
	}
	if err != nil {
		return match.RoundStarted{}, err
	}
	if fresh {
		s.count(rec.Kind, "started")
		s.forgetVoid(match.AttemptRoundID(rec.ID, playerID))
	}
	at := s.attemptOf(&rec, a)
	if !at.round.Running(now) {
		// The time ran out while the player was away, or the window
		// closed: the attempt ends as it stands.
		if _, err := s.finishAttempt(ctx, at, now); err != nil {
			return match.RoundStarted{}, err
		}
		return match.RoundStarted{}, ErrAlreadyPlayed
	}
	if err := at.round.Start(ctx); err != nil {
		return match.RoundStarted{}, err
	}
	// The player may have played on another node since this one last
	// served them: their seat is brought up to date with the store, at the
	// same cost whatever the log's length.
	at.round.Resync(ctx, playerID)
	view, last, err := at.round.View(ctx, playerID, now)
	if err != nil {
		return match.RoundStarted{}, err
	}
	addrHeld := ""
	if held != nil {
		addrHeld = held.addr
	}
	at = s.hold(at, addrHeld)
	select {
	case <-at.round.Finished():
		// A deal stuck from the start: over as it begins, at once rather
		// than at the next tick.
		s.endHeld(at)
	default:
	}
	return match.RoundStarted{
		MatchID: rec.ID, RoundID: at.round.ID, StartsAt: at.round.StartsAt, EndsAt: at.round.EndsAt,
		Rules: rec.Rules, Deal: announce(rec.Fair), View: view, LastSeq: last,
		Resumed: !fresh, Kind: rec.Kind,
	}, nil
}

// announce is what a round tells of its deal before the close.
func announce(f match.FairDeal) match.DealAnnouncement {
	d := match.DealAnnouncement{Commitment: f.Commitment, Known: f.Known}
	if f.Known {
		d.Seed = f.Seed
	}
	return d
}

// AttemptState returns the player's attempt at the round: not started
// (ErrNotFound), being played (the attempt's round id), or finished (their
// entry on the board).
func (s *Service) AttemptState(ctx context.Context, rec *Record, playerID string) (roundID string, result *match.BoardEntry, err error) {
	a, err := s.cfg.Challenges.Attempt(ctx, rec.ID, playerID)
	if err != nil {
		return "", nil, err
	}
	roundID = match.AttemptRoundID(rec.ID, playerID)
	if !a.Finished {
		// An attempt whose time ran out while its player was away ends
		// now, as it stands.
		now := time.Now()
		if at := s.attemptOf(rec, a); !at.round.Running(now) {
			if _, err := s.finishAttempt(ctx, at, now); err != nil {
				return "", nil, err
			}
			a.Finished = true
		}
	}
	if !a.Finished {
		return roundID, nil, nil
	}
	e, err := s.cfg.Challenges.PlayerEntry(ctx, rec.ID, playerID)
	if err != nil {
		return "", nil, err
	}
	return roundID, &e, nil
}

// attemptOf returns this node's attempt object for a player's attempt,
// with its round: the one being watched here, or a new one.
func (s *Service) attemptOf(rec *Record, a Attempt) *attempt {
	id := match.AttemptRoundID(rec.ID, a.PlayerID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if at := s.attempts[id]; at != nil {
		return at
	}
	rr := rec.AttemptRecord(a)
	r, err := match.RoundFromRecord(rr, s.cfg.Store)
	if err != nil {
		panic(fmt.Sprintf("challenge: attempt %s: %v", id, err)) // the record's rules were validated when it was made
	}
	s.endOnFinish(r)
	return &attempt{rec: *rec, round: r, playerID: a.PlayerID}
}

// endOnFinish has an attempt end as soon as its game does (won, stuck or
// resigned), so that its player hears attempt_over at once rather than at
// the next tick. The end runs on a goroutine of its own: the round calls
// back with the player's seat locked.
func (s *Service) endOnFinish(r *match.Round) {
	id := r.ID
	r.OnFinish(func() {
		go func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if at := s.attempts[id]; at != nil && at.round == r && at.timer != nil {
				s.end(at)
			}
		}()
	})
}

// Round returns the round of an attempt by its round id
// (match.AttemptRoundID), for moves, resignations, leaderboards and
// replays: the one this node holds, or one made from the store; it fails
// with lobby.ErrNoSuchRound for an id that names no attempt, and with
// ErrAttemptVoid for an attempt voided here. The lobby hands it the
// attempts' rounds (lobby.Config.AttemptRound).
func (s *Service) Round(ctx context.Context, id string) (*match.Round, error) {
	s.mu.Lock()
	local := s.attempts[id]
	_, void := s.voided[id]
	s.mu.Unlock()
	if local != nil {
		s.hold(local, "")
		return local.round, nil
	}
	challengeID, playerID, ok := match.SplitAttemptRoundID(id)
	if !ok {
		return nil, lobby.ErrNoSuchRound
	}
	rec, err := s.Load(ctx, challengeID)
	if errors.Is(err, ErrNoSuchChallenge) {
		if void {
			return nil, ErrAttemptVoid
		}
		return nil, lobby.ErrNoSuchRound
	}
	if err != nil {
		return nil, err
	}
	now := time.Now()
	if err := s.closeOut(ctx, &rec, now); err != nil {
		return nil, err
	}
	a, err := s.cfg.Challenges.Attempt(ctx, challengeID, playerID)
	if errors.Is(err, match.ErrNotFound) {
		if void {
			return nil, ErrAttemptVoid
		}
		return nil, lobby.ErrNoSuchRound
	}
	if err != nil {
		return nil, err
	}
	if a.Finished {
		// Over: its round ended where the player's entry says.
		e, err := s.cfg.Challenges.PlayerEntry(ctx, challengeID, playerID)
		if err != nil {
			return nil, err
		}
		rr := rec.AttemptRecord(a)
		rr.Phase, rr.EndMs = "over", e.ElapsedMs
		return match.RoundFromRecord(rr, s.cfg.Store)
	}
	if err := s.checkVoid(&rec, a); err != nil {
		return nil, err
	}
	at := s.attemptOf(&rec, a)
	if at.round.Running(now) {
		// Played here, though started or resumed elsewhere: this node
		// holds the round, sends the ghosts and ends it in time too.
		at = s.hold(at, "")
	}
	return at.round, nil
}

// hold keeps an attempt on this node, with the timer of its end, unless it
// is kept already (then that one is returned), and makes it active: its
// player is connected here, or soon found not to be (ghostLoop). addr is
// the address key whose count it holds, if it started here.
func (s *Service) hold(at *attempt, addr string) *attempt {
	id := at.round.ID
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.attempts[id]; cur != nil {
		at = cur
	} else {
		if s.closed {
			return at
		}
		if s.attempts == nil {
			s.attempts = map[string]*attempt{}
		}
		s.attempts[id] = at
		// By id, not by at: an idle attempt's object is replaced (idle).
		at.timer = time.AfterFunc(time.Until(at.round.EndsAt), func() { s.timeUp(id) })
	}
	if addr != "" {
		at.addr = addr
	}
	if s.active == nil {
		s.active = map[string]*attempt{}
	}
	s.active[id] = at
	return at
}

// end ends a held attempt as soon as it can, on its timer's goroutine.
// s.mu held.
func (s *Service) end(at *attempt) {
	delete(s.active, at.round.ID)
	at.timer.Reset(0)
}

// A failed end of an attempt is tried again after endRetry, doubled after
// each failure up to endRetryMax, so that a store down for long is not
// asked every second for every attempt.
const (
	endRetry    = time.Second
	endRetryMax = time.Minute
)

// timeUp is an attempt's timer's func: the attempt ends, its player is
// told, and the node forgets it. A failed end is tried again (logged the
// first time), unless it can never succeed: the attempt or its challenge
// is gone from the store, or the attempt was voided.
func (s *Service) timeUp(id string) {
	s.mu.Lock()
	at := s.attempts[id]
	if s.closed || at == nil || at.ending {
		s.mu.Unlock()
		return
	}
	at.ending = true
	s.bg.Add(1) // under s.mu, as in background
	s.mu.Unlock()
	defer s.bg.Done()
	err := s.endAttempt(at)
	s.mu.Lock()
	defer s.mu.Unlock()
	at.ending = false
	switch {
	case err == nil, errors.Is(err, ErrAttemptVoid):
	case errors.Is(err, match.ErrNotFound), errors.Is(err, match.ErrDataLost):
		s.cfg.Logger.Warn("an attempt cannot end: its challenge or its data is gone from the store; the node forgets it", "round", id, "err", err)
	default:
		if at.retry == 0 {
			s.cfg.Logger.Warn("ending an attempt failed; trying again until it succeeds", "round", id, "err", err)
		}
		at.retry = min(max(2*at.retry, endRetry), endRetryMax)
		at.timer.Reset(at.retry)
		return
	}
	if s.attempts[id] == at {
		delete(s.attempts, id)
		delete(s.active, id)
	}
}

// endAttempt ends an attempt and tells its player.
func (s *Service) endAttempt(at *attempt) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e, err := s.finishAttempt(ctx, at, time.Now())
	if err != nil {
		return err
	}
	s.tellOver(ctx, at, e)
	return nil
}

// finishAttempt ends an attempt: the round is closed in the store, so no
// move lands after it on any node, the game still being played times out,
// and the result goes on the board and into the player's records, once.
// The attempt's counts in play are given back (caps.go). An attempt voided
// here is not finished: ErrAttemptVoid.
func (s *Service) finishAttempt(ctx context.Context, at *attempt, now time.Time) (match.BoardEntry, error) {
	if s.isVoided(at.round.ID) {
		return match.BoardEntry{}, ErrAttemptVoid
	}
	sts, err := at.round.End(ctx, now)
	if err != nil {
		return match.BoardEntry{}, err
	}
	if len(sts) != 1 {
		return match.BoardEntry{}, fmt.Errorf("challenge: attempt %s has %d standings", at.round.ID, len(sts))
	}
	st := sts[0]
	// The attempt's log is published at the close, and kept as long as
	// the round's board.
	if err := s.cfg.Store.Keep(ctx, at.round.ID, at.rec.ClosesAt.Add(s.cfg.Retention)); err != nil {
		return match.BoardEntry{}, err
	}
	e := EntryOf(&at.rec, st, at.round.EndsAt.Sub(at.round.StartsAt).Milliseconds())
	if s.isVoided(at.round.ID) { // voided while it was ending
		return match.BoardEntry{}, ErrAttemptVoid
	}
	fresh, err := s.cfg.Challenges.Finish(ctx, at.rec.ID, e)
	if err != nil {
		return match.BoardEntry{}, err
	}
	if fresh {
		s.tops.forget(at.rec.ID)
		s.count(at.rec.Kind, "finished")
	}
	// Counted whether or not this call put the entry on the board: a
	// resent Finish whose first reply was lost reports false, and the
	// records count a game once anyway. The game finished where the
	// player's clock stopped (the entry's ElapsedMs), not when this node
	// ended the attempt: that may be days later, when a closed challenge
	// is closed out.
	if !st.Helped && !s.deleted(ctx, []match.Entry{{PlayerID: at.playerID}})[at.playerID] {
		g := GameResult{
			GameID: at.round.ID, Variant: at.rec.Variant, Won: st.Status == engine.Won, Score: e.Score,
			ElapsedMs: e.ElapsedMs, Day: at.rec.Day,
			Finished: at.round.StartsAt.Add(time.Duration(e.ElapsedMs) * time.Millisecond),
		}
		if _, err := s.cfg.Records.AddResult(ctx, at.playerID, g); err != nil {
			s.cfg.Logger.Warn("counting a game in the player's records failed", "round", at.round.ID, "err", err)
		}
	}
	if e, err = s.cfg.Challenges.PlayerEntry(ctx, at.rec.ID, at.playerID); err != nil {
		return match.BoardEntry{}, err
	}
	s.release(ctx, &holds{roundID: at.round.ID, playerID: at.playerID, addr: s.addrOf(at)})
	return e, nil
}

// addrOf is the key of the address whose count an attempt holds: the one
// it started from on this node, else the player's last here, if any (a
// release of a key that holds nothing of the attempt changes nothing).
func (s *Service) addrOf(at *attempt) string {
	s.mu.Lock()
	addr := at.addr
	s.mu.Unlock()
	if addr == "" {
		_, addr, _ = s.lobby.PlayerFrom(at.playerID)
	}
	return addr
}

// tellOver sends the player of an attempt held here its attempt_over.
func (s *Service) tellOver(ctx context.Context, at *attempt, e match.BoardEntry) {
	page, err := s.cfg.Challenges.Board(ctx, at.rec.ID, 0, "", 0)
	if err != nil {
		s.cfg.Logger.Warn("reading a board's counts failed", "round", at.rec.ID, "err", err)
	}
	s.cfg.Sink.Send([]string{at.playerID}, match.AttemptOver{
		RoundID: at.round.ID, ChallengeID: at.rec.ID, Result: e, Players: page.Players, Finished: page.Finished,
	})
}

// endLocalAttempts ends the attempts this node holds in a round whose
// window closed early. Those of other nodes end when the board is closed
// out (closeOut), their moves refused meanwhile: the store's round of each
// is closed there.
func (s *Service) endLocalAttempts(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, at := range s.attempts {
		if at.rec.ID == id {
			s.end(at)
		}
	}
}
