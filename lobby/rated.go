package lobby

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"klondike/engine"
	"klondike/lobby/rating"
	"klondike/match"
)

// A rated round changes ratings once it is over: the node that ends it
// ranks its players for rating (ratingPlaces), leaves out whoever may not
// be rated, asks the allowances which pairs may still be rated against
// each other today, computes the new ratings (rating.UpdateApart) and
// applies them to the store, which records the round once whatever node
// runs this; then the match tells its players (match.Match.SetRatings).

// Rated rounds' rules, and the reasons a rated round rates nobody.
const (
	// PairRatedPerDay bounds the rounds in which one pair of players is
	// rated against each other: a bucket of this many refilled over a day,
	// so that playing one's own second identity over and over gains
	// nothing after the first few.
	PairRatedPerDay = 3

	unratedHints = "hints were used in this round, so it rates nobody"
	unratedFew   = "fewer than two players made a move, so this round rates nobody"
	unratedPairs = "these players have been rated against each other as often as a day allows"
	unratedSeed  = "a known deal rates nobody"
)

// rateTimeout bounds the store calls of rating one round.
const rateTimeout = 10 * time.Second

// rateRound rates the finished round r of a rated match and tells the
// match; errors are logged: a round whose rating fails stays unrated.
func (l *Lobby) rateRound(r *match.Round, results []match.Entry) {
	ctx, cancel := context.WithTimeout(context.Background(), rateTimeout)
	defer cancel()
	m, err := l.Match(ctx, r.MatchID)
	if err != nil {
		l.cfg.Logger.Warn("rating a round: its match is gone", "round", r.ID, "err", err)
		return
	}
	if !m.Settings.Rated || l.cfg.Ratings == nil {
		return
	}
	rr, err := l.rate(ctx, m.Settings, r, results, time.Now())
	if err != nil {
		l.cfg.Logger.Warn("rating a round failed", "round", r.ID, "err", err)
		return
	}
	if l.cfg.OnRated != nil {
		l.cfg.OnRated(rr.Unrated == "")
	}
	if err := m.SetRatings(ctx, rr); err != nil && !errors.Is(err, match.ErrNotRated) {
		l.cfg.Logger.Warn("telling a round's ratings failed", "round", r.ID, "err", err)
	}
}

// rate computes and applies a round's rating changes (once: a round
// already applied gives the changes it made then).
func (l *Lobby) rate(ctx context.Context, s match.Settings, r *match.Round, results []match.Entry, now time.Time) (match.RoundRatings, error) {
	out := match.RoundRatings{RoundID: r.ID}
	if s.Seed != "" {
		out.Unrated = unratedSeed
		return out, nil
	}
	if slices.ContainsFunc(results, func(e match.Entry) bool { return e.Helped }) {
		out.Unrated = unratedHints
		return out, nil
	}
	key := RatingKey(s)
	if kept, err := l.cfg.Ratings.Round(ctx, r.ID); err == nil {
		return shown(kept), nil
	} else if !errors.Is(err, match.ErrNotFound) {
		return out, err
	}
	places := ratingPlaces(r.Mode, results)
	all := make([]string, len(results))
	for i, e := range results {
		all[i] = e.PlayerID
	}
	// A player who deleted themselves mid-round is not rated again.
	gone, err := l.Deleted(ctx, all)
	if err != nil {
		return out, err
	}
	var rated []match.Entry
	var at []int
	for i, e := range results {
		if e.Moves > 0 && !gone[e.PlayerID] {
			rated, at = append(rated, e), append(at, places[i])
		}
	}
	if len(rated) < 2 {
		out.Unrated = unratedFew
		return out, nil
	}
	apart, err := l.apartPairs(ctx, rated, now)
	if err != nil {
		return out, err
	}
	if len(apart) == len(rated)*(len(rated)-1)/2 {
		out.Unrated = unratedPairs
		return out, nil
	}
	ids := make([]string, len(rated))
	for i, e := range rated {
		ids[i] = e.PlayerID
	}
	for range 5 {
		before, err := l.cfg.Ratings.Get(ctx, key, ids)
		if err != nil {
			return out, err
		}
		round := make([]rating.Placing, len(rated))
		for i := range rated {
			round[i] = rating.Placing{Rating: before[i], Place: at[i]}
		}
		after := rating.UpdateApart(round, func(i, j int) bool { return apart[pairOf(ids[i], ids[j])] }, now)
		rec := RatedRound{RoundID: r.ID, MatchID: r.MatchID, Key: key, At: now}
		for i, e := range rated {
			if after[i] == before[i] {
				continue // every pair of theirs was kept apart
			}
			rec.Changes = append(rec.Changes, RatedPlayer{PlayerID: e.PlayerID, Name: e.Name, Place: at[i], Before: before[i], After: after[i]})
		}
		for p := range apart {
			rec.Apart = append(rec.Apart, p)
		}
		slices.SortFunc(rec.Apart, func(a, b [2]string) int { return cmpPair(a, b) })
		kept, _, err := l.cfg.Ratings.Apply(ctx, rec)
		if errors.Is(err, ErrRatingMoved) {
			continue
		}
		if err != nil {
			return out, err
		}
		return shown(kept), nil
	}
	return out, fmt.Errorf("%w: the players' ratings kept changing", match.ErrBusy)
}

