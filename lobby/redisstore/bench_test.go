package redisstore_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// benchAppend appends one player's moves, one round trip each.
func benchAppend(b *testing.B, s match.Store) {
	benchAppendCtx(b, s, context.Background())
}

func benchAppendCtx(b *testing.B, s match.Store, ctx context.Context) {
	seq := 0
	for b.Loop() {
		seq++
		if err := s.Append(ctx, "bench", 0, entry(seq), standing("p", seq)); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPlayers numbers the parallel benchmark's players: the benchmark
// function runs more than once on one store, each run with new players.
var benchPlayers atomic.Int64

// benchAppendParallel appends from parallel goroutines, a player each, to
// one round.
func benchAppendParallel(b *testing.B, s match.Store) {
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		p := fmt.Sprintf("p%d", benchPlayers.Add(1))
		seq := 0
		for pb.Next() {
			seq++
			if err := s.Append(ctx, "bench", 0, entry(seq), standing(p, seq)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func benchStore(b *testing.B, srv *redistest.Server) match.Store {
	return redisstore.New(srv.Client(b), redisstore.Config{Prefix: redistest.Prefix(b)})
}

// BenchmarkAppend measures one Append round trip to a loopback redis-server.
func BenchmarkAppend(b *testing.B) {
	benchAppend(b, benchStore(b, redistest.Start(b)))
}

// BenchmarkAppendDeadline is BenchmarkAppend with a deadline on the
// context, as the server's moves have (each batch then makes a context
// with the latest of its callers' deadlines).
func BenchmarkAppendDeadline(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	benchAppendCtx(b, benchStore(b, redistest.Start(b)), ctx)
}

// BenchmarkAppendParallel measures Appends of parallel players.
func BenchmarkAppendParallel(b *testing.B) {
	benchAppendParallel(b, benchStore(b, redistest.Start(b)))
}

// BenchmarkAppendRedisCPU measures what an append costs Redis in large
// batches: 256 players in 64 rounds append at once, with AOF on, and the
// benchmark reports Redis's CPU an append (used_cpu_user and used_cpu_sys
// of INFO, before and after) as redis-µs/op, beside the time an append.
// Set against Redis's CPU a move in a load run, it tells what the script
// costs from what the traffic around it costs (docs/performance.md).
//
//	go test ./lobby/redisstore -run '^$' -bench AppendRedisCPU -benchtime 20000x -count 3
func BenchmarkAppendRedisCPU(b *testing.B) {
	srv := redistest.Start(b, redistest.WithAOF())
	c := srv.Client(b)
	s := redisstore.New(c, redisstore.Config{Prefix: redistest.Prefix(b)})
	defer s.Close()
	ctx := context.Background()
	var next atomic.Int64
	cpu0 := redisCPU(b, srv)
	b.SetParallelism(128) // 256 appenders on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		n := next.Add(1)
		round, p := fmt.Sprintf("r%d", n%64), fmt.Sprintf("p%d", n)
		seq := 0
		for pb.Next() {
			seq++
			if err := s.Append(ctx, round, 0, entry(seq), standing(p, seq)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric((redisCPU(b, srv)-cpu0)*1e6/float64(b.N), "redis-µs/op")
}

// redisCPU is the server's CPU seconds so far, user and system.
func redisCPU(b *testing.B, srv *redistest.Server) float64 {
	out, err := srv.Do("INFO", "cpu")
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for _, l := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(l), ":")
		if k == "used_cpu_user" || k == "used_cpu_sys" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatalf("INFO cpu: %q: %v", l, err)
			}
			sum += f
		}
	}
	return sum
}

// TestBaseline measures, on one test server, redis-benchmark's SET and GET
// and then the store's Append, for the ratio of docs/performance.md. It
// runs only with KLONDIKE_REDIS_BASELINE=1:
//
//	KLONDIKE_REDIS_BASELINE=1 go test -run TestBaseline -v ./lobby/redisstore/
func TestBaseline(t *testing.T) {
	if os.Getenv("KLONDIKE_REDIS_BASELINE") != "1" {
		t.Skip("set KLONDIKE_REDIS_BASELINE=1 to measure")
	}
	bin, err := exec.LookPath("redis-benchmark")
	if err != nil {
		t.Skip("redis-benchmark not installed")
	}
	srv := redistest.Start(t)
	// redis-benchmark's default of 50 clients, and one client: a round trip
	// at a time, as BenchmarkAppend.
	for _, clients := range []string{"50", "1"} {
		args := []string{"-p", strconv.Itoa(srv.Port()), "-c", clients, "-n", "100000", "-q", "-t", "set,get", "-P", "1"}
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("redis-benchmark: %v\n%s", err, out)
		}
		// -q still redraws a progress line; keep the results.
		var res []string
		for _, l := range strings.FieldsFunc(string(out), func(r rune) bool { return r == '\r' || r == '\n' }) {
			if strings.Contains(l, "requests per second") {
				res = append(res, strings.TrimSpace(l))
			}
		}
		t.Logf("redis-benchmark %s\n\t%s", strings.Join(args, " "), strings.Join(res, "\n\t"))
	}
	c := srv.Client(t)
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			if err := c.Set(context.Background(), "test:baseline", "x", 0).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	t.Logf("go-redis SET: %v (%.0f/s)", r, float64(r.N)/r.T.Seconds())
	s := redisstore.New(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	for _, bm := range []struct {
		name string
		fn   func(*testing.B, match.Store)
	}{{"Append", benchAppend}, {"AppendParallel", benchAppendParallel}} {
		r := testing.Benchmark(func(b *testing.B) { bm.fn(b, s) })
		t.Logf("%s: %v (%.0f appends/s)", bm.name, r, float64(r.N)/r.T.Seconds())
	}
}
