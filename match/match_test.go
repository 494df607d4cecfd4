package match_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"klondike/engine"
	"klondike/lobby/memstore"
	"klondike/match"
)

// sink records every event sent to each player.
type sink struct {
	mu   sync.Mutex
	msgs map[string][]match.Event
}

func newSink() *sink { return &sink{msgs: map[string][]match.Event{}} }

func (s *sink) Send(to []string, ev match.Event) {
	s.mu.Lock()
	for _, id := range to {
		s.msgs[id] = append(s.msgs[id], ev)
	}
	s.mu.Unlock()
}

// received returns the events of type T sent to a player.
func received[T match.Event](t *testing.T, s *sink, id string) []T {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []T
	for _, ev := range s.msgs[id] {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

// matchConfig is the Config of a test's match.
func matchConfig(store match.Store, coord match.Coord, sk match.Sink) match.Config {
	return match.Config{Store: store, Coord: coord, Sink: sk, Logger: quiet}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newMatch(t *testing.T, s match.Settings, sk *sink) *match.Match {
	t.Helper()
	n := 0
	cfg := matchConfig(memstore.New(), memstore.NewCoord(), sk)
	cfg.NewID = func() string { n++; return "r" + string(rune('0'+n)) }
	m, err := match.New("m1", "ABCDEF", s, false, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

var alice, bob = match.Player{ID: "a", Name: "alice"}, match.Player{ID: "b", Name: "bob"}

// playSome makes up to n legal moves for the player, chosen from the view.
func playSome(t *testing.T, r *match.Round, id string, n int) {
	t.Helper()
	ctx := context.Background()
	v, last, err := r.View(ctx, id, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		moves := v.LegalMoves(r.Rules, nil)
		if len(moves) == 0 {
			return
		}
		_, after, err := moveView(r, id, last+1, moves[len(moves)-1].String())
		if err != nil {
			t.Fatalf("move %d (%v): %v", last+1, moves[len(moves)-1], err)
		}
		last++
		if err := json.Unmarshal(after, &v); err != nil {
			t.Fatal(err)
		}
	}
}

// moveView plays a move by Round.Move and returns its result and a copy
// of the view its ack was given.
func moveView(r *match.Round, id string, seq int, text string) (match.MoveResult, []byte, error) {
	var view []byte
	res, err := r.Move(context.Background(), id, seq, text, time.Now(), func(_ match.MoveResult, v *engine.View) {
		view, _ = json.Marshal(v)
	})
	return res, view, err
}

// TestConfigNeedsSink: a match without a sink has no way to tell its
// players anything, and is refused.
func TestConfigNeedsSink(t *testing.T) {
	cfg := matchConfig(memstore.New(), memstore.NewCoord(), nil)
	if m, err := match.New("m1", "ABCDEF", match.DefaultSettings(), false, cfg); err == nil {
		m.Close()
		t.Fatal("match.New without a Sink succeeded")
	}
}

// jsonOf is v's JSON, for comparing views and printing them.
func jsonOf(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func TestMatchLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		sk := newSink()
		s := match.DefaultSettings()
		s.Rounds = 2
		s.TimeLimitS = 60
		// A random deal may leave every game stuck from the start, or after
		// the moves below: each round is dealt deal 1, still under a fresh
		// commitment.
		s.Deals = match.DealsWinnable
		cfg := matchConfig(memstore.New(), memstore.NewCoord(), sk)
		cfg.Winnable = sameDeal(1)
		m, err := match.New("m1", "ABCDEF", s, false, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if err := m.Join(ctx, alice); err != nil {
			t.Fatal(err)
		}
		if err := m.Join(ctx, bob); err != nil {
			t.Fatal(err)
		}
		if err := m.Start(ctx, "b"); err != match.ErrNotHost {
			t.Fatalf("start by a non-host = %v, want ErrNotHost", err)
		}
		if err := m.Start(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		starting := received[match.RoundStarting](t, sk, "b")
		if len(starting) != 1 || starting[0].Deal.Commitment == "" {
			t.Fatalf("round_starting = %+v", starting)
		}
		r := m.Round()
		if _, err := r.Move(ctx, "a", 1, "D", time.Now(), nil); err != match.ErrRoundNotRunning {
			t.Fatalf("a move during the countdown = %v, want ErrRoundNotRunning", err)
		}
		time.Sleep(time.Duration(s.CountdownS) * time.Second)
		synctest.Wait()
		sa := received[match.RoundStarted](t, sk, "a")
		sb := received[match.RoundStarted](t, sk, "b")
		if len(sa) != 1 || len(sb) != 1 {
			t.Fatalf("round_started: %d and %d, want one each", len(sa), len(sb))
		}
		if va, vb := jsonOf(sa[0].View), jsonOf(sb[0].View); string(va) != string(vb) {
			t.Errorf("the players' first views differ:\n%s\n%s", va, vb)
		}

		// Moves: many at once make one leaderboard (within 250 ms when a
		// card went to a foundation, else within 1 s of the last board).
		before := len(received[match.Leaderboard](t, sk, "b"))
		playSome(t, r, "a", 20)
		time.Sleep(match.DefaultLeaderboardMinor)
		synctest.Wait()
		after := len(received[match.Leaderboard](t, sk, "b"))
		if after-before != 1 {
			t.Errorf("20 moves at once sent %d leaderboards, want 1", after-before)
		}

		// Resign both: the round ends at once and reveals the deal. (Alice's
		// moves may have left her stuck already.)
		if err := r.Resign(ctx, "a", time.Now()); err != nil && !errors.Is(err, engine.ErrGameOver) {
			t.Fatal(err)
		}
		if err := r.Resign(ctx, "b", time.Now()); err != nil && !errors.Is(err, engine.ErrGameOver) {
			t.Fatal(err)
		}
		synctest.Wait()
		over := received[match.RoundOver](t, sk, "a")
		if len(over) != 1 {
			t.Fatalf("round_over: %d, want 1", len(over))
		}
		deal := over[0].Deal
		if got := match.Commitment(deal.Salt, deal.Seed); got != starting[0].Deal.Commitment {
			t.Errorf("revealed seed and salt commit to %s, want %s", got, starting[0].Deal.Commitment)
		}
		if _, err := r.Replay(ctx); err != nil {
			t.Errorf("replay after the round: %v", err)
		}

		// Round 2 after the intermission; the time limit ends it.
		time.Sleep(match.DefaultIntermission + time.Duration(s.CountdownS)*time.Second)
		synctest.Wait()
		r2 := m.Round()
		if r2 == r || !r2.Running(time.Now()) {
			t.Fatalf("round 2 is not running")
		}
		if _, err := r2.Replay(ctx); err == nil {
			t.Error("replay of a running round was given out")
		}
		playSome(t, r2, "b", 5)
		time.Sleep(time.Duration(s.TimeLimitS) * time.Second)
		synctest.Wait()
		over = received[match.RoundOver](t, sk, "a")
		if len(over) != 2 {
			t.Fatalf("round_over after the time limit: %d, want 2", len(over))
		}
		for _, e := range over[1].Results {
			if e.Status != engine.TimedOut {
				t.Errorf("status after the time limit = %v, want timed_out", e.Status)
			}
		}
		mo := received[match.MatchOver](t, sk, "b")
		if len(mo) != 1 {
			t.Fatalf("match_over: %d, want 1", len(mo))
		}
		totals := mo[0].Totals
		if len(totals) != 2 || len(totals[0].Placings) != 2 {
			t.Errorf("totals = %+v", totals)
		}
		// Each round has a first place, but nobody won a game: a resigned
		// or timed-out first is no game won.
		firsts, won := 0, 0
		for _, x := range totals {
			firsts += x.Wins
			won += x.GamesWon
		}
		if firsts != 2 || won != 0 {
			t.Errorf("totals count %v first places and %v games won, want 2 and 0: %v", firsts, won, totals)
		}
		if m.State() != match.StateOver {
			t.Errorf("state = %v, want over", m.State())
		}
	})
}

func TestMoveSeq(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		sk := newSink()
		s := match.DefaultSettings()
		s.Seed = "1"
		s.CountdownS = 0
		m := newMatch(t, s, sk)
		_ = m.Join(ctx, alice)
		if err := m.Start(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		r := m.Round()
		if !r.Running(time.Now()) {
			t.Fatal("round not running")
		}
		if st := received[match.RoundStarting](t, sk, "a"); len(st) != 1 || st[0].Deal.Seed != 1 || !st[0].Deal.Known {
			t.Errorf("known deal round_starting = %+v", st)
		}
		res, view, err := moveView(r, "a", 1, "T6-F") // deal #1: AH on pile 6
		if err != nil || res.Duplicate || len(view) == 0 {
			t.Fatalf("T6-F = %+v, %v (view %s)", res, err, view)
		}
		again, againView, err := moveView(r, "a", 1, "T6-F")
		if err != nil || !again.Duplicate || string(againView) != string(view) {
			t.Fatalf("retry of seq 1 = %+v, %v; want the same answer", again, err)
		}
		if _, err := r.Move(ctx, "a", 1, "D", time.Now(), nil); err == nil {
			t.Fatal("a different move at a used seq was taken as a retry")
		} else if ooo, ok := err.(*match.OutOfOrderError); !ok || ooo.Expected != 2 {
			t.Fatalf("a different move at seq 1 = %v, want out of order expecting 2", err)
		}
		if _, err := r.Move(ctx, "a", 3, "D", time.Now(), nil); err == nil {
			t.Fatal("seq 3 after 1 was accepted")
		} else if ooo, ok := err.(*match.OutOfOrderError); !ok || ooo.Expected != 2 {
			t.Fatalf("seq 3 = %v, want out of order expecting 2", err)
		}
		if _, err := r.Move(ctx, "a", 2, "T1-T2", time.Now(), nil); err == nil {
			t.Fatal("an illegal move was accepted")
		}
		after, last, _ := r.View(ctx, "a", time.Now())
		if last != 1 || after.Moves != 1 {
			t.Errorf("after a refusal: last seq %d, want 1", last)
		}
		if _, err := r.Move(ctx, "a", 2, "T7-F", time.Now(), nil); err != nil {
			t.Fatalf("seq 2 after a refusal: %v", err)
		}
	})
}

// soloRound starts alice alone on deal #1 over the store, with no
// countdown, and returns the running round (round id "r1"). It must run
// inside a synctest bubble.
func soloRound(t *testing.T, store match.Store) *match.Round {
	t.Helper()
	ctx := context.Background()
	s := match.DefaultSettings()
	s.Seed, s.CountdownS = "1", 0
	cfg := matchConfig(store, memstore.NewCoord(), newSink())
	cfg.NewID = func() string { return "r1" }
	m, err := match.New("m1", "ABCDEF", s, false, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	if err := m.Join(ctx, alice); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	return m.Round()
}

// flakyStore fails every write while down is set.
type flakyStore struct {
	match.Store
	mu   sync.Mutex
	down bool
}

func (f *flakyStore) set(down bool) { f.mu.Lock(); f.down = down; f.mu.Unlock() }

func (f *flakyStore) Append(ctx context.Context, id string, ep uint64, e match.LogEntry, st match.Standing) error {
	f.mu.Lock()
	down := f.down
	f.mu.Unlock()
	if down {
		return match.ErrUnavailable
	}
	return f.Store.Append(ctx, id, ep, e, st)
}

// TestStoreFailureRollsBack checks that a move the store could not take is
// not applied: the player gets unavailable, and the same seq works later.
func TestStoreFailureRollsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		fs := &flakyStore{Store: memstore.New()}
		r := soloRound(t, fs)
		before, _, _ := r.View(ctx, "a", time.Now())
		fs.set(true)
		if _, err := r.Move(ctx, "a", 1, "T6-F", time.Now(), nil); !errors.Is(err, match.ErrUnavailable) {
			t.Fatalf("move with the store down = %v, want ErrUnavailable", err)
		}
		after, last, _ := r.View(ctx, "a", time.Now())
		if string(jsonOf(after)) != string(jsonOf(before)) || last != 0 {
			t.Fatalf("a move the store refused was applied:\n%s\n%s", jsonOf(before), jsonOf(after))
		}
		fs.set(false)
		if _, err := r.Move(ctx, "a", 1, "T6-F", time.Now(), nil); err != nil {
			t.Fatalf("the same move once the store is back: %v", err)
		}
		if log, _ := fs.Log(ctx, "r1", "a"); len(log) != 1 {
			t.Fatalf("log = %v, want one entry", log)
		}
	})
}

// TestLeaveDuringCountdown checks that a player who leaves before the round
// opens forfeits, so the round ends when the others finish; also when the
// leave comes just before the countdown ends or at the same instant.
// The deal is fixed: a random one may leave every game stuck from the
// start, and the round would then end as it opens.
func TestLeaveDuringCountdown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after time.Duration // from the start of the countdown to the leave
	}{
		{"early", 0},
		{"just before it ends", time.Duration(match.DefaultCountdown)*time.Second - time.Nanosecond},
		{"as it ends", time.Duration(match.DefaultCountdown) * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				sk := newSink()
				s := match.DefaultSettings()
				s.Seed = "1"
				m := newMatch(t, s, sk)
				_ = m.Join(ctx, alice)
				_ = m.Join(ctx, bob)
				_ = m.Start(ctx, "a")
				synctest.Wait()
				time.Sleep(tc.after)
				if err := m.Leave(ctx, "b"); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Duration(s.CountdownS)*time.Second - tc.after)
				synctest.Wait()
				if err := m.Round().Resign(ctx, "a", time.Now()); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				over := received[match.RoundOver](t, sk, "a")
				if len(over) != 1 {
					t.Fatalf("round_over: %d, want 1 once the last player finished", len(over))
				}
				for _, e := range over[0].Results {
					if e.PlayerID == "b" && e.Status != engine.Resigned {
						t.Errorf("b left during the countdown and finished %v, want resigned", e.Status)
					}
				}
			})
		})
	}
}

