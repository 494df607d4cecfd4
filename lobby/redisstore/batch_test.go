package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/engine"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// The batcher's tests: group commit must change how appends travel, never
// what each caller is told.

// pipeHook records the size of every pipeline of EVALSHA the client sends
// and can hold the first one until released, so that the next appends queue
// behind it. It counts the scripts resent with their source (EVAL) apart.
type pipeHook struct {
	mu      sync.Mutex
	sizes   []int
	evals   int
	gate    chan struct{} // nil: never hold
	entered chan struct{} // closed when the first pipeline is held
}

func newPipeHook(hold bool) *pipeHook {
	h := &pipeHook{entered: make(chan struct{})}
	if hold {
		h.gate = make(chan struct{})
	}
	return h
}

func (h *pipeHook) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (h *pipeHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h *pipeHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		switch cmds[0].Name() {
		case "evalsha":
		case "eval":
			h.mu.Lock()
			h.evals += len(cmds)
			h.mu.Unlock()
			return next(ctx, cmds)
		default:
			return next(ctx, cmds) // the client's own, as when it opens a connection
		}
		h.mu.Lock()
		h.sizes = append(h.sizes, len(cmds))
		first := len(h.sizes) == 1
		h.mu.Unlock()
		if first && h.gate != nil {
			close(h.entered)
			<-h.gate
		}
		return next(ctx, cmds)
	}
}

func (h *pipeHook) pipelines() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]int(nil), h.sizes...)
}

// batchFixture is a store on a server of the test's own whose client has a
// pipeHook.
type batchFixture struct {
	srv  *redistest.Server
	c    redis.UniversalClient
	s    *Store
	hook *pipeHook
}

func newBatchFixture(t *testing.T, cfg Config, hold bool) *batchFixture {
	t.Helper()
	srv := redistest.Start(t)
	c := srv.Client(t)
	h := newPipeHook(hold)
	c.AddHook(h)
	// The script is loaded first, so that no NOSCRIPT resend adds a
	// pipeline.
	if err := appendScript.Load(context.Background(), c).Err(); err != nil {
		t.Fatal(err)
	}
	cfg.Prefix = redistest.Prefix(t)
	s := New(c, cfg)
	t.Cleanup(func() { s.Close() })
	return &batchFixture{srv: srv, c: c, s: s, hook: h}
}

// release lets the held pipeline go; it is safe to call twice.
func (f *batchFixture) release() {
	select {
	case <-f.hook.gate:
	default:
		close(f.hook.gate)
	}
}

// waitQueued waits until n appends wait in the batcher's queue.
func (f *batchFixture) waitQueued(t *testing.T, n int) {
	t.Helper()
	f.waitFor(t, "appends queued", n, func(b *batcher) int { return len(b.queue) })
}

// waitLingering waits until n flushers linger.
func (f *batchFixture) waitLingering(t *testing.T, n int) {
	t.Helper()
	f.waitFor(t, "flushers lingering", n, func(b *batcher) int { return b.lingering })
}

// waitFor waits until count, read under the batcher's lock, is at least n.
func (f *batchFixture) waitFor(t *testing.T, what string, n int, count func(*batcher) int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		f.s.batch.mu.Lock()
		got := count(f.s.batch)
		f.s.batch.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d %s after 10s, want %d", got, what, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func batchEntry(seq int, move string) match.LogEntry {
	return match.LogEntry{Seq: seq, Move: move, AtMs: int64(seq) * 10}
}

func batchStanding(player string, moves int) match.Standing {
	return match.Standing{PlayerID: player, Name: player, Moves: moves, Points: moves, Status: engine.Playing, FinishedMs: -1}
}

