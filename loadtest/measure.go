package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/redis/go-redis/v9"
)

// readings are the figures read before the bots start and again once they
// have gone; the report shows their differences.
type readings struct {
	proc      procSample    // the server's process (or this one, which holds it)
	clientCPU time.Duration // this process's CPU time
	redisCmds int64         // the commands the embedded server sent to Redis
	redisInfo redisInfo     // Redis's INFO, when the run reads it
}

// sample reads the server's process: an external server's /metrics, or
// this process, which holds the embedded server (or the echo) and the bots.
func (r *runner) sample(ctx context.Context, logw io.Writer) procSample {
	if r.cfg.Server != "" {
		sctx, cancel := context.WithTimeout(ctx, httpTimeout)
		defer cancel()
		s, err := scrape(sctx, r.http, r.httpBase+"/metrics")
		if err != nil {
			fmt.Fprintf(logw, "loadtest: reading the server's /metrics: %v\n", err)
		}
		return s
	}
	return selfSample()
}

// readBefore reads the machine, the server and Redis (info, when not nil)
// before the bots start.
func (r *runner) readBefore(ctx context.Context, rep *Report, info *redis.Client, logw io.Writer) (readings, error) {
	var before readings
	rep.CPUs, rep.LoadBefore = runtime.NumCPU(), loadAverage()
	before.clientCPU, _ = selfCPU()
	before.proc = r.sample(ctx, logw)
	if r.redis != nil {
		before.redisCmds = r.redis.Commands()
	}
	if info != nil {
		var err error
		if before.redisInfo, err = readRedisInfo(ctx, info); err != nil {
			return before, fmt.Errorf("reading Redis's INFO: %w", err)
		}
	}
	return before, nil
}

// readAfter reads the same figures once the bots have gone, and puts
// Redis's share of the work in the report.
func (r *runner) readAfter(ctx context.Context, rep *Report, info *redis.Client, before readings, logw io.Writer) readings {
	var after readings
	after.proc = r.sample(ctx, logw)
	if r.redis != nil || info != nil {
		rep.Redis = &redisReport{}
	}
	acked := float64(r.c.movesAcked.Load())
	if r.redis != nil {
		after.redisCmds = r.redis.Commands()
		rep.Redis.Commands = after.redisCmds - before.redisCmds
		if acked > 0 {
			rep.Redis.PerMove = float64(rep.Redis.Commands) / acked
		}
	}
	if info != nil {
		if infoAfter, err := readRedisInfo(ctx, info); err != nil {
			fmt.Fprintf(logw, "loadtest: reading Redis's INFO after the run: %v\n", err)
		} else {
			after.redisInfo = infoAfter
			rep.Redis.CPUSeconds = infoAfter.CPUSeconds - before.redisInfo.CPUSeconds
			rep.Redis.Reads = infoAfter.Reads - before.redisInfo.Reads
			if acked > 0 {
				rep.Redis.CPUPerMoveUs = rep.Redis.CPUSeconds * 1e6 / acked
				rep.Redis.ReadsPerMove = float64(rep.Redis.Reads) / acked
			}
		}
	}
	after.clientCPU, _ = selfCPU()
	rep.LoadAfter = loadAverage()
	rep.Goroutines = goroutines()
	return after
}

// measureIdle reads the server while every bot is connected and idle: its
// memory now, less before, is what the connections hold.
func (r *runner) measureIdle(ctx context.Context, before procSample, logw io.Writer) *idleReport {
	held := r.sample(ctx, logw)
	idle := &idleReport{Welcomed: r.c.welcomed.Load(), Held: held}
	if r.cfg.MemProfile != "" {
		// With every bot connected: where the connections' memory is.
		writeHeapProfile(r.cfg.MemProfile)
	}
	if n := idle.Welcomed; n > 0 && held.OK && before.OK {
		idle.RSSPerConn = (held.RSSBytes - before.RSSBytes) / float64(n)
		idle.HeapPerConn = (held.HeapInuse - before.HeapInuse) / float64(n)
		idle.StackPerConn = (held.StackInuse - before.StackInuse) / float64(n)
		idle.GoroutinesPerConn = (held.Goroutines - before.Goroutines) / float64(n)
	}
	return idle
}

// startProfiles starts the CPU profile and the execution trace the flags
// ask for; the returned function stops them and closes their files.
func startProfiles(cfg *config) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if cfg.CPUProfile != "" {
		f, err := os.Create(cfg.CPUProfile)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
	}
	if cfg.Trace != "" {
		f, err := os.Create(cfg.Trace)
		if err != nil {
			stop()
			return nil, err
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			stop()
			return nil, err
		}
		stops = append(stops, func() { trace.Stop(); f.Close() })
	}
	return stop, nil
}

// writeHeapProfile writes a heap profile after a collection, so that its
// in-use figures are up to date.
func writeHeapProfile(name string) {
	runtime.GC()
	if f, err := os.Create(name); err == nil {
		_ = pprof.WriteHeapProfile(f)
		f.Close()
	}
}
