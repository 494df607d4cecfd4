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
	// closeCheckTicks: every so many ghost ticks an attempt's goroutine
	// reads the round's record again, to learn of a close made elsewhere.
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
func (s *Service) closedElsewhere(at *attempt) bool {
	at.ticks++
	if at.ticks%closeCheckTicks != 0 {
		return false
	}
	now := time.Now()
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