// TestBatchConcurrent has many players append at once, each its moves in
// order as a seat does: every log must be whole and in order, and the
// appends must have shared pipelines.
func TestBatchConcurrent(t *testing.T) {
	t.Parallel()
	const players, moves = 100, 20
	f := newBatchFixture(t, Config{MaxBatch: 16, Pipelines: 2}, false)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, players)
	for p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			player := fmt.Sprintf("p%d", p)
			round := fmt.Sprintf("r%d", p%7) // rounds (and slots) mixed in batches
			for seq := 1; seq <= moves; seq++ {
				if err := f.s.Append(ctx, round, 1, batchEntry(seq, "T7-F"), batchStanding(player, seq)); err != nil {
					errs <- fmt.Errorf("Append(%s, %s, seq %d): %w", round, player, seq, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for p := range players {
		player, round := fmt.Sprintf("p%d", p), fmt.Sprintf("r%d", p%7)
		log, err := f.s.Log(ctx, round, player)
		if err != nil || len(log) != moves {
			t.Fatalf("Log(%s, %s) = %d entries, %v; want %d", round, player, len(log), err, moves)
		}
		for i, e := range log {
			if e != batchEntry(i+1, "T7-F") {
				t.Fatalf("Log(%s, %s)[%d] = %+v, want %+v", round, player, i, e, batchEntry(i+1, "T7-F"))
			}
		}
	}
	sizes := f.hook.pipelines()
	total, largest := 0, 0
	for _, n := range sizes {
		total += n
		largest = max(largest, n)
	}
	if total != players*moves || largest > 16 {
		t.Errorf("%d commands in %d pipelines, the largest %d: want %d commands (one a move), at most 16 a pipeline",
			total, len(sizes), largest, players*moves)
	}
	if len(sizes) >= total {
		t.Errorf("%d pipelines for %d appends: the appends never shared a pipeline", len(sizes), total)
	}
}

// TestBatchLinger: an append within Linger of the last batch waits until
// Linger has passed, and no other flusher starts meanwhile, so the appends
// that come in the while go out together; the first append of a store goes
// at once; Close cuts a linger short.
func TestBatchLinger(t *testing.T) {
	t.Parallel()
	for _, pipes := range []int{1, 2} {
		t.Run(fmt.Sprintf("pipelines %d", pipes), func(t *testing.T) {
			t.Parallel()
			f := newBatchFixture(t, Config{Pipelines: pipes, Linger: time.Hour}, false)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// The store's first append goes at once, not an hour later.
			if err := f.s.Append(ctx, "r", 1, batchEntry(1, "T7-F"), batchStanding("a", 1)); err != nil {
				t.Fatalf("first Append: %v", err)
			}
			// Its flusher ends once the queue is empty, which may come just
			// after the caller has its answer: wait for that, or with two
			// pipelines the next append may start a second flusher beside
			// it (the test then saw two lingering).
			f.waitFor(t, "idle batchers", 1, func(b *batcher) int {
				if b.running == 0 {
					return 1
				}
				return 0
			})
			errs := make(chan error, 3)
			appendAs := func(player string) {
				errs <- f.s.Append(context.Background(), "r", 1, batchEntry(1, "T7-F"), batchStanding(player, 1))
			}
			// The next ones linger together, in one flusher (with two
			// pipelines, the second one does not take them).
			go appendAs("b")
			f.waitLingering(t, 1)
			go appendAs("c")
			go appendAs("d")
			f.waitQueued(t, 3)
			f.s.batch.mu.Lock()
			running, lingering := f.s.batch.running, f.s.batch.lingering
			f.s.batch.mu.Unlock()
			if running != 1 || lingering != 1 {
				t.Errorf("%d flushers running, %d lingering; want 1, 1", running, lingering)
			}
			if sizes := f.hook.pipelines(); len(sizes) != 1 {
				t.Fatalf("pipelines %v while the appends linger, want [1]", sizes)
			}
			// Close ends the linger (an hour): the three go out together
			// and every caller has its answer.
			go f.s.Close()
			for range 3 {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
			if sizes := f.hook.pipelines(); len(sizes) != 2 || sizes[1] != 3 {
				t.Errorf("pipelines %v, want [1 3]", sizes)
			}
		})
	}
}

// TestBatchErrorsPerCall puts appends that succeed, retry, and fail in
// every way into one pipeline: each caller gets its own answer.
func TestBatchErrorsPerCall(t *testing.T) {
	t.Parallel()
	f := newBatchFixture(t, Config{Pipelines: 1}, true)
	ctx := context.Background()
	// Setup, before the hook holds anything: bypass it with lone script
	// calls on the same keys, by a store of their own.
	setup := New(f.c, Config{Prefix: f.s.prefix})
	for _, p := range []string{"ok", "dup", "conflict", "gap", "stale"} {
		if err := plainAppend(ctx, setup, "r", 5, batchEntry(1, "T7-F"), batchStanding(p, 1)); err != nil {
			t.Fatalf("setup Append(%s): %v", p, err)
		}
	}

	// The first append holds the only pipeline; the others queue behind
	// it and go together.
	first := make(chan error, 1)
	go func() { first <- f.s.Append(ctx, "r", 5, batchEntry(2, "DR"), batchStanding("ok", 2)) }()
	<-f.hook.entered

	cases := []struct {
		player string
		epoch  uint64
		e      match.LogEntry
		want   error
	}{
		{"new", 5, batchEntry(1, "DR"), nil},
		{"dup", 5, batchEntry(1, "T7-F"), nil}, // a retry of the entry in the log
		{"conflict", 5, batchEntry(1, "W-T3"), match.ErrSeqConflict},
		{"gap", 5, batchEntry(3, "DR"), match.ErrSeqGap},
		{"stale", 4, batchEntry(2, "DR"), match.ErrStaleWriter},
		{"newer", 6, batchEntry(1, "DR"), nil},
	}
	got := make([]chan error, len(cases))
	for i, c := range cases {
		got[i] = make(chan error, 1)
		go func() { got[i] <- f.s.Append(ctx, "r", c.epoch, c.e, batchStanding(c.player, c.e.Seq)) }()
	}
	f.waitQueued(t, len(cases))
	f.release()
	if err := <-first; err != nil {
		t.Errorf("the first Append: %v", err)
	}
	for i, c := range cases {
		err := <-got[i]
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("Append(%s, epoch %d, %+v) = %v, want %v", c.player, c.epoch, c.e, err, c.want)
		}
	}
	if sizes := f.hook.pipelines(); len(sizes) != 2 || sizes[1] != len(cases) {
		t.Errorf("pipelines of %v commands, want [1 %d]", sizes, len(cases))
	}
	if log, err := f.s.Log(ctx, "r", "conflict"); err != nil || len(log) != 1 || log[0].Move != "T7-F" {
		t.Errorf("Log(conflict) = %+v, %v: want the first entry alone", log, err)
	}
}

// TestBatchContextCancel: a caller that gives up while its append waits
// for a pipeline is answered at once, and its append is never sent; the
// others in the batch are not disturbed.
func TestBatchContextCancel(t *testing.T) {
	t.Parallel()
	f := newBatchFixture(t, Config{Pipelines: 1}, true)
	bg := context.Background()
	first := make(chan error, 1)
	go func() { first <- f.s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("a", 1)) }()
	<-f.hook.entered

	ctx, cancel := context.WithCancel(bg)
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- f.s.Append(ctx, "r", 1, batchEntry(1, "DR"), batchStanding("b", 1)) }()
	kept := make(chan error, 1)
	go func() { kept <- f.s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("c", 1)) }()
	f.waitQueued(t, 2)
	cancel()
	select {
	case err := <-gaveUp:
		if !errors.Is(err, match.ErrUnavailable) || !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled Append = %v, want an error matching ErrUnavailable and context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled Append still waits for the held pipeline")
	}
	f.release()
	if err := <-first; err != nil {
		t.Errorf("first Append: %v", err)
	}
	if err := <-kept; err != nil {
		t.Errorf("Append in the batch of a cancelled one: %v", err)
	}
	if log, err := f.s.Log(bg, "r", "b"); err != nil || len(log) != 0 {
		t.Errorf("Log of the cancelled append's player = %+v, %v: want it empty, the append never sent", log, err)
	}
	if sizes := f.hook.pipelines(); len(sizes) != 2 || sizes[1] != 1 {
		t.Errorf("pipelines of %v commands, want [1 1]: the cancelled append left out", sizes)
	}

	// A context already done never queues.
	if err := f.s.Append(ctx, "r", 1, batchEntry(2, "DR"), batchStanding("a", 2)); !errors.Is(err, match.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("Append with a done context = %v, want ErrUnavailable and context.Canceled", err)
	}
}

