package lobby

import (
	"context"
	"errors"
	"time"

	"klondike/match"
)

// Abandoned open matches. A match waits in the open state for its players
// to start it; when all of them have gone (their connections dropped and
// none came back) it would wait forever, listed, holding its record, its
// goroutine and its place under the caps. The lobby notes when it first
// sees an open match with none of its members connected, and once that
// has lasted Config.AbandonedAfter, closes it (match.Match.CloseAbandoned):
// it is over, leaves the list, and is forgotten with the finished matches.
// A member who comes back in time keeps it open.

// abandonedCheckMax bounds the pause between two looks for abandoned
// matches: a match is closed at most this long after its grace ends.
const abandonedCheckMax = 10 * time.Second

// abandonedEvery is how often the janitor looks for abandoned matches:
// a quarter of the grace, at most abandonedCheckMax.
func (l *Lobby) abandonedEvery() time.Duration {
	return max(min(l.cfg.AbandonedAfter/4, abandonedCheckMax), time.Millisecond)
}

// observe takes a new snapshot of e's match from its replica into the
// lobby's view (see track). The caller holds l.mu.
func (l *Lobby) observe(e *entry, info *match.MatchInfo, now time.Time) {
	e.info = info
	l.track(e, info, now)
}

// track takes a snapshot of e's match into its place among the open
// matches counted by the caps, and since when none of its members is
// connected. The caller holds l.mu.
func (l *Lobby) track(e *entry, info *match.MatchInfo, now time.Time) {
	if info.State != match.StateOpen {
		e.idleSince = time.Time{}
		l.uncount(e)
		return
	}
	for _, p := range info.Players {
		if p.Connected {
			e.idleSince = time.Time{}
			return
		}
	}
	if e.idleSince.IsZero() {
		e.idleSince = now
	}
}

// closeAbandoned closes the open matches of this node whose members have
// all been away for the grace. A counted match whose replica may not hear
// of every change (match.Match.Heard) is read from the Coord first, so that
// one started or ended through another node stops counting.
func (l *Lobby) closeAbandoned(now time.Time) {
	var due []*match.Match
	var unheard []string
	l.mu.Lock()
	for id, e := range l.matches {
		if e.m == nil || e.info == nil || e.info.State != match.StateOpen {
			continue
		}
		switch {
		case !e.idleSince.IsZero() && now.Sub(e.idleSince) >= l.cfg.AbandonedAfter:
			due = append(due, e.m)
		case e.counted && !e.m.Heard():
			unheard = append(unheard, id)
		}
	}
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), l.abandonedEvery())
	defer cancel()
	for _, id := range unheard {
		l.recheck(ctx, id, now)
	}
	for _, m := range due {
		select {
		case <-l.stop:
			return
		default:
		}
		if _, err := m.CloseAbandoned(ctx); err != nil && !errors.Is(err, match.ErrMatchClosed) {
			l.cfg.Logger.Warn("closing an abandoned match failed; trying again later", "match", m.ID, "err", err)
			if ctx.Err() != nil {
				return
			}
		}
	}
}

// recheck tracks an open match by the Coord's record of it rather than by
// its replica's snapshot, which may lag.
func (l *Lobby) recheck(ctx context.Context, id string, now time.Time) {
	rec, _, err := l.cfg.Coord.LoadMatch(ctx, id)
	var info *match.MatchInfo
	switch {
	case errors.Is(err, match.ErrNotFound):
		// The record is gone (the store lost it): not open any more.
		info = &match.MatchInfo{ID: id, State: match.StateOver}
	case err != nil:
		return
	default:
		if info, err = match.DecodeInfo(rec); err != nil {
			return
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.matches[id]; e != nil && e.counted {
		l.track(e, info, now)
	}
}
