package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/engine"
	"klondike/lobby/challenge"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// The asynchronous rounds' benchmarks: a board of 100,000 finished players
// on a loopback redis-server, filled with pipelined script runs before the
// timing starts (a few seconds).
//
//	go test ./lobby/redisstore -run '^$' -bench 'Board100k|Finish100k' -benchtime 2000x
//
// BenchmarkBoard100k times Board(top 100, a random player, 5 around) and
// reports, beside the latency percentiles and the server's time a call
// (redis-µs/op, INFO commandstats), Redis's memory a finished player
// (INFO's used_memory before and after the fill, over the players): their
// attempt and board entry (bytes/player), and with their attempt's move
// log of 120 moves and the rest that the Store keeps of a round of one
// player (bytes/player-with-log).

const (
	benchBoardPlayers = 100_000
	benchLogMoves     = 120
	benchFillBatch    = 1000 // players a pipeline
)

// benchNames are the first parts of the players' names.
var benchNames = []string{
	"Margaret", "Oluwaseun", "Kenji", "Zoë", "Alexandre", "Priya", "Tomasz", "Ingrid",
	"Mateo", "Siobhan", "Dmitri", "Aiyana", "Chloé", "Björn", "Fatima", "Hiroshi",
}

// benchMoves are moves as the log has them.
var benchMoves = []string{"D", "W-T3", "T7-F", "T2-T5", "W-F", "T1-T4", "T6-T2:3", "D", "W-T7", "T4-F"}

// benchBoard is a round on a server of its own, with players finished.
type benchBoard struct {
	srv     *redistest.Server
	c       redis.UniversalClient
	a       *Challenges
	prefix  string
	rec     challenge.Record
	players []string
	rnd     *rand.Rand
}

