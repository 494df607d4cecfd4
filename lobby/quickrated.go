package lobby

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"klondike/lobby/rating"
	"klondike/match"
)

// A rated quick match seats a player with others of their level: in the
// open rated quick match (same rules) whose players' mean rating is
// closest to theirs, if it is within the window, which widens the longer
// that match's players have waited and opens to anyone after
// RatedMaxWait; else in a new match of their own, which others find the
// same way. Everything it reads is the shared open list, so players on
// different nodes meet.
//
// A player alone in their rated quick match does not wait for a newcomer
// only: the node that seated them looks again every ratedLook, and moves
// them into an older open rated match once its window reaches it, so that
// two lone players far apart meet at the latest after RatedMaxWait. Only
// the younger match's player moves, so two never swap.

// The rating window of rated quick matches.
const (
	// RatedWindow is the window at first: players this far apart or
	// closer are seated together at once.
	RatedWindow = 100.0
	// RatedWiden widens the window by this many points a second waited.
	RatedWiden = 20.0
	// RatedMaxWait is the longest wait for a player of one's level; then
	// anyone is seated.
	RatedMaxWait = 30 * time.Second
	// ratedLook is how often a lone player's node looks for a match to
	// move them into.
	ratedLook = time.Second
)

// ratedWindow is how far apart players may be after waiting w.
func ratedWindow(w time.Duration) float64 {
	if w >= RatedMaxWait {
		return math.Inf(1)
	}
	return RatedWindow + RatedWiden*max(w, 0).Seconds()
}

// ratedWaiter is a player alone in a rated quick match this node seated.
type ratedWaiter struct {
	pl      match.Player
	matchID string
	rating  float64
}

// quickRated seats the player in a rated quick match (see above).
func (l *Lobby) quickRated(ctx context.Context, pl match.Player, want match.Settings) (*match.MatchInfo, error) {
	rs, err := l.cfg.Ratings.Get(ctx, RatingKey(want), []string{pl.ID})
	if err != nil {
		return nil, err
	}
	r := rs[0].AsOf(time.Now())
	mine := r.Rating
	// Shown beside the name: joinMany need not read it again.
	pl.Rating, pl.Provisional = r.Display(), r.Provisional()
	defer l.lockPlayer(pl.ID)()
	cur, err := l.free(ctx, pl.ID)
	if err != nil {
		return nil, err
	}
	// The nearest few, in order: a match that filled or started since the
	// list was read gives way to the next.
	for _, info := range closestRated(l.openRated(ctx, want, cur), mine, time.Now(), nil, 3) {
		m, err := l.Match(ctx, info.ID)
		if err != nil {
			continue
		}
		if err := l.seat(ctx, m, pl); err != nil {
			if definitelyNotJoined(err) {
				continue
			}
			return nil, err
		}
		l.seatedRated(m.Info(), time.Now())
		return m.Info(), nil
	}
	m, err := l.newMatch(ctx, want, true)
	if err != nil {
		return nil, err
	}
	if err := l.seat(ctx, m, pl); err != nil {
		return nil, err
	}
	l.addWaiter(&ratedWaiter{pl: pl, matchID: m.ID, rating: mine})
	return m.Info(), nil
}

// openRated reads the open list once (up to quickLookLimit matches) and
// returns the rated quick matches with players and a free seat that play
// what want asks for, all but skip; want zero: whatever they play.
func (l *Lobby) openRated(ctx context.Context, want match.Settings, skip string) []*match.MatchInfo {
	var out []*match.MatchInfo
	var after int64
	for looked := 0; looked < quickLookLimit; {
		ms, err := l.cfg.Coord.OpenMatches(ctx, after, quickPage)
		if err != nil || len(ms) == 0 {
			break
		}
		looked += len(ms)
		for _, om := range ms {
			after = om.Seq
			if om.ID == skip {
				continue
			}
			info := l.openInfo(ctx, om.ID)
			if info == nil || !info.Quick || !info.Settings.Rated || len(info.Players) == 0 ||
				len(info.Players) >= info.Settings.MaxPlayers || want != (match.Settings{}) && !sameQuick(info, want) {
				continue
			}
			out = append(out, info)
		}
		if len(ms) < quickPage {
			break
		}
	}
	return out
}

// closestRated returns up to n of the matches, nearest first, whose
// players' mean rating is within the window of their wait from mine; with
// than set, only matches older than it, the window that of the longer
// wait.
func closestRated(infos []*match.MatchInfo, mine float64, now time.Time, than *match.MatchInfo, n int) []*match.MatchInfo {
	type near struct {
		info *match.MatchInfo
		gap  float64
	}
	var in []near
	for _, info := range infos {
		if than != nil && !olderMatch(info, than) {
			continue
		}
		gap := math.Abs(meanRating(info) - mine)
		wait := now.Sub(info.OpenedAt)
		if than != nil {
			wait = max(wait, now.Sub(than.OpenedAt))
		}
		if gap <= ratedWindow(wait) {
			in = append(in, near{info, gap})
		}
	}
	slices.SortStableFunc(in, func(a, b near) int { return cmp.Compare(a.gap, b.gap) })
	out := make([]*match.MatchInfo, 0, min(n, len(in)))
	for _, c := range in[:min(n, len(in))] {
		out = append(out, c.info)
	}
	return out
}