// TestBatchRedisDown: with Redis gone, every waiting caller gets an error
// matching ErrUnavailable within its deadline; when Redis is back, appends
// work again.
func TestBatchRedisDown(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	opts := srv.UniversalOptions()
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout, opts.MaxRetries = 200*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond, 1
	c := redis.NewUniversalClient(opts)
	defer c.Close()
	s := New(c, Config{Prefix: redistest.Prefix(t), Pipelines: 1})
	defer s.Close()
	bg := context.Background()
	if err := s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("a", 1)); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	const callers = 20
	errs := make(chan error, callers)
	start := time.Now()
	for i := range callers {
		go func() {
			ctx, cancel := context.WithTimeout(bg, 3*time.Second)
			defer cancel()
			errs <- s.Append(ctx, "r", 1, batchEntry(1, "DR"), batchStanding(fmt.Sprintf("p%d", i), 1))
		}()
	}
	for range callers {
		if err := <-errs; !errors.Is(err, match.ErrUnavailable) {
			t.Errorf("Append with Redis down = %v, want an error matching ErrUnavailable", err)
		}
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("the callers were answered after %v, beyond their 3s deadline", el)
	}
	srv.Start(t)
	var err error
	for range 50 { // the pool's dead connections go first
		// A new player: the killed server lost the round (no AOF).
		if err = s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("z", 1)); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Errorf("Append after Redis came back: %v", err)
	}
}

