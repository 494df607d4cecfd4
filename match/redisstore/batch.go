package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/match"
)

// Group commit. Every Append is one run of append.lua, and a round trip to
// Redis costs far more than the script: on a loaded node most of a move's
// time went to reading and writing one small command at a time, in the
// server and in Redis (and in Redis's append-only file, one write a
// command). The batcher gathers the appends of many players into one
// pipeline: the first Append that finds no pipeline free waits with the
// others, and when a pipeline comes back every waiting Append goes out in
// the next one. Under light load each Append goes out at once, alone, as
// before; under heavy load one round trip carries up to MaxBatch of them.
//
// Nothing else changes. Each Append is still its own EVALSHA of the same
// script, atomic on its own (no MULTI: one player's refusal never fails
// another's append); each caller gets its own command's reply, mapped by
// mapErr exactly as a lone call's; a caller is answered only when its own
// reply has arrived, so an acknowledged move is in Redis. go-redis resends a
// pipeline whose replies it lost, and the script answers an entry already in
// the log as a retry, so a resent batch changes nothing twice.
//
// A pipeline is a list of commands, not a transaction, and Redis Cluster
// clients split it by node, so a batch may mix rounds (and slots) freely.

// Defaults of the batcher's settings (see Config).
const (
	DefaultMaxBatch  = 128
	DefaultPipelines = 2
	// DefaultMaxQueue bounds the appends waiting for a pipeline. Each seat
	// has at most one Append in flight (its lock is held throughout), so
	// the queue holds at most one append per player playing on this node;
	// past the bound an Append fails at once as unavailable.
	DefaultMaxQueue = 1 << 16
)

// ErrClosed is the error, matching match.ErrUnavailable, of an Append
// after Close.
var ErrClosed = fmt.Errorf("%w: redisstore: the store is closed", match.ErrUnavailable)

// errQueueFull is an Append's error when MaxQueue appends already wait.
var errQueueFull = fmt.Errorf("%w: redisstore: too many appends waiting for Redis", match.ErrUnavailable)

// The states of a queued append: a caller that gives up before its append
// went out takes it back, and then it is never sent.
const (
	callQueued int32 = iota
	callSent
	callAbandoned
)

// appendCall is one Append waiting in the batcher; or, when cmd is set, a
// command (see batcher.run); or, when script is set, another script's run
// (see batcher.script). All ride in the same pipelines.
type appendCall struct {
	ctx    context.Context
	keys   []string
	args   []any
	cmd    redis.Cmder   // a command: sent as it is, its reply left in it
	script *redis.Script // a script other than append.lua: its reply goes to res
	res    *redis.Cmd
	state  atomic.Int32
	done   chan error // capacity 1: the flusher never waits on it
}

// batcher sends queued appends in pipelines, at most pipelines at a time,
// each of at most maxBatch appends. It has no goroutine while idle: the
// Append that finds a pipeline free starts a flusher, which sends what is
// queued until the queue is empty.
type batcher struct {
	c         redis.UniversalClient
	maxBatch  int
	pipelines int
	maxQueue  int

	mu      sync.Mutex
	queue   []*appendCall
	running int  // flushers
	closed  bool // Close was called
	wg      sync.WaitGroup
}

func newBatcher(c redis.UniversalClient, cfg Config) *batcher {
	b := &batcher{c: c, maxBatch: cfg.MaxBatch, pipelines: cfg.Pipelines, maxQueue: cfg.MaxQueue}
	if b.maxBatch <= 0 {
		b.maxBatch = DefaultMaxBatch
	}
	if b.pipelines <= 0 {
		b.pipelines = DefaultPipelines
	}
	if b.maxQueue <= 0 {
		b.maxQueue = DefaultMaxQueue
	}
	return b
}

// do runs append.lua with keys and args in the next pipeline and returns
// its reply's error, mapped by mapErr. When ctx ends first, do returns at
// once with an error matching match.ErrUnavailable and ctx's error; if the
// append had not gone out yet it never will, and if it had, it may still
// land (as a lone call abandoned mid-flight may).
func (b *batcher) do(ctx context.Context, keys []string, args []any) error {
	return b.enqueue(&appendCall{ctx: ctx, keys: keys, args: args})
}

// run sends cmd in the next pipeline and returns its error mapped by mapErr
// (redis.Nil stays redis.Nil); the reply is in cmd. Commands ride along
// with the others: a leaderboard's read of the standings, or a player's
// current match, costs no round trip of its own when moves are flowing,
// and at most one when they are not. go-redis may resend a pipeline whose
// replies it lost, so cmd must be safe to repeat (a read, a SET, a PUBLISH
// whose subscribers take a repeat), as it must be for a lone call, which
// go-redis resends too.
func (b *batcher) run(ctx context.Context, cmd redis.Cmder) error {
	return b.enqueue(&appendCall{ctx: ctx, cmd: cmd})
}