// TestResigningDoesNotProtectAScore checks that the time penalty of a
// resigned game runs on to the round's end, like that of a game played on.
func TestResigningDoesNotProtectAScore(t *testing.T) {
	r := match.DefaultSettings()
	rules, _ := r.Rules()
	quitter := match.Standing{PlayerID: "q", Points: 50, Status: engine.Resigned, FinishedMs: 1000}
	player := match.Standing{PlayerID: "p", Points: 50, Status: engine.TimedOut, FinishedMs: 600000}
	if a, b := match.RoundScore(rules, quitter, 600000), match.RoundScore(rules, player, 600000); a != b {
		t.Errorf("resigned at 1 s scores %d, played on to 600 s scores %d: want equal", a, b)
	}
}

// lossyStore takes the first append but answers it with an error, as when
// Redis ran the script and the reply was lost past go-redis's retries.
type lossyStore struct {
	match.Store
	mu   sync.Mutex
	lose int
}

func (l *lossyStore) Append(ctx context.Context, id string, ep uint64, e match.LogEntry, st match.Standing) error {
	err := l.Store.Append(ctx, id, ep, e, st)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil && l.lose > 0 {
		l.lose--
		return match.ErrUnavailable
	}
	return err
}

// TestLostReplyThenRetry checks that a move whose store reply was lost is
// answered unavailable, and that the client's retry of the same seq (at a
// later time) is taken as the move that landed, not refused for ever.
func TestLostReplyThenRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		ls := &lossyStore{Store: memstore.New(), lose: 1}
		r := soloRound(t, ls)
		if _, err := r.Move(ctx, "a", 1, "T6-F", time.Now(), nil); !errors.Is(err, match.ErrUnavailable) {
			t.Fatalf("first try = %v, want unavailable", err)
		}
		time.Sleep(time.Second)
		_, view, err := moveView(r, "a", 1, "T6-F")
		if err != nil {
			t.Fatalf("retry of the landed move = %v", err)
		}
		if !strings.Contains(string(view), `"H":1`) {
			t.Errorf("view after the retry: %s", view)
		}
		if _, err := r.Move(ctx, "a", 2, "T7-F", time.Now(), nil); err != nil {
			t.Fatalf("next move: %v", err)
		}
		if log, _ := ls.Log(ctx, "r1", "a"); len(log) != 2 || log[0].AtMs != 0 {
			t.Fatalf("log = %+v, want the two moves, the first at its first time", log)
		}
	})
}