// TestBatchClosed: Close answers what is queued, then refuses; a closed
// client gives unavailable too.
func TestBatchClosed(t *testing.T) {
	t.Parallel()
	f := newBatchFixture(t, Config{Pipelines: 1}, true)
	bg := context.Background()
	first := make(chan error, 1)
	go func() { first <- f.s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("a", 1)) }()
	<-f.hook.entered
	queued := make(chan error, 1)
	go func() { queued <- f.s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("b", 1)) }()
	f.waitQueued(t, 1)
	closed := make(chan struct{})
	go func() { f.s.Close(); close(closed) }()
	// Close has begun (the store refuses) but waits for the queue.
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.s.batch.mu.Lock()
		c := f.s.batch.closed
		f.s.batch.mu.Unlock()
		if c {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Close did not begin")
		}
		time.Sleep(time.Millisecond)
	}
	if err := f.s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("c", 1)); !errors.Is(err, ErrClosed) || !errors.Is(err, match.ErrUnavailable) {
		t.Errorf("Append while closing = %v, want ErrClosed, matching ErrUnavailable", err)
	}
	select {
	case <-closed:
		t.Fatal("Close returned with appends still queued")
	case <-time.After(50 * time.Millisecond):
	}
	f.release()
	<-closed
	for name, ch := range map[string]chan error{"held": first, "queued": queued} {
		if err := <-ch; err != nil {
			t.Errorf("the %s Append across Close: %v", name, err)
		}
	}
	if err := f.s.Append(bg, "r", 1, batchEntry(2, "DR"), batchStanding("a", 2)); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}

	// A store whose client is closed.
	s := New(f.srv.Client(t), Config{Prefix: redistest.Prefix(t)})
	defer s.Close()
	s.c.Close()
	if err := s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("a", 1)); !errors.Is(err, match.ErrUnavailable) {
		t.Errorf("Append on a closed client = %v, want an error matching ErrUnavailable", err)
	}
}