// sameQuick reports whether info is a quick match with free seats that
// plays what want asks for.
func sameQuick(info *match.MatchInfo, want match.Settings) bool {
	s := info.Settings
	return info.Quick && len(info.Players) < s.MaxPlayers && s.Variant() == want.Variant() && s.Draw == want.Draw &&
		s.Passes == want.Passes && s.Scoring == want.Scoring && s.Rated == want.Rated &&
		(s.Deals == match.DealsWinnable) == (want.Deals == match.DealsWinnable)
}

// olderMatch reports whether a was made before b (by id when at once).
func olderMatch(a, b *match.MatchInfo) bool {
	if !a.OpenedAt.Equal(b.OpenedAt) {
		return a.OpenedAt.Before(b.OpenedAt)
	}
	return a.ID < b.ID
}

// meanRating is the mean of a match's players' ratings.
func meanRating(info *match.MatchInfo) float64 {
	sum := 0.0
	for _, p := range info.Players {
		sum += float64(ratingOrNew(p.Rating))
	}
	return sum / float64(len(info.Players))
}

// ratingOrNew is a member's rating, or a new player's when it is unknown.
func ratingOrNew(r int) int {
	if r == 0 {
		return int(rating.Initial)
	}
	return r
}

// seatedRated reports a player seated with others: the wait of the
// match's first players and its spread.
func (l *Lobby) seatedRated(info *match.MatchInfo, now time.Time) {
	if l.cfg.OnQuickSeated == nil || info == nil || len(info.Players) < 2 {
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range info.Players {
		r := float64(ratingOrNew(p.Rating))
		lo, hi = min(lo, r), max(hi, r)
	}
	l.cfg.OnQuickSeated(now.Sub(info.OpenedAt), hi-lo)
}

// addWaiter starts looking after a lone player; the node's mover runs
// while anyone waits.
func (l *Lobby) addWaiter(w *ratedWaiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if l.waiters == nil {
		l.waiters = map[string]*ratedWaiter{}
	}
	l.waiters[w.pl.ID] = w
	if len(l.waiters) == 1 {
		l.bg.Add(1)
		go l.moveWaiters()
	}
}

// moveWaiters looks after the node's lone rated quick-match players every
// ratedLook until none is left or the lobby closes.
func (l *Lobby) moveWaiters() {
	defer l.bg.Done()
	t := time.NewTicker(ratedLook)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			l.mu.Lock()
			ws := make([]*ratedWaiter, 0, len(l.waiters))
			for _, w := range l.waiters {
				ws = append(ws, w)
			}
			l.mu.Unlock()
			var open []*match.MatchInfo
			if len(ws) > 0 {
				ctx, cancel := context.WithTimeout(context.Background(), quickTimeout)
				open = l.openRated(ctx, match.Settings{}, "")
				cancel()
			}
			for _, w := range ws {
				if l.moveWaiter(w, open, now) {
					l.mu.Lock()
					if l.waiters[w.pl.ID] == w {
						delete(l.waiters, w.pl.ID)
					}
					l.mu.Unlock()
				}
			}
			l.mu.Lock()
			if len(l.waiters) == 0 {
				// A waiter added from here on starts a new mover.
				l.waiters = nil
				l.mu.Unlock()
				return
			}
			l.mu.Unlock()
		}
	}
}

// moveWaiter moves a lone player into an older open rated match within
// the window, and reports whether the node is done with them: moved, or no
// longer alone in their open match.
func (l *Lobby) moveWaiter(w *ratedWaiter, open []*match.MatchInfo, now time.Time) bool {
	ctx, cancel := context.WithTimeout(context.Background(), quickTimeout)
	defer cancel()
	m, err := l.Match(ctx, w.matchID)
	if err != nil {
		return true
	}
	own := m.Info()
	if own.State != match.StateOpen || len(own.Players) != 1 || own.Players[0].PlayerID != w.pl.ID {
		return true
	}
	var same []*match.MatchInfo
	for _, info := range open {
		if info.ID != own.ID && sameQuick(info, m.Settings) {
			same = append(same, info)
		}
	}
	to := closestRated(same, w.rating, now, own, 1)
	if len(to) == 0 {
		return false
	}
	dst, err := l.Match(ctx, to[0].ID)
	if err != nil {
		return false
	}
	defer l.lockPlayer(w.pl.ID)()
	if l.Current(ctx, w.pl.ID) != own.ID {
		return true
	}
	if err := l.seat(ctx, dst, w.pl); err != nil {
		return false
	}
	l.seatedRated(dst.Info(), now)
	return true
}
