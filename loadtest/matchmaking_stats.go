package main

import (
	"math"
	"slices"
	"sort"
	"time"
)

// spearman returns Spearman's rank correlation of x and y: the Pearson
// correlation of their ranks, where tied values share the mean of the
// ranks they span. It is NaN when the lengths differ, when there are fewer
// than two pairs, or when either side is constant (its ranks do not vary).
func spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	return pearson(averageRanks(x), averageRanks(y))
}

// averageRanks returns the rank of each value of v, counted from one, ties
// taking the mean of the ranks they span.
func averageRanks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	ranks := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		// Positions i to j-1 hold one value; they share their ranks' mean.
		r := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			ranks[idx[k]] = r
		}
		i = j
	}
	return ranks
}

// pearson returns the Pearson correlation of x and y (same length), NaN
// when either is constant.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// nearestRank returns the nearest-rank q-quantile (0 < q ≤ 1) of sorted
// values, 0 when there are none.
func nearestRank(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// sampleSummary describes a sample: its size, mean, median, 99th
// percentile and largest value.
type sampleSummary struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// summarizeSample returns the summary of values (which it sorts).
func summarizeSample(values []float64) sampleSummary {
	s := sampleSummary{N: len(values)}
	if len(values) == 0 {
		return s
	}
	slices.Sort(values)
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	s.Mean, s.P50, s.P99, s.Max = sum/float64(len(values)), nearestRank(values, 0.5), nearestRank(values, 0.99), values[len(values)-1]
	return s
}

// inSeconds returns the durations in seconds.
func inSeconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}
