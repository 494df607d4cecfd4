package challenge_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/match"
)

// epochCoord is a Coord whose data epoch a test changes, as a store that
// lost its data would.
type epochCoord struct {
	lobby.Coord
	mu    sync.Mutex
	epoch string
}

func (c *epochCoord) DataEpoch(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != "" {
		return c.epoch, nil
	}
	return c.Coord.DataEpoch(ctx)
}

func (c *epochCoord) setEpoch(e string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch = e
}

// logCount counts the log lines of a node by message.
type logCount struct {
	mu   sync.Mutex
	msgs map[string]int
}

func (l *logCount) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCount) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logCount) WithGroup(string) slog.Handler            { return l }
func (l *logCount) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.msgs == nil {
		l.msgs = map[string]int{}
	}
	l.msgs[r.Message]++
	return nil
}

// repeated returns the messages logged more than once.
func (l *logCount) repeated() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for m, n := range l.msgs {
		if n > 1 {
			out = append(out, m)
		}
	}
	return out
}

func (l *logCount) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.msgs[msg]
}

// TestDataLostVoidsAttempts: when the store loses its data during an
// attempt, its player is told in words (attempt_over with void), their
// next move, resignation and resume are refused with the reason, nothing
// of the attempt goes on the board or into a record, and the node logs it
// once, trying nothing again.
func TestDataLostVoidsAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		sk := &rawSink{}
		co := &epochCoord{Coord: mem.Coord}
		logs := &logCount{}
		n := newNodeWith(t, mem, sk, challenge.Config{}, wiring{coord: co, logger: slog.New(logs)})
		alice, bob := hello(t, n, "alice"), hello(t, n, "bob")
		rec := challenges(t, n, alice.PlayerID, 1)[0]
		ev, err := n.StartAttempt(ctx, bob.PlayerID, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		r, err := n.Round(ctx, ev.RoundID)
		if err != nil {
			t.Fatal(err)
		}
		play(t, r, bob.PlayerID, 1, 3)

		co.setEpoch("lost-and-restarted")
		time.Sleep(lobby.DefaultDataEpochEvery + time.Second)
		synctest.Wait()
		overs := sk.of(bob.PlayerID, "AttemptOver")
		if len(overs) != 1 || !strings.Contains(string(overs[0]), `"void":"`+challenge.AttemptVoidReason+`"`) {
			t.Fatalf("bob was sent %d attempt_over (%s); want one, void: %q", len(overs), overs, challenge.AttemptVoidReason)
		}

		// The next move is refused with the reason, as the api finds its
		// round; so are a resignation and a resume.
		if _, err := n.Round(ctx, ev.RoundID); !errors.Is(err, challenge.ErrAttemptVoid) {
			t.Fatalf("the round of a voided attempt: %v, want ErrAttemptVoid", err)
		}
		if _, err := n.StartAttempt(ctx, bob.PlayerID, rec.ID); !errors.Is(err, challenge.ErrAttemptVoid) {
			t.Fatalf("resuming a voided attempt: %v, want ErrAttemptVoid", err)
		}

		time.Sleep(time.Until(ev.EndsAt) + 5*time.Minute)
		synctest.Wait()
		if _, err := n.Round(ctx, ev.RoundID); !errors.Is(err, challenge.ErrAttemptVoid) {
			t.Fatalf("the round of a voided attempt past its end: %v, want ErrAttemptVoid", err)
		}
		if e, err := mem.Challenges.PlayerEntry(ctx, rec.ID, bob.PlayerID); !errors.Is(err, match.ErrNotFound) {
			t.Fatalf("bob's board entry for a voided attempt: %+v, %v; want none", e, err)
		}
		if rs, err := n.Records(ctx, bob.PlayerID); err != nil || len(rs) != 0 {
			t.Fatalf("bob's records after a voided attempt: %+v, %v; want none", rs, err)
		}
		if got := len(sk.of(bob.PlayerID, "AttemptOver")); got != 1 {
			t.Fatalf("bob was sent %d attempt_over in all, want the void's alone", got)
		}
		if rep := logs.repeated(); len(rep) > 0 {
			t.Fatalf("log lines repeated: %q", rep)
		}
	})
}

// goneChallenges is a challenge store that, once gone is set, has lost
// every challenge.
type goneChallenges struct {
	challenge.Store
	mu   sync.Mutex
	gone bool
}

func (g *goneChallenges) lost() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gone
}

func (g *goneChallenges) Load(ctx context.Context, id string) (challenge.Record, error) {
	if g.lost() {
		return challenge.Record{}, match.ErrNotFound
	}
	return g.Store.Load(ctx, id)
}

func (g *goneChallenges) Attempt(ctx context.Context, id, playerID string) (challenge.Attempt, error) {
	if g.lost() {
		return challenge.Attempt{}, match.ErrNotFound
	}
	return g.Store.Attempt(ctx, id, playerID)
}

func (g *goneChallenges) Finish(ctx context.Context, id string, e match.BoardEntry) (bool, error) {
	if g.lost() {
		return false, match.ErrNotFound
	}
	return g.Store.Finish(ctx, id, e)
}

func (g *goneChallenges) PlayerEntry(ctx context.Context, id, playerID string) (match.BoardEntry, error) {
	if g.lost() {
		return match.BoardEntry{}, match.ErrNotFound
	}
	return g.Store.PlayerEntry(ctx, id, playerID)
}

// TestEndOfGoneAttemptNotRetried: an attempt whose challenge left the
// store cannot end; the node says so once and forgets it, rather than
// trying every second.
func TestEndOfGoneAttemptNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		chs := &goneChallenges{Store: mem.Challenges}
		logs := &logCount{}
		n := newNodeWith(t, mem, &rawSink{}, challenge.Config{Challenges: chs}, wiring{logger: slog.New(logs)})
		alice, bob := hello(t, n, "alice"), hello(t, n, "bob")
		rec := challenges(t, n, alice.PlayerID, 1)[0]
		ev, err := n.StartAttempt(ctx, bob.PlayerID, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		chs.mu.Lock()
		chs.gone = true
		chs.mu.Unlock()
		time.Sleep(time.Until(ev.EndsAt) + 10*time.Minute)
		synctest.Wait()
		if rep := logs.repeated(); len(rep) > 0 {
			t.Fatalf("log lines repeated: %q", rep)
		}
		const gone = "an attempt cannot end: its challenge or its data is gone from the store; the node forgets it"
		if got := logs.count(gone); got != 1 {
			t.Fatalf("%q logged %d times, want once", gone, got)
		}
	})
}
