package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// dropProxy forwards connections to a Redis server and, now and then, loses
// the reply to a script run: the server has run the script, the client sees
// its connection close, and go-redis sends the command again.
type dropProxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	rng     *rand.Rand
	p       float64 // the chance to drop a script's reply
	dropped bool    // the last script reply was dropped: forward the next
	conns   map[net.Conn]struct{}
	closed  bool

	drops   atomic.Int64
	scripts atomic.Int64
	wg      sync.WaitGroup
}

func startDropProxy(t *testing.T, target string, p float64, seed uint64) *dropProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	px := &dropProxy{ln: ln, target: target, rng: rand.New(rand.NewPCG(seed, 1)), p: p, conns: map[net.Conn]struct{}{}}
	px.wg.Add(1)
	go px.serve()
	t.Cleanup(px.close)
	return px
}

func (px *dropProxy) addr() string { return px.ln.Addr().String() }

func (px *dropProxy) close() {
	px.ln.Close()
	px.mu.Lock()
	px.closed = true
	for c := range px.conns {
		c.Close()
	}
	px.mu.Unlock()
	px.wg.Wait()
}

func (px *dropProxy) track(cs ...net.Conn) bool {
	px.mu.Lock()
	defer px.mu.Unlock()
	if px.closed {
		return false
	}
	for _, c := range cs {
		px.conns[c] = struct{}{}
	}
	return true
}

func (px *dropProxy) untrack(cs ...net.Conn) {
	px.mu.Lock()
	defer px.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(px.conns, c)
	}
}

// drop decides whether to lose a script's reply; never two in a row, so a
// retried command gets through.
func (px *dropProxy) drop() bool {
	px.mu.Lock()
	defer px.mu.Unlock()
	if px.dropped {
		px.dropped = false
		return false
	}
	px.dropped = px.rng.Float64() < px.p
	return px.dropped
}

func (px *dropProxy) serve() {
	defer px.wg.Done()
	for {
		client, err := px.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", px.target)
		if err != nil {
			client.Close()
			continue
		}
		if !px.track(client, server) {
			client.Close()
			server.Close()
			return
		}
		var script atomic.Bool // a script's reply is due on this connection
		px.wg.Add(2)
		go func() { // client to server
			defer px.wg.Done()
			defer px.untrack(client, server)
			buf := make([]byte, 64<<10)
			for {
				n, err := client.Read(buf)
				if n > 0 {
					low := bytes.ToLower(buf[:n])
					if bytes.Contains(low, []byte("\r\nevalsha\r\n")) || bytes.Contains(low, []byte("\r\neval\r\n")) {
						script.Store(true) // before the server can answer
						px.scripts.Add(1)
					}
					if _, err := server.Write(buf[:n]); err != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
		go func() { // server to client
			defer px.wg.Done()
			defer px.untrack(client, server)
			buf := make([]byte, 64<<10)
			for {
				n, err := server.Read(buf)
				if n > 0 {
					if script.Swap(false) && px.drop() {
						px.drops.Add(1)
						return // the script ran; its reply is lost with the connection
					}
					if _, err := client.Write(buf[:n]); err != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

// TestLostReplies appends through a proxy that loses nearly a third of the
// scripts' replies (thousands of them): go-redis resends each such command and the store
// answers the resend as a retry, so every append succeeds once and every
// seq is in the log exactly once.
func TestLostReplies(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	px := startDropProxy(t, srv.Addr(), 0.3, 42)
	c := redis.NewClient(&redis.Options{
		Addr: px.addr(), MaxRetries: 10, MinRetryBackoff: time.Millisecond, MaxRetryBackoff: 5 * time.Millisecond,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
	})
	t.Cleanup(func() { c.Close() })
	prefix := redistest.Prefix(t)
	// No linger: a batch a round trip, so that thousands of them lose
	// their replies (the proxy drops a connection's replies, not one).
	s := redisstore.New(c, redisstore.Config{Prefix: prefix, Linger: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	const players, moves = 8, 1500
	errs := make(chan error, players)
	var wg sync.WaitGroup
	for p := range players {
		wg.Go(func() {
			id := fmt.Sprintf("p%d", p)
			for seq := 1; seq <= moves; seq++ {
				if err := s.Append(ctx, "r", 0, entry(seq), standing(id, seq)); err != nil {
					errs <- fmt.Errorf("%s seq %d: %w", id, seq, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if px.drops.Load() < 1000 {
		t.Fatalf("the proxy dropped %d replies of %d scripts, want thousands", px.drops.Load(), px.scripts.Load())
	}
	t.Logf("%d appends, %d script runs, %d replies lost", players*moves, px.scripts.Load(), px.drops.Load())

	// Read straight from the server, not through the proxy.
	direct := srv.Client(t)
	check := redisstore.New(direct, redisstore.Config{Prefix: prefix})
	for p := range players {
		id := fmt.Sprintf("p%d", p)
		log, err := check.Log(ctx, "r", id)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) != moves {
			t.Fatalf("%s: %d entries, want %d", id, len(log), moves)
		}
		for i, e := range log {
			if e != entry(i+1) {
				t.Fatalf("%s: entry %d is %+v, want %+v", id, i+1, e, entry(i+1))
			}
		}
	}
	sts, err := check.Standings(ctx, "r")
	if err != nil || len(sts) != players {
		t.Fatalf("Standings: %v, %v", sts, err)
	}
	for _, st := range sts {
		if st.Moves != moves {
			t.Fatalf("standing %+v, want %d moves", st, moves)
		}
	}
	if _, err := s.Log(ctx, "unknown", "p"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("Log of an unknown round through the proxy: %v", err)
	}
}
