package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/match"
)

// Group commit. Every Append is one run of append.lua, and a round trip to
// Redis costs far more than the script: sent one small command at a time,
// a loaded node's moves would spend most of their time being read and
// written, in the server and in Redis (and in Redis's append-only file,
// one write a command). The batcher gathers the appends of many players
// into one pipeline: the first Append that finds no pipeline free waits
// with the others, and when a pipeline comes back every waiting Append
// goes out in the next one. Under light load each Append goes out at once,
// alone; under heavy load one round trip carries up to MaxBatch of them.
//
// Nothing else changes. Each Append is still its own EVALSHA of the same
// script, atomic on its own (no MULTI: one player's refusal never fails
// another's append); each caller gets its own command's reply, mapped by
// mapErr exactly as a lone call's; a caller is answered only when its own
// reply has arrived, so an acknowledged move is in Redis (and with
// DurabilityReplica in a replica too: a WAIT follows the batch's appends,
// see sendNodes and Durability in the package doc). go-redis resends a
// pipeline whose replies it lost, and the script answers an entry already in
// the log as a retry, so a resent batch changes nothing twice.
//
// A pipeline is a list of commands, not a transaction, and Redis Cluster
// clients split it by node, so a batch may mix rounds (and slots) freely.
//
// Linger. A batch costs both processes a write, a read and a wakeup or
// two, whatever it holds, and at a few thousand moves a second a pipeline
// that comes back finds only one or two appends waiting. So while moves
// keep coming, batches go out at most one a Linger: a flusher about to
// send less than a full batch within Linger of the last batch (its own or
// another flusher's) waits until Linger has passed, and meanwhile no other
// flusher starts. An Append on a store that sent nothing for Linger goes
// out at once, so a quiet store adds no delay; a busy one adds at most
// Linger to a move's answer, and in return both processes spend less CPU
// a move on fewer, larger batches.