// TestBatchQueueBound: past MaxQueue waiting appends, Append fails at once
// as unavailable.
func TestBatchQueueBound(t *testing.T) {
	t.Parallel()
	f := newBatchFixture(t, Config{Pipelines: 1, MaxQueue: 2}, true)
	bg := context.Background()
	results := make(chan error, 3)
	go func() { results <- f.s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("a", 1)) }()
	<-f.hook.entered
	for _, p := range []string{"b", "c"} {
		go func() { results <- f.s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding(p, 1)) }()
	}
	f.waitQueued(t, 2)
	if err := f.s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("d", 1)); !errors.Is(err, match.ErrUnavailable) {
		t.Errorf("Append past MaxQueue = %v, want an error matching ErrUnavailable", err)
	}
	f.release()
	for range 3 {
		if err := <-results; err != nil {
			t.Errorf("queued Append: %v", err)
		}
	}
}

// TestBatchScriptFlush: a batch on a Redis that lost its scripts still
// runs each append exactly once.
func TestBatchScriptFlush(t *testing.T) {
	t.Parallel()
	f := newBatchFixture(t, Config{Pipelines: 1}, true)
	bg := context.Background()
	first := make(chan error, 1)
	go func() { first <- f.s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding("a", 1)) }()
	<-f.hook.entered
	const n = 10
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- f.s.Append(bg, "r", 1, batchEntry(1, "DR"), batchStanding(fmt.Sprintf("p%d", i), 1)) }()
	}
	f.waitQueued(t, n)
	if _, err := f.srv.Do("SCRIPT", "FLUSH"); err != nil {
		t.Fatal(err)
	}
	f.release()
	if err := <-first; err != nil {
		t.Errorf("first Append: %v", err)
	}
	for range n {
		if err := <-errs; err != nil {
			t.Errorf("Append after SCRIPT FLUSH: %v", err)
		}
	}
	f.hook.mu.Lock()
	evals := f.hook.evals
	f.hook.mu.Unlock()
	if evals == 0 {
		t.Error("no append was resent with the script's source after SCRIPT FLUSH")
	}
	for i := range n {
		if log, err := f.s.Log(bg, "r", fmt.Sprintf("p%d", i)); err != nil || len(log) != 1 {
			t.Errorf("Log(p%d) = %+v, %v: want one entry", i, log, err)
		}
	}
}

// TestBatchReadsRide checks that a read of the standings goes out in the
// appends' next pipeline, after the appends queued before it, and answers
// from its own reply.
func TestBatchReadsRide(t *testing.T) {
	t.Parallel()
	f := newBatchFixture(t, Config{MaxBatch: 16, Pipelines: 1}, true)
	ctx := context.Background()
	first := make(chan error, 1)
	go func() { first <- f.s.Append(ctx, "r", 1, batchEntry(1, "D"), batchStanding("a", 1)) }()
	<-f.hook.entered // a's append is held in the only pipeline
	second := make(chan error, 1)
	go func() { second <- f.s.Append(ctx, "r", 1, batchEntry(1, "D"), batchStanding("b", 1)) }()
	f.waitQueued(t, 1)
	type read struct {
		sts []match.Standing
		err error
	}
	got := make(chan read, 1)
	go func() {
		sts, err := f.s.Standings(ctx, "r")
		got <- read{sts, err}
	}()
	f.waitQueued(t, 2)
	f.release()
	for _, ch := range []chan error{first, second} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	r := <-got
	if r.err != nil || len(r.sts) != 2 {
		t.Fatalf("Standings = %+v, %v; want a's and b's", r.sts, r.err)
	}
	if sizes := f.hook.pipelines(); len(sizes) != 2 || sizes[0] != 1 || sizes[1] != 2 {
		t.Fatalf("pipelines %v, want [1 2]: b's append and the read in one", sizes)
	}
	// A round with no standings is still ErrNotFound through the batcher.
	if _, err := f.s.Standings(ctx, "nope"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("Standings of an unknown round: %v, want ErrNotFound", err)
	}
}