// newBenchBoard makes a round on srv, a server for it alone.
func newBenchBoard(b *testing.B, srv *redistest.Server, id string) *benchBoard {
	c := srv.Client(b)
	f := &benchBoard{srv: srv, c: c, prefix: redistest.Prefix(b), rnd: rand.New(rand.NewPCG(1, 2))}
	f.a = NewChallenges(c, f.prefix)
	f.rec = f.record(id)
	ctx := context.Background()
	if _, _, err := f.a.Create(ctx, f.rec, 8*24*time.Hour); err != nil {
		b.Fatal(err)
	}
	for _, sc := range []*redis.Script{startScript, finishScript} {
		if err := sc.Load(ctx, c).Err(); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

func (f *benchBoard) record(id string) challenge.Record {
	opens := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	r := engine.DefaultRules()
	return challenge.Record{
		ID: id, Kind: challenge.KindDaily, Variant: challenge.Variant(r), Rules: r, Mode: match.ModeRace,
		Fair:    match.FairDeal{Seed: 1234567890123, Salt: strings.Repeat("5a", 16), Commitment: strings.Repeat("c3", 32), Winnable: true},
		LimitMs: 10 * 60 * 1000, OpensAt: opens, ClosesAt: opens.Add(24 * time.Hour), Day: challenge.DayOf(opens),
	}
}

// player returns a new player's id (16 hex digits, as the lobby's), name
// and final standing: about a third won.
func (f *benchBoard) player() (string, string, match.Standing) {
	id := fmt.Sprintf("%016x", f.rnd.Uint64())
	name := fmt.Sprintf("%s%d", benchNames[f.rnd.IntN(len(benchNames))], f.rnd.IntN(10000))
	st := match.Standing{
		PlayerID: id, Name: name, Points: f.rnd.IntN(1500), Foundation: f.rnd.IntN(52),
		Moves: 50 + f.rnd.IntN(350), Status: engine.TimedOut, FinishedMs: -1,
	}
	st.ReachedMs = int64(f.rnd.IntN(int(f.rec.LimitMs)))
	switch f.rnd.IntN(3) {
	case 0:
		st.Status, st.Foundation = engine.Won, engine.NumCards
		st.FinishedMs = 90_000 + int64(f.rnd.IntN(500_000))
		st.ReachedMs = st.FinishedMs
	case 1:
		st.Status, st.FinishedMs = engine.Stuck, st.ReachedMs
	}
	return id, name, st
}

// entry returns the board entry of a final standing.
func (f *benchBoard) entry(st match.Standing) match.BoardEntry {
	end := f.rec.LimitMs
	if st.FinishedMs >= 0 {
		end = st.FinishedMs
	}
	return challenge.EntryOf(&f.rec, st, end)
}

// start starts n new players' attempts, in pipelines, and returns their
// standings; with finish, they go on the board too.
func (f *benchBoard) start(b *testing.B, n int, finish bool) []match.Standing {
	ctx := context.Background()
	keys := f.a.keys(f.rec.ID)
	out := make([]match.Standing, 0, n)
	for len(out) < n {
		pipe := f.c.Pipeline()
		for range min(benchFillBatch, n-len(out)) {
			id, name, st := f.player()
			at, _ := json.Marshal(challenge.Attempt{PlayerID: id, Name: name, StartedAt: f.rec.OpensAt.Add(time.Duration(f.rnd.IntN(86_400)) * time.Second)})
			startScript.EvalSha(ctx, pipe, keys, id, at)
			if finish {
				e := f.entry(st)
				ej, _ := json.Marshal(e)
				finishScript.EvalSha(ctx, pipe, keys, id, e.Key, ej)
			}
			out = append(out, st)
		}
		cmds, err := pipe.Exec(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cmds {
			if err := c.Err(); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, st := range out {
		f.players = append(f.players, st.PlayerID)
	}
	return out
}

// fillLogs writes each player's attempt round as the Store leaves it once
// the attempt is over: a log of benchLogMoves moves, the writer's epoch and
// the closed marker, the standing and the rank member, all with the Store's
// TTL.
func (f *benchBoard) fillLogs(b *testing.B, sts []match.Standing) {
	ctx := context.Background()
	s := New(f.c, Config{Prefix: f.prefix})
	defer s.Close()
	for i := 0; i < len(sts); i += benchFillBatch / 4 {
		pipe := f.c.Pipeline()
		for _, st := range sts[i:min(i+benchFillBatch/4, len(sts))] {
			round := match.AttemptRoundID(f.rec.ID, st.PlayerID)
			log := make([]any, benchLogMoves)
			at := int64(0)
			for seq := range log {
				at += 800 + int64(f.rnd.IntN(3200))
				log[seq] = encodeEntry(match.LogEntry{Seq: seq + 1, AtMs: at, Move: benchMoves[f.rnd.IntN(len(benchMoves))]})
			}
			stJSON, err := encodeStanding(st)
			if err != nil {
				b.Fatal(err)
			}
			member := rankMember(st)
			keys := []string{s.logKey(round, st.PlayerID), s.roundKey(round, "epochs"), s.roundKey(round, "standings"), s.roundKey(round, "rank"), s.roundKey(round, "rankm")}
			pipe.RPush(ctx, keys[0], log...)
			pipe.HSet(ctx, keys[1], st.PlayerID, "1", "", "1")
			pipe.HSet(ctx, keys[2], st.PlayerID, stJSON)
			pipe.ZAdd(ctx, keys[3], redis.Z{Member: member})
			pipe.HSet(ctx, keys[4], st.PlayerID, member)
			for _, k := range keys {
				pipe.PExpire(ctx, k, DefaultTTL)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// usedMemory is INFO's used_memory.
func (f *benchBoard) usedMemory(b *testing.B) int64 {
	out, err := f.srv.Do("INFO", "memory")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("INFO memory has no used_memory")
	return 0
}

// scriptTime returns how many script runs by EVALSHA the server made so
// far and the microseconds they took (INFO commandstats).
func (f *benchBoard) scriptTime(b *testing.B) (calls, usec int64) {
	out, err := f.srv.Do("INFO", "commandstats")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(out, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(l), "cmdstat_evalsha:")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(v, ",") {
			k, n, _ := strings.Cut(kv, "=")
			switch k {
			case "calls":
				calls, _ = strconv.ParseInt(n, 10, 64)
			case "usec":
				usec, _ = strconv.ParseInt(n, 10, 64)
			}
		}
	}
	return calls, usec
}

// reportRedisTime reports the server's time a script run since calls0 and
// usec0 (scriptTime).
func (f *benchBoard) reportRedisTime(b *testing.B, calls0, usec0 int64) {
	calls, usec := f.scriptTime(b)
	if calls > calls0 {
		b.ReportMetric(float64(usec-usec0)/float64(calls-calls0), "redis-µs/op")
	}
}

// reportLatency reports the 50th and 99th percentiles of lat.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) float64 {
		return float64(lat[min(int(p*float64(len(lat))), len(lat)-1)]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

// BenchmarkBoard100k times Board(top 100, a random player, around 5) on a
// board of 100,000 finished players, one call at a time.
func BenchmarkBoard100k(b *testing.B) {
	f := newBenchBoard(b, redistest.Start(b), "daily-2026-12-05-draw3")
	m0 := f.usedMemory(b)
	sts := f.start(b, benchBoardPlayers, true)
	m1 := f.usedMemory(b)
	f.fillLogs(b, sts)
	m2 := f.usedMemory(b)

	ctx := context.Background()
	var lat []time.Duration
	calls0, usec0 := f.scriptTime(b)
	for b.Loop() {
		p := f.players[f.rnd.IntN(len(f.players))]
		t0 := time.Now()
		page, err := f.a.Board(ctx, f.rec.ID, 100, p, 5)
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		if len(page.Top) != 100 || page.Rank == 0 || len(page.Around) < 6 || page.Finished != benchBoardPlayers {
			b.Fatalf("Board: %d top, rank %d, %d around, %d finished", len(page.Top), page.Rank, len(page.Around), page.Finished)
		}
	}
	reportLatency(b, lat)
	f.reportRedisTime(b, calls0, usec0)
	// After the loop: its first turn forgets the metrics reported before.
	b.ReportMetric(float64(m1-m0)/benchBoardPlayers, "bytes/player")
	b.ReportMetric(float64(m2-m0)/benchBoardPlayers, "bytes/player-with-log")
}

// BenchmarkFinish100k times Finish on an empty board and on one of
// 100,000 entries; the attempts it finishes are started beforehand.
func BenchmarkFinish100k(b *testing.B) {
	for _, size := range []int{0, benchBoardPlayers} {
		// The server and its client are the parent's: a sub-benchmark runs
		// more than once (first with b.N 1), on the board its first run
		// filled.
		f := newBenchBoard(b, redistest.Start(b), fmt.Sprintf("challenge-%d", size))
		filled := false
		b.Run(fmt.Sprintf("board=%d", size), func(b *testing.B) {
			if !filled {
				f.start(b, size, true)
				filled = true
			}
			var entries []match.BoardEntry
			for _, st := range f.start(b, b.N, false) {
				entries = append(entries, f.entry(st))
			}
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			calls0, usec0 := f.scriptTime(b)
			b.ResetTimer()
			for _, e := range entries {
				t0 := time.Now()
				ok, err := f.a.Finish(ctx, f.rec.ID, e)
				lat = append(lat, time.Since(t0))
				if err != nil || !ok {
					b.Fatalf("Finish = %v, %v", ok, err)
				}
			}
			b.StopTimer()
			reportLatency(b, lat)
			f.reportRedisTime(b, calls0, usec0)
		})
	}
}