// shown is a rated round as its players see it: whole numbers.
func shown(rr RatedRound) match.RoundRatings {
	out := match.RoundRatings{RoundID: rr.RoundID}
	for _, c := range rr.Changes {
		b, a := c.Before.Display(), c.After.Display()
		out.Changes = append(out.Changes, match.RatingChange{
			PlayerID: c.PlayerID, Name: c.Name, Place: c.Place, Before: b, After: a, Change: a - b,
			Provisional: c.After.Provisional(),
		})
	}
	if len(out.Changes) == 0 {
		out.Unrated = unratedFew
	}
	return out
}

// apartPairs takes one use of each pair's daily allowance and returns the
// pairs refused: they are not rated against each other in this round.
func (l *Lobby) apartPairs(ctx context.Context, es []match.Entry, now time.Time) (map[[2]string]bool, error) {
	apart := map[[2]string]bool{}
	for i := range es {
		for j := i + 1; j < len(es); j++ {
			p := pairOf(es[i].PlayerID, es[j].PlayerID)
			ok, err := l.cfg.Allowances.Take(ctx, "ratedpair:"+p[0]+":"+p[1], PairRatedPerDay, 24*time.Hour, now)
			if err != nil {
				return nil, err
			}
			if !ok {
				apart[p] = true
			}
		}
	}
	return apart, nil
}

// pairOf is a pair of player ids in a fixed order.
func pairOf(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

func cmpPair(a, b [2]string) int {
	return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
}

// ratingPlaces gives each of a round's results (in their ranked order) its
// place for rating: the rank, except that players whose results are equal
// but for the time they reached them share a place, and that everyone who
// resigned (leaving resigns) is last, together.
func ratingPlaces(mode match.Mode, results []match.Entry) []int {
	places := make([]int, len(results))
	var stayed []int
	for i, e := range results {
		if e.Status != engine.Resigned {
			stayed = append(stayed, i)
		}
	}
	for k, i := range stayed {
		if k > 0 && sameResult(mode, &results[stayed[k-1]], &results[i]) {
			places[i] = places[stayed[k-1]]
		} else {
			places[i] = k + 1
		}
	}
	for i, e := range results {
		if e.Status == engine.Resigned {
			places[i] = len(stayed) + 1
		}
	}
	return places
}

// sameResult reports whether two results rank alike but for the time they
// were reached.
func sameResult(mode match.Mode, a, b *match.Entry) bool {
	if mode == match.ModeRace {
		aw, bw := a.Status == engine.Won, b.Status == engine.Won
		if aw != bw {
			return false
		}
		if aw {
			return *a.FinishedMs == *b.FinishedMs
		}
		return a.Foundation == b.Foundation && a.Score == b.Score
	}
	return a.Score == b.Score
}

// withRatings sets the players' ratings, as shown beside their names, for
// a rated match's settings, for those whose caller did not (a rated quick
// match has read it already). A store that cannot be read leaves them
// unset: they are shown, not used, and the round's rating reads them again.
func (l *Lobby) withRatings(ctx context.Context, s match.Settings, ps []match.Player) {
	if !s.Rated || l.cfg.Ratings == nil {
		return
	}
	var ids []string
	var at []int
	for i, p := range ps {
		if p.Rating == 0 {
			ids, at = append(ids, p.ID), append(at, i)
		}
	}
	if len(ids) == 0 {
		return
	}
	rs, err := l.cfg.Ratings.Get(ctx, RatingKey(s), ids)
	if err != nil {
		return
	}
	now := time.Now()
	for k, i := range at {
		r := rs[k].AsOf(now)
		ps[i].Rating, ps[i].Provisional = r.Display(), r.Provisional()
	}
}

// Ratings is the store of the players' ratings, for the routes that show
// them (ladders, profiles, rated rounds); nil when the lobby keeps none.
func (l *Lobby) Ratings() Ratings { return l.cfg.Ratings }
