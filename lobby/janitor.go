package lobby

import (
	"time"

	"klondike/match"
)

// janitorEvery is how often the janitor sweeps.
const janitorEvery = time.Minute

// janitor forgets finished matches, old rounds, the players who said
// hello here and have been idle a session's life since, and the addresses
// whose new-session budget is full again, and closes abandoned open
// matches. The sessions themselves expire in their backend.
//
// One ticker drives both sweeps: two that fall due at the same instant
// every minute make a synctest bubble's timers run on two threads at once,
// which the race detector of Go 1.26 does not survive.
func (l *Lobby) janitor() {
	defer close(l.done)
	a := time.NewTicker(l.abandonedEvery())
	defer a.Stop()
	last := time.Now()
	for {
		select {
		case <-l.stop:
			return
		case now := <-a.C:
			l.closeAbandoned(now)
			if now.Sub(last) >= janitorEvery {
				last = now
				l.sweep(now)
			}
		}
	}
}

func (l *Lobby) sweep(now time.Time) {
	var closing []*match.Match
	l.mu.Lock()
	for id, e := range l.matches {
		if e.m != nil && !e.overAt.IsZero() && now.Sub(e.overAt) > l.cfg.MatchRetention {
			delete(l.matches, id)
			closing = append(closing, e.m)
		}
	}
	for id, k := range l.players {
		if now.Sub(k.seen) > knownIdle {
			delete(l.players, id)
		}
	}
	for id, re := range l.rounds {
		if re.endAt.IsZero() && re.r.Over() {
			re.endAt = now
		}
		if !re.endAt.IsZero() && now.Sub(re.endAt) > l.cfg.RoundRetention {
			delete(l.rounds, id)
		}
	}
	l.mu.Unlock()
	for _, m := range closing {
		m.Close()
	}
}
