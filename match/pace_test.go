package match_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby/memstore"
	"klondike/match"
)

// paceSink is a sink that knows which players connect through it and
// keeps each player's pace, as the api's hub does; it notes when each
// leaderboard was sent.
type paceSink struct {
	*sink
	mu     sync.Mutex
	paces  map[string]*match.LeaderboardPace
	online map[string]bool
	boards map[string][]time.Time // by player
}

func newPaceSink(online ...string) *paceSink {
	s := &paceSink{sink: newSink(), paces: map[string]*match.LeaderboardPace{}, online: map[string]bool{}, boards: map[string][]time.Time{}}
	for _, id := range online {
		s.online[id] = true
	}
	return s
}

func (s *paceSink) Send(to []string, ev match.Event) {
	if _, ok := ev.(match.Leaderboard); ok {
		s.mu.Lock()
		for _, id := range to {
			s.boards[id] = append(s.boards[id], time.Now())
		}
		s.mu.Unlock()
	}
	s.sink.Send(to, ev)
}

func (s *paceSink) SetPace(id string, p *match.LeaderboardPace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paces[id] = p
}

func (s *paceSink) ClearPace(id string, p *match.LeaderboardPace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paces[id] == p {
		delete(s.paces, id)
	}
}

func (s *paceSink) Connected(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.online[id]
}

func (s *paceSink) connect(id string, up bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.online[id] = up
}

func (s *paceSink) pace(id string) *match.LeaderboardPace {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paces[id]
}

// boardTimes returns when each leaderboard was sent to the player.
func (s *paceSink) boardTimes(id string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.boards[id]...)
}

// paceRace starts a race of alice and bob, watched by sam, on sk, and
// returns it once it has run for a while: the boards of its start are out.
func paceRace(t *testing.T, sk *paceSink) (*match.Match, *match.Round) {
	t.Helper()
	ctx := context.Background()
	s := match.DefaultSettings()
	s.Seed = "1" // a random deal may leave every game stuck from the start
	cfg := matchConfig(memstore.New(), memstore.NewCoord(), sk)
	m, err := match.New("m1", "ABCDEF", s, false, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	for _, p := range []match.Player{alice, bob} {
		if err := m.Join(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Spectate(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Duration(s.CountdownS)*time.Second + 2*time.Second)
	synctest.Wait()
	r := m.Round()
	if r == nil || len(sk.boardTimes("a")) == 0 {
		t.Fatal("the round runs without a leaderboard")
	}
	return m, r
}

// TestLeaderboardCap: with both players moving all the time, and every
// move's answer asking for a due board as the api does, a round's boards
// go out no more often than every LeaderboardEvery, to players and
// spectators alike, and they do go out.
func TestLeaderboardCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sk := newPaceSink("a", "b", "s")
		_, r := paceRace(t, sk)
		p := sk.pace("a")
		if p == nil || sk.pace("b") != p {
			t.Fatal("the players' answers have no pace")
		}
		start := len(sk.boardTimes("s"))
		for range 200 { // 4 s
			for _, id := range []string{"a", "b"} {
				playSome(t, r, id, 1)
				p.SendDue()
			}
			time.Sleep(20 * time.Millisecond)
			synctest.Wait()
		}
		for _, id := range []string{"a", "b", "s"} {
			at := sk.boardTimes(id)
			for i := 1; i < len(at); i++ {
				if gap := at[i].Sub(at[i-1]); gap < match.DefaultLeaderboardEvery {
					t.Errorf("%s: boards %d and %d %v apart, want at least %v", id, i-1, i, gap, match.DefaultLeaderboardEvery)
				}
			}
		}
		if n := len(sk.boardTimes("s")) - start; n < 4 {
			t.Errorf("%d boards in 4 s of moves, want at least 4", n)
		}
	})
}

// TestBoardLeavesWithTheMove: once the last board is old enough, the move
// that changes the standings makes the board due, and its answer's
// SendDue sends it at once, to every viewer, with that move in it.
func TestBoardLeavesWithTheMove(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sk := newPaceSink("a", "b", "s")
		_, r := paceRace(t, sk)
		n := len(sk.boardTimes("s"))
		playSome(t, r, "a", 1)
		sk.pace("a").SendDue() // no time passes: no tick runs
		for _, id := range []string{"a", "b", "s"} {
			if got := len(sk.boardTimes(id)); got == 0 || id == "s" && got != n+1 {
				t.Fatalf("%s: %d boards after the move, want one more", id, got)
			}
		}
		last := received[match.Leaderboard](t, sk.sink, "s")[n]
		for _, e := range last.Entries {
			if e.PlayerID == "a" && e.Moves != 1 {
				t.Fatalf("alice in the board: %+v, want her move", e)
			}
		}
		// Within LeaderboardEvery of it, another move's answer sends none.
		playSome(t, r, "a", 1)
		sk.pace("a").SendDue()
		if got := len(sk.boardTimes("s")); got != n+1 {
			t.Fatalf("%d boards right after one, want none", got-n-1)
		}
	})
}

// TestNoBoardWithoutVisibleChange: a board goes only to the viewers whose
// last board showed something else. Told that the standings changed when
// nothing a client shows did, the match sends nobody a board; a viewer who
// was away when the last one went out gets it, alone.
func TestNoBoardWithoutVisibleChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sk := newPaceSink("a", "b")
		m, r := paceRace(t, sk)
		if got := len(sk.boardTimes("s")); got != 0 {
			t.Fatalf("sam, away, got %d boards", got)
		}
		count := func() (a, b, s int) {
			return len(sk.boardTimes("a")), len(sk.boardTimes("b")), len(sk.boardTimes("s"))
		}
		a0, b0, s0 := count()
		// Another node says the standings changed: nothing shows it.
		m.Deliver(match.BusMessage{Board: r.ID, Urgent: true})
		time.Sleep(2 * match.DefaultLeaderboardEvery)
		synctest.Wait()
		if a, b, s := count(); a != a0 || b != b0 || s != s0 {
			t.Fatalf("boards without a visible change: alice %d, bob %d, sam %d", a-a0, b-b0, s-s0)
		}
		// Sam comes back: the same board goes to him alone.
		sk.connect("s", true)
		m.Deliver(match.BusMessage{Board: r.ID, Urgent: true})
		time.Sleep(2 * match.DefaultLeaderboardEvery)
		synctest.Wait()
		if a, b, s := count(); a != a0 || b != b0 || s != s0+1 {
			t.Fatalf("after sam came back: alice %d, bob %d, sam %d new boards; want sam's alone", a-a0, b-b0, s-s0)
		}
		// A move shows: everyone gets it.
		playSome(t, r, "b", 1)
		time.Sleep(2 * match.DefaultLeaderboardMinor)
		synctest.Wait()
		if a, b, s := count(); a != a0+1 || b != b0+1 || s != s0+2 {
			t.Fatalf("after a move: alice %d, bob %d, sam %d new boards; want one each", a-a0, b-b0, s-s0-1)
		}
	})
}