// amnesiaStore can lose the tail of its logs, as a Redis killed with
// appendfsync everysec may.
type amnesiaStore struct {
	match.Store
}

// forget keeps only the first keep entries of the player's log.
func (a *amnesiaStore) forget(t *testing.T, round, player string, keep int) {
	ctx := context.Background()
	log, _ := a.Log(ctx, round, player)
	st, _ := a.Standings(ctx, round)
	fresh := memstore.New()
	for _, s := range st {
		_ = fresh.SetStanding(ctx, round, s)
	}
	for _, e := range log[:keep] {
		if err := fresh.Append(ctx, round, 0, e, st[0]); err != nil {
			t.Fatal(err)
		}
	}
	a.Store = fresh
}

// TestRepairAfterStoreLoss checks that a store that lost acknowledged
// moves gets them back from the node's seat on the player's next move.
func TestRepairAfterStoreLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		as := &amnesiaStore{Store: memstore.New()}
		r := soloRound(t, as)
		for i, mv := range []string{"T6-F", "T7-F", "D"} {
			if _, err := r.Move(ctx, "a", i+1, mv, time.Now(), nil); err != nil {
				t.Fatal(err)
			}
		}
		as.forget(t, "r1", "a", 1)
		if _, err := r.Move(ctx, "a", 4, "D", time.Now(), nil); err != nil {
			t.Fatalf("move after the store lost two: %v", err)
		}
		log, _ := as.Log(ctx, "r1", "a")
		if len(log) != 4 || log[1].Move != "T7-F" || log[3].Move != "D" {
			t.Fatalf("store log after repair = %+v", log)
		}
	})
}

