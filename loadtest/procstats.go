package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
)

// fileLimit is the open-files limit at the start of the run.
type fileLimit struct {
	Before uint64 `json:"soft_before"`
	Soft   uint64 `json:"soft"`
	Hard   uint64 `json:"hard"`
	Err    string `json:"error,omitempty"`
}

// procSample is a process's CPU time and memory at one moment.
type procSample struct {
	CPUSeconds float64 `json:"cpu_seconds"`
	RSSBytes   float64 `json:"rss_bytes"`
	// The Go runtime's heap in use, stacks in use and goroutines (the
	// server's go_memstats_heap_inuse_bytes, go_memstats_stack_inuse_bytes,
	// go_goroutines; 0 when it has none).
	HeapInuse  float64 `json:"heap_inuse_bytes,omitempty"`
	StackInuse float64 `json:"stack_inuse_bytes,omitempty"`
	Goroutines float64 `json:"goroutines,omitempty"`
	// Moves are klondike_moves_total by result (external server only).
	Moves map[string]float64 `json:"moves,omitempty"`
	OK    bool               `json:"ok"`
}

// metricsLine splits one sample line of the Prometheus text exposition
// format into its series (name and labels, as written) and value.
func metricsLine(line string) (series string, value float64, ok bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", 0, false
	}
	rest := ""
	if i := strings.IndexByte(line, '{'); i >= 0 {
		j := strings.LastIndexByte(line, '}')
		if j < i {
			return "", 0, false
		}
		series, rest = line[:j+1], line[j+1:]
	} else {
		f := strings.Fields(line)
		if len(f) < 2 {
			return "", 0, false
		}
		series, rest = f[0], strings.Join(f[1:], " ")
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return "", 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return "", 0, false
	}
	return series, v, true
}

// parseMetrics reads the series the report needs from a /metrics body.
func parseMetrics(r io.Reader) (procSample, error) {
	s := procSample{Moves: map[string]float64{}}
	var haveCPU, haveRSS bool
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	const movesPrefix = `klondike_moves_total{result="`
	for sc.Scan() {
		series, v, ok := metricsLine(sc.Text())
		if !ok {
			continue
		}
		switch {
		case series == "process_cpu_seconds_total":
			s.CPUSeconds, haveCPU = v, true
		case series == "process_resident_memory_bytes":
			s.RSSBytes, haveRSS = v, true
		case series == "go_memstats_heap_inuse_bytes":
			s.HeapInuse = v
		case series == "go_memstats_stack_inuse_bytes":
			s.StackInuse = v
		case series == "go_goroutines":
			s.Goroutines = v
		case strings.HasPrefix(series, movesPrefix):
			s.Moves[strings.TrimSuffix(strings.TrimPrefix(series, movesPrefix), `"}`)] = v
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	if !haveCPU || !haveRSS {
		return s, errors.New("no process_cpu_seconds_total or process_resident_memory_bytes in /metrics")
	}
	s.OK = true
	return s, nil
}

// scrape reads an external server's /metrics.
func scrape(ctx context.Context, c *http.Client, url string) (procSample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return procSample{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return procSample{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return procSample{}, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return parseMetrics(io.LimitReader(resp.Body, 16<<20))
}

// selfSample reads this process's CPU time and resident memory: from
// getrusage and /proc/self/statm, or the Go runtime's mapped memory where
// there is no /proc.
func selfSample() procSample {
	var s procSample
	if d, ok := selfCPU(); ok {
		s.CPUSeconds = d.Seconds()
		s.OK = true
	}
	rm := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/stacks:bytes"}, {Name: "/sched/goroutines:goroutines"}}
	metrics.Read(rm)
	if rm[0].Value.Kind() == metrics.KindUint64 && rm[1].Value.Kind() == metrics.KindUint64 {
		s.HeapInuse = float64(rm[0].Value.Uint64() + rm[1].Value.Uint64())
	}
	if rm[2].Value.Kind() == metrics.KindUint64 {
		s.StackInuse = float64(rm[2].Value.Uint64())
	}
	if rm[3].Value.Kind() == metrics.KindUint64 {
		s.Goroutines = float64(rm[3].Value.Uint64())
	}
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := bytes.Fields(b); len(f) >= 2 {
			if pages, err := strconv.ParseUint(string(f[1]), 10, 64); err == nil {
				s.RSSBytes = float64(pages) * float64(os.Getpagesize())
				return s
			}
		}
	}
	ms := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(ms)
	if ms[0].Value.Kind() == metrics.KindUint64 && ms[1].Value.Kind() == metrics.KindUint64 {
		s.RSSBytes = float64(ms[0].Value.Uint64() - ms[1].Value.Uint64())
	}
	return s
}

// loadAverage is the machine's one-minute load average (/proc/loadavg), or
// -1 where there is none: other work on the machine skews every figure.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := bytes.Fields(b)
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(string(f[0]), 64)
	if err != nil {
		return -1
	}
	return v
}

// goroutines is for the report's notes on an in-process run.
func goroutines() int { return runtime.NumGoroutine() }
