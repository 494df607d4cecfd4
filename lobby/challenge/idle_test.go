package challenge_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"klondike/engine"
	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/match"
)

// wiring is what a test sets of a node besides the challenge.Config: nil
// fields take mem's (see newNodeWith).
type wiring struct {
	store  match.Store
	coord  lobby.Coord
	logger *slog.Logger
}

// newNodeWith is newNode with the node's store, coord and logger of w,
// and the lobby's OnDataLost wired to the service, as cmd/klondiked does.
func newNodeWith(t *testing.T, mem memstore.Backends, sk match.Sink, cfg challenge.Config, w wiring) *node {
	n := &node{}
	if w.store == nil {
		w.store = mem.Store
	}
	if w.coord == nil {
		w.coord = mem.Coord
	}
	if w.logger == nil {
		w.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	n.l = lobby.New(lobby.Config{
		Store: w.store, Coord: w.coord, Players: mem.Players, Allowances: mem.Allowances, Sink: sk, Logger: w.logger,
		AttemptRound:   func(ctx context.Context, id string) (*match.Round, error) { return n.Service.Round(ctx, id) },
		OnRoundResults: func(r *match.Round, results []match.Entry) { n.CountRound(r, results) },
		OnDataLost:     func() { n.DataLost() },
	})
	if cfg.Challenges == nil {
		cfg.Challenges = mem.Challenges
	}
	if cfg.Records == nil {
		cfg.Records = mem.Challenges
	}
	if cfg.Allowances == nil {
		cfg.Allowances = mem.Allowances
	}
	cfg.Store, cfg.Sink, cfg.Logger = w.store, sk, w.logger
	n.Service = challenge.New(n.l, cfg)
	t.Cleanup(func() {
		n.Close()
		n.l.Close()
	})
	return n
}

// online is the players connected to a node, as the api's hub tells
// (challenge.Config.Connected).
type online struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (o *online) set(id string, up bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ids == nil {
		o.ids = map[string]bool{}
	}
	o.ids[id] = up
}

func (o *online) is(id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ids[id]
}

// callCountingStore counts the calls to a match.Store.
type callCountingStore struct {
	match.Store
	n atomic.Int64
}

func (s *callCountingStore) Append(ctx context.Context, roundID string, epoch uint64, e match.LogEntry, st match.Standing) error {
	s.n.Add(1)
	return s.Store.Append(ctx, roundID, epoch, e, st)
}
func (s *callCountingStore) SetStanding(ctx context.Context, roundID string, st match.Standing) error {
	s.n.Add(1)
	return s.Store.SetStanding(ctx, roundID, st)
}
func (s *callCountingStore) Log(ctx context.Context, roundID, playerID string) ([]match.LogEntry, error) {
	s.n.Add(1)
	return s.Store.Log(ctx, roundID, playerID)
}
func (s *callCountingStore) Standings(ctx context.Context, roundID string) ([]match.Standing, error) {
	s.n.Add(1)
	return s.Store.Standings(ctx, roundID)
}
func (s *callCountingStore) Ping(ctx context.Context) error {
	s.n.Add(1)
	return s.Store.Ping(ctx)
}
func (s *callCountingStore) ClaimSeat(ctx context.Context, roundID, playerID string) (uint64, error) {
	s.n.Add(1)
	return s.Store.ClaimSeat(ctx, roundID, playerID)
}
func (s *callCountingStore) CloseRound(ctx context.Context, roundID string) error {
	s.n.Add(1)
	return s.Store.CloseRound(ctx, roundID)
}
func (s *callCountingStore) Keep(ctx context.Context, roundID string, until time.Time) error {
	s.n.Add(1)
	return s.Store.Keep(ctx, roundID, until)
}

// countingChallenges counts the calls to a challenge.Store.
type countingChallenges struct {
	challenge.Store
	n atomic.Int64
}

func (c *countingChallenges) Create(ctx context.Context, rec challenge.Record, ttl time.Duration) (challenge.Record, bool, error) {
	c.n.Add(1)
	return c.Store.Create(ctx, rec, ttl)
}
func (c *countingChallenges) Load(ctx context.Context, id string) (challenge.Record, error) {
	c.n.Add(1)
	return c.Store.Load(ctx, id)
}
func (c *countingChallenges) CloseEarly(ctx context.Context, id string, at time.Time) (challenge.Record, error) {
	c.n.Add(1)
	return c.Store.CloseEarly(ctx, id, at)
}
func (c *countingChallenges) StartAttempt(ctx context.Context, id string, a challenge.Attempt) (challenge.Attempt, bool, error) {
	c.n.Add(1)
	return c.Store.StartAttempt(ctx, id, a)
}
func (c *countingChallenges) Attempt(ctx context.Context, id, playerID string) (challenge.Attempt, error) {
	c.n.Add(1)
	return c.Store.Attempt(ctx, id, playerID)
}
func (c *countingChallenges) Attempts(ctx context.Context, id, cursor string, limit int) ([]challenge.Attempt, string, error) {
	c.n.Add(1)
	return c.Store.Attempts(ctx, id, cursor, limit)
}
func (c *countingChallenges) Finish(ctx context.Context, id string, e match.BoardEntry) (bool, error) {
	c.n.Add(1)
	return c.Store.Finish(ctx, id, e)
}
func (c *countingChallenges) Board(ctx context.Context, id string, top int, playerID string, around int) (challenge.BoardPage, error) {
	c.n.Add(1)
	return c.Store.Board(ctx, id, top, playerID, around)
}
func (c *countingChallenges) BoardRange(ctx context.Context, id string, from, limit int) ([]match.BoardEntry, error) {
	c.n.Add(1)
	return c.Store.BoardRange(ctx, id, from, limit)
}
func (c *countingChallenges) PlayerEntry(ctx context.Context, id, playerID string) (match.BoardEntry, error) {
	c.n.Add(1)
	return c.Store.PlayerEntry(ctx, id, playerID)
}
func (c *countingChallenges) Made(ctx context.Context, creatorID string, limit int) ([]challenge.Record, error) {
	c.n.Add(1)
	return c.Store.Made(ctx, creatorID, limit)
}

// TestIdleAttemptCostsNothing: while its player is connected an attempt
// gets ghosts; once they leave it gets none and the node reads nothing of
// the store for it until its time runs out; then it ends, its result on
// the board.
func TestIdleAttemptCostsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		sk := &rawSink{}
		on := &online{}
		st := &callCountingStore{Store: mem.Store}
		chs := &countingChallenges{Store: mem.Challenges}
		n := newNodeWith(t, mem, sk, challenge.Config{Challenges: chs, Connected: on.is}, wiring{store: st})
		alice, bob := hello(t, n, "alice"), hello(t, n, "bob")
		on.set(alice.PlayerID, true)
		on.set(bob.PlayerID, true)
		limit := 600
		rec, err := n.Create(ctx, alice.PlayerID, match.PartialSettings{TimeLimitS: &limit}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		// Alice's finished attempt is the leader Bob's ghosts show.
		ea, err := n.StartAttempt(ctx, alice.PlayerID, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		ra, _ := n.Round(ctx, ea.RoundID)
		play(t, ra, alice.PlayerID, 1, 3)
		if err := ra.Resign(ctx, alice.PlayerID, time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(challenge.DefaultGhostEvery)

		eb, err := n.StartAttempt(ctx, bob.PlayerID, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		rb, _ := n.Round(ctx, eb.RoundID)
		play(t, rb, bob.PlayerID, 1, 3)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got := len(sk.of(bob.PlayerID, "GhostUpdate")); got < 5 {
			t.Fatalf("bob, connected, got %d ghost updates in 10 s, want about 10", got)
		}

		on.set(bob.PlayerID, false)
		time.Sleep(challenge.DefaultGhostEvery) // the tick that finds him gone
		synctest.Wait()
		ghosts, reads, chReads := len(sk.of(bob.PlayerID, "GhostUpdate")), st.n.Load(), chs.n.Load()
		time.Sleep(time.Until(eb.EndsAt) - time.Second)
		synctest.Wait()
		if got := len(sk.of(bob.PlayerID, "GhostUpdate")); got != ghosts {
			t.Fatalf("bob, gone, got %d ghost updates more until his end, want none", got-ghosts)
		}
		if r, c := st.n.Load()-reads, chs.n.Load()-chReads; r != 0 || c != 0 {
			t.Fatalf("bob's idle attempt cost %d calls to the move store and %d to the challenges' until its end, want none", r, c)
		}

		time.Sleep(2 * time.Second)
		synctest.Wait()
		e, err := mem.Challenges.PlayerEntry(ctx, rec.ID, bob.PlayerID)
		if err != nil || e.Status != engine.TimedOut || e.ElapsedMs != int64(limit)*1000 {
			t.Fatalf("bob's entry once his time ran out: %+v, %v; want timed out at %d s", e, err, limit)
		}
	})
}

// nopSink drops every event.
type nopSink struct{}

func (nopSink) Send([]string, match.Event) {}

// TestIdleAttemptMemory: what an attempt whose player left costs in
// memory, the memory store's share of it included (its log, standing and
// record), stays within a bound that a seat (a game replayed, and its
// log) would pass.
func TestIdleAttemptMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const players = 200
		const maxIdleBytes = 6 << 10
		ctx := context.Background()
		mem := memstore.NewBackends()
		on := &online{}
		n := newNodeWith(t, mem, nopSink{}, challenge.Config{Connected: on.is}, wiring{})
		maker := hello(t, n, "maker")
		rec := challenges(t, n, maker.PlayerID, 1)[0]
		var ps []lobby.Session
		for i := range players {
			ps = append(ps, hello(t, n, fmt.Sprintf("p%d", i)))
		}
		before := heap()
		for _, p := range ps {
			ev, err := n.StartAttempt(ctx, p.PlayerID, rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			r, _ := n.Round(ctx, ev.RoundID)
			play(t, r, p.PlayerID, 1, 8)
		}
		time.Sleep(challenge.DefaultGhostEvery) // the tick that finds them gone
		synctest.Wait()
		if per := (int64(heap()) - int64(before)) / players; per > maxIdleBytes {
			t.Fatalf("an idle attempt costs %d bytes, want at most %d", per, maxIdleBytes)
		}
	})
}

// heap is the bytes of the live heap.
func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
