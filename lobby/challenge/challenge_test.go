package challenge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"klondike/engine"
	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/match"
)

// rawSink keeps every message a player is sent, written by encodeAll.
type rawSink struct {
	mu   sync.Mutex
	msgs map[string][][]byte
}

func (s *rawSink) Send(to []string, ev match.Event) {
	b := encodeAll(ev)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.msgs == nil {
		s.msgs = map[string][][]byte{}
	}
	for _, id := range to {
		s.msgs[id] = append(s.msgs[id], b)
	}
}

// of returns the messages of a type the player was sent.
func (s *rawSink) of(id, typ string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]byte
	for _, b := range s.msgs[id] {
		if strings.HasPrefix(string(b), `{"type":"`+typ+`"`) {
			out = append(out, b)
		}
	}
	return out
}

// encodeAll stands in for the api's encoding of events: the event's type
// name and its fields, all of them, so that a test sees whatever an event
// could leak.
func encodeAll(e match.Event) []byte {
	body, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	return fmt.Appendf(nil, `{"type":%q,"event":%s}`, reflect.TypeOf(e).Name(), body)
}

// A node is one server node on shared backends: its lobby and its
// challenges, wired to each other as the api wires them. Its Round is the
// lobby's, so that an attempt's round is found the way a move finds it.
type node struct {
	*challenge.Service
	l *lobby.Lobby
}

// newNode makes a node on the memory backends mem; cfg's Challenges and
// Records default to mem's, and its Store, Sink and Logger are
// set.
func newNode(t *testing.T, mem memstore.Backends, sk match.Sink, cfg challenge.Config) *node {
	n := &node{}
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	n.l = lobby.New(lobby.Config{
		Store: mem.Store, Coord: mem.Coord, Players: mem.Players, Allowances: mem.Allowances, Sink: sk, Logger: discard,
		Match:          match.Config{Winnable: cfg.Winnable},
		AttemptRound:   func(ctx context.Context, id string) (*match.Round, error) { return n.Service.Round(ctx, id) },
		OnRoundResults: func(r *match.Round, results []match.Entry) { n.CountRound(r, results) },
	})
	if cfg.Challenges == nil {
		cfg.Challenges, cfg.Records = mem.Challenges, mem.Challenges
	}
	if cfg.Allowances == nil {
		cfg.Allowances = mem.Allowances
	}
	cfg.Store, cfg.Sink, cfg.Logger = mem.Store, sk, discard
	n.Service = challenge.New(n.l, cfg)
	t.Cleanup(func() {
		n.Close()
		n.l.Close()
	})
	return n
}

// challengeNode is a node with the default settings.
func challengeNode(t *testing.T, mem memstore.Backends, sk match.Sink) *node {
	return newNode(t, mem, sk, challenge.Config{})
}

func (n *node) Round(ctx context.Context, id string) (*match.Round, error) { return n.l.Round(ctx, id) }

func (n *node) Hello(ctx context.Context, name, token string) (lobby.Session, bool, error) {
	return n.l.Hello(ctx, name, token)
}