// onePool hands out one deal, then has none ready.
type onePool struct {
	mu    sync.Mutex
	seed  uint64
	taken bool
	asked []engine.Rules
}

func (p *onePool) Take(r engine.Rules) (uint64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, r)
	if p.taken {
		return 0, false
	}
	p.taken = true
	return p.seed, true
}

// sameDeal hands out one deal for every round, as a pool of winnable deals.
type sameDeal uint64

func (d sameDeal) Take(engine.Rules) (uint64, bool) { return uint64(d), true }

// TestWinnableDeals checks the setting deals "winnable": a round is dealt
// from the pool's proved deal under a fresh commitment, and when the pool
// has none ready the round starts anyway on any deal and says so.
func TestWinnableDeals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		sk := newSink()
		s := match.DefaultSettings()
		s.Rounds, s.MaxPlayers, s.Deals, s.Draw = 2, 1, match.DealsWinnable, 1
		pool := &onePool{seed: 424242}
		cfg := matchConfig(memstore.New(), memstore.NewCoord(), sk)
		cfg.Winnable = pool
		m, err := match.New("m1", "ABCDEF", s, false, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		_ = m.Join(ctx, alice)
		if err := m.Start(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		for round := 1; round <= 2; round++ {
			starting := received[match.RoundStarting](t, sk, "a")
			if len(starting) != round {
				t.Fatalf("round %d: %d round_starting", round, len(starting))
			}
			want := round == 1 // the pool had one deal
			if st := starting[round-1]; st.Deal.Winnable == nil || *st.Deal.Winnable != want || st.Deal.Seed != 0 {
				t.Fatalf("round %d: round_starting %+v, want winnable %v and no seed", round, starting[round-1], want)
			}
			time.Sleep(time.Duration(s.CountdownS) * time.Second)
			synctest.Wait()
			if err := m.Round().Resign(ctx, "a", time.Now()); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			over := received[match.RoundOver](t, sk, "a")
			deal := over[round-1].Deal
			if want && deal.Seed != 424242 {
				t.Fatalf("round 1 dealt %v, want the pool's 424242", deal.Seed)
			}
			if deal.Commitment != match.Commitment(deal.Salt, deal.Seed) {
				t.Fatalf("round %d: the commitment does not match the revealed seed and salt", round)
			}
			time.Sleep(match.DefaultIntermission)
			synctest.Wait()
		}
		if len(pool.asked) != 2 || pool.asked[0].Draw != 1 {
			t.Fatalf("pool asked %v, want twice for draw 1", pool.asked)
		}
	})
	bad := match.DefaultSettings()
	bad.Deals, bad.Seed = match.DealsWinnable, "7"
	if err := bad.Validate(); !errors.Is(err, match.ErrBadSettings) {
		t.Errorf("deals winnable with a seed: %v, want ErrBadSettings", err)
	}
	bad.Deals, bad.Seed = "solvable", ""
	if err := bad.Validate(); !errors.Is(err, match.ErrBadSettings) {
		t.Errorf("deals solvable: %v, want ErrBadSettings", err)
	}
}

