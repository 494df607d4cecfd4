package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"klondike/api/protocol"
)

// bulk-challenges: one address makes new players as fast as it may, and
// each makes challenges until refused; with --attack-server2 the players
// alternate between two nodes (sharing one Redis), to see whether the
// limits count per node or across the cluster.

// bulkChallengesResult is what bulk-challenges saw.
type bulkChallengesResult struct {
	Source  string   `json:"source_address"`
	Servers []string `json:"servers"`
	// Players and Challenges are by server, in the order of Servers.
	Players    []int   `json:"players"`
	Challenges []int   `json:"challenges"`
	FirstMin   int     `json:"challenges_first_minute"`
	LaterRate  float64 `json:"challenges_a_minute_after"`
	ElapsedS   float64 `json:"elapsed_s"`
	Refused    tally   `json:"refused"`
	// HeapGrowth is each server's heap in use after less before, bytes.
	HeapGrowth []float64 `json:"heap_growth_bytes"`
}

// bulkChallenges runs makerWorkers workers for --duration, at most
// --attack-conns players in all: each makes a new player from one
// address (a refused hello waits 1/--attack-rate before the next), which
// makes challenges until refused and leaves.
func bulkChallenges(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	servers := []string{t.wsURL}
	targets := []*target{t}
	if ac.Server2 != "" {
		t2, err := newTarget(ac.Server2)
		if err != nil {
			return nil, fmt.Errorf("--attack-server2: %w", err)
		}
		servers, targets = append(servers, ac.Server2), append(targets, t2)
	}
	src := attackAddr(0)
	r := &bulkChallengesResult{Source: src, Servers: servers, Players: make([]int, len(servers)),
		Challenges: make([]int, len(servers)), HeapGrowth: make([]float64, len(servers)), Refused: tally{}}
	heap0 := make([]float64, len(targets))
	for i, tg := range targets {
		if m, err := tg.metrics(ctx); err == nil {
			heap0[i] = m.heap()
		}
	}
	start := time.Now()
	until := start.Add(ac.Duration)
	pause := time.Duration(float64(time.Second) / max(ac.Rate, 0.01))
	var mu sync.Mutex
	var made []time.Duration // when each challenge was made, from the start
	n := 0
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if n >= ac.Conns || time.Now().After(until) || ctx.Err() != nil {
			return 0, false
		}
		n++
		return n - 1, true
	}
	var wg sync.WaitGroup
	for range makerWorkers {
		wg.Go(func() {
			for {
				i, ok := take()
				if !ok {
					return
				}
				s := i % len(servers)
				c, _, why := t.newPlayerFrom(ctx, src, servers[s], fmt.Sprintf("maker%d", i))
				if why != "" {
					mu.Lock()
					r.Refused[why]++
					mu.Unlock()
					sleepCtx(ctx, min(pause, time.Until(until)))
					continue
				}
				mu.Lock()
				r.Players[s]++
				mu.Unlock()
				pc := newPacer(attemptRate)
				for range maxChallengesPlayer {
					if !pc.wait(ctx, until) {
						break
					}
					_, err := c.createChallenge(3, 0)
					mu.Lock()
					if err != nil {
						r.Refused[refusal(protocol.TypeCreateChallenge, err)]++
					} else {
						r.Challenges[s]++
						made = append(made, time.Since(start))
					}
					mu.Unlock()
					if err != nil {
						break
					}
				}
				c.close()
			}
		})
	}
	wg.Wait()
	r.ElapsedS = time.Since(start).Seconds()
	later := 0
	for _, at := range made {
		if at < time.Minute {
			r.FirstMin++
		} else {
			later++
		}
	}
	if r.ElapsedS > 61 {
		r.LaterRate = float64(later) / (r.ElapsedS - 60) * 60
	}
	for i, tg := range targets {
		if m, err := tg.metrics(ctx); err == nil {
			r.HeapGrowth[i] = m.heap() - heap0[i]
		}
	}
	return r, nil
}

func (r *bulkChallengesResult) lines() []string {
	total, players := 0, 0
	for i := range r.Servers {
		total += r.Challenges[i]
		players += r.Players[i]
	}
	l := []string{fmt.Sprintf("from %s for %.1f s: %d new players, %d challenges (%.0f a minute overall)",
		r.Source, r.ElapsedS, players, total, float64(total)/max(r.ElapsedS, 0.001)*60)}
	l = append(l, fmt.Sprintf("challenges made in the first minute: %d", r.FirstMin))
	if r.LaterRate > 0 {
		l = append(l, fmt.Sprintf("after the first minute: %.0f a minute", r.LaterRate))
	}
	for i, s := range r.Servers {
		per := ""
		if r.Challenges[i] > 0 {
			per = fmt.Sprintf(", %.0f bytes a challenge", r.HeapGrowth[i]/float64(r.Challenges[i]))
		}
		l = append(l, fmt.Sprintf("%s: %d players, %d challenges; its heap grew %.1f MB%s",
			s, r.Players[i], r.Challenges[i], r.HeapGrowth[i]/1e6, per))
	}
	return append(l, fmt.Sprintf("refused: %s", r.Refused),
		"  (heap growth is the memory store's cost, with the GC's noise; with Redis, read its used_memory)")
}