func hello(t *testing.T, n *node, name string) lobby.Session {
	t.Helper()
	s, _, err := n.Hello(context.Background(), name, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// cardToken matches a card as the protocol writes one ("10H", "QS").
var cardToken = regexp.MustCompile(`"(10|[2-9AJQK])[SHDC]"`)

// play makes n draws from the stock in the player's attempt, from seq.
func play(t *testing.T, r *match.Round, playerID string, from, n int) {
	t.Helper()
	for i := range n {
		if _, err := r.Move(context.Background(), playerID, from+i, "D", time.Now(), nil); err != nil {
			t.Fatalf("move %d: %v", from+i, err)
		}
	}
}

// TestChallengeHoursApart: Alice makes a challenge and plays it; Bob takes
// it five hours later and sees her ghost, never a card; each has one
// attempt; Carol walks away and her time runs out; the deal and the
// replays are published at the close, and they verify.
func TestChallengeHoursApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		sk := &rawSink{}
		mem := memstore.NewBackends()
		l := challengeNode(t, mem, sk)
		alice, bob, carol := hello(t, l, "alice"), hello(t, l, "bob"), hello(t, l, "carol")

		rec, err := l.Create(ctx, alice.PlayerID, match.PartialSettings{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if rec.ClosesAt.Sub(rec.OpensAt) != challenge.DefaultWindow || rec.Fair.Commitment == "" {
			t.Fatalf("challenge %+v: want a day's window and a commitment", rec)
		}
		if info, err := l.Info(ctx, &rec); err != nil || info.Seed != "" || info.Salt != "" || info.Commitment != rec.Fair.Commitment {
			t.Fatalf("open challenge's info %+v, %v: want the commitment and no seed or salt", info, err)
		}
		start := func(p lobby.Session) *match.Round {
			t.Helper()
			ev, err := l.StartAttempt(ctx, p.PlayerID, rec.ID)
			if err != nil {
				t.Fatalf("%s starts: %v", p.Name, err)
			}
			if ev.Kind != challenge.KindChallenge || ev.MatchID != rec.ID || ev.Deal.Seed != 0 {
				t.Fatalf("%s's round_started %+v", p.Name, ev)
			}
			r, err := l.Round(ctx, ev.RoundID)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}

		ra := start(alice)
		time.Sleep(10 * time.Second)
		play(t, ra, alice.PlayerID, 1, 4)
		time.Sleep(20 * time.Second)
		if err := ra.Resign(ctx, alice.PlayerID, time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(challenge.DefaultGhostEvery) // the tick that notices the game's end
		synctest.Wait()
		if got := sk.of(alice.PlayerID, "AttemptOver"); len(got) != 1 {
			t.Fatalf("alice got %d attempt_over, want 1", len(got))
		}
		if _, err := l.StartAttempt(ctx, alice.PlayerID, rec.ID); !errors.Is(err, challenge.ErrAlreadyPlayed) {
			t.Fatalf("alice's second attempt: %v, want ErrAlreadyPlayed", err)
		}

		time.Sleep(5 * time.Hour)
		rb := start(bob)
		if !rb.StartsAt.Equal(time.Now()) {
			t.Fatalf("bob's clock starts at %v, want now (%v): each player has their own", rb.StartsAt, time.Now())
		}
		time.Sleep(15 * time.Second)
		play(t, rb, bob.PlayerID, 1, 2)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		ghosts := sk.of(bob.PlayerID, "GhostUpdate")
		if len(ghosts) < 15 {
			t.Fatalf("bob got %d ghosts in 18 s, want one a second", len(ghosts))
		}
		for _, g := range ghosts {
			if cardToken.Match(g) {
				t.Fatalf("a ghost carries a card: %s", g)
			}
		}
		var last struct{ Event match.GhostUpdate }
		if err := json.Unmarshal(ghosts[len(ghosts)-1], &last); err != nil {
			t.Fatal(err)
		}
		if len(last.Event.Ghosts) != 1 || last.Event.Ghosts[0].PlayerID != alice.PlayerID || last.Event.Ghosts[0].Role != challenge.GhostLeader {
			t.Fatalf("bob's ghosts %+v: want alice as the leader (and not again as the friend)", last.Event.Ghosts)
		}
		if err := rb.Resign(ctx, bob.PlayerID, time.Now()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()

		// Carol starts, draws once and walks away: her attempt ends at her
		// time limit, as it stood.
		rc := start(carol)
		play(t, rc, carol.PlayerID, 1, 1)
		time.Sleep(time.Duration(rec.LimitMs)*time.Millisecond + time.Second)
		synctest.Wait()
		if _, err := l.StartAttempt(ctx, carol.PlayerID, rec.ID); !errors.Is(err, challenge.ErrAlreadyPlayed) {
			t.Fatalf("carol after her time: %v, want ErrAlreadyPlayed", err)
		}
		page, err := l.Board(ctx, &rec, 10, carol.PlayerID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if page.Players != 3 || page.Finished != 3 || len(page.Top) != 3 || page.Rank == 0 {
			t.Fatalf("board %+v: want three players, all finished, carol ranked", page)
		}
		for _, e := range page.Top {
			if e.PlayerID == carol.PlayerID && e.Status != engine.TimedOut {
				t.Fatalf("carol's entry %+v: want timed out", e)
			}
		}

		if _, err := l.Replay(ctx, &rec, 1, 10); !errors.Is(err, match.ErrRoundNotRunning) {
			t.Fatalf("replay before the close: %v, want ErrRoundNotRunning", err)
		}
		time.Sleep(time.Until(rec.ClosesAt))
		rep, err := l.Replay(ctx, &rec, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		verifyReplay(t, rep, page.Top)
		info, err := l.Info(ctx, &rec)
		if err != nil || !info.Closed || info.Seed == "" || info.Salt == "" {
			t.Fatalf("closed challenge's info %+v, %v: want the seed and salt", info, err)
		}
	})
}

// verifyReplay checks what anyone can from a published replay: the seed
// and salt hash to the commitment, the layout is the seed's deal, and each
// player's moves replay to their entry on the board.
func verifyReplay(t *testing.T, rep challenge.Replay, board []match.BoardEntry) {
	t.Helper()
	f := rep.Round.Fair
	if match.Commitment(f.Salt, f.Seed) != f.Commitment {
		t.Fatalf("the seed and salt do not hash to the commitment")
	}
	if !reflect.DeepEqual(rep.Layout, engine.NumberedDealFor(rep.Round.Rules.Game, f.Seed)) {
		t.Fatalf("the layout is not the seed's deal")
	}
	if len(rep.Players) != len(board) {
		t.Fatalf("%d replays for %d entries", len(rep.Players), len(board))
	}
	for i, p := range rep.Players {
		g, err := engine.NewGame(rep.Layout, rep.Round.Rules)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Moves {
			m, err := rep.Round.Rules.Game.ParseMove(e.Move)
			if err == nil {
				_, err = g.Apply(m)
			}
			if err != nil {
				t.Fatalf("%s's move %d does not replay: %v", p.Name, e.Seq, err)
			}
		}
		if p.PlayerID != board[i].PlayerID || g.Moves() != board[i].Moves || g.FoundationTotal() != board[i].Foundation || p.Points != g.Score() {
			t.Fatalf("replay %d (%s: %d moves, %d points) does not match the board's %+v", i, p.Name, g.Moves(), g.Score(), board[i])
		}
	}
}

// countingStore counts the challenges each Create call made.
type countingStore struct {
	*memstore.Challenges
	mu      sync.Mutex
	created map[string]int
}

func (c *countingStore) Create(ctx context.Context, rec challenge.Record, ttl time.Duration) (challenge.Record, bool, error) {
	got, made, err := c.Challenges.Create(ctx, rec, ttl)
	if made {
		c.mu.Lock()
		c.created[rec.ID]++
		c.mu.Unlock()
	}
	return got, made, err
}

// TestDailyRolloverOnceWithTwoNodes: two nodes make each UTC day's daily
// rounds, one a variant, exactly once between them, and agree on them.
func TestDailyRolloverOnceWithTwoNodes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		ca := &countingStore{Challenges: mem.Challenges, created: map[string]int{}}
		a := newNode(t, mem, &rawSink{}, challenge.Config{Challenges: ca, Records: ca})
		b := newNode(t, mem, &rawSink{}, challenge.Config{Challenges: ca, Records: ca})
		for day := range 3 {
			synctest.Wait()
			da, ra, err := a.Daily(ctx)
			if err != nil {
				t.Fatal(err)
			}
			db, rb, err := b.Daily(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if da != challenge.DayOf(time.Now()) || da != db || len(ra) != 2 || !reflect.DeepEqual(ra, rb) {
				t.Fatalf("day %d: the nodes disagree: %s %+v and %s %+v", day, da, ra, db, rb)
			}
			for _, r := range ra {
				if r.ID != challenge.DailyID(da, r.Rules) || r.Kind != challenge.KindDaily || !r.OpensAt.Equal(time.Date(2000, 1, 1+day, 0, 0, 0, 0, time.UTC)) || r.ClosesAt.Sub(r.OpensAt) != 24*time.Hour {
					t.Fatalf("day %d: round %+v", day, r)
				}
			}
			next := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
			time.Sleep(time.Until(next) + time.Millisecond)
		}
		ca.mu.Lock()
		defer ca.mu.Unlock()
		synctest.Wait()
		if len(ca.created) != 8 {
			t.Fatalf("%d daily rounds made, want 8 (three days and the fourth's start, two variants): %v", len(ca.created), ca.created)
		}
		for id, n := range ca.created {
			if n != 1 {
				t.Fatalf("daily round %s made %d times", id, n)
			}
		}
	})
}

// TestAttemptResumesOnAnotherNode: a player who drops off one node resumes
// their attempt on another, with their moves, and goes on where they were.
func TestAttemptResumesOnAnotherNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		mem := memstore.NewBackends()
		a, b := challengeNode(t, mem, &rawSink{}), challengeNode(t, mem, &rawSink{})
		p := hello(t, a, "alice")
		if _, _, err := b.Hello(ctx, "", p.Token); err != nil {
			t.Fatal(err)
		}
		_, days, err := a.Daily(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := a.StartAttempt(ctx, p.PlayerID, days[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		ra, _ := a.Round(ctx, ev.RoundID)
		play(t, ra, p.PlayerID, 1, 3)
		time.Sleep(time.Minute)
		again, err := b.StartAttempt(ctx, p.PlayerID, days[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if !again.Resumed || again.LastSeq != 3 || again.RoundID != ev.RoundID || !again.StartsAt.Equal(ev.StartsAt) {
			t.Fatalf("resumed on b: %+v; want the same attempt, 3 moves in, its clock running since %v", again, ev.StartsAt)
		}
		rb, _ := b.Round(ctx, again.RoundID)
		play(t, rb, p.PlayerID, 4, 2)
		back, err := a.StartAttempt(ctx, p.PlayerID, days[0].ID)
		if err != nil || back.LastSeq != 5 {
			t.Fatalf("back on a: last seq %d, %v; want the 5 moves made on both nodes", back.LastSeq, err)
		}
	})
}
