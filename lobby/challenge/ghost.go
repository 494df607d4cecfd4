package challenge

import (
	"context"
	"errors"
	"sync"
	"time"

	"klondike/engine"
	"klondike/match"
)

// The roles of a ghost (match.Ghost.Role).
const (
	GhostLeader = "leader"
	GhostFriend = "friend" // the challenge's creator, who sent the link
)

// Ghosts: while a player plays a challenge, about once a second
// they are told how the board's leader and the friend who sent the link
// (the challenge's creator) stood at the same time of their own clocks.
// Only finished attempts make ghosts: their logs no longer change, so each
// is replayed once on a node and kept (ghostTracks); the leader is read
// from the board at most every leaderEvery a round.

const (
	// leaderEvery is how long a node trusts the leader it last read.
	leaderEvery = 5 * time.Second
	// maxGhostTracks bounds the tracks a node keeps; past it, it starts
	// again from none (a track costs one log read and replay to remake).
	maxGhostTracks = 1024
	// closeCheckTicks: every so many ghost ticks of an active attempt the
	// node reads the round's record again, to learn of a close made
	// elsewhere.
	closeCheckTicks = 5
)

// ghosts is a node's cache of ghost tracks, leaders and closing times.
type ghosts struct {
	mu      sync.Mutex
	tracks  map[string]*GhostTrack // by attempt round id
	leaders map[string]leader      // by challenge id
	closes  map[string]closing     // by challenge id
}

type leader struct {
	playerID string // "" while the board is empty
	at       time.Time
}

// ghostLoop is the node's one ticker of its attempts: every GhostEvery,
// each active attempt (its player connected here) whose game ended is
// ended, one whose player left becomes idle, and the others' players get
// their ghosts. The game's end (a last move, a resignation, a deal stuck
// from the start) is so noticed within GhostEvery, without a goroutine an
// attempt: moves go from the api straight to the round, which only
// signals Finished. An idle attempt's game cannot end but by its time,
// which its timer ends: its player's next move or resume comes through
// Round or StartAttempt, which make it active again.
func (s *Service) ghostLoop() {
	defer s.bg.Done()
	t := time.NewTicker(s.cfg.GhostEvery)
	defer t.Stop()
	var list []*attempt
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.mu.Lock()
			list = list[:0]
			for _, at := range s.active {
				list = append(list, at)
			}
			s.mu.Unlock()
			for _, at := range list {
				s.tick(at, now)
			}
			clear(list) // keeps no attempt alive past its end
		}
	}
}

// tick is one tick of ghostLoop for an active attempt.
func (s *Service) tick(at *attempt, now time.Time) {
	select {
	case <-at.round.Finished():
		s.endHeld(at)
		return
	default:
	}
	if c := s.cfg.Connected; c != nil && !c(at.playerID) {
		s.idle(at)
		return
	}
	if s.closedElsewhere(at, now) {
		s.endHeld(at)
		return
	}
	s.sendGhosts(at, now)
}

// endHeld ends an attempt now, if the node still holds it.
func (s *Service) endHeld(at *attempt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.attempts[at.round.ID] == at {
		s.end(at)
	}
}

