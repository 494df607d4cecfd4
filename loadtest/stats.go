package main

import (
	"math/bits"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// histogram is a log-linear latency histogram in the manner of HDR
// histograms: values (microseconds) below 128 have a bucket each, and every
// power of two above is split in 64 buckets, so a reported percentile is
// within 1/64 (1.6 %) of the true value. Memory is fixed (histBuckets
// counters) whatever the number of samples; Record is lock-free.
type histogram struct {
	counts [histBuckets]atomic.Uint64
	n      atomic.Uint64
	sum    atomic.Uint64 // microseconds
	max    atomic.Uint64 // microseconds
}

const (
	histSubBits = 7
	histHalf    = 1 << (histSubBits - 1)
	histMaxUs   = 1<<40 - 1 // about 12.7 days: anything longer is clamped
	histBuckets = (40-histSubBits+1)*histHalf + histHalf
)

func bucketOf(us uint64) int {
	if us < 1<<histSubBits {
		return int(us)
	}
	shift := bits.Len64(us) - histSubBits
	return shift*histHalf + int(us>>shift)
}

// bucketValue is the middle of bucket i, in microseconds.
func bucketValue(i int) float64 {
	if i < 1<<histSubBits {
		return float64(i)
	}
	shift := i/histHalf - 1
	lo := uint64(i-shift*histHalf) << shift
	return float64(lo) + float64(uint64(1)<<shift)/2
}

// Record adds one latency.
func (h *histogram) Record(d time.Duration) {
	us := uint64(max(d, 0) / time.Microsecond)
	us = min(us, histMaxUs)
	h.counts[bucketOf(us)].Add(1)
	h.n.Add(1)
	h.sum.Add(us)
	for {
		m := h.max.Load()
		if us <= m || h.max.CompareAndSwap(m, us) {
			break
		}
	}
}

// latencySummary is what a report shows of a histogram, in milliseconds.
type latencySummary struct {
	Count  uint64  `json:"count"`
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P95Ms  float64 `json:"p95_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p99_9_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// Summary reads the percentiles. It may run while Record does: the figures
// are then of some recent moment.
func (h *histogram) Summary() latencySummary {
	var counts [histBuckets]uint64
	var n uint64
	for i := range counts {
		counts[i] = h.counts[i].Load()
		n += counts[i]
	}
	s := latencySummary{Count: n, MaxMs: float64(h.max.Load()) / 1000}
	if n == 0 {
		return s
	}
	s.MeanMs = float64(h.sum.Load()) / float64(h.n.Load()) / 1000
	q := func(p float64) float64 {
		rank := uint64(p*float64(n) + 0.5)
		rank = max(rank, 1)
		var seen uint64
		for i, c := range counts {
			seen += c
			if seen >= rank {
				return min(bucketValue(i)/1000, s.MaxMs)
			}
		}
		return s.MaxMs
	}
	s.P50Ms, s.P95Ms, s.P99Ms, s.P999Ms = q(0.50), q(0.95), q(0.99), q(0.999)
	return s
}

// counters are the run's tallies, shared by every bot.
type counters struct {
	connsOpened, connsFailed, connsDropped atomic.Int64
	movesSent, movesAcked, movesDuplicate  atomic.Int64
	movesRetried                           atomic.Int64
	seqMismatch                            atomic.Int64
	leaderboards                           atomic.Int64
	moveOKSlow                             atomic.Int64 // move_ok frames client.DecodeMessage left to encoding/json
	roundsStarted, roundsPlayed            atomic.Int64
	matchesJoined, lobbyRetries            atomic.Int64
	lobbyTimeouts, resigns                 atomic.Int64
	illegalStale                           atomic.Int64
	welcomed                               atomic.Int64

	mu         sync.Mutex
	refused    map[string]int64 // move_rejected and rate_limited by code
	unexpected map[string]int64 // anything that should not happen, by kind
	samples    []string         // the first few unexpected events, for the report
	rounds     map[string]bool  // distinct rounds seen over
}

const maxSamples = 20

func newCounters() *counters {
	return &counters{refused: map[string]int64{}, unexpected: map[string]int64{}, rounds: map[string]bool{}}
}

func (c *counters) refuse(code string) {
	c.mu.Lock()
	c.refused[code]++
	c.mu.Unlock()
}

// fail counts an unexpected event of a kind, keeping the first few details.
func (c *counters) fail(kind, detail string) {
	c.mu.Lock()
	c.unexpected[kind]++
	if len(c.samples) < maxSamples {
		c.samples = append(c.samples, kind+": "+detail)
	}
	c.mu.Unlock()
}

// roundOver records a round seen to end; it reports whether it is new.
func (c *counters) roundOver(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rounds[id] {
		return false
	}
	c.rounds[id] = true
	return true
}

func (c *counters) snapshot() (refused, unexpected map[string]int64, samples []string, rounds int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	refused = make(map[string]int64, len(c.refused))
	for k, v := range c.refused {
		refused[k] = v
	}
	unexpected = make(map[string]int64, len(c.unexpected))
	for k, v := range c.unexpected {
		unexpected[k] = v
	}
	return refused, unexpected, append([]string(nil), c.samples...), len(c.rounds)
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