// mustSeed reads a deal number as the protocol writes it.
func mustSeed(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBoardAfterAGameEnds checks that the leaderboard goes out on the next
// tick after a player's game ends (the end of a game is noticed first, on
// its own, and must not swallow the change).
func TestBoardAfterAGameEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		sk := newSink()
		s := match.DefaultSettings()
		s.Scoring, s.Passes = "vegas", 1 // no timed refresh of the board
		// A random deal may leave every game stuck from the start.
		s.Seed = "1"
		m := newMatch(t, s, sk)
		_ = m.Join(ctx, alice)
		_ = m.Join(ctx, bob)
		_ = m.Start(ctx, "a")
		time.Sleep(time.Duration(s.CountdownS)*time.Second + time.Second)
		synctest.Wait()
		if err := m.Round().Resign(ctx, "a", time.Now()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		time.Sleep(match.DefaultLeaderboardEvery)
		synctest.Wait()
		boards := received[match.Leaderboard](t, sk, "b")
		if len(boards) == 0 {
			t.Fatal("no leaderboard")
		}
		resigned := false
		for _, e := range boards[len(boards)-1].Entries {
			if e.PlayerID == "a" && e.Status == engine.Resigned {
				resigned = true
			}
		}
		if !resigned {
			t.Fatalf("the board after alice resigned: %+v", boards[len(boards)-1])
		}
	})
}