// script runs sc with keys and args in the next pipeline (EVALSHA, and
// EVAL when Redis lost its script cache), like sc.Run on a client: its
// reply and error are in the returned command, the error unmapped. The
// script must be safe to resend, as for run.
func (b *batcher) script(ctx context.Context, sc *redis.Script, keys []string, args ...any) *redis.Cmd {
	call := &appendCall{ctx: ctx, keys: keys, args: args, script: sc}
	if err := b.enqueue(call); err != nil {
		// Not sent (closed, full), or the caller gave up on it: call.res
		// is not ours to read.
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(err)
		return cmd
	}
	return call.res
}

func (b *batcher) enqueue(call *appendCall) error {
	ctx := call.ctx
	if err := ctx.Err(); err != nil {
		return mapErr(err)
	}
	call.done = make(chan error, 1)
	b.mu.Lock()
	switch {
	case b.closed:
		b.mu.Unlock()
		return ErrClosed
	case len(b.queue) >= b.maxQueue:
		b.mu.Unlock()
		return errQueueFull
	}
	b.queue = append(b.queue, call)
	if b.running < b.pipelines {
		b.running++
		b.wg.Add(1)
		go b.flush()
	}
	b.mu.Unlock()

	select {
	case err := <-call.done:
		return err
	case <-ctx.Done():
		// Taken back before it went out, the append is never sent; sent,
		// its reply is dropped.
		call.state.CompareAndSwap(callQueued, callAbandoned)
		return mapErr(ctx.Err())
	}
}

// flush sends what is queued, a batch a pipeline, until the queue is
// empty.
func (b *batcher) flush() {
	defer b.wg.Done()
	batch := make([]*appendCall, 0, b.maxBatch)
	var cmds []*redis.Cmd
	for {
		b.mu.Lock()
		n := min(len(b.queue), b.maxBatch)
		if n == 0 {
			b.running--
			b.mu.Unlock()
			return
		}
		batch = append(batch[:0], b.queue[:n]...)
		rest := copy(b.queue, b.queue[n:])
		clear(b.queue[rest:])
		b.queue = b.queue[:rest]
		b.mu.Unlock()
		cmds = b.send(batch, cmds)
		clear(batch)
	}
}

// send runs one batch and answers each of its callers. It returns cmds for
// reuse.
func (b *batcher) send(batch []*appendCall, cmds []*redis.Cmd) []*redis.Cmd {
	// Drop the calls whose callers gave up; the others are sent now.
	live := batch[:0]
	for _, call := range batch {
		if call.state.CompareAndSwap(callQueued, callSent) {
			live = append(live, call)
		}
	}
	if len(live) == 0 {
		return cmds
	}
	ctx, cancel := batchContext(live)
	defer cancel()
	cmds = append(cmds[:0], make([]*redis.Cmd, len(live))...)
	// The pipeline's own error is the first command's that failed; each
	// command holds its own.
	_, _ = b.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, call := range live {
			if call.cmd != nil {
				_ = p.Process(ctx, call.cmd)
				continue
			}
			cmds[i] = call.scriptOf().EvalSha(ctx, p, call.keys, call.args...)
		}
		return nil
	})
	// A Redis that lost its script cache (a restart, SCRIPT FLUSH) answers
	// NOSCRIPT without running anything: those go again with the source.
	var again []int
	for i, cmd := range cmds {
		if cmd != nil && isNoScript(cmd.Err()) {
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		_, _ = b.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, i := range again {
				cmds[i] = live[i].scriptOf().Eval(ctx, p, live[i].keys, live[i].args...)
			}
			return nil
		})
	}
	for i, call := range live {
		if call.cmd != nil {
			err := call.cmd.Err()
			if !errors.Is(err, redis.Nil) {
				err = mapErr(err)
			}
			call.done <- err
			continue
		}
		if call.script != nil {
			call.res = cmds[i] // read by the caller after done
			cmds[i] = nil
			call.done <- nil
			continue
		}
		// The reply is "OK" or "DUP" (a retry): both leave the entry in
		// the log.
		_, err := cmds[i].Text()
		call.done <- mapErr(err)
		cmds[i] = nil
	}
	return cmds
}

// scriptOf is the script a call runs.
func (call *appendCall) scriptOf() *redis.Script {
	if call.script != nil {
		return call.script
	}
	return appendScript
}

// batchContext is the context of a batch's pipeline: it ends when the last
// of its callers' deadlines passes (none if a caller has none), so a batch
// never outlives every caller's patience, while the client's read and
// write timeouts bound each round trip. A caller's cancellation does not
// end it: the others still wait for their replies.
func batchContext(calls []*appendCall) (context.Context, context.CancelFunc) {
	var latest time.Time
	for _, call := range calls {
		d, ok := call.ctx.Deadline()
		if !ok {
			return context.Background(), func() {}
		}
		if d.After(latest) {
			latest = d
		}
	}
	return context.WithDeadline(context.Background(), latest)
}

func isNoScript(err error) bool {
	return err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT"))
}

// close refuses new appends and waits until the queued ones are answered.
func (b *batcher) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.wg.Wait()
}

// Close stops the store: Append then fails with ErrClosed (which matches
// match.ErrUnavailable) at once. Close waits until every append already
// queued has its answer. It does not close the Redis client, and the
// other methods still work.
func (s *Store) Close() error {
	if s.batch != nil {
		s.batch.close()
	}
	return nil
}
