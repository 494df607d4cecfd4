package challenge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"klondike/engine"
	"klondike/lobby"
	"klondike/match"
)

// An attempt being played on this node: its round, and the goroutine that
// sends the player ghosts and ends the attempt when the game ends or the
// time runs out (watch).
type attempt struct {
	rec      Record
	round    *match.Round
	playerID string
	stop     chan struct{} // closed to end the attempt now (the window closed early)
	stopOnce sync.Once
	ticks    int // ghost ticks so far, on the attempt's goroutine only
}

// StartAttempt starts the player's one attempt at a challenge, or
// resumes it (on any node) while their time lasts, and returns what the
// player is sent: round_started for the attempt's round. A player whose
// attempt has ended gets ErrAlreadyPlayed; a closed window
// ErrWindowClosed.
func (s *Service) StartAttempt(ctx context.Context, playerID, id string) (match.RoundStarted, error) {
	rec, err := s.Load(ctx, id)
	if err != nil {
		return match.RoundStarted{}, err
	}
	pl, err := s.lobby.Player(playerID)
	if err != nil {
		return match.RoundStarted{}, err
	}
	now := time.Now()
	fresh := false
	a, err := s.cfg.Challenges.Attempt(ctx, id, playerID)
	switch {
	case err == nil && a.Finished:
		return match.RoundStarted{}, ErrAlreadyPlayed
	case errors.Is(err, match.ErrNotFound):
		if !rec.Open(now) {
			return match.RoundStarted{}, ErrWindowClosed
		}
		a, fresh, err = s.cfg.Challenges.StartAttempt(ctx, id, Attempt{PlayerID: pl.ID, Name: pl.Name, StartedAt: now})
	}
	if err != nil {
		return match.RoundStarted{}, err
	}
	if fresh {
		s.count(rec.Kind, "started")
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
	// served them: their seat replays the log from the store.
	at.round.Reseat(playerID)
	view, last, err := at.round.View(ctx, playerID, now)
	if err != nil {
		return match.RoundStarted{}, err
	}
	s.watch(at)
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
	return &attempt{rec: *rec, round: r, playerID: a.PlayerID, stop: make(chan struct{})}
}

// Round returns the round of an attempt by its round id
// (match.AttemptRoundID), for moves, resignations, leaderboards and
// replays: the one this node watches, or one made from the store; it fails
// with lobby.ErrNoSuchRound for an id that names no attempt. The lobby
// hands it the attempts' rounds (lobby.Config.AttemptRound).
func (s *Service) Round(ctx context.Context, id string) (*match.Round, error) {
	s.mu.Lock()
	local := s.attempts[id]
	s.mu.Unlock()
	if local != nil {
		return local.round, nil
	}
	challengeID, playerID, ok := match.SplitAttemptRoundID(id)
	if !ok {
		return nil, lobby.ErrNoSuchRound
	}
	rec, err := s.Load(ctx, challengeID)
	if errors.Is(err, ErrNoSuchChallenge) {
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
	at := s.attemptOf(&rec, a)
	if at.round.Running(now) {
		// Played here, though started or resumed elsewhere: this node
		// keeps the round, sends the ghosts and ends it in time too.
		s.watch(at)
	}
	return at.round, nil
}

// watch starts the goroutine of an attempt on this node, unless it runs.
func (s *Service) watch(at *attempt) {
	s.mu.Lock()
	if s.closed || s.attempts[at.round.ID] != nil {
		s.mu.Unlock()
		return
	}
	s.attempts[at.round.ID] = at
	s.bg.Add(1) // under s.mu, as in background
	s.mu.Unlock()
	go func() {
		defer s.bg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.attempts, at.round.ID)
			s.mu.Unlock()
		}()
		s.play(at)
	}()
}

// play is an attempt's goroutine: a ghost every GhostEvery, and the end of
// the attempt when the player's game ends, their time runs out or the
// window closes early.
func (s *Service) play(at *attempt) {
	end := time.NewTimer(time.Until(at.round.EndsAt))
	defer end.Stop()
	tick := time.NewTicker(s.cfg.GhostEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			if !s.closedElsewhere(at) {
				s.sendGhosts(at, time.Now())
				continue
			}
		case <-at.round.Finished():
		case <-end.C:
		case <-at.stop:
		}
		for s.endAttempt(at) != nil {
			select {
			case <-s.stop:
				return
			case <-time.After(time.Second):
			}
		}
		return
	}
}

// endAttempt ends an attempt on its goroutine and tells its player.
func (s *Service) endAttempt(at *attempt) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e, err := s.finishAttempt(ctx, at, time.Now())
	if err != nil {
		s.cfg.Logger.Warn("ending an attempt failed; trying again in a second", "round", at.round.ID, "err", err)
		return err
	}
	s.tellOver(ctx, at, e)
	return nil
}

// finishAttempt ends an attempt: the round is closed in the store, so no
// move lands after it on any node, the game still being played times out,
// and the result goes on the board and into the player's records, once.
// The player is told (attempt_over).
func (s *Service) finishAttempt(ctx context.Context, at *attempt, now time.Time) (match.BoardEntry, error) {
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
	e := EntryOf(&at.rec, st, st.FinishedMs)
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
	return e, nil
}

// tellOver sends the player of an attempt watched here its attempt_over.
func (s *Service) tellOver(ctx context.Context, at *attempt, e match.BoardEntry) {
	page, err := s.cfg.Challenges.Board(ctx, at.rec.ID, 0, "", 0)
	if err != nil {
		s.cfg.Logger.Warn("reading a board's counts failed", "round", at.rec.ID, "err", err)
	}
	s.cfg.Sink.Send([]string{at.playerID}, match.AttemptOver{
		RoundID: at.round.ID, ChallengeID: at.rec.ID, Result: e, Players: page.Players, Finished: page.Finished,
	})
}

// endLocalAttempts ends the attempts this node watches in a round whose
// window closed early. Those of other nodes end when the board is closed
// out (closeOut), their moves refused meanwhile: the store's round of each
// is closed there.
func (s *Service) endLocalAttempts(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, at := range s.attempts {
		if at.rec.ID == id {
			at.stopOnce.Do(func() { close(at.stop) })
		}
	}
}
