package lobby

import (
	"context"
	"errors"
	"sync"
	"time"

	"klondike/engine"
	"klondike/match"
)

// Ghosts: while a player plays an asynchronous round, about once a second
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
	tracks  map[string]*match.GhostTrack // by attempt round id
	leaders map[string]leader            // by asynchronous round id
	closes  map[string]closing           // by asynchronous round id
}

type leader struct {
	playerID string // "" while the board is empty
	at       time.Time
}

// sendGhosts sends the attempt's player their ghosts at their elapsed time.
func (l *Lobby) sendGhosts(at *attempt, now time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	elapsed := at.round.ClockMs(now)
	var gs []match.Ghost
	lead := l.leaderOf(ctx, &at.rec, now)
	if lead != "" && lead != at.playerID {
		if t := l.ghostTrack(ctx, &at.rec, lead); t != nil {
			gs = append(gs, t.At(match.GhostLeader, elapsed))
		}
	}
	if f := at.rec.CreatorID; f != "" && f != at.playerID && f != lead {
		if t := l.ghostTrack(ctx, &at.rec, f); t != nil {
			gs = append(gs, t.At(match.GhostFriend, elapsed))
		}
	}
	l.cfg.Sink.Send([]string{at.playerID}, match.GhostUpdate{RoundID: at.round.ID, ElapsedMs: elapsed, Ghosts: gs})
}

// leaderOf returns the board's leader, "" if none (or unknown now).
func (l *Lobby) leaderOf(ctx context.Context, rec *match.AsyncRecord, now time.Time) string {
	l.ghosts.mu.Lock()
	ld, ok := l.ghosts.leaders[rec.ID]
	l.ghosts.mu.Unlock()
	if ok && now.Sub(ld.at) < leaderEvery {
		return ld.playerID
	}
	top, err := l.cfg.Async.BoardRange(ctx, rec.ID, 1, 1)
	if err != nil {
		return ld.playerID
	}
	ld = leader{at: now}
	if len(top) > 0 {
		ld.playerID = top[0].PlayerID
	}
	l.ghosts.mu.Lock()
	if l.ghosts.leaders == nil || len(l.ghosts.leaders) >= maxGhostTracks {
		l.ghosts.leaders = map[string]leader{}
	}
	l.ghosts.leaders[rec.ID] = ld
	l.ghosts.mu.Unlock()
	return ld.playerID
}

// ghostTrack returns the ghost track of a player's finished attempt, or nil if
// they have none (yet).
func (l *Lobby) ghostTrack(ctx context.Context, rec *match.AsyncRecord, playerID string) *match.GhostTrack {
	id := match.AttemptRoundID(rec.ID, playerID)
	l.ghosts.mu.Lock()
	t := l.ghosts.tracks[id]
	l.ghosts.mu.Unlock()
	if t != nil {
		return t
	}
	e, err := l.cfg.Async.PlayerEntry(ctx, rec.ID, playerID)
	if err != nil {
		return nil // not finished: no ghost yet
	}
	log, err := l.cfg.Store.Log(ctx, id, playerID)
	if err != nil && !errors.Is(err, match.ErrNotFound) {
		return nil
	}
	t, err = match.NewGhostTrack(engine.NumberedDealFor(rec.Rules.Game, rec.Fair.Seed), rec.Rules, playerID, e.Name, log)
	if err != nil {
		l.cfg.Logger.Error("a finished attempt does not replay", "round", id, "err", err)
		return nil
	}
	l.ghosts.mu.Lock()
	if l.ghosts.tracks == nil || len(l.ghosts.tracks) >= maxGhostTracks {
		l.ghosts.tracks = map[string]*match.GhostTrack{}
	}
	l.ghosts.tracks[id] = t
	l.ghosts.mu.Unlock()
	return t
}

// closedElsewhere reports, every closeCheckTicks calls, whether the
// attempt's round has closed (a creator closing it on another node). The
// node reads a round's record for all its attempts at once, at most every
// leaderEvery.
func (l *Lobby) closedElsewhere(at *attempt) bool {
	at.ticks++
	if at.ticks%closeCheckTicks != 0 {
		return false
	}
	now := time.Now()
	l.ghosts.mu.Lock()
	c, ok := l.ghosts.closes[at.rec.ID]
	l.ghosts.mu.Unlock()
	if !ok || now.Sub(c.read) >= leaderEvery {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		rec, err := l.cfg.Async.LoadAsync(ctx, at.rec.ID)
		if err != nil {
			return false
		}
		c = closing{closesAt: rec.ClosesAt, read: now}
		l.ghosts.mu.Lock()
		if l.ghosts.closes == nil || len(l.ghosts.closes) >= maxGhostTracks {
			l.ghosts.closes = map[string]closing{}
		}
		l.ghosts.closes[at.rec.ID] = c
		l.ghosts.mu.Unlock()
	}
	return !now.Before(c.closesAt)
}

// closing is when a round closes, as read at read.
type closing struct {
	closesAt, read time.Time
}
