package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// echoLog is the echo server's move log in Redis (--echo-redis): the least
// a durable move costs, for the baseline of the Redis store. Each move is
// one RPUSH of "seq|move" to its player's list, and the echo answers only
// when the RPUSH's reply has come: group commit, as the premise
// measured it, without the store's checks (no epoch, no sequence check, no
// standing). While one pipeline is out, the moves that arrive wait and go
// together in the next, so a busy echo sends fewer, larger pipelines; a
// player's list gets the TTL with its first entry.
type echoLog struct {
	c      *redis.Client
	prefix string

	mu      sync.Mutex
	queue   []*echoEntry
	sending bool // a flusher is running
}

var _ moveLog = (*echoLog)(nil)

type echoEntry struct {
	key   string
	entry string
	first bool // the player's first: the list gets the TTL
	done  chan error
}

// echoLogTTL is how long an echo's lists live after their first entry.
const echoLogTTL = time.Hour

// openEchoLog connects to the Redis at url (as embedded.OpenRedis does: the
// same timeouts) under a prefix of its own.
func openEchoLog(url string) (*echoLog, error) {
	c, err := dialRedis(url)
	if err != nil {
		return nil, err
	}
	return &echoLog{c: c, prefix: fmt.Sprintf("klondike-loadtest-echo:%d:", time.Now().UnixNano())}, nil
}

// key is the player's list.
func (l *echoLog) key(player string) string { return l.prefix + player }

// append logs the player's move and returns when Redis has answered.
func (l *echoLog) append(player string, seq int, move string) error {
	e := &echoEntry{key: l.key(player), entry: strconv.Itoa(seq) + "|" + move, first: seq == 1, done: make(chan error, 1)}
	l.mu.Lock()
	l.queue = append(l.queue, e)
	if !l.sending {
		l.sending = true
		go l.flush()
	}
	l.mu.Unlock()
	return <-e.done
}

// flush sends what is queued, a pipeline at a time, until the queue is
// empty.
func (l *echoLog) flush() {
	p := l.c.Pipeline()
	var cmds []*redis.IntCmd
	for {
		l.mu.Lock()
		batch := l.queue
		l.queue = nil
		if len(batch) == 0 {
			l.sending = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmds = cmds[:0]
		for _, e := range batch {
			cmds = append(cmds, p.RPush(ctx, e.key, e.entry))
			if e.first {
				p.PExpire(ctx, e.key, echoLogTTL)
			}
		}
		_, _ = p.Exec(ctx)
		cancel()
		for i, e := range batch {
			e.done <- cmds[i].Err()
		}
	}
}

// close closes the client.
func (l *echoLog) close() { l.c.Close() }