// Defaults of the batcher's settings (see Config).
const (
	DefaultMaxBatch  = 128
	DefaultPipelines = 2
	// DefaultMaxQueue bounds the appends waiting for a pipeline. Each seat
	// has at most one Append in flight (its lock is held throughout), so
	// the queue holds at most one append per player playing on this node;
	// past the bound an Append fails at once as unavailable.
	DefaultMaxQueue = 1 << 16
	// DefaultLinger is the shortest time between two batches while
	// appends keep coming (see Linger above).
	DefaultLinger = time.Millisecond
	// ReplicaTimeout is the longest a batch's WAIT waits for a replica
	// with DurabilityReplica, or half the client's read timeout if that is
	// shorter. A replica that is up acknowledges within a round trip (a
	// master with a client waiting asks its replicas at once), and one
	// that is busy (a fork, a slow disk) within a few hundred milliseconds;
	// beyond that it is as good as gone, and the moves had better fail as
	// unavailable, to be retried, than hang. The WAIT's reply must also
	// come before the client's read timeout (DefaultIOTimeout), or go-redis
	// would take the silence for a dead connection and send the whole batch
	// again; and a move's deadline (seconds) leaves room for retries.
	ReplicaTimeout = 500 * time.Millisecond
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

// appendCall is one Append waiting in the batcher, its command in a (see
// appendargs.go; such calls are pooled); or, when cmd is set, a command
// (see batcher.run); or, when script is set, another script's run (see
// batcher.script). All ride in the same pipelines.
type appendCall struct {
	ctx    context.Context
	keys   []string
	args   []any
	a      *appendArgs   // an Append's command (pooled)
	cmd    redis.Cmder   // a command: sent as it is, its reply left in it
	script *redis.Script // a script other than append.lua: its reply goes to res
	res    *redis.Cmd
	// ctx's deadline, read by the caller when it queues the call: the
	// flusher never touches ctx, which may be reused once its caller
	// gave up (the api's command contexts live in pooled messages).
	deadline    time.Time
	hasDeadline bool
	state       atomic.Int32
	done        chan error // capacity 1: the flusher never waits on it
}

// flushBufs are a flusher's reusable buffers, kept by the batcher between
// flushers.
type flushBufs struct {
	batch []*appendCall
	cmds  []*redis.Cmd
	pipe  redis.Pipeliner // empty between batches: Exec leaves it so
	// With DurabilityReplica on a cluster: the batch's parts, one a master
	// (its appends) and rest (everything else), and the masters' parts of
	// earlier batches, with their pipelines, for reuse.
	parts []*batchPart
	rest  batchPart
	spare map[*redis.Client]*batchPart
}

// maxSpareParts bounds the masters' parts a flusher keeps.
const maxSpareParts = 64

// batchPart is some of a batch's calls, sent in one pipeline: idx are
// their places in the batch, cmds their commands.
type batchPart struct {
	pipe  redis.Pipeliner
	idx   []int
	calls []*appendCall
	cmds  []*redis.Cmd
	acked bool // its WAIT saw a replica
}

func (pt *batchPart) reset() {
	clear(pt.calls)
	clear(pt.cmds)
	pt.idx, pt.calls, pt.cmds = pt.idx[:0], pt.calls[:0], pt.cmds[:0]
	pt.acked = false
}

func (pt *batchPart) add(i int, call *appendCall) {
	pt.idx = append(pt.idx, i)
	pt.calls = append(pt.calls, call)
	pt.cmds = append(pt.cmds, nil)
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
	linger    time.Duration // 0: none
	// With DurabilityReplica: replica is set, waitMs is WAIT's timeout,
	// and cluster is the client if it is a cluster's (see sendNodes).
	replica bool
	waitMs  int64
	cluster *redis.ClusterClient

	mu        sync.Mutex
	queue     []*appendCall
	spare     []*flushBufs  // of flushers that ended
	running   int           // flushers
	lingering int           // flushers waiting for their next batch's time
	lastSend  time.Time     // when the last batch went out
	closed    bool          // Close was called
	closing   chan struct{} // closed by close: lingering flushers go at once
	wg        sync.WaitGroup

	flushFn func() // b.flush, made once: "go b.flush()" allocates a closure each time
}

// newBatcher returns the client's batcher; it panics on a bad durability.
func newBatcher(c redis.UniversalClient, cfg Config) *batcher {
	if err := checkDurability(cfg.Durability); err != nil {
		panic(err)
	}
	b := &batcher{c: c, maxBatch: cfg.MaxBatch, pipelines: cfg.Pipelines, maxQueue: cfg.MaxQueue,
		linger: cfg.Linger, closing: make(chan struct{})}
	if cfg.Durability == DurabilityReplica {
		b.replica = true
		b.waitMs = replicaWait(c).Milliseconds()
		b.cluster, _ = c.(*redis.ClusterClient)
	}
	switch {
	case b.linger == 0:
		b.linger = DefaultLinger
	case b.linger < 0:
		b.linger = 0
	}
	if b.maxBatch <= 0 {
		b.maxBatch = DefaultMaxBatch
	}
	if b.pipelines <= 0 {
		b.pipelines = DefaultPipelines
	}
	if b.maxQueue <= 0 {
		b.maxQueue = DefaultMaxQueue
	}
	b.flushFn = b.flush
	return b
}

// doAppend runs the call's append.lua command (filled by appendArgs.fill)
// in the next pipeline and returns its reply's error, mapped by mapErr.
// When ctx ends first, doAppend returns at once with an error matching
// match.ErrUnavailable and ctx's error; if the append had not gone out yet
// it never will, and if it had, it may still land (as a lone call abandoned
// mid-flight may). The call goes back to the pool when it is the caller's
// again (see appendargs.go), after its outcome is noted in the key cache.
func (b *batcher) doAppend(ctx context.Context, s *Store, call *appendCall) error {
	call.ctx = ctx
	pk := call.a.pk // the call is not ours to read once given up on
	mine, err := b.enqueue(call)
	if !mine {
		// Given up on: it may land yet, or not.
		pk.forgetRank()
		return err
	}
	call.a.note(s, err)
	putAppendCall(call)
	return err
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
	_, err := b.enqueue(&appendCall{ctx: ctx, cmd: cmd})
	return err
}

// script runs sc with keys and args in the next pipeline (EVALSHA, and
// EVAL when Redis lost its script cache), like sc.Run on a client: its
// reply and error are in the returned command, the error unmapped. The
// script must be safe to resend, as for run.
func (b *batcher) script(ctx context.Context, sc *redis.Script, keys []string, args ...any) *redis.Cmd {
	call := &appendCall{ctx: ctx, keys: keys, args: args, script: sc}
	if _, err := b.enqueue(call); err != nil {
		// Not sent (closed, full), or the caller gave up on it: call.res
		// is not ours to read.
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(err)
		return cmd
	}
	return call.res
}

// enqueue queues the call and waits for its answer or its context's end.
// mine reports whether the call is the caller's again: it was never
// queued, or it was answered; not when the caller gave up on it.
func (b *batcher) enqueue(call *appendCall) (mine bool, err error) {
	ctx := call.ctx
	if err := ctx.Err(); err != nil {
		return true, mapErr(err)
	}
	if call.done == nil {
		call.done = make(chan error, 1)
	}
	call.deadline, call.hasDeadline = ctx.Deadline()
	b.mu.Lock()
	switch {
	case b.closed:
		b.mu.Unlock()
		return true, ErrClosed
	case len(b.queue) >= b.maxQueue:
		b.mu.Unlock()
		return true, errQueueFull
	}
	b.queue = append(b.queue, call)
	// A lingering flusher takes the queue when its time comes; another
	// starts only when a full batch waits.
	if b.running < b.pipelines && (b.lingering == 0 || len(b.queue) >= b.maxBatch) {
		b.running++
		b.wg.Add(1)
		go b.flushFn()
	}
	b.mu.Unlock()

	select {
	case err := <-call.done:
		return true, err
	case <-ctx.Done():
		// Taken back before it went out, the append is never sent (and the
		// flusher drops it); sent, its reply is dropped.
		call.state.CompareAndSwap(callQueued, callAbandoned)
		return false, mapErr(ctx.Err())
	}
}

// flush sends what is queued, a batch a pipeline, until the queue is
// empty.
func (b *batcher) flush() {
	defer b.wg.Done()
	var fb *flushBufs
	var timer *time.Timer
	for {
		b.mu.Lock()
		// Linger: wait (the lock released) while the last batch, of any
		// flusher, went out less than linger ago and the queue holds less
		// than a full batch; once more if another flusher sent one
		// meanwhile.
		for b.linger > 0 && !b.closed && len(b.queue) > 0 && len(b.queue) < b.maxBatch {
			d := b.linger - time.Since(b.lastSend)
			if d <= 0 {
				break
			}
			b.lingering++
			b.mu.Unlock()
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			select {
			case <-timer.C:
			case <-b.closing:
				timer.Stop()
			}
			b.mu.Lock()
			b.lingering--
		}
		if fb == nil {
			if k := len(b.spare); k > 0 {
				fb = b.spare[k-1]
				b.spare[k-1] = nil
				b.spare = b.spare[:k-1]
			} else {
				fb = &flushBufs{batch: make([]*appendCall, 0, b.maxBatch), pipe: b.c.Pipeline()}
			}
		}
		n := min(len(b.queue), b.maxBatch)
		if n == 0 {
			b.running--
			b.spare = append(b.spare, fb)
			b.mu.Unlock()
			return
		}
		fb.batch = append(fb.batch[:0], b.queue[:n]...)
		rest := copy(b.queue, b.queue[n:])
		clear(b.queue[rest:])
		b.queue = b.queue[:rest]
		b.lastSend = time.Now()
		b.mu.Unlock()
		b.send(fb)
		clear(fb.batch)
	}
}

// send runs fb's batch and answers each of its callers.
func (b *batcher) send(fb *flushBufs) {
	// Drop the calls whose callers gave up; the others are sent now.
	live := fb.batch[:0]
	for _, call := range fb.batch {
		if call.state.CompareAndSwap(callQueued, callSent) {
			live = append(live, call)
		} else if call.a != nil {
			putAppendCall(call) // abandoned, and never sent: ours
		}
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := batchContext(live)
	defer cancel()
	cmds := slices.Grow(fb.cmds[:0], len(live))[:len(live)]
	clear(cmds)
	fb.cmds = cmds
	switch {
	case !b.replica:
		b.exec(ctx, fb.pipe, live, cmds, false)
	case b.cluster != nil:
		b.sendNodes(ctx, fb, live, cmds)
	default:
		if !b.exec(ctx, fb.pipe, live, cmds, hasAppend(live)) {
			notReplicated(live, cmds)
		}
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
		cmds[i] = nil
		call.done <- mapErr(err) // the call is the caller's from here
	}
}

// exec sends calls in p, each call's command in cmds (cmds[i] for calls[i];
// a call with a cmd of its own keeps its reply there), and with wait a
// WAIT for one replica after them, on the pipeline's connection. It
// reports whether that WAIT (and the one after a resend, below) saw a
// replica take the writes; without wait, true.
func (b *batcher) exec(ctx context.Context, p redis.Pipeliner, calls []*appendCall, cmds []*redis.Cmd, wait bool) (acked bool) {
	// The pipeline's own error is the first command's that failed; each
	// command holds its own. (p.Exec is what Pipelined runs after its
	// function; it leaves p empty for the next batch.)
	for i, call := range calls {
		switch {
		case call.cmd != nil:
			_ = p.Process(ctx, call.cmd)
		case call.a != nil:
			cmds[i] = call.a.command(ctx)
			_ = p.Process(ctx, cmds[i])
		default:
			cmds[i] = call.scriptOf().EvalSha(ctx, p, call.keys, call.args...)
		}
	}
	acked = b.execWait(ctx, p, wait)
	// A Redis that lost its script cache (a restart, SCRIPT FLUSH) answers
	// NOSCRIPT without running anything: those go again with the source.
	var again []int
	for i, cmd := range cmds {
		if cmd != nil && isNoScript(cmd.Err()) {
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		for _, i := range again {
			if a := calls[i].a; a != nil {
				a.argv[0], a.argv[1] = "eval", appendSrcArg
				cmds[i] = a.command(ctx)
				_ = p.Process(ctx, cmds[i])
				continue
			}
			cmds[i] = calls[i].scriptOf().Eval(ctx, p, calls[i].keys, calls[i].args...)
		}
		acked = b.execWait(ctx, p, wait) && acked
	}
	return acked
}

// execWait runs p's commands, with wait followed by a WAIT for one
// replica, and reports whether the WAIT saw one (without wait, true).
func (b *batcher) execWait(ctx context.Context, p redis.Pipeliner, wait bool) bool {
	if !wait {
		_, _ = p.Exec(ctx)
		return true
	}
	w := redis.NewIntCmd(ctx, "wait", 1, b.waitMs)
	_ = p.Process(ctx, w)
	_, _ = p.Exec(ctx)
	return w.Err() == nil && w.Val() >= 1
}

// sendNodes sends a batch to a Redis Cluster with DurabilityReplica. The
// cluster client splits a pipeline by node on connections of its own
// choosing, and it will not carry a WAIT (a command for every shard), so
// the batch's appends go master by master instead, each master's in a
// pipeline of the master's own client with a WAIT after them, on the same
// connection; everything else goes in the cluster's pipeline, as without
// replicas. The masters' pipelines do not follow a redirect: an append
// refused as MOVED or ASK (a slot moving, a failover) fails as unavailable,
// having written nothing, and the client's map of slots is read again for
// the retry.
func (b *batcher) sendNodes(ctx context.Context, fb *flushBufs, live []*appendCall, cmds []*redis.Cmd) {
	if fb.spare == nil || len(fb.spare) > maxSpareParts {
		// Masters come and go (a failover, a resharding): the parts of
		// those gone are dropped now and then, with the others.
		fb.spare = map[*redis.Client]*batchPart{}
	}
	fb.rest.pipe = fb.pipe
	for i, call := range live {
		if call.a == nil {
			fb.rest.add(i, call)
			continue
		}
		node, err := b.cluster.MasterForKey(ctx, call.a.pk.log.(string))
		if err != nil {
			cmds[i] = call.a.command(ctx)
			cmds[i].SetErr(err)
			continue
		}
		pt := fb.spare[node]
		if pt == nil {
			pt = &batchPart{pipe: node.Pipeline()}
			fb.spare[node] = pt
		}
		if len(pt.idx) == 0 {
			fb.parts = append(fb.parts, pt)
		}
		pt.add(i, call)
	}
	var wg sync.WaitGroup
	for _, pt := range fb.parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pt.acked = b.exec(ctx, pt.pipe, pt.calls, pt.cmds, true)
		}()
	}
	if len(fb.rest.calls) > 0 {
		b.exec(ctx, fb.rest.pipe, fb.rest.calls, fb.rest.cmds, false)
	}
	wg.Wait()
	for j, i := range fb.rest.idx {
		cmds[i] = fb.rest.cmds[j]
	}
	moved := false
	for _, pt := range fb.parts {
		for j, i := range pt.idx {
			cmds[i] = pt.cmds[j]
			err := cmds[i].Err()
			moved = moved || redis.HasErrorPrefix(err, "MOVED") || redis.HasErrorPrefix(err, "ASK")
			if !pt.acked {
				unconfirmed(cmds[i])
			}
		}
	}
	if moved {
		b.cluster.ReloadState(ctx)
	}
	// The calls are their callers' again.
	fb.rest.reset()
	for _, pt := range fb.parts {
		pt.reset()
	}
	clear(fb.parts)
	fb.parts = fb.parts[:0]
}

// hasAppend reports whether some of the calls are appends.
func hasAppend(calls []*appendCall) bool {
	for _, call := range calls {
		if call.a != nil {
			return true
		}
	}
	return false
}

// notReplicated fails the calls' appends with ErrNotReplicated, whatever
// their replies: no reply of a batch no replica confirmed may be taken for
// what the log holds after a failover (a SEQCONFLICT, say, would send the
// caller to read the entry back from the master).
func notReplicated(calls []*appendCall, cmds []*redis.Cmd) {
	for i, call := range calls {
		if call.a != nil && cmds[i] != nil {
			unconfirmed(cmds[i])
		}
	}
}

// unconfirmed fails an append of a batch no replica confirmed with
// ErrNotReplicated, unless it failed without a reply from Redis (a dead
// connection), whose error says more.
func unconfirmed(cmd *redis.Cmd) {
	var reply redis.Error
	if err := cmd.Err(); err == nil || errors.As(err, &reply) {
		cmd.SetErr(ErrNotReplicated)
	}
}

// replicaWait is WAIT's timeout on the client: ReplicaTimeout, or half
// the client's read timeout if that is shorter, and at least 1 ms (WAIT
// takes 0 for "forever").
func replicaWait(c redis.UniversalClient) time.Duration {
	var read time.Duration
	switch c := c.(type) {
	case *redis.Client:
		read = c.Options().ReadTimeout
	case *redis.ClusterClient:
		read = c.Options().ReadTimeout
	}
	d := ReplicaTimeout
	if read > 0 {
		d = min(d, read/2)
	}
	return max(d, time.Millisecond)
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
		if !call.hasDeadline {
			return context.Background(), func() {}
		}
		if call.deadline.After(latest) {
			latest = call.deadline
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
	if !b.closed {
		b.closed = true
		close(b.closing)
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// Close stops the store: Append then fails with ErrClosed (which matches
// match.ErrUnavailable) at once. Close waits until every append already
// queued has its answer. It does not close the Redis client, and the
// other methods still work.
func (s *Store) Close() error {
	s.batch.close()
	return nil
}
