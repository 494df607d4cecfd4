package redisstore_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
)

// BenchmarkDurability measures what DurabilityReplica costs against
// DurabilityLocal, on one pair of servers in one run: a master with the
// append-only file (fsync every second) and its replica, on loopback. For
// each load, one appender (a lone player: each move's round trip, with
// the default Linger and with none) and 128 appenders in 16 rounds
// (saturation), each level reports appends/s and each append's latency,
// p50 and p99.
//
//	go test ./lobby/redisstore -run '^$' -bench Durability -benchtime 3s -count 3
func BenchmarkDurability(b *testing.B) {
	master := redistest.Start(b, redistest.WithAOF())
	replica := redistest.Start(b)
	replicate(b, replica, master)
	c := durabilityClient(b, master)
	for _, load := range []struct {
		name      string
		appenders int
		linger    time.Duration
	}{
		{"appenders=1", 1, 0},
		{"appenders=1,linger=none", 1, -1},
		{"appenders=128", 128, 0},
	} {
		for _, d := range []string{redisstore.DurabilityLocal, redisstore.DurabilityReplica} {
			b.Run(d+"/"+load.name, func(b *testing.B) {
				s := redisstore.New(c, redisstore.Config{Prefix: redistest.Prefix(b), Durability: d, Linger: load.linger})
				defer s.Close()
				benchLatency(b, load.appenders, func(ctx context.Context, round, player string, seq int) error {
					return s.Append(ctx, round, 1, entry(seq), standing(player, seq))
				})
			})
		}
	}
}

// benchLatency runs b.N appends from the given number of appenders (a
// player each, in 16 rounds, each appending its moves in order, as a seat
// does) and reports appends/s and the appends' latency, p50 and p99.
func benchLatency(b *testing.B, appenders int, appendFn func(ctx context.Context, round, player string, seq int) error) {
	ctx := context.Background()
	var next atomic.Int64
	var mu sync.Mutex
	lat := make([]time.Duration, 0, b.N)
	per := (b.N + appenders - 1) / appenders
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range appenders {
		wg.Go(func() {
			n := next.Add(1)
			round, player := "r"+strconv.FormatInt(n%16, 10), "p"+strconv.FormatInt(n, 10)
			mine := make([]time.Duration, 0, per)
			for seq := 1; seq <= per; seq++ {
				t0 := time.Now()
				if err := appendFn(ctx, round, player, seq); err != nil {
					b.Errorf("%s seq %d: %v", player, seq, err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "appends/s")
	b.ReportMetric(us(lat[len(lat)/2]), "p50-µs")
	b.ReportMetric(us(lat[len(lat)*99/100]), "p99-µs")
}