// localSink is a node's sink: it serves only its own players.
type localSink struct {
	*sink
	players map[string]bool
}

func (s localSink) Connected(id string) bool { return s.players[id] }

func (s localSink) Send(to []string, ev match.Event) {
	for _, id := range to {
		if s.players[id] {
			s.sink.Send([]string{id}, ev)
		}
	}
}

// TestReconcileCatchesUp has two nodes' replicas of one match share a
// Coord with no bus between them, as if every message from node A were
// lost: node B still catches its player up from the record within a few
// seconds (round_started with the view, then the results).
func TestReconcileCatchesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store, coord := memstore.New(), memstore.NewCoord()
		ska := localSink{newSink(), map[string]bool{"a": true}}
		skb := localSink{newSink(), map[string]bool{"b": true}}
		s := match.DefaultSettings()
		s.CountdownS, s.Seed = 0, "1"
		cfg := func(node string, sk match.Sink) match.Config {
			cfg := matchConfig(store, coord, sk)
			cfg.Node = node
			return cfg
		}
		a, err := match.New("m1", "ABCDEF", s, false, cfg("A", ska))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := match.Load(ctx, "m1", cfg("B", skb))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		_ = a.Join(ctx, alice)
		if err := b.Join(ctx, bob); err != nil {
			t.Fatal(err)
		}
		if err := a.Start(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := len(received[match.RoundStarted](t, ska.sink, "a")); n != 1 {
			t.Fatalf("alice on node A: %d round_started", n)
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		started := received[match.RoundStarted](t, skb.sink, "b")
		if len(started) != 1 || started[0].View.Piles() == 0 {
			t.Fatalf("bob on node B after the catch-up: %+v", started)
		}
		if err := b.Round().Resign(ctx, "b", time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := a.Round().Resign(ctx, "a", time.Now()); err != nil {
			t.Fatal(err)
		}
		// Past the periodic check of the record (every 10 s), which
		// finds the round over when no news came.
		time.Sleep(11 * time.Second)
		synctest.Wait()
		if n := len(received[match.RoundOver](t, skb.sink, "b")); n != 1 {
			t.Fatalf("bob on node B: %d round_over, want 1", n)
		}
	})
}

// TestAbandonedCommandDoesNotRun checks that a command whose caller gave
// up before it ran never runs: a player told that their join failed (a
// request that timed out while the match was busy) is not seated anyway.
// Before, the join ran later and seated the player in match after match as
// a quick match moved on to the next one.
func TestAbandonedCommandDoesNotRun(t *testing.T) {
	sk := newSink()
	s := match.DefaultSettings()
	s.MaxPlayers = 8
	m := newMatch(t, s, sk)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	var wg sync.WaitGroup
	for i := range 400 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := match.Player{ID: "p" + strconv.Itoa(i), Name: "p"}
			if err := m.Join(canceled, p); err == nil {
				t.Errorf("join of %s with a canceled context succeeded", p.ID)
			}
		}()
		if i%4 == 0 {
			// Keep the match's goroutine busy with commands that do run.
			_, _ = m.Members(context.Background())
		}
	}
	wg.Wait()
	if _, err := m.Members(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Info().Players); n != 0 {
		t.Fatalf("%d players seated by joins whose callers were told they failed", n)
	}
}

// TestJoinMany seats players up to the free seats in one change of the
// record, counts a member as seated, and refuses when nobody fits.
func TestJoinMany(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := match.DefaultSettings()
		s.MaxPlayers = 3
		m := newMatch(t, s, newSink())
		if err := m.Join(ctx, alice); err != nil {
			t.Fatal(err)
		}
		carol, dave := match.Player{ID: "c", Name: "carol"}, match.Player{ID: "d", Name: "dave"}
		n, err := m.JoinMany(ctx, []match.Player{alice, bob, carol, dave})
		if err != nil || n != 3 {
			t.Fatalf("JoinMany = %d, %v; want 3 (alice already in, bob and carol)", n, err)
		}
		var ids []string
		for _, p := range m.Info().Players {
			ids = append(ids, p.PlayerID)
		}
		if !slices.Equal(ids, []string{"a", "b", "c"}) {
			t.Fatalf("players %v, want a b c", ids)
		}
		if n, err := m.JoinMany(ctx, []match.Player{dave}); err != match.ErrMatchFull || n != 0 {
			t.Fatalf("JoinMany into a full match = %d, %v; want 0, ErrMatchFull", n, err)
		}
		if err := m.Start(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if n, err := m.JoinMany(ctx, []match.Player{dave}); err != match.ErrNotOpen || n != 0 {
			t.Fatalf("JoinMany into a started match = %d, %v; want 0, ErrNotOpen", n, err)
		}
	})
}

