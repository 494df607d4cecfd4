package lobby

import (
	"context"
	"time"
)

// The data epoch is how a node learns that the shared state lost its data
// (a Redis restarted empty): the Coord's epoch changes. A node compares
// each reading with the first, so the first must come before the node
// serves any match: a loss between the start and a later first reading
// would go unseen, and moves would be acknowledged into the empty state
// of rounds never voided.

// The timing of the first reading of the data epoch.
const (
	// epochTryTimeout bounds each try, so that a store that does not
	// answer delays the start by no more than the subscription's wait.
	epochTryTimeout = time.Second
	// epochRetryFirst is the pause after the first failed try; it doubles
	// after each failure up to epochRetryMax, so that a node whose store
	// comes back is ready within about epochRetryMax.
	epochRetryFirst = 100 * time.Millisecond
	epochRetryMax   = 2 * time.Second
)

// Ready reports whether the node serves matches: once it has read the
// shared state's data epoch, which it first tries as the lobby starts and
// then again in the background until it succeeds. Until then every path
// to a match fails with ErrNotReady.
func (l *Lobby) Ready() bool { return l.ready.Load() }

func (l *Lobby) checkReady() error {
	if !l.ready.Load() {
		return ErrNotReady
	}
	return nil
}

// watchEpoch reads the data epoch until it has it (closing tried after
// the first try), makes the lobby ready, and then checks it every
// DataEpochEvery until the lobby closes.
func (l *Lobby) watchEpoch(tried chan<- struct{}) {
	defer l.bg.Done()
	seen := l.readEpoch()
	// Ready before tried is closed: a lobby whose first try succeeded is
	// ready when New returns.
	l.ready.Store(seen != "")
	close(tried)
	for wait := epochRetryFirst; seen == ""; wait = min(2*wait, epochRetryMax) {
		select {
		case <-l.stop:
			return
		case <-time.After(wait):
		}
		if seen = l.readEpoch(); seen != "" {
			l.ready.Store(true)
		}
	}
	t := time.NewTicker(l.cfg.DataEpochEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			seen = l.checkEpoch(seen)
		}
	}
}

// readEpoch is one try at the data epoch: "" when it failed.
func (l *Lobby) readEpoch() string {
	ctx, cancel := context.WithTimeout(context.Background(), epochTryTimeout)
	defer cancel()
	epoch, err := l.cfg.Coord.DataEpoch(ctx)
	if err != nil {
		l.cfg.Logger.Warn("reading the store's data epoch failed; trying again", "err", err)
		return ""
	}
	return epoch
}

// checkEpoch reads the Coord's data epoch; if it is not the one seen
// before, the shared state lost its data: every match this node serves is
// voided, and Config.OnDataLost told. It returns the epoch to compare with
// next time.
func (l *Lobby) checkEpoch(seen string) string {
	ctx, cancel := context.WithTimeout(context.Background(), max(l.cfg.DataEpochEvery, 5*time.Second))
	defer cancel()
	now, err := l.cfg.Coord.DataEpoch(ctx)
	if err != nil || now == seen {
		return seen // unavailable now: the next tick tries again
	}
	l.cfg.Logger.Error("the shared state lost its data: voiding this node's matches", "epoch_was", seen, "epoch", now)
	if l.cfg.OnDataLost != nil {
		l.cfg.OnDataLost()
	}
	l.mu.Lock()
	ms := l.madeMatches()
	l.mu.Unlock()
	failed := false
	for _, m := range ms {
		if err := m.Void(ctx, VoidReason); err != nil {
			l.cfg.Logger.Warn("voiding a match failed; trying again", "match", m.ID, "err", err)
			failed = true
		}
	}
	if failed {
		return seen
	}
	return now
}
