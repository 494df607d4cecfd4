package challenge

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"klondike/engine"
	"klondike/lobby"
	"klondike/match"
)

// The daily deal: each UTC day, one challenge a daily variant
// (Config.DailyVariants), open from midnight to midnight, its deal drawn
// from the deals proved winnable. Every node tries to make the day's
// rounds at midnight and whenever they are asked for; the store keeps the
// first one made (Store.Create), so a day has one round a
// variant however many nodes race.

// dailyWinnableWait is how long a node waits for the pool to hand out a
// deal proved winnable before it deals any deal, said so in the round
// (Info.Winnable false).
const dailyWinnableWait = 30 * time.Second

// DailyID returns the id of the daily round of rules on the UTC day.
func DailyID(day string, rules engine.Rules) string {
	return "daily-" + day + "-" + Variant(rules)
}

// Daily returns today's daily rounds (UTC), one a daily variant, making
// those not made yet.
func (s *Service) Daily(ctx context.Context) (day string, recs []Record, err error) {
	if err := s.checkReady(); err != nil {
		return "", nil, err
	}
	now := time.Now()
	day = DayOf(now)
	for _, r := range s.cfg.DailyVariants {
		rec, err := s.daily(ctx, day, r, now)
		if err != nil {
			return "", nil, err
		}
		recs = append(recs, rec)
	}
	return day, recs, nil
}

// daily returns the day's round of rules, making it if need be.
func (s *Service) daily(ctx context.Context, day string, rules engine.Rules, now time.Time) (Record, error) {
	id := DailyID(day, rules)
	rec, err := s.cfg.Challenges.Load(ctx, id)
	if err == nil || !errors.Is(err, match.ErrNotFound) {
		return rec, err
	}
	// One making a round on this node at a time, on a context of its own:
	// a request with a short deadline must not make do with a deal not
	// proved winnable, and the others wait for the same round.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return rec, lobby.ErrShuttingDown
	}
	mk := s.dailyMaking[id]
	if mk == nil {
		mk = &making{done: make(chan struct{})}
		s.dailyMaking[id] = mk
		s.bg.Add(1) // under s.mu, as in background
		go func() {
			defer s.bg.Done()
			mctx, cancel := context.WithTimeout(context.Background(), dailyWinnableWait+5*time.Second)
			defer cancel()
			mk.rec, mk.err = s.makeDaily(mctx, id, day, rules, now)
			s.mu.Lock()
			delete(s.dailyMaking, id)
			s.mu.Unlock()
			close(mk.done)
		}()
	}
	s.mu.Unlock()
	select {
	case <-mk.done:
		return mk.rec, mk.err
	case <-ctx.Done():
		return rec, fmt.Errorf("%w: the daily rounds are being dealt; try again", match.ErrUnavailable)
	}
}

// making is a daily round being made on this node.
type making struct {
	done chan struct{}
	rec  Record
	err  error
}

// makeDaily deals the day's round of rules and stores it, unless another
// node did first: the stored one stands.
func (s *Service) makeDaily(ctx context.Context, id, day string, rules engine.Rules, now time.Time) (Record, error) {
	opens, _ := time.Parse(time.DateOnly, day)
	fair, err := s.dailyDeal(ctx, rules)
	if err != nil {
		return Record{}, err
	}
	rec := Record{
		ID: id, Kind: KindDaily, Variant: Variant(rules), Rules: rules, Mode: match.ModeRace,
		Fair: fair, LimitMs: s.cfg.DailyLimit.Milliseconds(), OpensAt: opens, ClosesAt: opens.AddDate(0, 0, 1), Day: day,
	}
	rec, made, err := s.cfg.Challenges.Create(ctx, rec, s.ttl(&rec, now))
	if made {
		s.count(rec.Kind, "created")
	}
	return rec, err
}

// dailyDeal draws the deal of a daily round: one proved winnable, when the
// pool hands one out within dailyWinnableWait (or ctx's end), else any. A
// game the solver does not play gets any deal at once.
func (s *Service) dailyDeal(ctx context.Context, rules engine.Rules) (match.FairDeal, error) {
	if w := s.cfg.Winnable; w != nil && match.Solvable(rules.Game) {
		// One timer a wait: two due at once in one select is what the race
		// detector does not survive in a synctest bubble (see lobby's
		// janitor).
		deadline := time.Now().Add(dailyWinnableWait)
		for {
			if seed, ok := w.Take(rules); ok {
				d, err := match.NewFairDealFor(seed, rand.Reader)
				d.Winnable = true
				return d, err
			}
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			select {
			case <-time.After(min(100*time.Millisecond, left)):
				continue
			case <-ctx.Done():
			case <-s.stop:
			}
			break
		}
	}
	return match.NewFairDeal(rand.Reader)
}

// dailyRollover makes each day's rounds at its start, on every node (the
// store keeps one), so that the first player of the day finds them ready.
func (s *Service) dailyRollover() {
	defer s.bg.Done()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), dailyWinnableWait+5*time.Second)
		if _, _, err := s.Daily(ctx); err != nil && s.lobby.Ready() {
			s.cfg.Logger.Warn("making the daily rounds failed; they are made when first asked for", "err", err)
		}
		cancel()
		now := time.Now().UTC()
		midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
		select {
		case <-s.stop:
			return
		case <-time.After(midnight.Sub(now)):
		}
	}
}

// DefaultDailyVariants are the daily rounds' rules when the Config names
// none: draw 3 and draw 1 (ParseVariant).
func DefaultDailyVariants() []engine.Rules {
	d3, _ := ParseVariant("draw3")
	d1, _ := ParseVariant("draw1")
	return []engine.Rules{d3, d1}
}