// idle makes an attempt whose player left this node cost it no more than
// its timer and its record: no ghosts, no store reads, and no seat (the
// game replayed). The node keeps a new object of the attempt, with a new
// round that has no seat yet, so that the old one, its seat with it, is
// let go without touching the seat a move may be using; the player's next
// move replays their log into a new seat, as on another node. A last move
// that lands on the old round as its player leaves ends the attempt at
// its timer rather than at once.
func (s *Service) idle(at *attempt) {
	r, err := match.RoundFromRecord(at.rec.AttemptRecord(Attempt{
		PlayerID: at.playerID, Name: at.round.Players[0].Name, StartedAt: at.round.StartsAt,
	}), s.cfg.Store)
	if err != nil {
		return // the record's rules were validated when it was made
	}
	s.endOnFinish(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active[at.round.ID] != at || s.attempts[at.round.ID] != at || at.ending {
		return
	}
	delete(s.active, at.round.ID)
	s.attempts[at.round.ID] = &attempt{rec: at.rec, round: r, playerID: at.playerID, addr: at.addr, timer: at.timer, retry: at.retry}
}

// sendGhosts sends the attempt's player their ghosts at their elapsed time.
func (s *Service) sendGhosts(at *attempt, now time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	elapsed := at.round.ClockMs(now)
	var gs []match.Ghost
	lead := s.leaderOf(ctx, &at.rec, now)
	if lead != "" && lead != at.playerID {
		if t := s.ghostTrack(ctx, &at.rec, lead); t != nil {
			gs = append(gs, t.At(GhostLeader, elapsed))
		}
	}
	if f := at.rec.CreatorID; f != "" && f != at.playerID && f != lead {
		if t := s.ghostTrack(ctx, &at.rec, f); t != nil {
			gs = append(gs, t.At(GhostFriend, elapsed))
		}
	}
	s.cfg.Sink.Send([]string{at.playerID}, match.GhostUpdate{RoundID: at.round.ID, ElapsedMs: elapsed, Ghosts: gs})
}

// leaderOf returns the board's leader, "" if none (or unknown now).
func (s *Service) leaderOf(ctx context.Context, rec *Record, now time.Time) string {
	s.ghosts.mu.Lock()
	ld, ok := s.ghosts.leaders[rec.ID]
	s.ghosts.mu.Unlock()
	if ok && now.Sub(ld.at) < leaderEvery {
		return ld.playerID
	}
	top, err := s.cfg.Challenges.BoardRange(ctx, rec.ID, 1, 1)
	if err != nil {
		return ld.playerID
	}
	ld = leader{at: now}
	if len(top) > 0 {
		ld.playerID = top[0].PlayerID
	}
	s.ghosts.mu.Lock()
	if s.ghosts.leaders == nil || len(s.ghosts.leaders) >= maxGhostTracks {
		s.ghosts.leaders = map[string]leader{}
	}
	s.ghosts.leaders[rec.ID] = ld
	s.ghosts.mu.Unlock()
	return ld.playerID
}

// ghostTrack returns the ghost track of a player's finished attempt, or nil if
// they have none (yet).
func (s *Service) ghostTrack(ctx context.Context, rec *Record, playerID string) *GhostTrack {
	id := match.AttemptRoundID(rec.ID, playerID)
	s.ghosts.mu.Lock()
	t := s.ghosts.tracks[id]
	s.ghosts.mu.Unlock()
	if t != nil {
		return t
	}
	e, err := s.cfg.Challenges.PlayerEntry(ctx, rec.ID, playerID)
	if err != nil {
		return nil // not finished: no ghost yet
	}
	log, err := s.cfg.Store.Log(ctx, id, playerID)
	if err != nil && !errors.Is(err, match.ErrNotFound) {
		return nil
	}
	t, err = NewGhostTrack(engine.NumberedDealFor(rec.Rules.Game, rec.Fair.Seed), rec.Rules, playerID, e.Name, log, e)
	if err != nil {
		s.cfg.Logger.Error("a finished attempt does not replay", "round", id, "err", err)
		return nil
	}
	s.ghosts.mu.Lock()
	if s.ghosts.tracks == nil || len(s.ghosts.tracks) >= maxGhostTracks {
		s.ghosts.tracks = map[string]*GhostTrack{}
	}
	s.ghosts.tracks[id] = t
	s.ghosts.mu.Unlock()
	return t
}

// closedElsewhere reports, every closeCheckTicks calls, whether the
// attempt's round has closed (a creator closing it on another node). The
// node reads a round's record for all its attempts at once, at most every
// leaderEvery.
func (s *Service) closedElsewhere(at *attempt, now time.Time) bool {
	at.ticks++
	if at.ticks%closeCheckTicks != 0 {
		return false
	}
	s.ghosts.mu.Lock()
	c, ok := s.ghosts.closes[at.rec.ID]
	s.ghosts.mu.Unlock()
	if !ok || now.Sub(c.read) >= leaderEvery {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		rec, err := s.cfg.Challenges.Load(ctx, at.rec.ID)
		if err != nil {
			return false
		}
		c = closing{closesAt: rec.ClosesAt, read: now}
		s.ghosts.mu.Lock()
		if s.ghosts.closes == nil || len(s.ghosts.closes) >= maxGhostTracks {
			s.ghosts.closes = map[string]closing{}
		}
		s.ghosts.closes[at.rec.ID] = c
		s.ghosts.mu.Unlock()
	}
	return !now.Before(c.closesAt)
}

// closing is when a round closes, as read at read.
type closing struct {
	closesAt, read time.Time
}