// countingCoord counts the envelopes published on the bus.
type countingCoord struct {
	*memstore.Coord
	mu   sync.Mutex
	sent int
}

func (c *countingCoord) Publish(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	c.sent++
	c.mu.Unlock()
	return c.Coord.Publish(ctx, msg)
}

func (c *countingCoord) published() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent
}

// TestPublishOnlyWhenWatchedElsewhere: a match whose players all connect
// through its own node tells the bus nothing (nobody elsewhere needs it);
// once a player joins through another node, every change is published.
// Heard tells a replica that hears of changes from one that may lag. (The
// bus is not wired to the replicas here: the api package does that, and
// its multi-node tests check that the replicas follow.)
func TestPublishOnlyWhenWatchedElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store, coord := memstore.New(), &countingCoord{Coord: memstore.NewCoord()}
		s := match.DefaultSettings()
		s.CountdownS, s.Seed = 0, "1"
		cfg := func(node string) match.Config {
			cfg := matchConfig(store, coord, newSink())
			cfg.Node = node
			return cfg
		}
		a, err := match.New("m1", "ABCDEF", s, false, cfg("A"))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if err := a.Join(ctx, alice); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := coord.published(); n != 0 {
			t.Fatalf("%d envelopes published while only node A serves the match, want 0", n)
		}
		if !a.Heard() {
			t.Fatal("node A's replica, whose player connects through A, says it is not heard")
		}
		b, err := match.Load(ctx, "m1", cfg("B"))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		c, err := match.Load(ctx, "m1", cfg("C"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := b.Join(ctx, bob); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		before := coord.published()
		carol := match.Player{ID: "c", Name: "carol"}
		if err := a.Join(ctx, carol); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if coord.published() == before {
			t.Fatal("node A's change to a match with a player on node B was not published")
		}
		if !b.Heard() {
			t.Fatal("node B's replica, whose player connects through B, says it is not heard")
		}
		if c.Heard() {
			t.Fatal("node C's replica, which no player connects through, says it is heard")
		}
	})
}

// TestLeaderboardPace: a change that can reorder the race (here a game
// ending) reaches the other players within LeaderboardEvery; a minor one
// (a draw from the stock: only the mover's move count changes) waits until
// LeaderboardMinorEvery has passed since the last board, and then goes.
func TestLeaderboardPace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		sk := newSink()
		s := match.DefaultSettings()
		s.Scoring, s.Passes = "vegas", 1 // no timed refresh of the board
		// A random deal may leave every game stuck from the start.
		s.Seed = "1"
		m := newMatch(t, s, sk)
		_ = m.Join(ctx, alice)
		_ = m.Join(ctx, bob)
		_ = m.Start(ctx, "a")
		time.Sleep(time.Duration(s.CountdownS)*time.Second + 2*time.Second)
		synctest.Wait()
		r := m.Round()
		boards := func() int { return len(received[match.Leaderboard](t, sk, "b")) }
		step := func(d time.Duration) {
			time.Sleep(d)
			synctest.Wait()
		}
		if _, err := r.Move(ctx, "a", 1, "D", time.Now(), nil); err != nil {
			t.Fatal(err)
		}
		step(match.DefaultLeaderboardEvery + time.Millisecond)
		n := boards() // the first draw went out: the last board was long ago
		if n == 0 {
			t.Fatal("no leaderboard after a draw long after the last one")
		}
		if _, err := r.Move(ctx, "a", 2, "D", time.Now(), nil); err != nil {
			t.Fatal(err)
		}
		step(match.DefaultLeaderboardMinor - match.DefaultLeaderboardEvery)
		if got := boards(); got != n {
			t.Fatalf("%d leaderboards within half a second of the last, for a draw; want none", got-n)
		}
		if err := r.Resign(ctx, "a", time.Now()); err != nil {
			t.Fatal(err)
		}
		step(match.DefaultLeaderboardEvery)
		if got := boards(); got != n+1 {
			t.Fatalf("%d leaderboards within %v of a resignation, want 1", got-n, match.DefaultLeaderboardEvery)
		}
		last := received[match.Leaderboard](t, sk, "b")[n]
		for _, e := range last.Entries {
			if e.PlayerID == "a" && (e.Moves != 2 || e.Status != engine.Resigned) {
				t.Fatalf("alice in the last board: %+v; want 2 moves, resigned", e)
			}
		}
	})
}

// TestLeaveIdle: a player moving on to another match leaves an open one,
// but not one that has started: their game there is not forfeited.
func TestLeaveIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		m := newMatch(t, match.DefaultSettings(), newSink())
		carol := match.Player{ID: "c", Name: "carol"}
		for _, p := range []match.Player{alice, bob, carol} {
			if err := m.Join(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.LeaveIdle(ctx, "c"); err != nil {
			t.Fatalf("LeaveIdle of an open match: %v", err)
		}
		if err := m.Start(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if err := m.LeaveIdle(ctx, "b"); !errors.Is(err, match.ErrNotOpen) {
			t.Fatalf("LeaveIdle of a started match = %v, want ErrNotOpen", err)
		}
		time.Sleep(time.Duration(m.Info().Settings.CountdownS)*time.Second + time.Second)
		synctest.Wait()
		r := m.Round()
		if r == nil {
			t.Fatal("no round")
		}
		for _, id := range []string{"a", "b"} {
			if _, _, err := r.View(ctx, id, time.Now()); err != nil {
				t.Fatalf("%s's game: %v", id, err)
			}
		}
		if got := len(m.Info().Players); got != 2 {
			t.Fatalf("%d players, want alice and bob", got)
		}
		playSome(t, r, "b", 3) // bob's game goes on: not forfeited
	})
}

// TestLocalLeaderboardMatchesTheStore: the leaderboard made from this
// node's seats is the one made from the store's standings, through moves,
// a resignation and the round's end.
func TestLocalLeaderboardMatchesTheStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := match.DefaultSettings()
		s.CountdownS, s.Seed = 0, "7"
		m := newMatch(t, s, newSink())
		_ = m.Join(ctx, alice)
		_ = m.Join(ctx, bob)
		if err := m.Start(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		r := m.Round()
		resign := func(id string) {
			t.Helper()
			// A game that the moves got stuck has ended already.
			if err := r.Resign(ctx, id, time.Now()); err != nil && !errors.Is(err, engine.ErrGameOver) {
				t.Fatal(err)
			}
		}
		same := func(when string) {
			t.Helper()
			local, ok := r.LocalLeaderboard(time.Now())
			if !ok {
				t.Fatalf("%s: no local leaderboard though both players' seats are here", when)
			}
			stored, err := r.Leaderboard(ctx, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(local)
			b, _ := json.Marshal(stored)
			if string(a) != string(b) {
				t.Fatalf("%s:\nlocal  %s\nstored %s", when, a, b)
			}
		}
		playSome(t, r, "a", 12)
		playSome(t, r, "b", 5)
		same("after moves")
		time.Sleep(3 * time.Second)
		resign("b")
		same("after bob resigned")
		resign("a")
		synctest.Wait()
		same("after the round ended")
	})
}

// TestJoinAfterLeave: a player who leaves an open match may join it again
// (the seat was freed); one who leaves it once started is refused with
// ErrLeft, and is still not seated.
func TestJoinAfterLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		m := newMatch(t, match.DefaultSettings(), newSink())
		carol := match.Player{ID: "c", Name: "carol"}
		for _, p := range []match.Player{alice, bob, carol} {
			if err := m.Join(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Leave(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		if err := m.Join(ctx, carol); err != nil {
			t.Fatalf("joining an open match again after leaving it: %v", err)
		}
		if err := m.Start(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if err := m.Leave(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		if err := m.Join(ctx, carol); !errors.Is(err, match.ErrLeft) {
			t.Fatalf("joining a started match after leaving it = %v, want ErrLeft", err)
		}
		if n, err := m.JoinMany(ctx, []match.Player{carol}); n != 0 || !errors.Is(err, match.ErrLeft) {
			t.Fatalf("JoinMany of a player who left = %d, %v; want 0, ErrLeft", n, err)
		}
		for _, p := range m.Info().Players {
			if p.PlayerID == "c" {
				t.Fatalf("carol is seated again: %v", m.Info().Players)
			}
		}
		if err := m.Join(ctx, bob); err != nil {
			t.Fatalf("joining again as a member who stayed: %v", err)
		}
	})
}
